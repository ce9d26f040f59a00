import { describe, expect, it } from 'vitest';
import { plantedCapabilities, purity, spectralBench } from '../../bench/perf/spectral-bench.js';

describe('spectral bench (smoke: shape and quality, never timings)', () => {
  it('plants the requested groups, seeded', () => {
    const a = plantedCapabilities({ tools: 100, capabilities: 20, groups: 4, seed: 1 });
    const b = plantedCapabilities({ tools: 100, capabilities: 20, groups: 4, seed: 1 });
    expect(a.capabilities).toEqual(b.capabilities);
    expect(a.capabilities.reduce((n, c) => n + c.tools.length, 0)).toBe(800); // 8 per tool
    expect(Array.from(a.toolGroups.subarray(0, 5))).toEqual([0, 1, 2, 3, 0]);
  });

  it('purity is 1 for a relabelling and counts -1 as a cluster', () => {
    expect(purity([Int32Array.from([5, 5, 7, 7])], [Int32Array.from([0, 0, 1, 1])])).toBe(1);
    expect(purity([Int32Array.from([0, 0, 0, -1])], [Int32Array.from([0, 0, 1, 1])])).toBe(0.75);
  });

  it('returns one JSON-able object with quality beside speed', () => {
    const r = spectralBench({ tools: 600, capabilities: 60, groups: 4, seed: 3, repeats: 1, denseTools: 200, denseCapabilities: 20 });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    expect(r.case).toBe('spectral');
    expect(r.k).toBe(4);
    expect(r.purity as number).toBeGreaterThanOrEqual(0.95);
    for (const key of ['coClusterMs', 'coClusterMinMs', 'smallSparseMs', 'smallDenseMs', 'denseOverSparse', 'log2Purity', 'smallDensePurity']) {
      expect(typeof r[key]).toBe('number');
    }
  });
});
