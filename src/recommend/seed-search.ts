/**
 * Search's `seed` profile: spec 003 section 1 as written, kept so evaluations can show it beside
 * the fitted default (`toolgraph eval search --context`).
 *
 *   alpha      = max(0.5, 1 - 2 * density)                                           (1.1)
 *   graph(c)   = 1 when a context tool has a learned transition to c,
 *                else min(AA(context tool, c) / 2, 1), the best over the context tools (1.2)
 *   score(c)   = alpha * semantic(c) + (1 - alpha) * graph(c)                         (1.3)
 *
 * where density and alpha are the snapshot's (density.ts) and semantic(c) is the context-free
 * search's probability of c relative to the best tool's, in [0, 1] (the spec's semantic score is
 * a cosine; ours is the search ranker over the lexical, association and embedding signals, with
 * each tool's reliability). Without context there is no graph term and the score is semantic(c)
 * alone: alpha never scales a context-free search down.
 *
 * On the public datasets the learned graphs are sparse (density 0.0002-0.014), so alpha is
 * 0.971-0.9997 and the graph term is too small to bring the next step forward; the fitted
 * default weighs the graph by what held-out traces say instead (docs/decisions/results/search-with-context.md).
 */
import { adamicAdarFrom } from '../graph/adamic-adar.js';
import type { RecommenderModel } from './model.js';
import { scoreTouchedRows } from './score-rows.js';

/**
 * The seed score of every tool (model index order) after the context tools (model indices). Call
 * with `model.scratch` holding the context-free search's features of the query (collectFeatures
 * with no context and the search weights); the caller resets it. A tool the context-free search
 * leaves out (credibly failing) scores -Infinity.
 */
export function seedSearchScores(model: RecommenderModel, context: readonly number[]): Float64Array {
  const { graph, scratch, rowScore } = model;
  const n = graph.n;
  const out = new Float64Array(n);
  const bg = scoreTouchedRows(model, 'search', true, true);
  out.set(bg.score.subarray(0, n));
  for (let r = 0; r < scratch.rows; r++) out[scratch.rowTool[r]!] = rowScore[r]!;
  let best = -Infinity;
  for (let c = 0; c < n; c++) if (out[c]! > best) best = out[c]!;
  const alpha = context.length > 0 ? graph.alpha : 1;
  // exp(-Infinity - best) is 0, so an excluded tool would score like an unrelated one: keep it out.
  for (let c = 0; c < n; c++) out[c] = out[c] === -Infinity ? -Infinity : alpha * Math.exp(out[c]! - best);
  if (context.length === 0) return out;

  const graphScore = new Float64Array(n);
  // The scratch's Adamic-Adar buffers, all zero with no context collected; zeroed again after use.
  const aa = scratch.aaRaw;
  const touched = scratch.aaTouched;
  const { offsets, targets, weights } = graph.out;
  for (const u of context) {
    const count = adamicAdarFrom(graph.undirected, u, aa, touched);
    for (let i = 0; i < count; i++) {
      const c = touched[i]!;
      graphScore[c] = Math.max(graphScore[c]!, Math.min(aa[c]! / 2, 1));
      aa[c] = 0;
    }
    // A transition learned from successful traces (weight > 0): a failure alone is no edge.
    for (let j = offsets[u]!; j < offsets[u + 1]!; j++) if (weights[j]! > 0) graphScore[targets[j]!] = 1;
  }
  for (let c = 0; c < n; c++) out[c]! += (1 - alpha) * graphScore[c]!;
  return out;
}
