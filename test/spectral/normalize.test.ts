import { describe, expect, it } from 'vitest';
import { bipartiteMatrix } from '../../src/spectral/bipartite-matrix.js';
import { normalizeBipartite } from '../../src/spectral/normalize.js';
import { expectInvalidInput, toDense } from './_helpers.js';

describe('normalizeBipartite', () => {
  it('divides each entry by sqrt(d1 d2) and leaves empty rows and columns at scale 0 (hand-computed)', () => {
    // A = [[1,1],[1,0],[0,0]] plus an empty third capability: d1 = (2, 1, 0), d2 = (2, 1, 0).
    const { toolsByCapabilities: a } = bipartiteMatrix([{ tools: [0, 1] }, { tools: [0] }, { tools: [] }], 3);
    const n = normalizeBipartite(a);
    expect(Array.from(n.rowDegrees)).toEqual([2, 1, 0]);
    expect(Array.from(n.colDegrees)).toEqual([2, 1, 0]);
    expect(Array.from(n.rowScale)).toEqual([1 / Math.SQRT2, 1, 0]);
    expect(Array.from(n.colScale)).toEqual([1 / Math.SQRT2, 1, 0]);
    const d = toDense(n.matrix);
    expect(d[0]![0]).toBeCloseTo(0.5, 15);
    expect(d[0]![1]).toBeCloseTo(1 / Math.SQRT2, 15);
    expect(d[1]![0]).toBeCloseTo(1 / Math.SQRT2, 15);
    expect(d[2]).toEqual([0, 0, 0]);
    for (const v of n.matrix.values) expect(Number.isFinite(v)).toBe(true);
  });

  it('has top singular value 1 with vector sqrt(d): An^T (sqrt d1) = sqrt d2', () => {
    const { toolsByCapabilities: a } = bipartiteMatrix([{ tools: [0, 1, 2] }, { tools: [2, 3] }, { tools: [1, 3, 4] }], 5);
    const n = normalizeBipartite(a);
    const out = new Float64Array(3);
    for (let i = 0; i < 5; i++) {
      for (let p = n.matrix.offsets[i]!; p < n.matrix.offsets[i + 1]!; p++) out[n.matrix.columns[p]!]! += n.matrix.values[p]! * Math.sqrt(n.rowDegrees[i]!);
    }
    for (let j = 0; j < 3; j++) expect(out[j]).toBeCloseTo(Math.sqrt(n.colDegrees[j]!), 12);
  });

  it('throws INVALID_INPUT for negative or non-finite values and a bad shape', () => {
    const bad = { rows: 1, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([0]), values: new Float64Array([-1]) };
    expectInvalidInput(() => normalizeBipartite(bad), 'normalizeBipartite');
    expectInvalidInput(() => normalizeBipartite({ ...bad, values: new Float64Array([Number.NaN]) }), 'normalizeBipartite');
    expectInvalidInput(() => normalizeBipartite({ ...bad, rows: 2 }), 'normalizeBipartite');
  });
});
