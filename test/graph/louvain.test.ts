import { UndirectedGraph } from 'graphology';
import louvainModule from 'graphology-communities-louvain';
import { describe, expect, it } from 'vitest';
import { csrFromEdges, symmetrizeCsr, type Csr } from '../../src/graph/csr.js';
import { louvainCommunities } from '../../src/graph/louvain.js';
import { createRng, DEFAULT_SEED } from '../../src/graph/rng.js';
import { expectInvalidInput, randomEdges, randomPermutation } from './_helpers.js';

const louvain = ('default' in louvainModule ? louvainModule.default : louvainModule) as typeof louvainModule.default;

function undirected(n: number, pairs: Array<[number, number]>, weights?: number[]): Csr {
  return symmetrizeCsr(csrFromEdges(n, pairs.map((p) => p[0]), pairs.map((p) => p[1]), weights));
}

/** Edges of a clique over `nodes`. */
function clique(nodes: number[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++) pairs.push([nodes[i]!, nodes[j]!]);
  return pairs;
}

/** Reference: Newman's modularity with resolution, straight from the definition over communities. */
function modularity(csr: Csr, communities: Int32Array, resolution = 1): number {
  let twoM = 0;
  const count = Math.max(-1, ...communities) + 1;
  const internal = new Float64Array(count);
  const degreeSum = new Float64Array(count);
  for (let u = 0; u < csr.n; u++) {
    for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) {
      const w = csr.weights[p]!;
      twoM += w;
      degreeSum[communities[u]!]! += w;
      if (communities[u] === communities[csr.targets[p]!]) internal[communities[u]!]! += w;
    }
  }
  let q = 0;
  for (let c = 0; c < count; c++) q += internal[c]! / twoM - resolution * (degreeSum[c]! / twoM) ** 2;
  return q;
}

/** The same graph as a real graphology Graph, inserted row by row (u < v). */
function toGraphology(csr: Csr): UndirectedGraph {
  const graph = new UndirectedGraph();
  for (let i = 0; i < csr.n; i++) graph.addNode(String(i));
  for (let u = 0; u < csr.n; u++) {
    for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) {
      const v = csr.targets[p]!;
      if (v > u) graph.addUndirectedEdge(String(u), String(v), { weight: csr.weights[p] });
    }
  }
  return graph;
}

/** Partition as a canonical set of sorted member lists, to compare up to community ids. */
function partition(communities: Int32Array, relabel: (i: number) => number = (i) => i): string[] {
  const groups = new Map<number, number[]>();
  communities.forEach((c, i) => {
    const group = groups.get(c) ?? [];
    group.push(relabel(i));
    groups.set(c, group);
  });
  return [...groups.values()].map((g) => g.sort((a, b) => a - b).join(',')).sort();
}

/** Four planted cliques of 8 with a ring of single bridges between them. */
function plantedCliques(): { csr: Csr; truth: Int32Array } {
  const pairs: Array<[number, number]> = [];
  const truth = new Int32Array(32);
  for (let c = 0; c < 4; c++) {
    const members = Array.from({ length: 8 }, (_, i) => c * 8 + i);
    pairs.push(...clique(members));
    for (const m of members) truth[m] = c;
    pairs.push([c * 8, ((c + 1) % 4) * 8 + 1]);
  }
  return { csr: undirected(32, pairs), truth };
}

describe('louvainCommunities', () => {
  it('splits two 4-cliques joined by one bridge (hand-computed modularity)', () => {
    // K4 {0..3} and K4 {4..7}, bridge 3-4. M = 13; each side: 6 internal edges, degree sum 13.
    // Q = 2 (6/13 - (13/26)^2) = 12/13 - 1/2.
    const csr = undirected(8, [...clique([0, 1, 2, 3]), ...clique([4, 5, 6, 7]), [3, 4]]);
    const result = louvainCommunities(csr, { seed: 1 });
    expect(result.count).toBe(2);
    expect(Array.from(result.communities)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(result.modularity).toBeCloseTo(12 / 13 - 1 / 2, 12);
  });

  it('recovers planted cliques whatever the node labelling', () => {
    const { csr, truth } = plantedCliques();
    const perm = randomPermutation(4, csr.n);
    const pairs: Array<[number, number]> = [];
    for (let u = 0; u < csr.n; u++) {
      for (let p = csr.offsets[u]!; p < csr.offsets[u + 1]!; p++) pairs.push([perm[u]!, perm[csr.targets[p]!]!]);
    }
    // Both directions are listed, so symmetrizing doubles every weight; modularity is scale-free.
    const relabelled = undirected(csr.n, pairs);
    for (const seed of [1, 2, 3]) {
      const direct = louvainCommunities(csr, { seed });
      const permuted = louvainCommunities(relabelled, { seed });
      expect(partition(direct.communities)).toEqual(partition(truth));
      const back = new Int32Array(csr.n);
      for (let i = 0; i < csr.n; i++) back[i] = permuted.communities[perm[i]!]!;
      expect(partition(back)).toEqual(partition(truth));
      expect(permuted.modularity).toBeCloseTo(direct.modularity, 12);
    }
  });

  it('is deterministic for a seed', () => {
    const { n, sources, targets, weights } = randomEdges(31, 300, 1500, { weighted: true });
    const csr = symmetrizeCsr(csrFromEdges(n, sources, targets, weights));
    const a = louvainCommunities(csr, { seed: 7 });
    const b = louvainCommunities(csr, { seed: 7 });
    expect(Array.from(a.communities)).toEqual(Array.from(b.communities));
    expect(a.modularity).toBe(b.modularity);
    expect(louvainCommunities(csr)).toEqual(louvainCommunities(csr, { seed: DEFAULT_SEED }));
  });

  it('gives exactly what louvain.detailed gives on a real graphology Graph', () => {
    // Guards the CSR view: if a library upgrade reads more of the graph, or in another order, this fails.
    for (const seed of [1, 2, 3]) {
      const { n, sources, targets, weights } = randomEdges(seed + 40, 400, 2000, { weighted: true, activeNodes: 380 });
      const csr = symmetrizeCsr(csrFromEdges(n, sources, targets, weights));
      for (const resolution of [0.5, 1, 2]) {
        const ours = louvainCommunities(csr, { seed, resolution });
        const reference = louvain.detailed(toGraphology(csr), { rng: createRng(seed), resolution });
        const referenceIds = Int32Array.from({ length: n }, (_, i) => reference.communities[String(i)]!);
        expect(partition(ours.communities)).toEqual(partition(referenceIds));
        expect(ours.count).toBe(reference.count);
        expect(ours.modularity).toBe(reference.modularity);
      }
    }
  });

  it('reports the modularity of the partition it returns, at its resolution', () => {
    const { n, sources, targets, weights } = randomEdges(77, 200, 900, { weighted: true });
    const csr = symmetrizeCsr(csrFromEdges(n, sources, targets, weights));
    for (const resolution of [0.5, 1, 1.5]) {
      const result = louvainCommunities(csr, { seed: 3, resolution });
      expect(result.modularity).toBeCloseTo(modularity(csr, result.communities, resolution), 10);
    }
  });

  it('merges everything at a tiny resolution and splits more at a large one', () => {
    const csr = undirected(8, [...clique([0, 1, 2, 3]), ...clique([4, 5, 6, 7]), [3, 4]]);
    // gamma = 0.01: one community scores 1 - 0.01 = 0.99 > 12/13 - 0.005.
    expect(louvainCommunities(csr, { resolution: 0.01 }).count).toBe(1);
    const { csr: planted } = plantedCliques();
    expect(louvainCommunities(planted, { resolution: 8 }).count).toBeGreaterThan(4);
  });

  it('numbers communities 0..count-1 in order of first appearance', () => {
    const { n, sources, targets } = randomEdges(5, 250, 700);
    const { communities, count } = louvainCommunities(symmetrizeCsr(csrFromEdges(n, sources, targets)), { seed: 9 });
    let next = 0;
    for (const c of communities) {
      expect(c).toBeLessThanOrEqual(next);
      if (c === next) next++;
    }
    expect(next).toBe(count);
  });

  it('gives isolated nodes a community of their own', () => {
    // Nodes 4, 5 and 9 have no edges.
    const csr = undirected(10, [...clique([0, 1, 2, 3]), ...clique([6, 7, 8])]);
    const { communities, count } = louvainCommunities(csr, { seed: 2 });
    expect(count).toBe(5);
    expect(Array.from(communities)).toEqual([0, 0, 0, 0, 1, 2, 3, 3, 3, 4]);
  });

  it('handles the empty graph, a graph without edges, and zero total weight', () => {
    expect(louvainCommunities(symmetrizeCsr(csrFromEdges(0, [], [])))).toEqual({
      communities: new Int32Array(0),
      count: 0,
      modularity: 0,
    });
    const edgeless = louvainCommunities(symmetrizeCsr(csrFromEdges(3, [], [])));
    expect(Array.from(edgeless.communities)).toEqual([0, 1, 2]);
    expect(edgeless).toMatchObject({ count: 3, modularity: 0 });
    const weightless = louvainCommunities(undirected(3, [[0, 1], [1, 2]], [0, 0]));
    expect(Array.from(weightless.communities)).toEqual([0, 1, 2]);
    expect(weightless.modularity).toBe(0);
  });

  it('throws INVALID_INPUT for a directed or looped CSR and bad options', () => {
    const directed = csrFromEdges(3, [0, 1], [1, 2]);
    expectInvalidInput(() => louvainCommunities(directed), 'louvainCommunities');
    const asymmetricWeights = csrFromEdges(2, [0, 1], [1, 0], [1, 2]);
    expectInvalidInput(() => louvainCommunities(asymmetricWeights), 'louvainCommunities');
    const looped = csrFromEdges(2, [0, 1, 1], [1, 0, 1]);
    expectInvalidInput(() => louvainCommunities(looped), 'louvainCommunities');
    const malformed = { n: 2, offsets: Int32Array.of(0, 1), targets: Int32Array.of(1), weights: Float64Array.of(1) };
    expectInvalidInput(() => louvainCommunities(malformed), 'louvainCommunities');
    const ok = undirected(2, [[0, 1]]);
    for (const seed of [1.5, Number.NaN]) expectInvalidInput(() => louvainCommunities(ok, { seed }), 'louvainCommunities');
    for (const resolution of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectInvalidInput(() => louvainCommunities(ok, { resolution }), 'louvainCommunities');
    }
  });
});
