import { describe, expect, it } from 'vitest';
import { csrFromEdges, type Csr } from '../../src/graph/csr.js';
import { cycleHops, hopDistance, pathConfidence } from '../../src/graph/path-confidence.js';
import { expectInvalidInput, randomEdges, randomPermutation } from './_helpers.js';

/** Reference: Floyd-Warshall on unit lengths, O(n^3). */
function allPairsHops(csr: Csr): number[][] {
  const n = csr.n;
  const d = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : Infinity)));
  for (let u = 0; u < n; u++) for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) if (csr.targets[p] !== u) d[u]![csr.targets[p]!] = 1;
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    const via = d[i]![k]! + d[k]![j]!;
    if (via < d[i]![j]!) d[i]![j] = via;
  }
  return d;
}

const scratchFor = (n: number) => ({ dist: new Int32Array(n).fill(-1), queue: new Int32Array(n) });

describe('pathConfidence', () => {
  it('follows spec 003 section 2.3', () => {
    expect(pathConfidence(1)).toBe(0.95);
    expect(pathConfidence(2)).toBe(0.8);
    expect(pathConfidence(3)).toBe(0.65);
    expect(pathConfidence(4)).toBe(0.5);
    expect(pathConfidence(1000)).toBe(0.5);
  });

  it('never increases with length', () => {
    for (let h = 1; h < 10; h++) expect(pathConfidence(h + 1)).toBeLessThanOrEqual(pathConfidence(h));
  });

  it('throws INVALID_INPUT for hops < 1 or not an integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expectInvalidInput(() => pathConfidence(bad), 'pathConfidence');
  });
});

describe('hopDistance', () => {
  // 0 -> 1 -> 2 -> 3 -> 4, shortcut 0 -> 2, back edge 4 -> 0, node 5 isolated.
  const chain = csrFromEdges(6, [0, 1, 2, 3, 0, 4], [1, 2, 3, 4, 2, 0]);

  it('counts hops along shortest directed paths (hand-computed)', () => {
    expect(hopDistance(chain, 0, 1, 10)).toBe(1);
    expect(hopDistance(chain, 0, 2, 10)).toBe(1); // shortcut
    expect(hopDistance(chain, 0, 3, 10)).toBe(2);
    expect(hopDistance(chain, 0, 4, 10)).toBe(3);
    expect(hopDistance(chain, 1, 0, 10)).toBe(4); // 1 -> 2 -> 3 -> 4 -> 0
    expect(hopDistance(chain, 3, 3, 0)).toBe(0);
  });

  it('respects direction, maxHops and unreachable nodes', () => {
    expect(hopDistance(chain, 1, 0, 3)).toBe(-1);
    expect(hopDistance(chain, 1, 0, 4)).toBe(4);
    expect(hopDistance(chain, 0, 4, 2)).toBe(-1);
    expect(hopDistance(chain, 0, 1, 0)).toBe(-1);
    expect(hopDistance(chain, 0, 5, Number.POSITIVE_INFINITY)).toBe(-1);
    expect(hopDistance(chain, 5, 0, Number.POSITIVE_INFINITY)).toBe(-1);
  });

  it('agrees with Floyd-Warshall on seeded random graphs, reusing one scratch throughout', () => {
    for (let seed = 1; seed <= 4; seed++) {
      const { n, sources, targets } = randomEdges(seed, 40, 70, { activeNodes: 36 });
      const csr = csrFromEdges(n, sources, targets);
      const reference = allPairsHops(csr);
      const scratch = scratchFor(n);
      for (let u = 0; u < n; u++) {
        for (let v = 0; v < n; v++) {
          const expected = reference[u]![v]!;
          expect(hopDistance(csr, u, v, Number.POSITIVE_INFINITY, scratch)).toBe(Number.isFinite(expected) ? expected : -1);
          for (const maxHops of [0, 1, 2, 3]) {
            expect(hopDistance(csr, u, v, maxHops, scratch)).toBe(expected <= maxHops ? expected : -1);
          }
        }
      }
      // The contract: every call leaves dist all -1.
      expect(scratch.dist.every((x) => x === -1)).toBe(true);
    }
  });

  it('over a CSR and live successors beside it, as over one graph of both (cycles too); nodes past the CSR are skipped', () => {
    for (let seed = 5; seed <= 7; seed++) {
      const { n, sources, targets } = randomEdges(seed, 30, 60);
      const whole = csrFromEdges(n, sources, targets);
      // Every third edge is learned since the CSR was built; some of them twice.
      const built = sources.flatMap((u, e) => (e % 3 === 0 ? [] : [[u, targets[e]!] as const]));
      const csr = csrFromEdges(n, built.map(([u]) => u), built.map(([, v]) => v));
      const later = new Map<number, number[]>();
      sources.forEach((u, e) => {
        if (e % 3 === 0) later.set(u, [...(later.get(u) ?? []), targets[e]!, targets[e]!]);
      });
      // Past the CSR's nodes: a tool newer than the model, which no path may enter.
      later.set(0, [...(later.get(0) ?? []), n + 3]);
      const live = { successorsOf: (u: number) => later.get(u) };
      const scratch = scratchFor(n);
      for (let u = 0; u < n; u++) {
        expect(cycleHops(csr, u, 6, scratch, live)).toBe(cycleHops(whole, u, 6));
        for (let v = 0; v < n; v++) expect(hopDistance(csr, u, v, 6, scratch, live)).toBe(hopDistance(whole, u, v, 6));
      }
      expect(scratch.dist.every((x) => x === -1)).toBe(true);
    }
  });

  it('is unchanged by relabelling the nodes', () => {
    const { n, sources, targets } = randomEdges(12, 30, 60);
    const perm = randomPermutation(13, n);
    const csr = csrFromEdges(n, sources, targets);
    const relabelled = csrFromEdges(n, sources.map((u) => perm[u]!), targets.map((v) => perm[v]!));
    for (let u = 0; u < n; u++) {
      for (let v = 0; v < n; v++) expect(hopDistance(relabelled, perm[u]!, perm[v]!, 8)).toBe(hopDistance(csr, u, v, 8));
    }
  });

  it('follows zero-weight edges: reachability is structural', () => {
    const csr = csrFromEdges(3, [0, 1], [1, 2], [0, 0]);
    expect(hopDistance(csr, 0, 2, 5)).toBe(2);
  });

  it('throws INVALID_INPUT for bad indexes, maxHops and scratch', () => {
    for (const bad of [-1, 6, 0.5, Number.NaN]) {
      expectInvalidInput(() => hopDistance(chain, bad, 0, 3), 'hopDistance');
      expectInvalidInput(() => hopDistance(chain, 0, bad, 3), 'hopDistance');
    }
    for (const bad of [-1, 1.5, Number.NaN]) expectInvalidInput(() => hopDistance(chain, 0, 1, bad), 'hopDistance');
    expectInvalidInput(() => hopDistance(chain, 0, 1, 3, { dist: new Int32Array(5).fill(-1), queue: new Int32Array(6) }), 'hopDistance');
    expectInvalidInput(() => hopDistance(chain, 0, 1, 3, { dist: new Int32Array(6).fill(-1), queue: new Int32Array(5) }), 'hopDistance');
    // A zero-filled dist breaks the contract; caught at `from`/`to`.
    expectInvalidInput(() => hopDistance(chain, 0, 1, 3, { dist: new Int32Array(6), queue: new Int32Array(6) }), 'hopDistance');
  });
});

describe('cycleHops', () => {
  // 0 -> 1 -> 2 -> 3 -> 4, shortcut 0 -> 2, back edge 4 -> 0, self-transition 3 -> 3, node 5 isolated.
  const graph = csrFromEdges(6, [0, 1, 2, 3, 0, 4, 3], [1, 2, 3, 4, 2, 0, 3]);

  it('is the shortest directed cycle through the node (hand-computed)', () => {
    expect(cycleHops(graph, 0, 10)).toBe(4); // 0 -> 2 -> 3 -> 4 -> 0
    expect(cycleHops(graph, 1, 10)).toBe(5); // 1 -> 2 -> 3 -> 4 -> 0 -> 1
    expect(cycleHops(graph, 3, 10)).toBe(1); // the self-transition
    expect(cycleHops(graph, 0, 3)).toBe(-1);
    expect(cycleHops(graph, 5, Number.POSITIVE_INFINITY)).toBe(-1);
  });

  it('agrees with the all-pairs reference on seeded random graphs with self-transitions, reusing one scratch', () => {
    for (let seed = 1; seed <= 4; seed++) {
      const { n, sources, targets } = randomEdges(seed, 30, 50, { activeNodes: 26 });
      // A few self-transitions, which the reference's distances leave out.
      const loops = [seed, seed + 7, seed + 13];
      const csr = csrFromEdges(n, [...sources, ...loops], [...targets, ...loops]);
      const reference = allPairsHops(csr);
      const scratch = scratchFor(n);
      for (let u = 0; u < n; u++) {
        let expected = Infinity;
        for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) {
          const v = csr.targets[p]!;
          expected = Math.min(expected, v === u ? 1 : 1 + reference[v]![u]!);
        }
        expect(cycleHops(csr, u, Number.POSITIVE_INFINITY, scratch)).toBe(Number.isFinite(expected) ? expected : -1);
        for (const maxHops of [0, 1, 2, 3]) expect(cycleHops(csr, u, maxHops, scratch)).toBe(expected <= maxHops ? expected : -1);
      }
      expect(scratch.dist.every((x) => x === -1)).toBe(true);
    }
  });

  it('throws INVALID_INPUT naming itself, for the arguments hopDistance refuses', () => {
    for (const bad of [-1, 6, 0.5]) expectInvalidInput(() => cycleHops(graph, bad, 3), 'cycleHops');
    expectInvalidInput(() => cycleHops(graph, 0, -1), 'cycleHops');
  });
});
