/**
 * How many steps a workflow for an intent should have, from the evidence: the weighted median
 * length of the most similar past tasks (similar-intents.ts: BM25 over recorded intents, the
 * kNN weights). The median, not the mean, because lengths are counts with a long tail and one
 * unusually long neighbour should not add a step to every suggestion.
 *
 * The neighbours are found once per request (similarPastTasks) and read by both the length and
 * the typical repeats of each tool; the length is null when no past task shares a term with the
 * intent: then the caller falls back on what the request itself says (its clauses).
 */
import { similarTasks, type SimilarScratch } from '../../text/similar-intents.js';
import type { TextModel } from '../../text/text-model.js';

export interface PastTask {
  /** Index of the remembered task (its sequence in text.memory). */
  readonly task: number;
  readonly weight: number;
}

/** The most similar remembered tasks, best first, copied out of the shared scratch. */
export function similarPastTasks(text: TextModel, tokens: readonly string[], scratch: SimilarScratch): PastTask[] {
  if (tokens.length === 0) return [];
  similarTasks(text.intent.examples, tokens, scratch);
  return Array.from({ length: scratch.count }, (_, i) => ({ task: scratch.neighbours[i]!, weight: scratch.weights[i]! }));
}

/** Weighted median of `values` (weights > 0), or null for none. */
export function weightedMedian(pairs: readonly { readonly value: number; readonly weight: number }[]): number | null {
  if (pairs.length === 0) return null;
  const sorted = [...pairs].sort((a, b) => a.value - b.value);
  const total = sorted.reduce((s, p) => s + p.weight, 0);
  let acc = 0;
  for (const p of sorted) {
    acc += p.weight;
    if (acc >= total / 2) return p.value;
  }
  return sorted[sorted.length - 1]!.value;
}

export function similarTaskLength(text: TextModel, neighbours: readonly PastTask[]): number | null {
  const { sequenceStart } = text.memory;
  const median = weightedMedian(neighbours.map((n) => ({ value: sequenceStart[n.task + 1]! - sequenceStart[n.task]!, weight: n.weight })));
  return median === null ? null : Math.max(1, median);
}
