/**
 * The `default` profile: a log-linear (softmax) ranker over the signals of `features.ts`,
 *
 *   s(c) = sum_f w_f * t_f(x_f(c)),   P(c | query) = exp s(c) / sum_c' exp s(c')
 *
 * with t_f(x) = ln(EPSILON + x) for the probability-like signals (transition, second order,
 * intent, popularity: a product of experts, so the Markov and intent evidence multiply) and
 * t_f(x) = x for the others. The weights are fitted by `fit-weights.ts`; nothing here is tuned.
 *
 * Untouched tools have static signals only, so their scores are precomputed once per snapshot
 * and weight vector (`LinearBackground`), with their descending order and their exp-sum: a
 * query scores touched rows, merges them with the best untouched tools, and normalises exactly.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import { F, S_INTENT, S_PAGERANK, S_POPULARITY, SIGNALS, type FeatureScratch } from './features.js';

/** Floor inside the logarithm: a signal of 0 means "no evidence", not "impossible". */
export const EPSILON = 1e-3;

export const LOG_SIGNAL: readonly boolean[] = SIGNALS.map(
  (s) =>
    s === 'transition' ||
    s === 'secondOrder' ||
    s === 'intent' ||
    s === 'popularity',
);

/**
 * The intent posterior gets a much finer floor: a naive-Bayes posterior concentrates on one
 * tool, so the second tool an intent names typically sits at 1e-4..1e-8, where a 1e-3 floor
 * would erase it.
 */
export const INTENT_EPSILON = 1e-8;

export function transform(f: number, x: number): number {
  if (f === S_INTENT) return Math.log(INTENT_EPSILON + x);
  return LOG_SIGNAL[f] ? Math.log(EPSILON + x) : x;
}

export interface LinearBackground {
  /** Score of each tool when no dynamic signal touches it. */
  readonly score: Float64Array;
  /** Tool indices by descending background score. */
  readonly order: Int32Array;
  /** max of `score`, and sum of exp(score - max) over all tools. */
  readonly max: number;
  readonly expSum: number;
}

/**
 * `logFactor`: per tool, a log multiplier of its probability that holds whatever the query
 * (search's tool reliability, tool-reliability.ts); -Infinity excludes the tool. Touched rows
 * start from the background score, so it reaches them too.
 */
export function linearBackground(graph: GraphSnapshot, weights: readonly number[], logFactor?: Float64Array): LinearBackground {
  const n = graph.n;
  let constant = 0;
  for (let f = 0; f < F; f++) {
    if (f !== S_PAGERANK && f !== S_POPULARITY) constant += weights[f]! * transform(f, 0);
  }
  const score = new Float64Array(n);
  let max = -Infinity;
  for (let c = 0; c < n; c++) {
    const pop = graph.maxCalls > 0 ? graph.calls[c]! / graph.maxCalls : 0;
    const s =
      constant +
      weights[S_PAGERANK]! * transform(S_PAGERANK, graph.pagerankPercentile[c]!) +
      weights[S_POPULARITY]! * transform(S_POPULARITY, pop) +
      (logFactor === undefined ? 0 : logFactor[c]!);
    score[c] = s;
    if (s > max) max = s;
  }
  let expSum = 0;
  // Every tool excluded (max -Infinity): nothing has any probability.
  if (max > -Infinity) for (let c = 0; c < n; c++) expSum += Math.exp(score[c]! - max);
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => score[b]! - score[a]! || a - b);
  return { score, order, max, expSum };
}

/** t_f(0) per signal: most touched rows are zero in most signals, and a log costs more than a lookup. */
const AT_ZERO = Float64Array.from(SIGNALS, (_, f) => transform(f, 0));
/** The weighted dynamic signals of one call (static ones come from the background). */
const active = new Int32Array(F);

/**
 * Scores every touched row into `out[r]`: its tool's background score (static signals, and t_f(0)
 * for every other signal) plus w_f (t_f(x) - t_f(0)) for each weighted dynamic signal that is
 * non-zero. The same sum as scoring all signals, regrouped so that a row pays only for its
 * non-zero signals (rows touched through one signal are zero in most others).
 */
export function scoreLinearRows(scratch: FeatureScratch, weights: readonly number[], bg: LinearBackground, out: Float64Array): void {
  const { values, rowTool } = scratch;
  let m = 0;
  for (let f = 0; f < F; f++) if (weights[f] !== 0 && f !== S_PAGERANK && f !== S_POPULARITY) active[m++] = f;
  for (let r = 0; r < scratch.rows; r++) {
    let s = bg.score[rowTool[r]!]!;
    const base = r * F;
    for (let i = 0; i < m; i++) {
      const f = active[i]!;
      const x = values[base + f]!;
      if (x !== 0) s += weights[f]! * (transform(f, x) - AT_ZERO[f]!);
    }
    out[r] = s;
  }
}

/**
 * ln of the softmax normaliser over all tools, given touched row scores: the background
 * exp-sum minus the touched tools' background terms plus their real terms. When most tools are
 * touched the untouched remainder is summed directly to avoid cancellation.
 */
export function logNormaliser(scratch: FeatureScratch, rowScore: Float64Array, bg: LinearBackground): number {
  let max = bg.max;
  for (let r = 0; r < scratch.rows; r++) if (rowScore[r]! > max) max = rowScore[r]!;
  // No tool has any probability (a model of no tools, every one excluded): ln 0, not NaN.
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let r = 0; r < scratch.rows; r++) sum += Math.exp(rowScore[r]! - max);
  if (scratch.rows * 4 > scratch.n) {
    for (let c = 0; c < scratch.n; c++) if (scratch.rowOf[c]! < 0) sum += Math.exp(bg.score[c]! - max);
  } else {
    let rest = bg.expSum * Math.exp(bg.max - max);
    for (let r = 0; r < scratch.rows; r++) rest -= Math.exp(bg.score[scratch.rowTool[r]!]! - max);
    sum += Math.max(0, rest);
  }
  return max + Math.log(sum);
}
