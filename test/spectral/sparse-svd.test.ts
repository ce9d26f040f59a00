import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { bipartiteMatrix, type SparseMatrix } from '../../src/spectral/bipartite-matrix.js';
import { denseSvd } from '../../src/spectral/dense-svd.js';
import { normalizeBipartite } from '../../src/spectral/normalize.js';
import { sparseSvd } from '../../src/spectral/sparse-svd.js';
import { blockCapabilities, expectInvalidInput, plantedCapabilities, toDense, tripletResidual } from './_helpers.js';

/** A seeded random normalised tools x capabilities matrix (isolated tools and capabilities included). */
function randomNormalized(seed: number, tools: number, caps: number, perCap: number): SparseMatrix {
  const rng = createRng(seed);
  const list = Array.from({ length: caps }, () => ({ tools: Array.from({ length: perCap }, () => Math.floor(rng() * tools)) }));
  return normalizeBipartite(bipartiteMatrix(list, tools).toolsByCapabilities).matrix;
}

/** Singular values straight from ml-matrix on the dense matrix: the oracle. */
function oracleValues(m: SparseMatrix): number[] {
  return new SingularValueDecomposition(new Matrix(toDense(m)), { autoTranspose: true }).diagonal;
}

function orthonormalityError(vectors: Float64Array, length: number, rank: number): number {
  let worst = 0;
  for (let a = 0; a < rank; a++) {
    for (let b = 0; b <= a; b++) {
      let dot = 0;
      for (let i = 0; i < length; i++) dot += vectors[a * length + i]! * vectors[b * length + i]!;
      worst = Math.max(worst, Math.abs(dot - (a === b ? 1 : 0)));
    }
  }
  return worst;
}

describe('sparseSvd', () => {
  it('agrees with the dense ml-matrix oracle within 1e-6 and satisfies A v = sigma u (tall, Krylov space smaller than the matrix)', () => {
    const m = randomNormalized(1, 300, 60, 6);
    const oracle = oracleValues(m);
    const svd = sparseSvd(m, { rank: 8, blockSize: 4, tolerance: 1e-12, maxIterations: 15 });
    expect(svd.converged).toBe(true);
    expect(svd.rank).toBe(8);
    for (let j = 0; j < 8; j++) expect(Math.abs(svd.values[j]! - oracle[j]!)).toBeLessThan(1e-6);
    expect(tripletResidual(m, svd.values, svd.left, svd.right, 8)).toBeLessThan(1e-6);
    expect(orthonormalityError(svd.right, 60, 8)).toBeLessThan(1e-8);
    expect(orthonormalityError(svd.left, 300, 8)).toBeLessThan(1e-6);
  });

  it('agrees with the oracle on a wide matrix (works on the transpose) and on a planted one', () => {
    const raw = randomNormalized(2, 40, 90, 5);
    // Make it wide: swap roles through the capabilities x tools view.
    const wide = normalizeBipartite(bipartiteMatrix(Array.from({ length: 40 }, (_, t) => ({ tools: Array.from({ length: 4 }, (_, k) => (t * 7 + k * 13) % 90) })), 90).capabilitiesByTools).matrix;
    for (const m of [raw, wide]) {
      const oracle = oracleValues(m);
      const svd = sparseSvd(m, { rank: 5, tolerance: 1e-12 });
      for (let j = 0; j < 5; j++) expect(Math.abs(svd.values[j]! - oracle[j]!)).toBeLessThan(1e-6);
      expect(tripletResidual(m, svd.values, svd.left, svd.right, 5)).toBeLessThan(1e-6);
    }
    const planted = plantedCapabilities({ tools: 400, capabilities: 80, groups: 4, seed: 9 });
    const pm = normalizeBipartite(bipartiteMatrix(planted.capabilities, 400).toolsByCapabilities).matrix;
    const oracle = oracleValues(pm);
    const svd = sparseSvd(pm, { rank: 6, tolerance: 1e-12 });
    for (let j = 0; j < 6; j++) expect(Math.abs(svd.values[j]! - oracle[j]!)).toBeLessThan(1e-6);
  });

  it('finds a repeated singular value once per copy (sigma = 1 per connected component)', () => {
    // Three disconnected blocks: sigma = 1 three times, then 0.
    const m = normalizeBipartite(bipartiteMatrix(blockCapabilities(3, 4, 2), 12).toolsByCapabilities).matrix;
    const svd = sparseSvd(m, { rank: 4, tolerance: 1e-12 });
    expect(Array.from(svd.values.subarray(0, 3)).map((v) => Math.abs(v - 1) < 1e-9)).toEqual([true, true, true]);
    expect(svd.values[3]!).toBeLessThan(1e-6);
    expect(tripletResidual(m, svd.values, svd.left, svd.right, 3)).toBeLessThan(1e-9);
  });

  it('is deterministic for a seed and clamps rank to min(rows, cols)', () => {
    const m = randomNormalized(3, 200, 50, 5);
    const a = sparseSvd(m, { rank: 6, seed: 11, tolerance: 1e-8 });
    const b = sparseSvd(m, { rank: 6, seed: 11, tolerance: 1e-8 });
    expect(Array.from(a.values)).toEqual(Array.from(b.values));
    expect(Array.from(a.left)).toEqual(Array.from(b.left));
    const small = randomNormalized(4, 6, 3, 2);
    const clamped = sparseSvd(small, { rank: 10 });
    expect(clamped.rank).toBe(3);
    expect(clamped.values.length).toBe(3);
  });

  it('reports non-convergence as data', () => {
    const m = randomNormalized(5, 500, 200, 4);
    const svd = sparseSvd(m, { rank: 10, blockSize: 2, maxIterations: 2, tolerance: 0 });
    expect(svd.converged).toBe(false);
    // Two blocks of 2 cannot hold 10 vectors: the cap rises to 5 blocks.
    expect(svd.iterations).toBe(5);
    expect(svd.values.length).toBe(10);
    expect(Array.from(svd.values).every((v) => Number.isFinite(v) && v > 0)).toBe(true);
    const capped = sparseSvd(m, { rank: 4, blockSize: 2, maxIterations: 3, tolerance: 0 });
    expect([capped.iterations, capped.converged]).toEqual([3, false]);
  });

  it('returns empty triplets for rank 0 and for a matrix without rows or columns', () => {
    expect(sparseSvd(randomNormalized(6, 10, 5, 2), { rank: 0 }).rank).toBe(0);
    const empty = normalizeBipartite(bipartiteMatrix([], 4).toolsByCapabilities).matrix;
    const svd = sparseSvd(empty, { rank: 3 });
    expect([svd.rank, svd.values.length, svd.converged]).toEqual([0, 0, true]);
  });

  it('returns zero singular values and zero left vectors for an all-zero matrix', () => {
    const zero = bipartiteMatrix([{ tools: [] }, { tools: [] }], 3).toolsByCapabilities;
    const svd = sparseSvd(zero, { rank: 2 });
    expect(Array.from(svd.values)).toEqual([0, 0]);
    expect(Array.from(svd.left).every((v) => v === 0)).toBe(true);
  });

  it('throws INVALID_INPUT for bad options and a malformed matrix', () => {
    const m = randomNormalized(7, 10, 5, 2);
    expectInvalidInput(() => sparseSvd(m, { rank: -1 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { rank: 1.5 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { blockSize: 0 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { maxIterations: 0 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { tolerance: -1 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { tolerance: Number.NaN }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd(m, { seed: 0.5 }), 'sparseSvd');
    expectInvalidInput(() => sparseSvd({ ...m, rows: m.rows + 1 }), 'sparseSvd');
    expectInvalidInput(
      () => sparseSvd({ rows: 1, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([1]), values: new Float64Array([1]) }),
      'sparseSvd',
    );
    expectInvalidInput(
      () => sparseSvd({ rows: 1, cols: 1, offsets: new Int32Array([0, 1]), columns: new Int32Array([0]), values: new Float64Array([Number.NaN]) }),
      'sparseSvd',
    );
  });
});

describe('denseSvd', () => {
  it('matches sparseSvd on values and vectors (canonical signs) and satisfies A v = sigma u', () => {
    const m = randomNormalized(8, 120, 40, 5);
    const dense = denseSvd(m, { rank: 5 });
    const sparse = sparseSvd(m, { rank: 5, tolerance: 1e-13 });
    expect(tripletResidual(m, dense.values, dense.left, dense.right, 5)).toBeLessThan(1e-10);
    for (let j = 0; j < 5; j++) expect(Math.abs(dense.values[j]! - sparse.values[j]!)).toBeLessThan(1e-6);
    // Vectors are unique up to sign only for simple values; compare those with a clear gap.
    for (let j = 0; j < 5; j++) {
      const gapBefore = j === 0 ? 1 : dense.values[j - 1]! - dense.values[j]!;
      const gapAfter = dense.values[j]! - dense.values[j + 1]!;
      if (Math.min(gapBefore, gapAfter) < 1e-3) continue;
      let diff = 0;
      for (let i = 0; i < 40; i++) diff = Math.max(diff, Math.abs(dense.right[j * 40 + i]! - sparse.right[j * 40 + i]!));
      expect(diff).toBeLessThan(1e-4);
    }
  });

  it('handles a wide matrix, rank 0, and refuses matrices too large to densify', () => {
    const wide = { rows: 2, cols: 3, offsets: new Int32Array([0, 2, 3]), columns: new Int32Array([0, 2, 1]), values: new Float64Array([3, 4, 2]) };
    // A = [[3,0,4],[0,2,0]]: singular values 5 and 2.
    const svd = denseSvd(wide, { rank: 3 });
    expect(svd.rank).toBe(2);
    expect(svd.values[0]).toBeCloseTo(5, 12);
    expect(svd.values[1]).toBeCloseTo(2, 12);
    expect(tripletResidual(wide, svd.values, svd.left, svd.right, 2)).toBeLessThan(1e-12);
    expect(denseSvd(wide, { rank: 0 }).rank).toBe(0);
    const huge = { rows: 5000, cols: 5000, offsets: new Int32Array(5001), columns: new Int32Array(0), values: new Float64Array(0) };
    expectInvalidInput(() => denseSvd(huge), 'denseSvd');
    expectInvalidInput(() => denseSvd(wide, { rank: -2 }), 'denseSvd');
    expectInvalidInput(() => denseSvd({ ...wide, rows: 3 }), 'denseSvd');
  });
});
