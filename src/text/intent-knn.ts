/**
 * Intent-to-tool association by a nearest-neighbour vote: the recorded traces whose intents are
 * most similar to the query vote for the tools they called.
 *
 *   s_i     = BM25(query, intent of training trace i)
 *   N_k     = the k traces with the largest s_i > 0 (ties: earlier trace first)
 *   vote(t) = sum over i in N_k calling t of (s_i / max s)^p
 *   out[t]  = vote(t) / sum of votes
 *
 * Why next to naive Bayes: naive Bayes pools every intent of a tool into one bag of words, so a
 * tool used for many kinds of request gets a diffuse profile; the vote keeps each request whole
 * and lets a single close paraphrase decide. Scaling by the best neighbour makes p independent of
 * the query's length; p sharpens the vote towards the closest neighbours.
 *
 * Defaults k = 30, p = 4 were chosen by 5-fold cross-validation on the train splits of the four
 * public datasets (MRR; flat within 0.01 over k in 10..100, p in 2..8), never on a test split.
 * When no training intent shares a token with the query, the vote is empty and the scores fall
 * back to the prior n(t) / sum n, the same answer naive Bayes gives to an unknown query.
 *
 * Complexity: O(nExamples + postings of the query terms + nExamples log k + nTools) per query.
 *
 * Reference: Y. Yang, "An evaluation of statistical approaches to text categorization",
 * Information Retrieval 1(1-2), 1999 (kNN with similarity-weighted votes).
 */
import { ToolgraphError } from '../schema/errors.js';
import { scoreBm25 } from './bm25.js';
import type { IntentModel } from './intent-association.js';

export interface IntentKnnOptions {
  /** Neighbours that vote, an integer >= 1. Default 30. */
  readonly k?: number;
  /** Exponent on a neighbour's relative similarity, >= 0. Default 4. */
  readonly power?: number;
}

export const INTENT_KNN_DEFAULTS = { k: 30, power: 4 } as const;

/** Writes the neighbour vote for every tool into `out[0..nTools)`; sums to 1 when any tool has evidence. */
export function scoreIntentKnn(
  model: IntentModel,
  tokens: readonly string[],
  out: Float64Array,
  options: IntentKnnOptions = {},
): void {
  const k = options.k ?? INTENT_KNN_DEFAULTS.k;
  const power = options.power ?? INTENT_KNN_DEFAULTS.power;
  const nTools = model.nTools;
  if (out.length < nTools) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `scoreIntentKnn: out has length ${out.length}, expected at least ${nTools} (one slot per tool)`,
    );
  }
  if (!Number.isInteger(k) || k < 1) {
    throw new ToolgraphError('INVALID_INPUT', `scoreIntentKnn: k must be an integer >= 1, got ${k}`);
  }
  if (!Number.isFinite(power) || power < 0) {
    throw new ToolgraphError('INVALID_INPUT', `scoreIntentKnn: power must be a finite number >= 0, got ${power}`);
  }

  const nExamples = model.examples.nDocs;
  const similarity = new Float64Array(nExamples);
  scoreBm25(model.examples, tokens, similarity);

  // Bounded min-heap of the k best examples: the root is the weakest kept neighbour.
  const heap = new Int32Array(Math.min(k, nExamples));
  let size = 0;
  for (let i = 0; i < nExamples; i++) {
    if (similarity[i]! <= 0) continue;
    if (size < heap.length) {
      heap[size] = i;
      siftUp(heap, size, similarity);
      size++;
    } else if (weaker(heap[0]!, i, similarity)) {
      heap[0] = i;
      siftDown(heap, size, similarity);
    }
  }

  out.fill(0, 0, nTools);
  if (size === 0) {
    writePrior(model, out);
    return;
  }
  let best = 0;
  for (let h = 0; h < size; h++) best = Math.max(best, similarity[heap[h]!]!);
  const { exampleToolStart, exampleTool } = model;
  let total = 0;
  for (let h = 0; h < size; h++) {
    const i = heap[h]!;
    const weight = Math.pow(similarity[i]! / best, power);
    const end = exampleToolStart[i + 1]!;
    for (let p = exampleToolStart[i]!; p < end; p++) {
      out[exampleTool[p]!]! += weight;
      total += weight;
    }
  }
  for (let t = 0; t < nTools; t++) out[t]! /= total;
}

/** `a` ranks below `b`: lower similarity, or equal similarity and a later trace. */
function weaker(a: number, b: number, similarity: Float64Array): boolean {
  const sa = similarity[a]!;
  const sb = similarity[b]!;
  return sa < sb || (sa === sb && a > b);
}

function siftUp(heap: Int32Array, at: number, similarity: Float64Array): void {
  let child = at;
  while (child > 0) {
    const parent = (child - 1) >> 1;
    if (!weaker(heap[child]!, heap[parent]!, similarity)) break;
    const tmp = heap[child]!;
    heap[child] = heap[parent]!;
    heap[parent] = tmp;
    child = parent;
  }
}

function siftDown(heap: Int32Array, size: number, similarity: Float64Array): void {
  let parent = 0;
  for (;;) {
    const left = 2 * parent + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && weaker(heap[right]!, heap[left]!, similarity) ? right : left;
    if (!weaker(heap[child]!, heap[parent]!, similarity)) break;
    const tmp = heap[child]!;
    heap[child] = heap[parent]!;
    heap[parent] = tmp;
    parent = child;
  }
}

function writePrior(model: IntentModel, out: Float64Array): void {
  let total = 0;
  for (let t = 0; t < model.nTools; t++) total += model.evidence[t]!;
  if (total === 0) return;
  for (let t = 0; t < model.nTools; t++) out[t] = model.evidence[t]! / total;
}
