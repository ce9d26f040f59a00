import { describe, expect, it } from 'vitest';
import { bipartiteMatrix, transposeSparse } from '../../src/spectral/bipartite-matrix.js';
import { expectInvalidInput, toDense } from './_helpers.js';

describe('bipartiteMatrix', () => {
  it('builds the tools x capabilities incidence matrix and its transpose (hand-computed)', () => {
    // cap 0 = {2, 0}, cap 1 = {1}, cap 2 = {} ; 4 tools, tool 3 in nothing.
    const { toolsByCapabilities: a, capabilitiesByTools: at } = bipartiteMatrix([{ tools: [2, 0] }, { tools: [1] }, { tools: [] }], 4);
    expect(toDense(a)).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
    expect(toDense(at)).toEqual([
      [1, 0, 1, 0],
      [0, 1, 0, 0],
      [0, 0, 0, 0],
    ]);
    expect(Array.from(at.columns)).toEqual([0, 2, 1]); // rows sorted
  });

  it('counts a tool listed twice in one capability once', () => {
    const { toolsByCapabilities: a } = bipartiteMatrix([{ tools: [1, 1, 0, 1] }], 2);
    expect(toDense(a)).toEqual([[1], [1]]);
    expect(a.columns.length).toBe(2);
  });

  it('handles no tools and no capabilities', () => {
    const empty = bipartiteMatrix([], 0).toolsByCapabilities;
    expect([empty.rows, empty.cols, empty.offsets.length]).toEqual([0, 0, 1]);
    const noCaps = bipartiteMatrix([], 3).toolsByCapabilities;
    expect([noCaps.rows, noCaps.cols, noCaps.columns.length]).toEqual([3, 0, 0]);
  });

  it('transposing twice gives the matrix back', () => {
    const { toolsByCapabilities: a } = bipartiteMatrix([{ tools: [0, 3] }, { tools: [3, 1, 2] }, { tools: [2] }], 5);
    expect(toDense(transposeSparse(transposeSparse(a)))).toEqual(toDense(a));
  });

  it('throws INVALID_INPUT for a bad nTools, capability list or member', () => {
    expectInvalidInput(() => bipartiteMatrix([], -1), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix([], 1.5), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix({} as never, 2), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix([{} as never], 2), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix([{ tools: [2] }], 2), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix([{ tools: [0.5] }], 2), 'bipartiteMatrix');
    expectInvalidInput(() => bipartiteMatrix([{ tools: [Number.NaN] }], 2), 'bipartiteMatrix');
    expectInvalidInput(
      () => transposeSparse({ rows: 1, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([3]), values: new Float64Array([1]) }),
      'transposeSparse',
    );
    expectInvalidInput(
      () => transposeSparse({ rows: 2, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([0]), values: new Float64Array([1]) }),
      'transposeSparse',
    );
  });
});
