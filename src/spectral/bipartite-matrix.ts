/**
 * The tools x capabilities incidence matrix A of the tool hypergraph, as compressed sparse rows:
 * A[t, c] = 1 when tool t is a member of capability c, else 0. Row t lists the capabilities of
 * tool t; its transpose (row c lists the tools of capability c) is the same matrix read the
 * other way.
 *
 * A tool listed twice in one capability is one membership (weight 1): the hypergraph records
 * who belongs to a capability, not how often a trace used it. Building is one counting sort by
 * tool over the (capability, tool) pairs, visited in capability order, so every row comes out
 * sorted: O(nTools + nCapabilities + nnz) time and space. Transposing is the same counting
 * sort the other way, O(rows + cols + nnz).
 *
 * Reference: Zhou, Huang, Schölkopf, "Learning with hypergraphs: clustering, classification and
 * embedding", NIPS 2006 (incidence matrix H); Saad, "Iterative Methods for Sparse Linear
 * Systems" (2nd ed., SIAM 2003), section 3.4 (CSR).
 */
import { ToolgraphError } from '../schema/errors.js';

/** A rectangular sparse matrix in CSR form; row i is [offsets[i], offsets[i+1]). */
export interface SparseMatrix {
  readonly rows: number;
  readonly cols: number;
  /** Length rows+1. */
  readonly offsets: Int32Array;
  /** Column index of each stored entry; strictly increasing within a row. */
  readonly columns: Int32Array;
  /** Finite value of each stored entry. */
  readonly values: Float64Array;
}

/** What the matrix is built from: each capability's member tools, by tool index. */
export interface CapabilityMembers {
  readonly tools: readonly number[];
}

export interface BipartiteMatrix {
  /** Tools x capabilities. */
  readonly toolsByCapabilities: SparseMatrix;
  /** Capabilities x tools: the transpose. */
  readonly capabilitiesByTools: SparseMatrix;
}

const MAX_INDEX = 0x7fffffff;

function invalid(caller: string, message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `${caller}: ${message}`);
}

/**
 * Builds A (tools x capabilities) and its transpose from capability member lists.
 * Throws INVALID_INPUT when nTools is not a non-negative integer, `capabilities` is not an array
 * of `{tools: number[]}`, or a member is not an integer tool index in [0, nTools).
 */
export function bipartiteMatrix(capabilities: readonly CapabilityMembers[], nTools: number): BipartiteMatrix {
  const caller = 'bipartiteMatrix';
  if (!Number.isInteger(nTools) || nTools < 0 || nTools > MAX_INDEX) {
    throw invalid(caller, `expected nTools to be a non-negative integer, got ${String(nTools)}`);
  }
  if (!Array.isArray(capabilities)) throw invalid(caller, 'expected capabilities to be an array of {tools: number[]}');
  const nCaps = capabilities.length;

  // Capability-major first: it is the input order, and deduplicating needs one stamp per tool.
  const stamp = new Int32Array(nTools).fill(-1);
  const capOffsets = new Int32Array(nCaps + 1);
  let nnz = 0;
  for (let c = 0; c < nCaps; c++) {
    const members = capabilities[c]?.tools;
    if (!Array.isArray(members)) throw invalid(caller, `expected capabilities[${c}].tools to be an array of tool indexes`);
    for (let j = 0; j < members.length; j++) {
      const t = members[j]!;
      if (!Number.isInteger(t) || t < 0 || t >= nTools) {
        throw invalid(caller, `expected capabilities[${c}].tools[${j}] to be an integer tool index in [0, ${nTools}), got ${String(t)}`);
      }
      if (stamp[t] !== c) {
        stamp[t] = c;
        nnz++;
      }
    }
    capOffsets[c + 1] = nnz;
  }
  stamp.fill(-1);
  const capColumns = new Int32Array(nnz);
  let write = 0;
  for (let c = 0; c < nCaps; c++) {
    const members = capabilities[c]!.tools;
    const start = write;
    for (let j = 0; j < members.length; j++) {
      const t = members[j]!;
      if (stamp[t] !== c) {
        stamp[t] = c;
        capColumns[write++] = t;
      }
    }
    // Member lists are usually short and often sorted already; insertion sort is exact and cheap.
    for (let p = start + 1; p < write; p++) {
      const v = capColumns[p]!;
      let q = p - 1;
      while (q >= start && capColumns[q]! > v) {
        capColumns[q + 1] = capColumns[q]!;
        q--;
      }
      capColumns[q + 1] = v;
    }
  }
  const capabilitiesByTools: SparseMatrix = {
    rows: nCaps,
    cols: nTools,
    offsets: capOffsets,
    columns: capColumns,
    values: new Float64Array(nnz).fill(1),
  };
  return { toolsByCapabilities: transposeSparse(capabilitiesByTools), capabilitiesByTools };
}

/** Throws INVALID_INPUT, naming `caller`, unless `matrix` has a consistent CSR shape. */
export function assertSparseMatrix(matrix: SparseMatrix, caller: string): void {
  const { rows, cols, offsets, columns, values } = matrix;
  if (
    !Number.isInteger(rows) ||
    !Number.isInteger(cols) ||
    rows < 0 ||
    cols < 0 ||
    offsets.length !== rows + 1 ||
    offsets[0] !== 0 ||
    columns.length !== offsets[rows] ||
    values.length !== columns.length
  ) {
    throw invalid(caller, 'expected a SparseMatrix with offsets of length rows+1 starting at 0 and columns/values of length offsets[rows]');
  }
}

/** The transpose, rows sorted because source rows are visited in increasing order. O(rows + cols + nnz). */
export function transposeSparse(matrix: SparseMatrix): SparseMatrix {
  assertSparseMatrix(matrix, 'transposeSparse');
  const { rows, cols, offsets, columns, values } = matrix;
  const nnz = columns.length;
  const tOffsets = new Int32Array(cols + 1);
  for (let p = 0; p < nnz; p++) {
    const j = columns[p]!;
    if (!(j >= 0 && j < cols)) throw invalid('transposeSparse', `expected column indexes in [0, ${cols}), got ${j}`);
    tOffsets[j + 1]! += 1;
  }
  for (let j = 0; j < cols; j++) tOffsets[j + 1]! += tOffsets[j]!;
  const cursor = tOffsets.slice(0, cols);
  const tColumns = new Int32Array(nnz);
  const tValues = new Float64Array(nnz);
  for (let i = 0; i < rows; i++) {
    const end = offsets[i + 1]!;
    for (let p = offsets[i]!; p < end; p++) {
      const q = cursor[columns[p]!]!++;
      tColumns[q] = i;
      tValues[q] = values[p]!;
    }
  }
  return { rows: cols, cols: rows, offsets: tOffsets, columns: tColumns, values: tValues };
}
