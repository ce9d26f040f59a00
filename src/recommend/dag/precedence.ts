/**
 * Which of two tools tends to come first, learned from the recorded workflows: for every
 * recorded sequence and every pair of distinct tools in it, the earlier one's first occurrence
 * counts as "before". With a Laplace prior,
 *
 *   P(a before b) = (before(a, b) + 1) / (before(a, b) + before(b, a) + 2)
 *
 * so an unseen pair is a coin flip. Only pairs within WINDOW steps of each other count: that
 * bounds the index at O(length x WINDOW) per sequence, and far-apart steps say little about
 * how two tools relate.
 *
 * Many pairs are recorded in both orders, and which comes first depends on the request. So
 * the same counts over the intent's similar past tasks (kNN weights, similar-intents.ts)
 * decide first, with the global probability as a weak prior:
 *
 *   P(a before b | intent) = (near(a, b) + k P(a before b)) / (near(a, b) + near(b, a) + k)
 *
 * Built once per model (the first DAG request after a rebuild), then O(1) per pair; the
 * neighbours' counts per request, over the chosen tools only.
 */
import type { RecommenderModel } from '../model.js';
import type { PastTask } from './workflow-length.js';

export const WINDOW = 16;

export interface Precedence {
  /** before(a, b) by `a * n + b`. */
  readonly counts: ReadonlyMap<number, number>;
  readonly n: number;
}

const cache = new WeakMap<RecommenderModel, Precedence>();

export function precedenceOf(model: RecommenderModel): Precedence {
  let index = cache.get(model);
  if (index === undefined) {
    index = buildPrecedence(model.graph.n, model.text.memory.sequenceStart, model.text.memory.sequenceTools);
    cache.set(model, index);
  }
  return index;
}

export function buildPrecedence(n: number, start: Int32Array, tools: Int32Array): Precedence {
  const counts = new Map<number, number>();
  const first = new Map<number, number>();
  for (let j = 0; j + 1 < start.length; j++) countSequence(counts, n, first, tools, start[j]!, start[j + 1]!, 1, null);
  return { counts, n };
}

/**
 * The same counts over the intent's most similar past tasks only, each weighted by its kNN
 * weight (similar-intents.ts), for the given tools: two tools recorded in both orders are
 * often ordered by what the request asks for (UltraTool's validation split: of 272 two-tool
 * workflows whose tools were chosen right, all pairs seen in training, 56 were ordered wrong by
 * the global counts).
 */
export function neighbourPrecedence(model: RecommenderModel, neighbours: readonly PastTask[], tools: readonly number[]): Precedence {
  const n = model.graph.n;
  const wanted = new Set(tools);
  const counts = new Map<number, number>();
  const first = new Map<number, number>();
  for (const { tools: sequence, weight } of neighbours) countSequence(counts, n, first, sequence, 0, sequence.length, weight, wanted);
  return { counts, n };
}

/** Adds `weight` to before(a, b) for the first occurrences of tools[from .. to) (only `wanted` ones, if given). */
function countSequence(
  counts: Map<number, number>,
  n: number,
  first: Map<number, number>,
  tools: ArrayLike<number>,
  from: number,
  to: number,
  weight: number,
  wanted: ReadonlySet<number> | null,
): void {
  first.clear();
  for (let p = from; p < to; p++) {
    const t = tools[p]!;
    if ((wanted === null || wanted.has(t)) && !first.has(t)) first.set(t, p);
  }
  // Map order is insertion order: by first position already.
  const entries = [...first];
  for (let x = 0; x < entries.length; x++) {
    for (let y = x + 1; y < entries.length && entries[y]![1] - entries[x]![1] <= WINDOW; y++) {
      const key = entries[x]![0] * n + entries[y]![0];
      counts.set(key, (counts.get(key) ?? 0) + weight);
    }
  }
}

/**
 * Strength of the global order as the prior of the neighbours' order, in kNN weight (the
 * closest neighbour weighs 1): a tenth, so the neighbours decide any pair they have seen and
 * the global counts the rest. Chosen on the validation split (train's held-out quarter):
 * UltraTool edge-F1 0.479 at 1, 0.486 at 0.1 and at 0.001; NESTFUL 0.300 at all three.
 */
export const GLOBAL_PRIOR_WEIGHT = 0.1;

export function probabilityBefore(index: Precedence, a: number, b: number, near?: Precedence): number {
  const ab = index.counts.get(a * index.n + b) ?? 0;
  const ba = index.counts.get(b * index.n + a) ?? 0;
  const global = (ab + 1) / (ab + ba + 2);
  if (near === undefined) return global;
  const nab = near.counts.get(a * index.n + b) ?? 0;
  const nba = near.counts.get(b * index.n + a) ?? 0;
  return (nab + GLOBAL_PRIOR_WEIGHT * global) / (nab + nba + GLOBAL_PRIOR_WEIGHT);
}
