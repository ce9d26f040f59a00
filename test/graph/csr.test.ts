import { describe, expect, it } from 'vitest';
import {
  csrEdgeCount,
  csrFromEdges,
  csrWeight,
  edgeOrder,
  symmetrizeCsr,
  transposeCsr,
  type Csr,
} from '../../src/graph/csr.js';
import { createRng } from '../../src/graph/rng.js';
import { expectInvalidInput, randomEdges, randomPermutation } from './_helpers.js';

/** Reference: the same graph as a Map keyed "s,t" with summed weights (the obvious O(m) dictionary). */
function edgeMap(sources: number[], targets: number[], weights?: number[]): Map<string, number> {
  const map = new Map<string, number>();
  for (let e = 0; e < sources.length; e++) {
    const key = `${sources[e]},${targets[e]}`;
    map.set(key, (map.get(key) ?? 0) + (weights ? weights[e]! : 1));
  }
  return map;
}

function csrToMap(csr: Csr): Map<string, number> {
  const map = new Map<string, number>();
  for (let u = 0; u < csr.n; u++) {
    for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) map.set(`${u},${csr.targets[p]}`, csr.weights[p]!);
  }
  return map;
}

function expectWellFormed(csr: Csr): void {
  expect(csr.offsets.length).toBe(csr.n + 1);
  expect(csr.offsets[0]).toBe(0);
  expect(csr.targets.length).toBe(csr.offsets[csr.n]);
  expect(csr.weights.length).toBe(csr.targets.length);
  for (let u = 0; u < csr.n; u++) {
    expect(csr.offsets[u + 1]!).toBeGreaterThanOrEqual(csr.offsets[u]!);
    for (let p = csr.offsets[u]! + 1; p < csr.offsets[u + 1]!; p++) {
      expect(csr.targets[p]!).toBeGreaterThan(csr.targets[p - 1]!);
    }
  }
}

describe('csrFromEdges', () => {
  it('builds sorted rows and sums duplicates (hand-computed)', () => {
    // Edges: 0->2 (1), 0->1 (2), 2->0 (4), 0->2 (3), 1->1 (5).
    // Row 0: [1 (2), 2 (1+3=4)]; row 1: [1 (5)] self-loop kept; row 2: [0 (4)]; row 3 empty.
    const csr = csrFromEdges(4, [0, 0, 2, 0, 1], [2, 1, 0, 2, 1], [1, 2, 4, 3, 5]);
    expect(csr.n).toBe(4);
    expect(Array.from(csr.offsets)).toEqual([0, 2, 3, 4, 4]);
    expect(Array.from(csr.targets)).toEqual([1, 2, 1, 0]);
    expect(Array.from(csr.weights)).toEqual([2, 4, 5, 4]);
    expect(csrEdgeCount(csr)).toBe(4);
  });

  it('defaults every weight to 1, so duplicates count occurrences', () => {
    const csr = csrFromEdges(3, [0, 0, 0, 1], [1, 1, 2, 0]);
    expect(Array.from(csr.targets)).toEqual([1, 2, 0]);
    expect(Array.from(csr.weights)).toEqual([2, 1, 1]);
  });

  it('handles the empty graph and nodes without edges', () => {
    const empty = csrFromEdges(0, [], []);
    expect(empty.n).toBe(0);
    expect(Array.from(empty.offsets)).toEqual([0]);
    expect(csrEdgeCount(empty)).toBe(0);
    const isolated = csrFromEdges(3, [], []);
    expect(Array.from(isolated.offsets)).toEqual([0, 0, 0, 0]);
  });

  it('accepts typed arrays as input', () => {
    const csr = csrFromEdges(3, Int32Array.of(2, 0), Int32Array.of(0, 1), Float64Array.of(0.5, 1.5));
    expect(csrToMap(csr)).toEqual(new Map([['0,1', 1.5], ['2,0', 0.5]]));
  });

  it('agrees with a dictionary reference on seeded random multigraphs', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { n, sources, targets, weights } = randomEdges(seed, 30, 300, { weighted: true, activeNodes: 25 });
      const csr = csrFromEdges(n, sources, targets, weights);
      expectWellFormed(csr);
      expect(csrToMap(csr)).toEqual(edgeMap(sources, targets, weights));
    }
  });

  it('does not depend on edge order', () => {
    const { n, sources, targets, weights } = randomEdges(5, 20, 200, { weighted: true });
    const order = randomPermutation(6, sources.length);
    const shuffled = csrFromEdges(
      n,
      Array.from(order, (e) => sources[e]!),
      Array.from(order, (e) => targets[e]!),
      Array.from(order, (e) => weights[e]!),
    );
    const original = csrFromEdges(n, sources, targets, weights);
    expect(Array.from(shuffled.offsets)).toEqual(Array.from(original.offsets));
    expect(Array.from(shuffled.targets)).toEqual(Array.from(original.targets));
    // Summation order differs, so compare to rounding.
    for (let p = 0; p < original.weights.length; p++) expect(shuffled.weights[p]).toBeCloseTo(original.weights[p]!, 12);
  });

  it('keeps zero weights as stored edges', () => {
    const csr = csrFromEdges(2, [0], [1], [0]);
    expect(csrEdgeCount(csr)).toBe(1);
    expect(csrWeight(csr, 0, 1)).toBe(0);
  });

  it('throws INVALID_INPUT for bad n, lengths, endpoints and weights', () => {
    for (const n of [-1, 1.5, Number.NaN]) expectInvalidInput(() => csrFromEdges(n, [], []), 'csrFromEdges');
    expectInvalidInput(() => csrFromEdges(3, [0, 1], [1]), 'csrFromEdges');
    expectInvalidInput(() => csrFromEdges(3, [0], [1], [1, 2]), 'csrFromEdges');
    for (const bad of [-1, 3, 0.5, Number.NaN]) {
      expectInvalidInput(() => csrFromEdges(3, [bad], [1]), 'csrFromEdges');
      expectInvalidInput(() => csrFromEdges(3, [1], [bad]), 'csrFromEdges');
    }
    for (const w of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectInvalidInput(() => csrFromEdges(3, [0], [1], [w]), 'csrFromEdges');
    }
  });
});

describe('transposeCsr', () => {
  it('reverses every edge (hand-computed)', () => {
    // 0->1 (2), 0->2 (4), 1->1 (5), 2->0 (4)  =>  1->0 (2), 2->0 (4), 1->1 (5), 0->2 (4).
    const csr = csrFromEdges(4, [0, 0, 1, 2], [1, 2, 1, 0], [2, 4, 5, 4]);
    const t = transposeCsr(csr);
    expect(Array.from(t.offsets)).toEqual([0, 1, 3, 4, 4]);
    expect(Array.from(t.targets)).toEqual([2, 0, 1, 0]);
    expect(Array.from(t.weights)).toEqual([4, 2, 5, 4]);
  });

  it('is an involution and matches building from reversed edges', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const { n, sources, targets, weights } = randomEdges(seed, 40, 250, { weighted: true, activeNodes: 35 });
      const csr = csrFromEdges(n, sources, targets, weights);
      const t = transposeCsr(csr);
      expectWellFormed(t);
      const reversed = csrFromEdges(n, targets, sources, weights);
      expect(Array.from(t.offsets)).toEqual(Array.from(reversed.offsets));
      expect(Array.from(t.targets)).toEqual(Array.from(reversed.targets));
      expect(csrToMap(t).size).toBe(csrToMap(reversed).size);
      for (const [key, w] of csrToMap(reversed)) expect(csrToMap(t).get(key)).toBeCloseTo(w, 12);
      const tt = transposeCsr(t);
      expect(Array.from(tt.targets)).toEqual(Array.from(csr.targets));
      expect(Array.from(tt.weights)).toEqual(Array.from(csr.weights));
    }
  });

  it('throws INVALID_INPUT for a malformed Csr', () => {
    const bad = { n: 3, offsets: new Int32Array(3), targets: new Int32Array(0), weights: new Float64Array(0) };
    expectInvalidInput(() => transposeCsr(bad), 'transposeCsr');
  });
});

describe('symmetrizeCsr', () => {
  it('adds both directions and drops self-loops (hand-computed)', () => {
    // 0->1 (2), 1->0 (3), 1->2 (1), 2->2 (7), 3->0 (1):
    // undirected {0,1}: 2+3 = 5, {1,2}: 1, {0,3}: 1, self-loop 2-2 dropped.
    const csr = csrFromEdges(4, [0, 1, 1, 2, 3], [1, 0, 2, 2, 0], [2, 3, 1, 7, 1]);
    const s = symmetrizeCsr(csr);
    expect(Array.from(s.offsets)).toEqual([0, 2, 4, 5, 6]);
    expect(Array.from(s.targets)).toEqual([1, 3, 0, 2, 1, 0]);
    expect(Array.from(s.weights)).toEqual([5, 1, 5, 1, 1, 1]);
    expect(csrEdgeCount(s)).toBe(6); // three undirected edges, stored twice
  });

  it('is symmetric, loop-free, and agrees with a dictionary reference', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const { n, sources, targets, weights } = randomEdges(seed, 30, 200, { weighted: true, activeNodes: 26 });
      const s = symmetrizeCsr(csrFromEdges(n, sources, targets, weights));
      expectWellFormed(s);
      const expected = new Map<string, number>();
      for (let e = 0; e < sources.length; e++) {
        const a = sources[e]!;
        const b = targets[e]!;
        if (a === b) continue;
        for (const key of [`${a},${b}`, `${b},${a}`]) expected.set(key, (expected.get(key) ?? 0) + weights[e]!);
      }
      const actual = csrToMap(s);
      expect(actual.size).toBe(expected.size);
      for (const [key, w] of expected) expect(actual.get(key)).toBeCloseTo(w, 12);
      for (let u = 0; u < n; u++) {
        expect(csrWeight(s, u, u)).toBe(0);
        for (let v = 0; v < n; v++) expect(csrWeight(s, u, v)).toBe(csrWeight(s, v, u));
      }
      // Idempotent up to doubling: the symmetrized view of a symmetric graph doubles each weight.
      const again = symmetrizeCsr(s);
      expect(Array.from(again.targets)).toEqual(Array.from(s.targets));
      for (let p = 0; p < s.weights.length; p++) expect(again.weights[p]).toBe(2 * s.weights[p]!);
    }
  });

  it('takes a transpose the caller already has, with the same result, and refuses one of another size', () => {
    const { n, sources, targets, weights } = randomEdges(4, 30, 200, { weighted: true });
    const csr = csrFromEdges(n, sources, targets, weights);
    expect(symmetrizeCsr(csr, transposeCsr(csr))).toEqual(symmetrizeCsr(csr));
    expectInvalidInput(() => symmetrizeCsr(csr, transposeCsr(csrFromEdges(n, [0], [1]))), 'symmetrizeCsr');
  });

  it('commutes with relabelling the nodes', () => {
    const { n, sources, targets, weights } = randomEdges(11, 25, 150, { weighted: true });
    const perm = randomPermutation(12, n);
    const s = symmetrizeCsr(csrFromEdges(n, sources, targets, weights));
    const sp = symmetrizeCsr(
      csrFromEdges(n, sources.map((u) => perm[u]!), targets.map((v) => perm[v]!), weights),
    );
    for (let u = 0; u < n; u++) {
      for (let v = 0; v < n; v++) expect(csrWeight(sp, perm[u]!, perm[v]!)).toBeCloseTo(csrWeight(s, u, v), 12);
    }
  });

  it('handles the empty graph', () => {
    const s = symmetrizeCsr(csrFromEdges(0, [], []));
    expect(s.n).toBe(0);
    expect(csrEdgeCount(s)).toBe(0);
  });

  it('throws INVALID_INPUT for a malformed Csr', () => {
    const bad = { n: 1, offsets: Int32Array.of(0, 2), targets: Int32Array.of(0), weights: Float64Array.of(1) };
    expectInvalidInput(() => symmetrizeCsr(bad), 'symmetrizeCsr');
  });
});

describe('csrWeight', () => {
  it('finds every stored weight and returns 0 for absent edges', () => {
    const { n, sources, targets, weights } = randomEdges(21, 15, 60, { weighted: true });
    const csr = csrFromEdges(n, sources, targets, weights);
    const reference = edgeMap(sources, targets, weights);
    for (let u = 0; u < n; u++) {
      for (let v = 0; v < n; v++) expect(csrWeight(csr, u, v)).toBeCloseTo(reference.get(`${u},${v}`) ?? 0, 12);
    }
  });

  it('throws INVALID_INPUT for indexes outside [0, n)', () => {
    const csr = csrFromEdges(2, [0], [1]);
    for (const bad of [-1, 2, 0.5, Number.NaN]) {
      expectInvalidInput(() => csrWeight(csr, bad, 0), 'csrWeight');
      expectInvalidInput(() => csrWeight(csr, 0, bad), 'csrWeight');
    }
  });
});

describe('edgeOrder', () => {
  /** Distinct random pairs over n nodes, in random order. */
  function distinctPairs(rng: () => number, n: number, m: number): [number, number][] {
    const seen = new Set<number>();
    const pairs: [number, number][] = [];
    while (pairs.length < m) {
      const s = Math.floor(rng() * n);
      const t = Math.floor(rng() * n);
      if (!seen.has(s * n + t)) {
        seen.add(s * n + t);
        pairs.push([s, t]);
      }
    }
    return pairs;
  }

  it('lays out distinct edges as csrFromEdges does, sorted or not, with a tail or without', () => {
    const rng = createRng(21);
    const n = 40;
    const pairs = distinctPairs(rng, n, 600);
    const sorted = [...pairs].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const cases: [number, number][][] = [
      [],
      pairs.slice(0, 1),
      pairs,
      sorted,
      // A restored graph that learned more: a sorted prefix, then a short unsorted tail.
      [...sorted.slice(0, 560).filter((p) => !pairs.slice(560).includes(p)), ...pairs.slice(560)],
      [...sorted.slice(0, 500), ...pairs.filter((p) => !sorted.slice(0, 500).includes(p)).slice(0, 3)],
    ];
    for (const edges of cases) {
      const sources = Int32Array.from(edges, (e) => e[0]);
      const targets = Int32Array.from(edges, (e) => e[1]);
      const ids = Float64Array.from(edges, (_, i) => i);
      const want = csrFromEdges(n, sources, targets, ids);
      const got = edgeOrder(n, sources, targets);
      expect(got.offsets).toEqual(want.offsets);
      expect(got.targets).toEqual(want.targets);
      expect(Array.from(got.perm)).toEqual(Array.from(want.weights));
    }
  });
});
