import { describe, expect, it } from 'vitest';
import { bipartiteMatrix } from '../../src/spectral/bipartite-matrix.js';
import { hypergraphPagerank } from '../../src/spectral/hypergraph-pagerank.js';
import { expectInvalidInput } from './_helpers.js';

function total(...arrays: Float64Array[]): number {
  let s = 0;
  for (const a of arrays) for (const v of a) s += v;
  return s;
}

describe('hypergraphPagerank', () => {
  it('matches the closed form on a star: one capability of two tools (hand-computed)', () => {
    // Nodes t0, t1 -> c (weight 1 each) and c -> t0, t1. Symmetric tools: x_t = (1 - x_c) / 2.
    // x_c = a (x_t0 + x_t1) + (1 - a)/3 = a (1 - x_c) + (1 - a)/3  =>  x_c = (a + (1 - a)/3) / (1 + a).
    const a = 0.85;
    const r = hypergraphPagerank(bipartiteMatrix([{ tools: [0, 1] }], 2).toolsByCapabilities, { tolerance: 1e-14, maxIterations: 2000 });
    const xc = (a + (1 - a) / 3) / (1 + a);
    expect(r.capabilityScores[0]).toBeCloseTo(xc, 8);
    expect(r.toolScores[0]).toBeCloseTo((1 - xc) / 2, 8);
    expect(r.converged).toBe(true);
  });

  it('sums to 1 and ranks the capability with more tools, and the tool in more capabilities, higher', () => {
    const caps = [{ tools: [0, 1, 2, 3] }, { tools: [3, 4] }, { tools: [5] }, { tools: [] }];
    const r = hypergraphPagerank(bipartiteMatrix(caps, 7).toolsByCapabilities);
    expect(total(r.toolScores, r.capabilityScores)).toBeCloseTo(1, 9);
    expect(r.capabilityScores[0]!).toBeGreaterThan(r.capabilityScores[1]!);
    expect(r.capabilityScores[1]!).toBeGreaterThan(r.capabilityScores[2]!);
    expect(r.toolScores[3]!).toBeGreaterThan(r.toolScores[0]!);
    // Isolated tool 6 and empty capability 3 are dangling: they keep only teleport-level mass.
    expect(r.toolScores[6]!).toBeCloseTo(r.capabilityScores[3]!, 12);
    expect(r.toolScores[6]!).toBeLessThan(r.toolScores[5]!);
  });

  it('handles an empty matrix', () => {
    const r = hypergraphPagerank(bipartiteMatrix([], 0).toolsByCapabilities);
    expect([r.toolScores.length, r.capabilityScores.length, r.converged]).toEqual([0, 0, true]);
  });

  it("throws INVALID_INPUT for a malformed matrix and passes pagerank's option errors through", () => {
    const m = bipartiteMatrix([{ tools: [0] }], 1).toolsByCapabilities;
    expectInvalidInput(() => hypergraphPagerank({ ...m, rows: 3 }), 'hypergraphPagerank');
    expectInvalidInput(() => hypergraphPagerank(m, { alpha: 2 }), 'pagerank');
    expectInvalidInput(
      () => hypergraphPagerank({ rows: 1, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([0]), values: new Float64Array([-1]) }),
      'csrFromEdges',
    );
  });
});
