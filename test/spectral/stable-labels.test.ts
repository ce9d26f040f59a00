import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { bipartiteMatrix } from '../../src/spectral/bipartite-matrix.js';
import { coCluster } from '../../src/spectral/co-cluster.js';
import { stableLabels } from '../../src/spectral/stable-labels.js';
import { expectInvalidInput, plantedCapabilities } from './_helpers.js';

function concat(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

describe('stableLabels', () => {
  it('undoes a relabelling exactly', () => {
    const previous = [7, 7, 3, 3, 9, 9];
    const r = stableLabels(previous, [0, 0, 1, 1, 2, 2]);
    expect(Array.from(r.labels)).toEqual(previous);
    expect(Array.from(r.idOf)).toEqual([7, 3, 9]);
    expect([r.matched, r.nextFreshId]).toEqual([3, 10]);
  });

  it('keeps the id for the larger half of a split and gives the other half a fresh id (hand-computed)', () => {
    // Old cluster 0 = items 0..4 splits into new 0 = {0,1,2} and new 1 = {3,4}; old 1 = {5,6} stays as new 2.
    const r = stableLabels([0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 2, 2]);
    expect(Array.from(r.labels)).toEqual([0, 0, 0, 2, 2, 1, 1]);
    expect(r.matched).toBe(2);
    expect(r.nextFreshId).toBe(3);
  });

  it('maximises total overlap rather than matching greedily (the Hungarian assignment)', () => {
    // overlap: new0 ~ old A: 3, old B: 2; new1 ~ old A: 2, old B: 0. Greedy gives new0->A (3) and
    // new1 fresh (total 3); the optimum is new0->B, new1->A (total 4).
    const prev = [10, 10, 10, 20, 20, 10, 10];
    const next = [0, 0, 0, 0, 0, 1, 1];
    const r = stableLabels(prev, next);
    expect(Array.from(r.idOf)).toEqual([20, 10]);
    expect(r.matched).toBe(2);
  });

  it('matches each component of the overlap graph optimally: total overlap equals brute force on random labellings', () => {
    const rng = createRng(11);
    const best = (overlap: number[][], row: number, used: Set<number>): number => {
      if (row === overlap.length) return 0;
      let top = best(overlap, row + 1, used); // row left unmatched
      overlap[row]!.forEach((count, o) => {
        if (count === 0 || used.has(o)) return;
        used.add(o);
        top = Math.max(top, count + best(overlap, row + 1, used));
        used.delete(o);
      });
      return top;
    };
    for (let round = 0; round < 200; round++) {
      const k = 1 + Math.floor(rng() * 6);
      const l = 1 + Math.floor(rng() * 6);
      const items = 5 + Math.floor(rng() * 30);
      const previous = Array.from({ length: items }, () => Math.floor(rng() * (l + 1)) - 1);
      const next = Array.from({ length: items }, () => Math.floor(rng() * (k + 1)) - 1);
      const overlap = Array.from({ length: k }, () => new Array<number>(l).fill(0));
      for (let i = 0; i < items; i++) if (next[i]! >= 0 && previous[i]! >= 0) overlap[next[i]!]![previous[i]!]! += 1;
      const { idOf } = stableLabels(previous, next);
      let total = 0;
      idOf.forEach((id, c) => {
        if (id >= 0 && id < l) total += overlap[c]![id]!;
      });
      expect(total).toBe(best(overlap, 0, new Set()));
    }
  });

  it('gives a cluster of only new items a fresh id, never a retired one, and keeps -1', () => {
    // Items 3.. are new (previous is shorter); item 1 was isolated and still is.
    const r = stableLabels([4, -1, 4], [0, -1, 0, 1, 1], { firstFreshId: 12 });
    expect(Array.from(r.labels)).toEqual([4, -1, 4, 12, 12]);
    expect(r.nextFreshId).toBe(13);
    // Without firstFreshId, fresh ids start above the old ones.
    expect(Array.from(stableLabels([4, 4], [0, 1]).labels)).toEqual([4, 5]);
    // Nothing before: every cluster is fresh, from 0.
    expect(Array.from(stableLabels([], [1, 0, 1]).labels)).toEqual([1, 0, 1]);
    expect(stableLabels([], []).labels.length).toBe(0);
  });

  it('keeps ids across a perturbed rebuild of the co-clustering', () => {
    const p = plantedCapabilities({ tools: 1500, capabilities: 150, groups: 5, seed: 21 });
    const before = coCluster(bipartiteMatrix(p.capabilities, 1500).toolsByCapabilities, { seed: 1 });
    // Perturb: drop 5% of memberships and add as many random ones; a different seed too.
    const rng = createRng(99);
    const perturbed = p.capabilities.map((c) => ({ tools: c.tools.filter(() => rng() > 0.05) }));
    for (let e = 0; e < 600; e++) perturbed[Math.floor(rng() * 150)]!.tools.push(Math.floor(rng() * 1500));
    const after = coCluster(bipartiteMatrix(perturbed, 1500).toolsByCapabilities, { seed: 2 });
    expect(after.k).toBe(before.k);
    const prev = concat(before.toolClusters, before.capabilityClusters);
    const next = concat(after.toolClusters, after.capabilityClusters);
    const r = stableLabels(prev, next);
    let same = 0;
    for (let i = 0; i < prev.length; i++) if (r.labels[i] === prev[i]) same++;
    expect(same / prev.length).toBeGreaterThanOrEqual(0.95);
    expect(r.matched).toBe(before.k);
  });

  it('throws INVALID_INPUT for labels below -1 or not integers, and a bad firstFreshId', () => {
    expectInvalidInput(() => stableLabels([-2], [0]), 'stableLabels');
    expectInvalidInput(() => stableLabels([0], [0.5]), 'stableLabels');
    expectInvalidInput(() => stableLabels([0], [Number.NaN]), 'stableLabels');
    expectInvalidInput(() => stableLabels([0], [0], { firstFreshId: -1 }), 'stableLabels');
  });
});
