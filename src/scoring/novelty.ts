/**
 * Novelty N of a trace (spec 000): how unlike the traces already contributed it is.
 *
 *   text = task.objective + ' ' + (step contents, a missing content as '', joined by ' ')
 *   N    = 0.5                                   when no embedder is configured or the cache
 *                                                holds no live vector
 *   N    = min(1, max(0, 1 - maxCos(embed(text), cache)))   otherwise
 *
 * The clamp is ours: spec 000 gives N the range [0, 1] but writes 1 - maxCos, which leaves it when
 * the best match has a negative cosine (possible with signed hashed features) or a float32
 * rounding puts a self-match a hair above 1.
 *
 * O(n d) for n cached vectors of length d (the cache scan); the embedding is the caller's.
 */
import type { ReasoningTrace } from '../schema/trace.js';
import type { VectorCache } from './vector-cache.js';

/** Why N has its value: compared against the cache, or the 0.5 fallback and its cause. */
export type NoveltySource = 'embedding' | 'no-embedder' | 'empty-cache';

export interface Novelty {
  readonly score: number;
  readonly source: NoveltySource;
  /** maxCos against the cache, or null when it was not computed. */
  readonly maxSimilarity: number | null;
}

/** The novelty fallback: the midpoint, neither novel nor familiar. */
export const NEUTRAL_NOVELTY = 0.5;

/** The text spec 000 embeds: the objective, then every step's content. O(total text length). */
export function noveltyText(trace: ReasoningTrace): string {
  const parts: string[] = [trace.task.objective];
  for (const step of trace.steps) parts.push(step.content ?? '');
  return parts.join(' ');
}

/** The 0.5 fallback, with its cause. */
export function neutralNovelty(source: Exclude<NoveltySource, 'embedding'>): Novelty {
  return { score: NEUTRAL_NOVELTY, source, maxSimilarity: null };
}

/** N for the embedding of a trace's noveltyText against the cache (0.5 when it holds no live vector). */
export function noveltyScore(embedding: Float32Array, cache: VectorCache): Novelty {
  // Checked here, not only by the caller: a TTL can expire the last entry while the embedder runs.
  if (cache.size === 0) return neutralNovelty('empty-cache');
  const maxSimilarity = cache.maxCosineSimilarity(embedding);
  return { score: Math.min(1, Math.max(0, 1 - maxSimilarity)), source: 'embedding', maxSimilarity };
}
