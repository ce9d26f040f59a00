/**
 * Top-r singular triplets of a sparse matrix through a dense one-sided Jacobi / Golub-Kahan SVD
 * (ml-matrix SingularValueDecomposition): A = U diag(sigma) V^T with all min(m, n) triplets,
 * truncated to r. O(m n min(m, n)) time, O(m n) space, so only for small matrices (a few
 * hundred thousand entries); it is the reference route that sparseSvd is tested against.
 *
 * Output has sparseSvd's shape and sign convention, so either route feeds co-clustering.
 *
 * Reference: Golub, Van Loan, "Matrix Computations" (4th ed.), section 8.6; ml-matrix 6
 * (JAMA port) SingularValueDecomposition.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { ToolgraphError } from '../schema/errors.js';
import type { SparseMatrix } from './bipartite-matrix.js';
import { canonicalizeSigns, type SvdResult } from './sparse-svd.js';

/** Dense matrices above this many entries are refused: they would take seconds and gigabytes. */
export const DENSE_SVD_MAX_ENTRIES = 4_000_000;

export interface DenseSvdOptions {
  /** Number of triplets wanted; clamped to min(rows, cols). Non-negative integer; default 6. */
  readonly rank?: number;
}

export function denseSvd(a: SparseMatrix, options: DenseSvdOptions = {}): SvdResult {
  const rank = options.rank ?? 6;
  if (!Number.isInteger(rank) || rank < 0) {
    throw new ToolgraphError('INVALID_INPUT', `denseSvd: expected rank to be a non-negative integer, got ${String(rank)}`);
  }
  const { rows, cols, offsets, columns, values } = a;
  if (offsets.length !== rows + 1 || columns.length !== offsets[rows] || values.length !== columns.length) {
    throw new ToolgraphError('INVALID_INPUT', 'denseSvd: expected a SparseMatrix with offsets of length rows+1 and columns/values of length offsets[rows]');
  }
  if (rows * cols > DENSE_SVD_MAX_ENTRIES) {
    throw new ToolgraphError('INVALID_INPUT', `denseSvd: expected at most ${DENSE_SVD_MAX_ENTRIES} dense entries, got ${rows} x ${cols}; use sparseSvd`);
  }
  const r = Math.min(rank, rows, cols);
  if (r === 0) {
    return { rank: 0, values: new Float64Array(0), left: new Float64Array(0), right: new Float64Array(0), iterations: 0, converged: true };
  }
  const dense = new Matrix(rows, cols);
  for (let i = 0; i < rows; i++) {
    for (let p = offsets[i]!; p < offsets[i + 1]!; p++) dense.set(i, columns[p]!, values[p]!);
  }
  const svd = new SingularValueDecomposition(dense, { autoTranspose: true });
  const u = svd.leftSingularVectors;
  const v = svd.rightSingularVectors;
  const sigma = svd.diagonal;
  const left = new Float64Array(rows * r);
  const right = new Float64Array(cols * r);
  const out = new Float64Array(r);
  for (let j = 0; j < r; j++) {
    out[j] = sigma[j]!;
    for (let i = 0; i < rows; i++) left[j * rows + i] = out[j]! > 0 ? u.get(i, j) : 0;
    for (let i = 0; i < cols; i++) right[j * cols + i] = v.get(i, j);
  }
  canonicalizeSigns(left, right, rows, cols, r);
  return { rank: r, values: out, left, right, iterations: 1, converged: true };
}
