/**
 * The intent association's model as plain data (intent-association.ts builds it from scratch,
 * intent-counts.ts from counts kept across rebuilds), and the per-tool terms of its naive-Bayes
 * score, which both compute alike.
 */
import type { Bm25Index } from './bm25.js';

/** Plain data: typed arrays, a string array and numbers. */
export interface IntentModel {
  readonly nTools: number;
  readonly smoothing: number;
  /** Sorted distinct intent tokens; a token's id is its position (shared with `examples`). */
  readonly terms: readonly string[];
  /** Traces that credited each tool. */
  readonly evidence: Float64Array;
  /** log n(t) - log sum n, per tool; -Infinity for tools without evidence. */
  readonly logPrior: Float64Array;
  /** log(C(t) + alpha V), per tool. */
  readonly logDenominator: Float64Array;
  /** C(t): the tokens of the intents crediting each tool (RecentIntents adds to it). */
  readonly tokenTotal: Float64Array;
  /** CSR over token ids: the tools whose credited intents contain the token. */
  readonly postingStart: Int32Array;
  readonly postingTool: Int32Array;
  /**
   * log(1 + c(t,w) / alpha) of each posting: what the token adds to log P(w | t) over a token the
   * tool never saw, precomputed because a common token has a posting for most tools.
   */
  readonly postingWeight: Float64Array;
  /**
   * BM25 index over the intents of the training traces that called a tool, one document per
   * trace in input order, for the nearest-neighbour vote (intent-knn.ts).
   */
  readonly examples: Bm25Index;
  /** CSR: the distinct tools of example i are exampleTool[exampleToolStart[i] .. [i+1]). */
  readonly exampleToolStart: Int32Array;
  readonly exampleTool: Int32Array;
}

/**
 * The per-tool terms of the score: log n(t) - log sum n (-Infinity without evidence) and
 * log(C(t) + alpha V), from the evidence and token totals of every tool.
 */
export function toolLogTerms(evidence: Float64Array, tokenTotal: Float64Array, nTerms: number, smoothing: number): { logPrior: Float64Array; logDenominator: Float64Array } {
  const nTools = evidence.length;
  let totalEvidence = 0;
  for (let t = 0; t < nTools; t++) totalEvidence += evidence[t]!;
  const logPrior = new Float64Array(nTools);
  const logDenominator = new Float64Array(nTools);
  for (let t = 0; t < nTools; t++) {
    logPrior[t] = evidence[t]! > 0 ? Math.log(evidence[t]!) - Math.log(totalEvidence) : -Infinity;
    logDenominator[t] = Math.log(tokenTotal[t]! + smoothing * nTerms);
  }
  return { logPrior, logDenominator };
}
