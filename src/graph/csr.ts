/**
 * Compressed sparse row (CSR) adjacency: the immutable, typed-array form of the tool graph that
 * every snapshot signal reads.
 *
 * Row u holds u's out-edges at positions offsets[u] .. offsets[u+1]-1 of `targets`/`weights`,
 * sorted by target, one entry per distinct (u, v) with the weights of duplicates summed.
 * Building is two stable counting sorts (by target, then by source), so rows come out sorted
 * without a comparison sort: O(n + m) time and O(n + m) space. Transposing is one counting
 * sort, O(n + m). Symmetrizing merges each row with the matching row of the transpose,
 * O(n + m). A weight lookup is a binary search in one row, O(log deg(u)).
 *
 * Reference: Saad, "Iterative Methods for Sparse Linear Systems" (2nd ed., SIAM 2003),
 * section 3.4 (CSR format); Gustavson, "Two fast algorithms for sparse matrices:
 * multiplication and permuted transposition", ACM TOMS 4(3), 1978 (counting-sort transpose).
 */
import { ToolgraphError } from '../schema/errors.js';

export interface Csr {
  /** Number of nodes; node ids are 0..n-1. */
  readonly n: number;
  /** Length n+1; row u is [offsets[u], offsets[u+1]). */
  readonly offsets: Int32Array;
  /** Length offsets[n]; each row strictly increasing. */
  readonly targets: Int32Array;
  /** Length offsets[n]; finite and non-negative. */
  readonly weights: Float64Array;
}

/** Int32Array indexes above 2^31-1 would wrap silently. */
const MAX_INDEX = 0x7fffffff;

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', message);
}

function assertNodeIndex(caller: string, name: string, value: number, n: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= n) {
    throw invalid(`${caller}: expected ${name} to be an integer node index in [0, ${n}), got ${String(value)}`);
  }
}

/** O(1) shape check: internals trust a Csr's contents, but a hand-built one of the wrong shape would read out of bounds. */
function assertCsrShape(caller: string, csr: Csr): void {
  const { n, offsets, targets, weights } = csr;
  if (
    !Number.isInteger(n) ||
    n < 0 ||
    offsets.length !== n + 1 ||
    offsets[0] !== 0 ||
    targets.length !== offsets[n] ||
    weights.length !== targets.length
  ) {
    throw invalid(`${caller}: expected a Csr with offsets of length n+1 starting at 0 and targets/weights of length offsets[n]`);
  }
}

/**
 * Builds a CSR from parallel edge arrays. Duplicate (s, t) pairs are merged with their weights
 * summed; each row is sorted by target; self-loops are kept; weights default to 1.
 * Throws INVALID_INPUT when n is not a non-negative integer, the arrays differ in length, an
 * endpoint is not an integer in [0, n), or a weight is not finite and non-negative.
 */
export function csrFromEdges(
  n: number,
  sources: ArrayLike<number>,
  targets: ArrayLike<number>,
  weights?: ArrayLike<number>,
): Csr {
  if (!Number.isInteger(n) || n < 0 || n > MAX_INDEX) {
    throw invalid(`csrFromEdges: expected n to be a non-negative integer, got ${String(n)}`);
  }
  const m = sources.length;
  if (targets.length !== m || (weights !== undefined && weights.length !== m)) {
    throw invalid(
      `csrFromEdges: expected sources, targets and weights of equal length, got ${m}, ${targets.length}` +
        (weights === undefined ? '' : `, ${weights.length}`),
    );
  }
  if (m > MAX_INDEX) throw invalid(`csrFromEdges: expected at most ${MAX_INDEX} edges, got ${m}`);

  // Validate while counting, so bad input costs nothing extra and never reaches a typed array
  // (which would coerce NaN to 0 silently).
  const rowCount = new Int32Array(n + 1);
  const colCount = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) {
    const s = sources[e]!;
    const t = targets[e]!;
    if (!Number.isInteger(s) || s < 0 || s >= n || !Number.isInteger(t) || t < 0 || t >= n) {
      throw invalid(`csrFromEdges: expected edge ${e} to join integer node indexes in [0, ${n}), got ${String(s)} -> ${String(t)}`);
    }
    if (weights !== undefined) {
      const w = weights[e]!;
      if (!(w >= 0) || w === Number.POSITIVE_INFINITY) {
        throw invalid(`csrFromEdges: expected edge ${e} to have a finite non-negative weight, got ${String(w)}`);
      }
    }
    rowCount[s + 1]! += 1;
    colCount[t + 1]! += 1;
  }
  for (let i = 0; i < n; i++) {
    rowCount[i + 1]! += rowCount[i]!;
    colCount[i + 1]! += colCount[i]!;
  }

  // Pass 1: edge ids ordered by target (stable counting sort).
  const byTarget = new Int32Array(m);
  for (let e = 0; e < m; e++) byTarget[colCount[targets[e]!]!++] = e;

  // Pass 2: stable by source over that order, so each row is already sorted by target.
  const rowTargets = new Int32Array(m);
  const rowWeights = new Float64Array(m);
  const cursor = rowCount.slice(0, n);
  for (let k = 0; k < m; k++) {
    const e = byTarget[k]!;
    const p = cursor[sources[e]!]!++;
    rowTargets[p] = targets[e]!;
    rowWeights[p] = weights === undefined ? 1 : weights[e]!;
  }

  // Pass 3: merge runs of equal targets in place; rows only shrink, so writes never overtake reads.
  const offsets = new Int32Array(n + 1);
  let write = 0;
  for (let u = 0; u < n; u++) {
    const end = rowCount[u + 1]!;
    let prev = -1;
    for (let p = rowCount[u]!; p < end; p++) {
      const t = rowTargets[p]!;
      if (t === prev) {
        rowWeights[write - 1]! += rowWeights[p]!;
      } else {
        rowTargets[write] = t;
        rowWeights[write] = rowWeights[p]!;
        write++;
        prev = t;
      }
    }
    offsets[u + 1] = write;
  }
  return {
    n,
    offsets,
    targets: write === m ? rowTargets : rowTargets.slice(0, write),
    weights: write === m ? rowWeights : rowWeights.slice(0, write),
  };
}

/** The reversed graph: v -> u with weight w for every u -> v. Rows stay sorted because sources are visited in increasing order. */
export function transposeCsr(csr: Csr): Csr {
  assertCsrShape('transposeCsr', csr);
  const { n, offsets, targets, weights } = csr;
  const m = targets.length;
  const tOffsets = new Int32Array(n + 1);
  for (let p = 0; p < m; p++) tOffsets[targets[p]! + 1]! += 1;
  for (let i = 0; i < n; i++) tOffsets[i + 1]! += tOffsets[i]!;
  const cursor = tOffsets.slice(0, n);
  const tTargets = new Int32Array(m);
  const tWeights = new Float64Array(m);
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1]!;
    for (let p = offsets[u]!; p < end; p++) {
      const q = cursor[targets[p]!]!++;
      tTargets[q] = u;
      tWeights[q] = weights[p]!;
    }
  }
  return { n, offsets: tOffsets, targets: tTargets, weights: tWeights };
}

/**
 * `transposed`, given by a caller that has transposeCsr(csr) already (a snapshot shares one
 * between the undirected view and PageRank), after the checks a cheap look can make: its shape,
 * its size and its entry count. That it is csr's transpose is the caller's promise.
 */
export function checkedTranspose(fn: string, csr: Csr, transposed: Csr): Csr {
  assertCsrShape(fn, csr);
  assertCsrShape(fn, transposed);
  if (transposed.n !== csr.n || transposed.targets.length !== csr.targets.length) {
    throw invalid(`${fn}: the transpose given has ${transposed.n} nodes and ${transposed.targets.length} entries, the graph ${csr.n} and ${csr.targets.length}`);
  }
  return transposed;
}

/**
 * The undirected view: w(u, v) = w(u -> v) + w(v -> u), stored in both rows u and v; self-loops
 * dropped (they carry no co-occurrence between two tools and would distort Adamic-Adar degrees
 * and Louvain's modularity). Each undirected edge appears twice, so csrEdgeCount doubles.
 */
export function symmetrizeCsr(csr: Csr, transposed?: Csr): Csr {
  assertCsrShape('symmetrizeCsr', csr);
  const { n, offsets, targets, weights } = csr;
  const t = transposed === undefined ? transposeCsr(csr) : checkedTranspose('symmetrizeCsr', csr, transposed);
  const tOffsets = t.offsets;
  const tTargets = t.targets;
  const tWeights = t.weights;
  // Upper bound 2m; trimmed once at the end rather than counting in a separate merge pass.
  const cap = 2 * targets.length;
  const sTargets = new Int32Array(cap);
  const sWeights = new Float64Array(cap);
  const sOffsets = new Int32Array(n + 1);
  let write = 0;
  for (let u = 0; u < n; u++) {
    let a = offsets[u]!;
    const aEnd = offsets[u + 1]!;
    let b = tOffsets[u]!;
    const bEnd = tOffsets[u + 1]!;
    while (a < aEnd || b < bEnd) {
      const va = a < aEnd ? targets[a]! : MAX_INDEX;
      const vb = b < bEnd ? tTargets[b]! : MAX_INDEX;
      let v: number;
      let w: number;
      if (va === vb) {
        v = va;
        w = weights[a++]! + tWeights[b++]!;
      } else if (va < vb) {
        v = va;
        w = weights[a++]!;
      } else {
        v = vb;
        w = tWeights[b++]!;
      }
      if (v === u) continue;
      sTargets[write] = v;
      sWeights[write] = w;
      write++;
    }
    sOffsets[u + 1] = write;
  }
  return { n, offsets: sOffsets, targets: sTargets.slice(0, write), weights: sWeights.slice(0, write) };
}

/** Weight of u -> v, or 0 when there is no such edge. Throws INVALID_INPUT for an index outside [0, n). */
export function csrWeight(csr: Csr, u: number, v: number): number {
  assertNodeIndex('csrWeight', 'u', u, csr.n);
  assertNodeIndex('csrWeight', 'v', v, csr.n);
  return sortedRangeWeight(csr.targets, csr.weights, csr.offsets[u]!, csr.offsets[u + 1]!, v);
}

/** The weight beside `v` in targets[lo, hi), which is sorted ascending; 0 when absent. */
export function sortedRangeWeight(targets: Int32Array, weights: Float64Array, lo: number, hi: number, v: number): number {
  let l = lo;
  let h = hi - 1;
  while (l <= h) {
    const mid = (l + h) >>> 1;
    const t = targets[mid]!;
    if (t === v) return weights[mid]!;
    if (t < v) l = mid + 1;
    else h = mid - 1;
  }
  return 0;
}

/** Number of stored (directed) entries; an undirected view from symmetrizeCsr counts each edge twice. */
export function csrEdgeCount(csr: Csr): number {
  return csr.offsets[csr.n]!;
}

/** The CSR layout of distinct edges, and where each came from. */
export interface EdgeOrder {
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  /** perm[j] = the input position of the edge at CSR position j. */
  readonly perm: Int32Array;
}

/**
 * The CSR order of distinct (source, target) pairs given in any order (the caller guarantees
 * they are distinct and in range: TransitionGraph's transitions). Linear, with sequential access,
 * when the input is sorted but for a tail (a graph restored from a snapshot, which stores its
 * transitions sorted, then learns more): the tail is sorted on its own and merged in. Otherwise
 * two stable counting sorts, as csrFromEdges. O(n + m), plus O(t log t) for a tail of t.
 */
export function edgeOrder(n: number, sources: Int32Array, targets: Int32Array): EdgeOrder {
  const m = sources.length;
  let prefix = Math.min(1, m);
  while (prefix < m && (sources[prefix - 1]! < sources[prefix]! || (sources[prefix - 1] === sources[prefix] && targets[prefix - 1]! < targets[prefix]!))) prefix++;
  const perm = new Int32Array(m);
  if (m - prefix > m >> 3) {
    // Mostly unsorted: counting sort by target, then stably by source.
    const rowStart = new Int32Array(n + 1);
    const colStart = new Int32Array(n + 1);
    for (let e = 0; e < m; e++) {
      rowStart[sources[e]! + 1]!++;
      colStart[targets[e]! + 1]!++;
    }
    for (let i = 0; i < n; i++) {
      rowStart[i + 1]! += rowStart[i]!;
      colStart[i + 1]! += colStart[i]!;
    }
    const byTarget = new Int32Array(m);
    for (let e = 0; e < m; e++) byTarget[colStart[targets[e]!]!++] = e;
    const cursor = rowStart.slice(0, n);
    for (let k = 0; k < m; k++) {
      const e = byTarget[k]!;
      perm[cursor[sources[e]!]!++] = e;
    }
  } else {
    // A sorted prefix and a short tail: sort the tail, merge the two runs.
    const tail = Array.from({ length: m - prefix }, (_, i) => prefix + i).sort((x, y) => sources[x]! - sources[y]! || targets[x]! - targets[y]!);
    let i = 0;
    let k = 0;
    for (let j = 0; j < m; j++) {
      const t = tail[k];
      if (t !== undefined && (i >= prefix || sources[t]! < sources[i]! || (sources[t] === sources[i] && targets[t]! < targets[i]!))) {
        perm[j] = t;
        k++;
      } else {
        perm[j] = i++;
      }
    }
  }
  const offsets = new Int32Array(n + 1);
  const sorted = new Int32Array(m);
  for (let j = 0; j < m; j++) {
    const e = perm[j]!;
    offsets[sources[e]! + 1]!++;
    sorted[j] = targets[e]!;
  }
  for (let u = 0; u < n; u++) offsets[u + 1]! += offsets[u]!;
  return { offsets, targets: sorted, perm };
}
