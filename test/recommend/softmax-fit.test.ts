import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { fitScale, fitSoftmax, type FitGroup, type FitQuery } from '../../src/recommend/softmax-fit.js';

const DIMS = 3;

/** A group of n tools whose background features are (0, 0, b_c), and queries that touch a few. */
function problem(trueW: number[], queries: number, seed: number): { groups: FitGroup[]; qs: FitQuery[]; dense: Float64Array[]; targets: number[] } {
  const rng = createRng(seed);
  const n = 30;
  const background = new Float64Array(n * DIMS);
  for (let c = 0; c < n; c++) background[c * DIMS + 2] = rng();
  const qs: FitQuery[] = [];
  const dense: Float64Array[] = [];
  const targets: number[] = [];
  for (let q = 0; q < queries; q++) {
    // Touch 5 distinct tools with random dynamic features.
    const tools = new Int32Array(5);
    const chosen = new Set<number>();
    while (chosen.size < 5) chosen.add(Math.floor(rng() * n));
    [...chosen].forEach((c, i) => (tools[i] = c));
    const rows = new Float64Array(5 * DIMS);
    const all = Float64Array.from(background);
    for (let r = 0; r < 5; r++) {
      rows[r * DIMS] = rng() * 2;
      rows[r * DIMS + 1] = rng();
      rows[r * DIMS + 2] = background[tools[r]! * DIMS + 2]!;
      for (let f = 0; f < DIMS; f++) all[tools[r]! * DIMS + f] = rows[r * DIMS + f]!;
    }
    // Sample the target from the true softmax over all n tools.
    const s = Array.from({ length: n }, (_, c) => trueW.reduce((acc, w, f) => acc + w * all[c * DIMS + f]!, 0));
    const m = Math.max(...s);
    const p = s.map((x) => Math.exp(x - m));
    const z = p.reduce((a, b) => a + b, 0);
    let u = rng() * z;
    let target = 0;
    while (target < n - 1 && (u -= p[target]!) > 0) target++;
    // Make sure the target has a row (the fitter's contract).
    let row = [...tools].indexOf(target);
    if (row < 0) {
      tools[0] = target;
      for (let f = 0; f < DIMS; f++) rows[f] = all[target * DIMS + f]!;
      row = 0;
    }
    qs.push({ group: 0, rows, tools, target: row });
    dense.push(all);
    targets.push(target);
  }
  return { groups: [{ background, n }], qs, dense, targets };
}

/** Mean softmax cross-entropy computed by brute force over all tools. */
function bruteLoss(w: readonly number[], dense: Float64Array[], targets: number[], n: number): number {
  let loss = 0;
  dense.forEach((all, q) => {
    const s = Array.from({ length: n }, (_, c) => w.reduce((acc, wf, f) => acc + wf * all[c * DIMS + f]!, 0));
    const m = Math.max(...s);
    loss += m + Math.log(s.reduce((a, x) => a + Math.exp(x - m), 0)) - s[targets[q]!]!;
  });
  return loss / dense.length;
}

describe('fitSoftmax', () => {
  it('computes the exact all-tools loss through the background trick', () => {
    const { groups, qs, dense, targets } = problem([1.5, -1, 2], 50, 1);
    // Rebuild each query's dense features from the background and its rows (a target swapped
    // into row 0 evicted that row's tool back to the background).
    qs.forEach((q, i) => {
      const all = Float64Array.from(groups[0]!.background);
      for (let r = 0; r < q.tools.length; r++) for (let f = 0; f < DIMS; f++) all[q.tools[r]! * DIMS + f] = q.rows[r * DIMS + f]!;
      dense[i] = all;
      targets[i] = q.tools[q.target]!;
    });
    const w = [0.3, 0.7, -0.2];
    const result = fitSoftmax(DIMS, groups, qs, w, { iterations: 0, l2: 0 });
    expect(result.initialLoss).toBeCloseTo(bruteLoss(w, dense, targets, 30), 10);
  });

  it('recovers the generating weights and lowers the loss', () => {
    const trueW = [1.5, -1, 2];
    const { groups, qs } = problem(trueW, 3000, 2);
    const result = fitSoftmax(DIMS, groups, qs, [0, 0, 0], { l2: 0 });
    expect(result.loss).toBeLessThan(result.initialLoss);
    for (let f = 0; f < DIMS; f++) expect(Math.abs(result.weights[f]! - trueW[f]!)).toBeLessThan(0.35);
  });

  it('fits a problem with features no row holds exactly as the problem without them', () => {
    // The same problem with two all-zero features put between its three (a search fills no
    // transition signal): the loops skip them, and what the others learn must not move.
    const { groups, qs } = problem([1.5, -1, 2], 500, 5);
    const WIDE = 5;
    const place = [0, 2, 4];
    const widen = (values: Float64Array): Float64Array => {
      const out = new Float64Array((values.length / DIMS) * WIDE);
      for (let r = 0; r < values.length / DIMS; r++) place.forEach((to, f) => (out[r * WIDE + to] = values[r * DIMS + f]!));
      return out;
    };
    const wideGroups = groups.map((g) => ({ background: widen(g.background), n: g.n }));
    const wideQs = qs.map((q) => ({ ...q, rows: widen(q.rows) }));
    const narrow = fitSoftmax(DIMS, groups, qs, [0.1, 0.2, 0.3]);
    const wide = fitSoftmax(WIDE, wideGroups, wideQs, [0.1, 0, 0.2, 0, 0.3]);
    expect(wide.weights).toEqual([narrow.weights[0], 0, narrow.weights[1], 0, narrow.weights[2]]);
    expect([wide.loss, wide.initialLoss, wide.iterations]).toEqual([narrow.loss, narrow.initialLoss, narrow.iterations]);
    expect(narrow.iterations).toBeGreaterThan(1);
  });

  it('returns the initial weights unchanged with no iterations', () => {
    const { groups, qs } = problem([1, 1, 1], 10, 3);
    expect(fitSoftmax(DIMS, groups, qs, [0.5, 0.25, 0], { iterations: 0 }).weights).toEqual([0.5, 0.25, 0]);
  });

  it('moves only the free weights, to the best of them with the others held', () => {
    const { groups, qs } = problem([1.5, -1, 2], 2000, 4);
    const initial = [0.2, 0.3, 0.4];
    const free = [false, false, true];
    const result = fitSoftmax(DIMS, groups, qs, initial, { l2: 0, free });
    expect(result.weights.slice(0, 2)).toEqual([0.2, 0.3]);
    expect(result.loss).toBeLessThan(result.initialLoss);
    // A minimum along the free axis: a step either way raises the loss.
    const at = (w2: number): number => fitSoftmax(DIMS, groups, qs, [0.2, 0.3, w2], { iterations: 0, l2: 0 }).loss;
    const w2 = result.weights[2]!;
    expect(w2).not.toBeCloseTo(0.4, 2);
    expect(at(w2 + 0.05)).toBeGreaterThan(result.loss);
    expect(at(w2 - 0.05)).toBeGreaterThan(result.loss);
  });
});

describe('fitScale', () => {
  it('recovers the temperature of a ranker whose weights are right up to a factor', () => {
    const trueW = [1.5, -1, 2];
    const { groups, qs } = problem(trueW, 3000, 5);
    // The same ranker, a thousand times too sure of itself, as the lexicographic rules are.
    const scale = fitScale(DIMS, groups, qs, trueW.map((w) => w * 1000));
    expect(scale * 1000).toBeGreaterThan(0.85);
    expect(scale * 1000).toBeLessThan(1.15);
    // The least loss along the ray: a step either way raises it.
    const loss = (f: number): number => fitSoftmax(DIMS, groups, qs, trueW.map((w) => w * 1000 * f), { iterations: 0, l2: 0 }).initialLoss;
    expect(loss(scale * 1.05)).toBeGreaterThan(loss(scale));
    expect(loss(scale / 1.05)).toBeGreaterThan(loss(scale));
    expect(loss(scale)).toBeLessThan(loss(1));
  });

  it('returns 1 when there is nothing to scale', () => {
    const { groups, qs } = problem([1, 1, 1], 10, 6);
    expect(fitScale(DIMS, groups, [], [1, 1, 1])).toBe(1);
    expect(fitScale(DIMS, groups, qs, [0, 0, 0])).toBe(1);
  });
});
