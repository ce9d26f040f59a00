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
import type { RecentIntents } from './recent-intents.js';
import { termId } from './vocabulary.js';

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
  /** Scores of the records since the model (similarTasksWithRecent), grown as needed. */
  recentScores = new Float64Array(0);
  /** Neighbours best first: task j, or for j >= the model's tasks, record j - tasks since the model. */
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
  selectNeighbours(scratch, scratch.scores, n, 0);
  weighNeighbours(scratch);
}

/**
 * similarTasks over the model's tasks and the records since the model (recent-intents.ts)
 * together, as a model rebuilt on all of them would find them: BM25 with the statistics of the
 * whole collection (document count, average length, each query term's document frequency), the
 * model's tasks first and the records after them in log order, so that ties go the same way.
 * With no record since the model it is similarTasks itself.
 */
export function similarTasksWithRecent(intents: Bm25Index, recent: RecentIntents, tokens: readonly string[], scratch: SimilarScratch): void {
  const records = recent.records;
  if (records.length === 0) {
    similarTasks(intents, tokens, scratch);
    return;
  }
  scratch.count = 0;
  const n = intents.nDocs;
  const m = records.length;
  const docs = n + m;
  const avgDocLength = (intents.avgDocLength * n + recent.tokenTotal) / docs;
  const { k1, b, postingStart, postingDoc, postingTf, docLength } = intents;
  const k1p1 = k1 + 1;
  // K(d) = k1 (1 - b + b |d| / avgdl) with the whole collection's average (bm25.ts).
  const lengthScale = avgDocLength > 0 ? (k1 * b) / avgDocLength : 0;
  const constant = avgDocLength > 0 ? k1 * (1 - b) : k1;
  const scores = scratch.scores;
  scores.fill(0, 0, n);
  if (scratch.recentScores.length < m) scratch.recentScores = new Float64Array(2 * m);
  const recentScores = scratch.recentScores;
  recentScores.fill(0, 0, m);
  const vocabulary = { terms: intents.terms };
  const first = recent.first;
  for (const token of tokens) {
    const v = termId(vocabulary, token);
    const held = recent.postings(token);
    const df = (v >= 0 ? postingStart[v + 1]! - postingStart[v]! : 0) + (held?.records.length ?? 0);
    if (df === 0) continue;
    const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
    if (v >= 0) {
      for (let p = postingStart[v]!; p < postingStart[v + 1]!; p++) {
        const d = postingDoc[p]!;
        const tf = postingTf[p]!;
        scores[d]! += (idf * tf * k1p1) / (tf + constant + lengthScale * docLength[d]!);
      }
    }
    if (held === undefined) continue;
    for (let k = 0; k < held.records.length; k++) {
      const r = held.records[k]! - first;
      const tf = held.tf[k]!;
      recentScores[r]! += (idf * tf * k1p1) / (tf + constant + lengthScale * records[r]!.length);
    }
  }
  selectNeighbours(scratch, scores, n, 0);
  selectNeighbours(scratch, recentScores, m, n);
  weighNeighbours(scratch);
}

/** Inserts documents offset + j of `scores[0 .. count)` into the scratch's top NEIGHBOURS (ties keep the earlier). */
function selectNeighbours(scratch: SimilarScratch, scores: Float64Array, count: number, offset: number): void {
  const { neighbours, weights } = scratch;
  let kept = scratch.count;
  for (let j = 0; j < count; j++) {
    const s = scores[j]!;
    if (s <= 0) continue;
    if (kept === NEIGHBOURS && s <= weights[kept - 1]!) continue;
    let i = kept < NEIGHBOURS ? kept++ : NEIGHBOURS - 1;
    while (i > 0 && weights[i - 1]! < s) {
      weights[i] = weights[i - 1]!;
      neighbours[i] = neighbours[i - 1]!;
      i--;
    }
    weights[i] = s;
    neighbours[i] = offset + j;
  }
  scratch.count = kept;
}

/** The kept neighbours' scores as kNN weights: (score / best)^p. */
function weighNeighbours(scratch: SimilarScratch): void {
  const { weights, count } = scratch;
  const max = count > 0 ? weights[0]! : 0;
  for (let i = 0; i < count; i++) weights[i] = Math.pow(weights[i]! / max, POWER);
}
