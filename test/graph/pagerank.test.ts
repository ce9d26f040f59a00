import { DirectedGraph } from 'graphology';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { describe, expect, it } from 'vitest';
import { csrFromEdges, transposeCsr, type Csr } from '../../src/graph/csr.js';
import { pagerank } from '../../src/graph/pagerank.js';
import { expectInvalidInput, randomEdges, randomPermutation } from './_helpers.js';

// CommonJS package typed with `export default`: under NodeNext the default import is
// module.exports itself, which TypeScript types as the namespace.
const graphologyPagerank = ('default' in pagerankModule ? pagerankModule.default : pagerankModule) as typeof pagerankModule.default;

/** The same directed simple graph as a graphology instance, nodes keyed by index. */
function toGraphology(csr: Csr): DirectedGraph {
  const graph = new DirectedGraph({ multi: false, allowSelfLoops: true });
  for (let u = 0; u < csr.n; u++) graph.addNode(String(u));
  for (let u = 0; u < csr.n; u++) {
    for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) {
      graph.addDirectedEdge(String(u), String(csr.targets[p]), { weight: csr.weights[p] });
    }
  }
  return graph;
}

function oracle(csr: Csr, weighted: boolean, alpha?: number): Float64Array {
  const mapping = graphologyPagerank(toGraphology(csr), {
    getEdgeWeight: weighted ? 'weight' : null,
    ...(alpha === undefined ? {} : { alpha }),
  });
  return Float64Array.from({ length: csr.n }, (_, i) => mapping[String(i)]!);
}

function sum(values: Float64Array): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

describe('pagerank', () => {
  it('matches the closed form on a 2-cycle and a star (hand-computed)', () => {
    // 0 <-> 1: symmetric, so both 1/2 at every iteration; converges at once.
    const cycle = pagerank(csrFromEdges(2, [0, 1], [1, 0]));
    expect(Array.from(cycle.scores)).toEqual([0.5, 0.5]);
    expect(cycle.converged).toBe(true);
    expect(cycle.iterations).toBe(1);

    // Leaves 1, 2 -> hub 0, which is dangling. Fixed point with a = 0.85, N = 3:
    //   x1 = x2 = (a x0 + 1 - a) / 3   (only the dangling hub's spread and teleport reach a leaf)
    // Substituting into x0 + 2 x1 = 1: x0 (1 + 2a/3) = 1 - 2 (0.15)/3 = 0.9,
    // so x0 = 0.9 / (1 + 1.7/3) = 0.574468..., x1 = x2 = (1 - x0) / 2 = 0.212765...
    const star = pagerank(csrFromEdges(3, [1, 2], [0, 0]), { tolerance: 1e-12, maxIterations: 1000 });
    expect(star.scores[0]).toBeCloseTo(0.9 / (1 + 1.7 / 3), 10);
    expect(star.scores[1]).toBeCloseTo((1 - 0.9 / (1 + 1.7 / 3)) / 2, 10);
    expect(star.scores[2]).toBe(star.scores[1]);
  });

  it('weights transitions by edge weight (hand-computed)', () => {
    // 0 -> 1 (w 3), 0 -> 2 (w 1), 1 -> 0, 2 -> 0, alpha 0.5. Fixed point:
    //   x1 = 0.5 * 0.75 x0 + 0.5/3, x2 = 0.5 * 0.25 x0 + 0.5/3, x0 = 0.5 (x1 + x2) + 0.5/3.
    //   x1 + x2 = 0.5 x0 + 1/3 -> x0 = 0.25 x0 + 1/6 + 1/6 -> x0 = 4/9; x1 = 1/6 + 1/6 = 1/3; x2 = 2/9.
    const csr = csrFromEdges(3, [0, 0, 1, 2], [1, 2, 0, 0], [3, 1, 1, 1]);
    const result = pagerank(csr, { alpha: 0.5, tolerance: 1e-14, maxIterations: 1000 });
    expect(result.scores[0]).toBeCloseTo(4 / 9, 12);
    expect(result.scores[1]).toBeCloseTo(1 / 3, 12);
    expect(result.scores[2]).toBeCloseTo(2 / 9, 12);
    // Unweighted, the split from 0 is even, so 1 and 2 tie.
    const flat = pagerank(csr, { alpha: 0.5, weighted: false, tolerance: 1e-14, maxIterations: 1000 });
    expect(flat.scores[1]).toBeCloseTo(flat.scores[2]!, 12);
  });

  it('agrees with graphology-metrics within 1e-6 on seeded random graphs', () => {
    const cases = [
      { seed: 1, n: 50, m: 200, weighted: true },
      { seed: 2, n: 50, m: 200, weighted: false },
      { seed: 3, n: 200, m: 600, weighted: true },
      { seed: 4, n: 200, m: 600, weighted: false },
      { seed: 5, n: 300, m: 350, weighted: true }, // sparse: many dangling nodes
      { seed: 6, n: 500, m: 3000, weighted: true },
    ];
    for (const { seed, n, m, weighted } of cases) {
      // The last 10% of nodes never appear: isolated (and therefore dangling) nodes.
      const edges = randomEdges(seed, n, m, { weighted: true, activeNodes: Math.floor(n * 0.9) });
      const csr = csrFromEdges(n, edges.sources, edges.targets, edges.weights);
      const ours = pagerank(csr, { weighted });
      const reference = oracle(csr, weighted);
      expect(ours.converged).toBe(true);
      let maxDiff = 0;
      for (let i = 0; i < n; i++) maxDiff = Math.max(maxDiff, Math.abs(ours.scores[i]! - reference[i]!));
      expect(maxDiff).toBeLessThan(1e-6);
    }
  });

  it('agrees with graphology-metrics for other damping factors, with self-loops and dangling nodes', () => {
    const edges = randomEdges(9, 80, 240, { weighted: true, activeNodes: 70 });
    // Node 0 only points at itself: a self-loop is an ordinary out-edge for both implementations.
    edges.sources.push(0);
    edges.targets.push(0);
    edges.weights.push(2);
    const csr = csrFromEdges(edges.n, edges.sources, edges.targets, edges.weights);
    for (const alpha of [0.5, 0.7, 0.95]) {
      const ours = pagerank(csr, { alpha });
      const reference = oracle(csr, true, alpha);
      for (let i = 0; i < csr.n; i++) expect(Math.abs(ours.scores[i]! - reference[i]!)).toBeLessThan(1e-6);
    }
  });

  it('sums to 1 and stays positive', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const edges = randomEdges(seed, 120, 400, { weighted: true, activeNodes: 100 });
      const csr = csrFromEdges(edges.n, edges.sources, edges.targets, edges.weights);
      for (const weighted of [true, false]) {
        const { scores } = pagerank(csr, { weighted });
        expect(sum(scores)).toBeCloseTo(1, 12);
        for (const s of scores) expect(s).toBeGreaterThan(0);
      }
    }
  });

  it('permutes its scores when the nodes are relabelled', () => {
    const edges = randomEdges(17, 150, 700, { weighted: true, activeNodes: 140 });
    const perm = randomPermutation(18, edges.n);
    const csr = csrFromEdges(edges.n, edges.sources, edges.targets, edges.weights);
    const relabelled = csrFromEdges(
      edges.n,
      edges.sources.map((u) => perm[u]!),
      edges.targets.map((v) => perm[v]!),
      edges.weights,
    );
    const a = pagerank(csr, { tolerance: 1e-12, maxIterations: 500 });
    const b = pagerank(relabelled, { tolerance: 1e-12, maxIterations: 500 });
    for (let i = 0; i < edges.n; i++) expect(b.scores[perm[i]!]).toBeCloseTo(a.scores[i]!, 12);
  });

  it('is uniform on a graph without edges, and on a scaled copy of the weights it is unchanged', () => {
    const lonely = pagerank(csrFromEdges(4, [], []));
    expect(Array.from(lonely.scores)).toEqual([0.25, 0.25, 0.25, 0.25]);
    const edges = randomEdges(23, 60, 200, { weighted: true });
    const a = pagerank(csrFromEdges(edges.n, edges.sources, edges.targets, edges.weights));
    const b = pagerank(csrFromEdges(edges.n, edges.sources, edges.targets, edges.weights.map((w) => w * 7)));
    for (let i = 0; i < edges.n; i++) expect(b.scores[i]).toBeCloseTo(a.scores[i]!, 12);
  });

  it('returns empty scores for the empty graph', () => {
    const result = pagerank(csrFromEdges(0, [], []));
    expect(result.scores.length).toBe(0);
    expect(result.converged).toBe(true);
    expect(result.iterations).toBe(0);
  });

  it('reports non-convergence as data, with a normalised last iterate', () => {
    // A directed 3-cycle plus a tail converges slowly; one iteration with a tiny tolerance cannot.
    const csr = csrFromEdges(4, [0, 1, 2, 3], [1, 2, 0, 0]);
    const result = pagerank(csr, { maxIterations: 1, tolerance: 1e-15 });
    expect(result.converged).toBe(false);
    expect(result.iterations).toBe(1);
    expect(sum(result.scores)).toBeCloseTo(1, 12);
    const none = pagerank(csr, { maxIterations: 0 });
    expect(none).toMatchObject({ converged: false, iterations: 0 });
    expect(Array.from(none.scores)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it('treats a node whose out-edges all weigh 0 as dangling', () => {
    // 0 -> 1 with weight 0: weighted, 0 is dangling exactly like a node without edges.
    const zero = pagerank(csrFromEdges(3, [0, 1], [1, 2], [0, 1]));
    const none = pagerank(csrFromEdges(3, [1], [2], [1]));
    for (let i = 0; i < 3; i++) expect(zero.scores[i]).toBeCloseTo(none.scores[i]!, 15);
  });

  it('alpha 0 gives the uniform distribution; alpha 1 on a symmetric cycle too', () => {
    const csr = csrFromEdges(3, [0, 1, 2], [1, 2, 0]);
    expect(Array.from(pagerank(csr, { alpha: 0 }).scores)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(Array.from(pagerank(csr, { alpha: 1 }).scores)).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });

  it('takes a transpose the caller already has, with the same scores, and refuses one of another size', () => {
    const { n, sources, targets, weights } = randomEdges(3, 40, 300, { weighted: true });
    const csr = csrFromEdges(n, sources, targets, weights);
    const incoming = transposeCsr(csr);
    expect(Array.from(pagerank(csr, { incoming }).scores)).toEqual(Array.from(pagerank(csr).scores));
    expectInvalidInput(() => pagerank(csr, { incoming: transposeCsr(csrFromEdges(40, [0], [1])) }), 'pagerank');
    expectInvalidInput(() => pagerank(csr, { incoming: transposeCsr(csrFromEdges(39, [0], [1])) }), 'pagerank');
  });

  it('throws INVALID_INPUT for bad options and a malformed Csr', () => {
    const csr = csrFromEdges(2, [0], [1]);
    for (const alpha of [-0.1, 1.1, Number.NaN]) expectInvalidInput(() => pagerank(csr, { alpha }), 'pagerank');
    for (const tolerance of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectInvalidInput(() => pagerank(csr, { tolerance }), 'pagerank');
    }
    for (const maxIterations of [-1, 1.5, Number.NaN]) {
      expectInvalidInput(() => pagerank(csr, { maxIterations }), 'pagerank');
    }
    expectInvalidInput(() => pagerank(csr, { weighted: 'yes' as unknown as boolean }), 'pagerank');
    const malformed = { n: 2, offsets: Int32Array.of(0, 1), targets: Int32Array.of(1), weights: Float64Array.of(1) };
    expectInvalidInput(() => pagerank(malformed), 'transposeCsr');
  });
});
