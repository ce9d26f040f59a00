import { describe, expect, it } from 'vitest';
import { adamicAdar, adamicAdarFrom } from '../../src/graph/adamic-adar.js';
import { csrFromEdges, symmetrizeCsr, type Csr } from '../../src/graph/csr.js';
import { expectInvalidInput, randomEdges, randomPermutation } from './_helpers.js';

function undirected(n: number, pairs: Array<[number, number]>, weights?: number[]): Csr {
  return symmetrizeCsr(csrFromEdges(n, pairs.map((p) => p[0]), pairs.map((p) => p[1]), weights));
}

/** Reference: the textbook definition with JavaScript Sets. */
function naiveAdamicAdar(pairs: Array<[number, number]>, n: number, u: number, v: number): number {
  const neighbours = Array.from({ length: n }, () => new Set<number>());
  for (const [a, b] of pairs) {
    if (a === b) continue;
    neighbours[a]!.add(b);
    neighbours[b]!.add(a);
  }
  if (u === v) return 0;
  let score = 0;
  for (const w of neighbours[u]!) if (neighbours[v]!.has(w)) score += 1 / Math.log(neighbours[w]!.size);
  return score;
}

// Hand example: edges 0-1, 0-2, 1-2, 1-3, 2-3, 3-4. Degrees: 0:2, 1:3, 2:3, 3:3, 4:1.
const HAND: Array<[number, number]> = [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3], [3, 4]];

describe('adamicAdar', () => {
  it('matches hand-computed scores', () => {
    const g = undirected(5, HAND);
    // AA(0,3): common {1, 2}, both of degree 3 -> 2 / ln 3.
    expect(adamicAdar(g, 0, 3)).toBeCloseTo(2 / Math.log(3), 15);
    // AA(1,2): common {0 (deg 2), 3 (deg 3)} -> 1/ln 2 + 1/ln 3.
    expect(adamicAdar(g, 1, 2)).toBeCloseTo(1 / Math.log(2) + 1 / Math.log(3), 15);
    // AA(0,1): common {2} -> 1/ln 3 (adjacency itself does not count).
    expect(adamicAdar(g, 0, 1)).toBeCloseTo(1 / Math.log(3), 15);
    // AA(2,4): common {3} -> 1/ln 3. AA(0,4): N(0) = {1,2}, N(4) = {3} -> 0.
    expect(adamicAdar(g, 2, 4)).toBeCloseTo(1 / Math.log(3), 15);
    expect(adamicAdar(g, 0, 4)).toBe(0);
  });

  it('ignores weights and edge direction: |N(w)| counts distinct neighbours', () => {
    // The same graph given one-way, reversed and with heavy weights scores the same.
    const heavy = undirected(5, HAND.map(([a, b]) => [b, a] as [number, number]), [9, 1, 4, 7, 2, 100]);
    const plain = undirected(5, HAND);
    for (let u = 0; u < 5; u++) {
      for (let v = 0; v < 5; v++) expect(adamicAdar(heavy, u, v)).toBe(adamicAdar(plain, u, v));
    }
  });

  it('is symmetric and zero on the diagonal', () => {
    const { n, sources, targets } = randomEdges(3, 40, 160);
    const g = symmetrizeCsr(csrFromEdges(n, sources, targets));
    for (let u = 0; u < n; u++) {
      expect(adamicAdar(g, u, u)).toBe(0);
      for (let v = 0; v < u; v++) expect(adamicAdar(g, u, v)).toBe(adamicAdar(g, v, u));
    }
  });

  it('gives nothing through degree-1 neighbours and never divides by ln 1', () => {
    // A lone edge 0-1: both endpoints have degree 1.
    const pair = undirected(3, [[0, 1]]);
    expect(adamicAdar(pair, 0, 1)).toBe(0);
    const out = new Float64Array(3);
    const touched = new Int32Array(3);
    expect(adamicAdarFrom(pair, 0, out, touched)).toBe(0);
    expect(Array.from(out)).toEqual([0, 0, 0]);
    // A star centred on 0: leaves share the centre (degree 3), never a degree-1 node.
    const star = undirected(4, [[0, 1], [0, 2], [0, 3]]);
    expect(adamicAdar(star, 1, 2)).toBeCloseTo(1 / Math.log(3), 15);
    expect(adamicAdar(star, 0, 1)).toBe(0);
    expect(Number.isFinite(adamicAdar(star, 0, 0))).toBe(true);
  });

  it('agrees with the Set-based definition on seeded random graphs (self-loops, duplicates)', () => {
    for (let seed = 1; seed <= 4; seed++) {
      const { n, sources, targets } = randomEdges(seed, 30, 90, { activeNodes: 27 });
      const pairs = sources.map((s, e) => [s, targets[e]!] as [number, number]);
      const g = symmetrizeCsr(csrFromEdges(n, sources, targets));
      for (let u = 0; u < n; u++) {
        for (let v = 0; v < n; v++) expect(adamicAdar(g, u, v)).toBeCloseTo(naiveAdamicAdar(pairs, n, u, v), 12);
      }
    }
  });

  it('is unchanged by relabelling the nodes', () => {
    const { n, sources, targets } = randomEdges(8, 35, 120);
    const perm = randomPermutation(9, n);
    const g = symmetrizeCsr(csrFromEdges(n, sources, targets));
    const h = symmetrizeCsr(csrFromEdges(n, sources.map((u) => perm[u]!), targets.map((v) => perm[v]!)));
    for (let u = 0; u < n; u++) {
      for (let v = 0; v < n; v++) expect(adamicAdar(h, perm[u]!, perm[v]!)).toBeCloseTo(adamicAdar(g, u, v), 12);
    }
  });

  it('throws INVALID_INPUT for an index outside [0, n)', () => {
    const g = undirected(3, [[0, 1]]);
    for (const bad of [-1, 3, 1.5, Number.NaN]) {
      expectInvalidInput(() => adamicAdar(g, bad, 0), 'adamicAdar');
      expectInvalidInput(() => adamicAdar(g, 0, bad), 'adamicAdar');
    }
  });
});

describe('adamicAdarFrom', () => {
  it('fills every AA(u, .) at once (hand-computed)', () => {
    const g = undirected(5, HAND);
    const out = new Float64Array(5);
    const touched = new Int32Array(5);
    // From 0: via w = 1 (deg 3) reaches 2, 3; via w = 2 (deg 3) reaches 1, 3. Order of discovery: 2, 3, 1.
    const count = adamicAdarFrom(g, 0, out, touched);
    expect(count).toBe(3);
    expect(Array.from(touched.subarray(0, count))).toEqual([2, 3, 1]);
    const c = 1 / Math.log(3);
    expect(Array.from(out)).toEqual([0, c, c, c + c, 0]);
  });

  it('agrees bit for bit with adamicAdar, touches exactly the positive entries, and the zeroing contract holds', () => {
    for (let seed = 1; seed <= 4; seed++) {
      const { n, sources, targets } = randomEdges(seed + 10, 60, 200, { activeNodes: 55 });
      const g = symmetrizeCsr(csrFromEdges(n, sources, targets));
      const out = new Float64Array(n);
      const touched = new Int32Array(n);
      for (let u = 0; u < n; u++) {
        const count = adamicAdarFrom(g, u, out, touched);
        const listed = new Set(touched.subarray(0, count));
        expect(listed.size).toBe(count);
        for (let v = 0; v < n; v++) {
          expect(out[v]).toBe(adamicAdar(g, u, v));
          expect(listed.has(v)).toBe(out[v]! > 0);
        }
        expect(out[u]).toBe(0);
        for (let i = 0; i < count; i++) out[touched[i]!] = 0;
        expect(out.every((x) => x === 0)).toBe(true);
      }
    }
  });

  it('accumulates into a non-zero out without re-listing already touched entries', () => {
    const g = undirected(5, HAND);
    const out = new Float64Array(5);
    const touched = new Int32Array(5);
    adamicAdarFrom(g, 0, out, touched);
    // From 4 (only neighbour 3, deg 3): reaches 1 and 2, both already non-zero.
    const count = adamicAdarFrom(g, 4, out, touched);
    expect(count).toBe(0);
    const c = 1 / Math.log(3);
    expect(out[1]).toBeCloseTo(2 * c, 15);
    expect(out[2]).toBeCloseTo(2 * c, 15);
  });

  it('throws INVALID_INPUT for a bad u or short buffers', () => {
    const g = undirected(3, [[0, 1]]);
    expectInvalidInput(() => adamicAdarFrom(g, 3, new Float64Array(3), new Int32Array(3)), 'adamicAdarFrom');
    expectInvalidInput(() => adamicAdarFrom(g, -1, new Float64Array(3), new Int32Array(3)), 'adamicAdarFrom');
    expectInvalidInput(() => adamicAdarFrom(g, 0, new Float64Array(2), new Int32Array(3)), 'adamicAdarFrom');
    expectInvalidInput(() => adamicAdarFrom(g, 0, new Float64Array(3), new Int32Array(2)), 'adamicAdarFrom');
  });
});
