import { describe, expect, it } from 'vitest';
import { plantedGraph, syntheticTraces, type PlantedGraph } from '../../bench/synthetic.js';
import { csrFromEdges, csrWeight, symmetrizeCsr } from '../../src/graph/csr.js';
import { louvainCommunities } from '../../src/graph/louvain.js';
import { expectInvalidInput } from './_helpers.js';

function expectValid(graph: PlantedGraph, edges: number): void {
  const { n, sources, targets, weights } = graph;
  expect(sources.length).toBe(edges);
  expect(targets.length).toBe(edges);
  expect(weights.length).toBe(edges);
  const seen = new Set<number>();
  let bad = 0;
  for (let e = 0; e < edges; e++) {
    const s = sources[e]!;
    const t = targets[e]!;
    if (s === t || s < 0 || t < 0 || s >= n || t >= n) bad++;
    if (!(Number.isInteger(weights[e]) && weights[e]! >= 1)) bad++;
    seen.add(s * n + t);
  }
  expect(bad).toBe(0);
  expect(seen.size).toBe(edges);
}

function crossCount(graph: PlantedGraph): number {
  let cross = 0;
  for (let e = 0; e < graph.sources.length; e++) {
    if (graph.community[graph.sources[e]!] !== graph.community[graph.targets[e]!]) cross++;
  }
  return cross;
}

describe('plantedGraph', () => {
  it('has exactly the requested distinct directed edges, no self-loops, positive integer weights', () => {
    for (const [tools, edges] of [[1, 0], [2, 2], [50, 300], [500, 5000], [2000, 20_000]] as const) {
      expectValid(plantedGraph({ tools, edges, seed: tools }), edges);
    }
  });

  it('fills a graph to saturation, within communities and across them', () => {
    // 10 tools: 90 ordered pairs, all of them.
    expectValid(plantedGraph({ tools: 10, edges: 90, communities: 2 }), 90);
    // 2 communities of 10: 180 pairs inside; asking 190 with mixing 0 spills 10 across.
    const spill = plantedGraph({ tools: 20, edges: 190, communities: 2, mixing: 0 });
    expectValid(spill, 190);
    expect(crossCount(spill)).toBe(10);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = plantedGraph({ tools: 300, edges: 2000, seed: 5 });
    const b = plantedGraph({ tools: 300, edges: 2000, seed: 5 });
    const c = plantedGraph({ tools: 300, edges: 2000, seed: 6 });
    expect(a).toEqual(b);
    expect(Array.from(a.sources)).not.toEqual(Array.from(c.sources));
  });

  it('puts exactly round(mixing * edges) edges across communities', () => {
    const graph = plantedGraph({ tools: 1000, edges: 10_000, seed: 1 });
    expect(crossCount(graph)).toBe(1000); // default mixing 0.1: most edges stay inside
    expect(crossCount(plantedGraph({ tools: 400, edges: 3000, mixing: 0.25, seed: 2 }))).toBe(750);
    expect(crossCount(plantedGraph({ tools: 400, edges: 3000, mixing: 0, seed: 3 }))).toBe(0);
    // One community: nothing to cross, whatever the mixing.
    expect(crossCount(plantedGraph({ tools: 100, edges: 500, communities: 1, mixing: 0.5 }))).toBe(0);
  });

  it('deals nodes into near-equal communities, ~tools/100 by default', () => {
    const graph = plantedGraph({ tools: 1050, edges: 5000 });
    const sizes = new Map<number, number>();
    for (const c of graph.community) sizes.set(c, (sizes.get(c) ?? 0) + 1);
    expect(sizes.size).toBe(11); // round(10.5)
    expect([...sizes.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(Math.max(...sizes.values()) - Math.min(...sizes.values())).toBeLessThanOrEqual(1);
    expect(new Set(plantedGraph({ tools: 50, edges: 100 }).community).size).toBe(1);
  });

  it('has heavy-tailed (Zipf-like) out- and in-degrees', () => {
    const graph = plantedGraph({ tools: 5000, edges: 50_000, seed: 9 });
    for (const ends of [graph.sources, graph.targets]) {
      const degree = new Int32Array(graph.n);
      for (const v of ends) degree[v]! += 1;
      const sorted = Array.from(degree).sort((x, y) => y - x);
      const top = sorted.slice(0, graph.n / 10).reduce((x, y) => x + y, 0);
      // A uniform graph would give the top 10% about 15% of the edges; Zipf gives far more.
      expect(top / ends.length).toBeGreaterThan(0.35);
      expect(sorted[0]!).toBeGreaterThan(5 * (ends.length / graph.n));
    }
  });

  it('plants communities that Louvain recovers', () => {
    const graph = plantedGraph({ tools: 1000, edges: 12_000, seed: 4 });
    const undirected = symmetrizeCsr(csrFromEdges(graph.n, graph.sources, graph.targets, graph.weights));
    const found = louvainCommunities(undirected, { seed: 1 }).communities;
    // Purity: share of nodes whose found community's majority planted label is theirs.
    const votes = new Map<number, Map<number, number>>();
    found.forEach((c, i) => {
      const row = votes.get(c) ?? new Map<number, number>();
      row.set(graph.community[i]!, (row.get(graph.community[i]!) ?? 0) + 1);
      votes.set(c, row);
    });
    let agree = 0;
    for (const row of votes.values()) agree += Math.max(...row.values());
    expect(agree / graph.n).toBeGreaterThan(0.9);
  });

  it('throws INVALID_INPUT for impossible or malformed options', () => {
    for (const tools of [0, -1, 1.5, Number.NaN, 2 ** 27]) expectInvalidInput(() => plantedGraph({ tools, edges: 0 }), 'plantedGraph');
    for (const edges of [-1, 2.5, 91]) expectInvalidInput(() => plantedGraph({ tools: 10, edges }), 'plantedGraph');
    for (const communities of [0, 11, 1.5]) expectInvalidInput(() => plantedGraph({ tools: 10, edges: 5, communities }), 'plantedGraph');
    for (const mixing of [-0.1, 1.1, Number.NaN]) expectInvalidInput(() => plantedGraph({ tools: 10, edges: 5, mixing }), 'plantedGraph');
    expectInvalidInput(() => plantedGraph({ tools: 10, edges: 5, seed: 0.5 }), 'plantedGraph');
  });
});

describe('syntheticTraces', () => {
  const graph = plantedGraph({ tools: 400, edges: 4000, seed: 12 });

  it('walks 2..6 steps along edges inside one community, naming tools tool_<i>', () => {
    const traces = syntheticTraces(graph, 2000, 3);
    expect(traces.length).toBe(2000);
    const csr = csrFromEdges(graph.n, graph.sources, graph.targets, graph.weights);
    const lengths = new Set<number>();
    let bad = 0;
    for (const trace of traces) {
      lengths.add(trace.length);
      if (trace.length < 2 || trace.length > 6) bad++;
      const ids = trace.map((name) => {
        const match = /^tool_(\d+)$/.exec(name);
        return match === null ? -1 : Number(match[1]);
      });
      for (let i = 1; i < ids.length; i++) {
        const [u, v] = [ids[i - 1]!, ids[i]!];
        if (u < 0 || v < 0 || csrWeight(csr, u, v) === 0 || graph.community[u] !== graph.community[v]) bad++;
      }
    }
    expect(bad).toBe(0);
    // Walks rarely dead-end at this density, so every length shows up.
    expect([...lengths].sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(syntheticTraces(graph, 100, 8)).toEqual(syntheticTraces(graph, 100, 8));
    expect(syntheticTraces(graph, 100, 8)).not.toEqual(syntheticTraces(graph, 100, 9));
  });

  it('returns no traces for count 0, even on a graph without edges', () => {
    expect(syntheticTraces(plantedGraph({ tools: 5, edges: 0 }), 0)).toEqual([]);
  });

  it('throws INVALID_INPUT for a bad count or seed, or nothing to walk on', () => {
    for (const count of [-1, 1.5, Number.NaN]) expectInvalidInput(() => syntheticTraces(graph, count), 'syntheticTraces');
    expectInvalidInput(() => syntheticTraces(graph, 1, 0.5), 'syntheticTraces');
    expectInvalidInput(() => syntheticTraces(plantedGraph({ tools: 5, edges: 0 }), 1), 'syntheticTraces');
  });
});
