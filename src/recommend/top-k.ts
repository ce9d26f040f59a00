/**
 * Exact top-k over all tools from the touched rows' scores and the untouched tools' background
 * scores: touched rows are inserted one by one, then untouched tools are taken in background
 * order until no later one can enter. O(touched * k + k) after the per-snapshot sort.
 * Ties break by tool index so results are deterministic.
 */
import type { FeatureScratch } from './features.js';
import type { LinearBackground } from './linear-profile.js';

export interface TopK {
  readonly tools: Int32Array;
  readonly scores: Float64Array;
  size: number;
}

export function createTopK(k: number): TopK {
  return { tools: new Int32Array(k), scores: new Float64Array(k), size: 0 };
}

function better(score: number, tool: number, otherScore: number, otherTool: number): boolean {
  return score > otherScore || (score === otherScore && tool < otherTool);
}

function insert(top: TopK, tool: number, score: number): void {
  const k = top.tools.length;
  if (k === 0) return;
  if (top.size === k && !better(score, tool, top.scores[k - 1]!, top.tools[k - 1]!)) return;
  let i = top.size < k ? top.size++ : k - 1;
  while (i > 0 && better(score, tool, top.scores[i - 1]!, top.tools[i - 1]!)) {
    top.scores[i] = top.scores[i - 1]!;
    top.tools[i] = top.tools[i - 1]!;
    i--;
  }
  top.scores[i] = score;
  top.tools[i] = tool;
}

export function selectTopK(scratch: FeatureScratch, rowScore: Float64Array, bg: LinearBackground, top: TopK): void {
  top.size = 0;
  for (let r = 0; r < scratch.rows; r++) insert(top, scratch.rowTool[r]!, rowScore[r]!);
  const k = top.tools.length;
  const order = bg.order;
  for (let i = 0; i < order.length; i++) {
    const c = order[i]!;
    if (scratch.rowOf[c]! >= 0) continue;
    const s = bg.score[c]!;
    if (top.size === k && !better(s, c, top.scores[k - 1]!, top.tools[k - 1]!)) break;
    insert(top, c, s);
  }
}

/** Exact top-k of a dense score array over tools 0..n-1 (ties by tool index). O(n + m k). */
export function selectTopKDense(scores: Float64Array, n: number, top: TopK): void {
  top.size = 0;
  for (let c = 0; c < n; c++) insert(top, c, scores[c]!);
}
