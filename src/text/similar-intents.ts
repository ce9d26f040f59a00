/**
 * Memory of past tasks: each recorded successful trace's tool sequence, aligned with the intent
 * model's BM25 index over the same traces' intents, so a new intent can ask "in the most similar
 * past tasks, which tools were used, and which tool followed this one?".
 *
 *   w_j                  = (BM25(query, intent_j) / max_j' BM25(query, intent_j'))^p, top k only
 *   similarTool(c)       = sum_j w_j [c in trace j]      / sum_j w_j
 *   similarNext(c | a)   = sum_j w_j [a -> c in trace j] / sum_j w_j [a in trace j]
 *
 * This is k-nearest-neighbour evidence (intent-knn.ts scores tools the same way): unlike the
 * naive-Bayes association it keeps which tools went together, and in what order, in one task.
 * k and p are the intent kNN's cross-validated defaults (k = 30, p = 4).
 *
 * Complexity: one BM25 pass over the intents (O(postings of the query terms) + O(N)), a top-k
 * insertion O(N k) worst case, and O(k * trace length) to accumulate.
 */
import type { Bm25Index } from './bm25.js';
import { scoreBm25 } from './bm25.js';
import { INTENT_KNN_DEFAULTS } from './intent-knn.js';

export const NEIGHBOURS = INTENT_KNN_DEFAULTS.k;
const POWER = INTENT_KNN_DEFAULTS.power;

export interface IntentMemory {
  /** Tool sequences of the remembered traces: sequenceTools[sequenceStart[j] .. sequenceStart[j+1]). */
  readonly sequenceStart: Int32Array;
  readonly sequenceTools: Int32Array;
}

export function buildIntentMemory(sequences: readonly (readonly number[])[]): IntentMemory {
  const sequenceStart = new Int32Array(sequences.length + 1);
  for (let j = 0; j < sequences.length; j++) sequenceStart[j + 1] = sequenceStart[j]! + sequences[j]!.length;
  const sequenceTools = new Int32Array(sequenceStart[sequences.length]!);
  sequences.forEach((sequence, j) => sequenceTools.set(sequence, sequenceStart[j]!));
  return { sequenceStart, sequenceTools };
}

/** Scratch for `similarTasks`: reuse one per model. */
export class SimilarScratch {
  readonly scores: Float64Array;
  readonly neighbours = new Int32Array(NEIGHBOURS);
  readonly weights = new Float64Array(NEIGHBOURS);
  count = 0;

  constructor(tasks: number) {
    this.scores = new Float64Array(tasks);
  }
}

/**
 * Finds the k most similar remembered tasks by BM25 over `intents` (the index whose document j
 * is task j's intent); fills `scratch.neighbours/weights/count`, best first.
 */
export function similarTasks(intents: Bm25Index, tokens: readonly string[], scratch: SimilarScratch): void {
  scratch.count = 0;
  const n = intents.nDocs;
  if (n === 0) return;
  scoreBm25(intents, tokens, scratch.scores);
  const { neighbours, weights, scores } = scratch;
  let count = 0;
  for (let j = 0; j < n; j++) {
    const s = scores[j]!;
    if (s <= 0) continue;
    if (count === NEIGHBOURS && s <= weights[count - 1]!) continue;
    let i = count < NEIGHBOURS ? count++ : NEIGHBOURS - 1;
    while (i > 0 && weights[i - 1]! < s) {
      weights[i] = weights[i - 1]!;
      neighbours[i] = neighbours[i - 1]!;
      i--;
    }
    weights[i] = s;
    neighbours[i] = j;
  }
  const max = count > 0 ? weights[0]! : 0;
  for (let i = 0; i < count; i++) weights[i] = Math.pow(weights[i]! / max, POWER);
  scratch.count = count;
}
