/**
 * Degree normalisation of a bipartite matrix for spectral co-clustering:
 *
 *   An = D1^-1/2 A D2^-1/2,   D1 = diag(row sums of A),  D2 = diag(column sums of A)
 *
 * so An[i, j] = A[i, j] / sqrt(d1(i) d2(j)). The singular values of An lie in [0, 1], the top one
 * is 1 with singular vectors (sqrt(d1), sqrt(d2)) on each connected component, and the next ones
 * carry the partition (Dhillon 2001, theorem 3). A row or column with zero degree has no
 * entries, so it stays an all-zero line of An; its scale is 0 rather than 1/0, and co-clustering
 * reports it as isolated instead of letting Infinity or NaN leak into the embedding.
 *
 * O(rows + cols + nnz) time and space; the sparsity pattern is shared with the input.
 *
 * Reference: Dhillon, "Co-clustering documents and words using bipartite spectral graph
 * partitioning", KDD 2001, section 4.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { SparseMatrix } from './bipartite-matrix.js';

export interface NormalizedMatrix {
  /** D1^-1/2 A D2^-1/2, same pattern as A. */
  readonly matrix: SparseMatrix;
  /** d1(i)^-1/2, or 0 when row i is empty. */
  readonly rowScale: Float64Array;
  /** d2(j)^-1/2, or 0 when column j is empty. */
  readonly colScale: Float64Array;
  readonly rowDegrees: Float64Array;
  readonly colDegrees: Float64Array;
}

/** Throws INVALID_INPUT when a stored value is negative or not finite (degrees must be sums of non-negative weights). */
export function normalizeBipartite(a: SparseMatrix): NormalizedMatrix {
  const { rows, cols, offsets, columns, values } = a;
  if (offsets.length !== rows + 1 || columns.length !== offsets[rows] || values.length !== columns.length) {
    throw new ToolgraphError('INVALID_INPUT', 'normalizeBipartite: expected a SparseMatrix with offsets of length rows+1 and columns/values of length offsets[rows]');
  }
  const nnz = values.length;
  const rowDegrees = new Float64Array(rows);
  const colDegrees = new Float64Array(cols);
  for (let i = 0; i < rows; i++) {
    const end = offsets[i + 1]!;
    let sum = 0;
    for (let p = offsets[i]!; p < end; p++) {
      const v = values[p]!;
      if (!(v >= 0) || v === Number.POSITIVE_INFINITY) {
        throw new ToolgraphError('INVALID_INPUT', `normalizeBipartite: expected finite non-negative values, got ${String(v)} at row ${i}`);
      }
      sum += v;
      colDegrees[columns[p]!]! += v;
    }
    rowDegrees[i] = sum;
  }
  const rowScale = new Float64Array(rows);
  const colScale = new Float64Array(cols);
  for (let i = 0; i < rows; i++) if (rowDegrees[i]! > 0) rowScale[i] = 1 / Math.sqrt(rowDegrees[i]!);
  for (let j = 0; j < cols; j++) if (colDegrees[j]! > 0) colScale[j] = 1 / Math.sqrt(colDegrees[j]!);
  const scaled = new Float64Array(nnz);
  for (let i = 0; i < rows; i++) {
    const end = offsets[i + 1]!;
    const ri = rowScale[i]!;
    for (let p = offsets[i]!; p < end; p++) scaled[p] = values[p]! * ri * colScale[columns[p]!]!;
  }
  return {
    matrix: { rows, cols, offsets, columns, values: scaled },
    rowScale,
    colScale,
    rowDegrees,
    colDegrees,
  };
}
