import { describe, expect, it } from 'vitest';
import { bipartiteMatrix } from '../../src/spectral/bipartite-matrix.js';
import { coCluster } from '../../src/spectral/co-cluster.js';
import { blockCapabilities, expectInvalidInput, plantedCapabilities, purity } from './_helpers.js';

function planted(tools: number, caps: number, groups: number, seed: number) {
  const p = plantedCapabilities({ tools, capabilities: caps, groups, seed });
  return { ...p, matrix: bipartiteMatrix(p.capabilities, tools).toolsByCapabilities };
}

describe('coCluster', () => {
  it('recovers planted groups and their number through the eigengap (sparse route)', () => {
    const p = planted(2000, 200, 5, 1);
    const r = coCluster(p.matrix, { kMin: 2, kMax: 10, seed: 3, svd: 'sparse' });
    expect(r.k).toBe(5);
    expect(r.svd).toBe('sparse');
    expect(purity([r.toolClusters, r.capabilityClusters], [p.toolGroups, p.capabilityGroups])).toBeGreaterThanOrEqual(0.95);
    expect(r.singularValues[0]).toBeCloseTo(1, 6);
  });

  it("bipartitions with Dhillon's single Fiedler-like vector (dimensions 'log2', k = 2)", () => {
    // With k = 2, l = ceil(log2 2) = 1: Dhillon's original bipartition by the second singular
    // vectors. (With more, nearly equal, singular values l vectors lose groups: see co-cluster.ts.)
    const p = planted(1000, 100, 2, 2);
    const r = coCluster(p.matrix, { kMin: 2, kMax: 8, seed: 3, dimensions: 'log2' });
    expect(r.k).toBe(2);
    expect(purity([r.toolClusters, r.capabilityClusters], [p.toolGroups, p.capabilityGroups])).toBeGreaterThanOrEqual(0.95);
  });

  it('puts each capability with its tools on disconnected blocks, by either SVD route', () => {
    // 3 blocks of 4 tools, 2 capabilities each: sigma = 1, 1, 1, then 0; k = 3.
    const { toolsByCapabilities } = bipartiteMatrix(blockCapabilities(3, 4, 2), 12);
    for (const svd of ['dense', 'sparse'] as const) {
      const r = coCluster(toolsByCapabilities, { kMin: 2, kMax: 5, svd });
      expect(r.k).toBe(3);
      expect(Array.from(r.toolClusters)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
      expect(Array.from(r.capabilityClusters)).toEqual([0, 0, 1, 1, 2, 2]);
    }
  });

  it('makes each small connected component a cluster and splits the largest one spectrally', () => {
    // Planted 5 groups on tools 0..1499 and capabilities 0..149, then 30 isolated
    // tool-capability pairs: sigma = 1 thirty-one times, more than a Krylov block holds.
    const p = plantedCapabilities({ tools: 1500, capabilities: 150, groups: 5, seed: 5 });
    const caps = [...p.capabilities, ...Array.from({ length: 30 }, (_, i) => ({ tools: [1500 + i] }))];
    const r = coCluster(bipartiteMatrix(caps, 1530).toolsByCapabilities, { kMin: 2, kMax: 40, svd: 'sparse' });
    expect(r.k).toBe(35);
    const found = [r.toolClusters.subarray(0, 1500), r.capabilityClusters.subarray(0, 150)];
    expect(purity(found, [p.toolGroups, p.capabilityGroups])).toBeGreaterThanOrEqual(0.95);
    for (let i = 0; i < 30; i++) {
      const label = r.toolClusters[1500 + i]!;
      expect(r.capabilityClusters[150 + i]).toBe(label);
      expect(r.toolClusters.indexOf(label)).toBe(1500 + i); // nobody else shares it
    }
  });

  it('is deterministic for a given input and seed', () => {
    const p = planted(1500, 150, 6, 4);
    const a = coCluster(p.matrix, { seed: 7 });
    const b = coCluster(p.matrix, { seed: 7 });
    expect(a.k).toBe(b.k);
    expect(Array.from(a.toolClusters)).toEqual(Array.from(b.toolClusters));
    expect(Array.from(a.capabilityClusters)).toEqual(Array.from(b.capabilityClusters));
    expect(Array.from(a.singularValues)).toEqual(Array.from(b.singularValues));
  });

  it('labels isolated tools and capabilities -1', () => {
    // Tools 4 and 5 are in no capability; capability 4 has no tools.
    const caps = [{ tools: [0, 1] }, { tools: [0, 1] }, { tools: [2, 3] }, { tools: [2, 3] }, { tools: [] }];
    const r = coCluster(bipartiteMatrix(caps, 6).toolsByCapabilities, { kMin: 2, kMax: 3 });
    expect(r.k).toBe(2);
    expect(r.svd).toBe('dense'); // 6 x 5 is below denseMaxEntries: 'auto' takes the dense route
    expect(Array.from(r.toolClusters)).toEqual([0, 0, 1, 1, -1, -1]);
    expect(Array.from(r.capabilityClusters)).toEqual([0, 0, 1, 1, -1]);
  });

  it('clamps k larger than the rows to the rank bound', () => {
    // One capability of 3 tools: rank 1, so one cluster whatever kMin asks.
    const one = coCluster(bipartiteMatrix([{ tools: [0, 1, 2] }], 3).toolsByCapabilities, { kMin: 5, kMax: 9 });
    expect(one.k).toBe(1);
    expect(Array.from(one.toolClusters)).toEqual([0, 0, 0]);
    expect(Array.from(one.capabilityClusters)).toEqual([0]);
    // Two tools, two capabilities, kMin 4: at most 2 clusters.
    const two = coCluster(bipartiteMatrix([{ tools: [0] }, { tools: [1] }], 2).toolsByCapabilities, { kMin: 4, kMax: 6 });
    expect(two.k).toBe(2);
    expect(Array.from(two.toolClusters)).toEqual([0, 1]);
    expect(Array.from(two.capabilityClusters)).toEqual([0, 1]);
  });

  it('handles an empty matrix and one without entries', () => {
    const empty = coCluster(bipartiteMatrix([], 0).toolsByCapabilities);
    expect([empty.k, empty.toolClusters.length, empty.capabilityClusters.length, empty.svd]).toEqual([0, 0, 0, 'none']);
    const hollow = coCluster(bipartiteMatrix([{ tools: [] }, { tools: [] }], 3).toolsByCapabilities);
    expect(hollow.k).toBe(0);
    expect(Array.from(hollow.toolClusters)).toEqual([-1, -1, -1]);
    expect(Array.from(hollow.capabilityClusters)).toEqual([-1, -1]);
  });

  it('throws INVALID_INPUT for every bad option', () => {
    const m = bipartiteMatrix(blockCapabilities(2, 3, 2), 6).toolsByCapabilities;
    expectInvalidInput(() => coCluster(m, { kMin: 0 }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { kMin: 4, kMax: 3 }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { seed: 1.5 }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { initialisations: 0 }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { svd: 'qr' as never }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { dimensions: 'all' as never }), 'coCluster');
    expectInvalidInput(() => coCluster(m, { denseMaxEntries: -1 }), 'coCluster');
  });
});
