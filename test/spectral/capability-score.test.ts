import { describe, expect, it } from 'vitest';
import { bipartiteMatrix } from '../../src/spectral/bipartite-matrix.js';
import { capabilityScore, type CapabilityScoreInput } from '../../src/spectral/capability-score.js';
import { coCluster } from '../../src/spectral/co-cluster.js';
import { hypergraphPagerank } from '../../src/spectral/hypergraph-pagerank.js';
import { blockCapabilities, expectInvalidInput } from './_helpers.js';

// Six tools in two spectral clusters: {0, 1, 2} and {3, 4, 5}.
// Capability 0 uses tools 0, 1 (cluster 0); capability 1 uses 3, 4 (cluster 1); capability 2 uses 2, 5 (no cluster).
const base: CapabilityScoreInput = {
  capabilities: [{ tools: [0, 1] }, { tools: [3, 4] }, { tools: [2, 5] }],
  reliability: [1, 1, 1],
  toolClusters: [0, 0, 0, 1, 1, 1],
  capabilityClusters: [0, 1, -1],
};

const order = (r: ReturnType<typeof capabilityScore>): number[] => r.ranked.map((x) => x.capability);

describe('capabilityScore', () => {
  it('active search: the boost lifts the capability in the context tools cluster above a better semantic match, and turning it off restores the order', () => {
    const input = { ...base, semanticRelevance: [0.6, 0.7, 0.5], contextTools: [0, 2] };
    const on = capabilityScore(input, { boost: 0.5 });
    expect(on.mode).toBe('active-search');
    // Both context tools are in cluster 0: capability 0 gets +0.5 -> 0.6 x 1.5 = 0.9 > 0.7.
    expect(order(on)).toEqual([0, 1, 2]);
    expect(on.ranked[0]!.score).toBeCloseTo(0.9, 12);
    expect(on.ranked[0]!.structuralBoost).toBe(0.5);
    const off = capabilityScore(input, { boost: 0 });
    expect(order(off)).toEqual([1, 0, 2]);
    expect(off.ranked.map((x) => x.score)).toEqual([0.7, 0.6, 0.5]);
    // A context in no capability's cluster changes nothing either.
    expect(order(capabilityScore({ ...input, contextTools: [] }, { boost: 0.5 }))).toEqual([1, 0, 2]);
  });

  it('passive suggestion: Jaccard overlap with the context, boosted by the shared cluster (hand-computed)', () => {
    // Context {2, 3}: cap 0 {0,1}: 0/4 = 0; cap 1 {3,4}: 1/3; cap 2 {2,5}: 1/3.
    // Context clusters: tool 2 -> 0, tool 3 -> 1, so each cluster has share 1/2; cap 1 gets +0.5 x 1/2.
    const r = capabilityScore({ ...base, contextTools: [2, 3, 3] }, { boost: 0.5 });
    expect(r.mode).toBe('passive-suggestion');
    expect(order(r)).toEqual([1, 2]); // capability 0 has relevance 0, so score 0: filtered out
    expect(r.ranked[0]!.relevance).toBeCloseTo(1 / 3, 12);
    expect(r.ranked[0]!.score).toBeCloseTo((1 / 3) * 1.25, 12);
    expect(r.ranked[1]!.score).toBeCloseTo(1 / 3, 12);
    // Off: a tie, broken by index.
    expect(order(capabilityScore({ ...base, contextTools: [2, 3] }, { boost: 0 }))).toEqual([1, 2]);
    const off = capabilityScore({ ...base, contextTools: [2, 3] }, { boost: 0 });
    expect(off.ranked[0]!.score).toBe(off.ranked[1]!.score);
  });

  it('on real co-clusters: the boost ranks the context cluster first, and turning it off changes the ranking back', () => {
    // Blocks {0..3} and {4..7}, two capabilities each (0, 1 and 2, 3); the context is tool 0.
    const caps = blockCapabilities(2, 4, 2);
    const clusters = coCluster(bipartiteMatrix(caps, 8).toolsByCapabilities, { kMin: 2, kMax: 3 });
    expect(clusters.k).toBe(2);
    const input = {
      capabilities: caps,
      reliability: [1, 1, 1, 1],
      toolClusters: clusters.toolClusters,
      capabilityClusters: clusters.capabilityClusters,
      contextTools: [0],
      semanticRelevance: [0.5, 0.5, 0.6, 0.6],
    };
    const on = capabilityScore(input, { boost: 0.5 });
    expect(order(on)).toEqual([0, 1, 2, 3]);
    expect(on.ranked.map((x) => x.score)).toEqual([0.75, 0.75, 0.6, 0.6]);
    expect(order(capabilityScore(input, { boost: 0 }))).toEqual([2, 3, 0, 1]);
    // Passive mode on the same clusters: context {0, 4} overlaps capabilities of both blocks
    // equally (Jaccard 1/5), and each cluster holds half the context: the boost is even, no reordering.
    const passive = capabilityScore({ ...input, semanticRelevance: undefined, contextTools: [0, 4] }, { boost: 1 });
    expect(passive.mode).toBe('passive-suggestion');
    expect(order(passive)).toEqual([0, 1, 2, 3]);
    for (const x of passive.ranked) expect(x.score).toBeCloseTo(0.2 * 1.5, 12);
  });

  it('exploration: the hubs of each cluster by hypergraph PageRank, scaled by their cluster top, no boost', () => {
    const caps = [{ tools: [0, 1, 2] }, { tools: [0] }, { tools: [3, 4] }, { tools: [3, 4, 5] }, { tools: [] }];
    const matrix = bipartiteMatrix(caps, 6).toolsByCapabilities;
    const centrality = hypergraphPagerank(matrix).capabilityScores;
    const r = capabilityScore(
      { capabilities: caps, reliability: [1, 1, 1, 1, 1], toolClusters: [0, 0, 0, 1, 1, 1], capabilityClusters: [0, 0, 1, 1, -1], centrality },
      { hubsPerCluster: 1, boost: 1 },
    );
    expect(r.mode).toBe('exploration');
    // One hub per cluster, each with relevance 1: capability 0 (3 tools) and 3 (3 tools).
    expect(order(r).sort()).toEqual([0, 3]);
    expect(r.ranked.every((x) => x.relevance === 1 && x.structuralBoost === 0)).toBe(true);
    const two = capabilityScore(
      { capabilities: caps, reliability: [1, 1, 1, 1, 1], toolClusters: [0, 0, 0, 1, 1, 1], capabilityClusters: [0, 0, 1, 1, -1], centrality },
      { hubsPerCluster: 2 },
    );
    expect(two.ranked.length).toBe(4);
  });

  it('multiplies by reliability, linear or through the seed guard of spec 4.2', () => {
    const input = { ...base, semanticRelevance: [1, 1, 1], reliability: [0.4, 0.7, 0.95] };
    const linear = capabilityScore(input, { boost: 0 });
    expect(linear.ranked.map((x) => x.score)).toEqual([0.95, 0.7, 0.4]);
    const seed = capabilityScore(input, { boost: 0, reliabilityFactor: 'seed' });
    // 0.4 -> 0.08 (< 0.1), 0.7 -> 0.1 + 0.2 x 2.75 = 0.65, 0.95 -> 1.2.
    expect(seed.ranked.map((x) => Math.round(x.reliabilityFactor * 1e12) / 1e12)).toEqual([1.2, 0.65, 0.08]);
  });

  it('handles no capabilities and no tools', () => {
    const r = capabilityScore({ capabilities: [], reliability: [], toolClusters: [], capabilityClusters: [], centrality: [] });
    expect(r).toEqual({ mode: 'exploration', ranked: [] });
  });

  it('throws INVALID_INPUT for every bad input and option', () => {
    const ok = { ...base, semanticRelevance: [0.1, 0.2, 0.3] };
    expectInvalidInput(() => capabilityScore(ok, { boost: -1 }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore(ok, { boost: Number.NaN }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore(ok, { reliabilityFactor: 'cubic' as never }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore(ok, { hubsPerCluster: 0 }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, reliability: [1, 1] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, reliability: [1, 1, 1.5] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, semanticRelevance: [0.1, -0.2, 0.3] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, capabilityClusters: [0, 1] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, toolClusters: [0, 0, 0, 1, 1, -2] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, capabilities: [{ tools: [0] }, { tools: [9] }, { tools: [] }] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, capabilities: {} as never }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, contextTools: [6] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, centrality: [1, 1, Number.POSITIVE_INFINITY] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, capabilities: [{ tools: [0] }, {} as never, { tools: [] }] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, contextTools: 3 as never }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore({ ...ok, toolClusters: [0, 0, 0.5, 1, 1, 1] }), 'capabilityScore');
    expectInvalidInput(() => capabilityScore(base), 'capabilityScore'); // exploration without centrality
  });
});
