/**
 * The `seed` profile: spec 003 section 3 as written, kept so evaluations can show it beside
 * the fitted default.
 *
 *   toolScore = 0.5 * cooccurrence + 0.25 * communityBoost + 0.15 * adamicAdar + 0.1 * pageRank
 *
 *   cooccurrence   = min(0.95, w + min(0.05 * log2(count + 1), 0.2))   (3.2; 0 without an edge)
 *   communityBoost = min(0.95, 0.4 + min(2 * pr, 0.2) + min(0.25 * w, 0.25) + min(0.1 * aa, 0.1))
 *                    when c shares the last tool's community, else 0                   (3.1)
 *   adamicAdar     = min(aa / 2, 1)                                                      (1.2)
 *   pageRank       = raw PageRank score (~1/N: the spec's weight on it is nearly void)
 *
 * where w = P1(c | last) is the edge's historical confidence and count its observations.
 * Untouched tools score 0.1 * pageRank.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import { F, S_COMMUNITY, S_TRANSITION, type FeatureScratch } from './features.js';
import type { LinearBackground } from './linear-profile.js';

/** The co-occurrence term (3.2) of an edge with confidence `w` and `count` observations. */
export function seedCooccurrence(w: number, count: number): number {
  return w > 0 ? Math.min(0.95, w + Math.min(0.05 * Math.log2(count + 1), 0.2)) : 0;
}

export function seedRowScore(graph: GraphSnapshot, scratch: FeatureScratch, r: number): number {
  const c = scratch.rowTool[r]!;
  const w = scratch.values[r * F + S_TRANSITION]!;
  const count = scratch.transitionCount[c]!;
  const aa = scratch.aaRaw[c]!;
  const pr = graph.pagerank[c]!;
  const cooccurrence = seedCooccurrence(w, count);
  const communityBoost =
    scratch.values[r * F + S_COMMUNITY]! > 0
      ? Math.min(0.95, 0.4 + Math.min(2 * pr, 0.2) + Math.min(0.25 * w, 0.25) + Math.min(0.1 * aa, 0.1))
      : 0;
  return 0.5 * cooccurrence + 0.25 * communityBoost + 0.15 * Math.min(aa / 2, 1) + 0.1 * pr;
}

export function scoreSeedRows(graph: GraphSnapshot, scratch: FeatureScratch, out: Float64Array): void {
  for (let r = 0; r < scratch.rows; r++) out[r] = seedRowScore(graph, scratch, r);
}

/** Background of the seed profile: 0.1 * PageRank, in the same shape as the linear one. */
export function seedBackground(graph: GraphSnapshot): LinearBackground {
  const n = graph.n;
  const score = new Float64Array(n);
  let max = -Infinity;
  for (let c = 0; c < n; c++) {
    score[c] = 0.1 * graph.pagerank[c]!;
    if (score[c]! > max) max = score[c]!;
  }
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => score[b]! - score[a]! || a - b);
  return { score, order, max, expSum: 0 };
}
