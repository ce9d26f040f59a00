/**
 * How many steps a workflow for an intent should have, from the evidence: the weighted median
 * length of the most similar past tasks (similar-intents.ts: BM25 over recorded intents, the
 * kNN weights). The median, not the mean, because lengths are counts with a long tail and one
 * unusually long neighbour should not add a step to every suggestion.
 *
 * Returns null when no past task shares a term with the intent: then the caller falls back on
 * what the request itself says (its clauses).
 */
import { similarTasks, type SimilarScratch } from '../../text/similar-intents.js';
import type { TextModel } from '../../text/text-model.js';

export function similarTaskLength(text: TextModel, tokens: readonly string[], scratch: SimilarScratch): number | null {
  similarTasks(text.intent.examples, tokens, scratch);
  if (scratch.count === 0) return null;
  const { sequenceStart } = text.memory;
  const pairs: { length: number; weight: number }[] = [];
  let total = 0;
  for (let i = 0; i < scratch.count; i++) {
    const j = scratch.neighbours[i]!;
    const weight = scratch.weights[i]!;
    pairs.push({ length: sequenceStart[j + 1]! - sequenceStart[j]!, weight });
    total += weight;
  }
  pairs.sort((a, b) => a.length - b.length);
  let acc = 0;
  for (const p of pairs) {
    acc += p.weight;
    if (acc >= total / 2) return Math.max(1, p.length);
  }
  return Math.max(1, pairs[pairs.length - 1]!.length);
}
