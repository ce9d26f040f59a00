/**
 * PageRank by power iteration on a directed CSR: how likely a random walker, following
 * transitions in proportion to their weight and teleporting with probability 1 - alpha, is to
 * be at each tool.
 *
 *   x0(v)     = 1/N
 *   x_{k+1}(v) = alpha * sum_{u -> v} x_k(u) * w(u,v) / W(u)
 *              + (alpha * D_k + 1 - alpha) / N,        D_k = sum of x_k(u) over dangling u
 *
 * W(u) is u's total out-weight (out-degree when unweighted); a node with W(u) = 0 is dangling
 * and spreads its mass uniformly. Stops when sum_v |x_{k+1}(v) - x_k(v)| < N * tolerance.
 *
 * Semantics (defaults alpha 0.85, tolerance 1e-6, maxIterations 100, weighted; dangling
 * handling; the N * tolerance L1 test) are exactly those of graphology's metrics library (2.4,
 * centrality/pagerank), our test oracle. Departures, all for inputs it cannot handle: N = 0
 * returns empty scores instead of looping; non-convergence is data (`converged: false`, last
 * iterate) instead of a throw; a node whose edges all weigh 0 is dangling instead of
 * producing NaN.
 *
 * Pull formulation over the transposed CSR: each iteration reads every in-edge once and writes
 * each score once, with two preallocated buffers swapped; no allocation inside the loop.
 * O(N + M) per iteration, O(k (N + M)) total for k iterations, O(N + M) extra space.
 *
 * Reference: Page, Brin, Motwani, Winograd, "The PageRank citation ranking: bringing order to
 * the Web", Stanford InfoLab TR 1999-66; graphology's metrics library, centrality/pagerank.js.
 */
import { ToolgraphError } from '../schema/errors.js';
import { checkedTranspose, transposeCsr, type Csr } from './csr.js';

export interface PagerankOptions {
  /** Damping factor in [0, 1]; default 0.85. */
  readonly alpha?: number;
  /** Per-node L1 tolerance, >= 0; default 1e-6. */
  readonly tolerance?: number;
  /** Non-negative integer; default 100. */
  readonly maxIterations?: number;
  /** Follow edges in proportion to their weight; false treats every stored edge as weight 1. Default true. */
  readonly weighted?: boolean;
  /** transposeCsr(csr), when the caller has it already (csr.ts, checkedTranspose). */
  readonly incoming?: Csr;
}

export interface PagerankResult {
  /** Score per node index; sums to 1 when n > 0. */
  readonly scores: Float64Array;
  /** Power iterations performed. */
  readonly iterations: number;
  readonly converged: boolean;
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `pagerank: ${message}`);
}

export function pagerank(csr: Csr, options: PagerankOptions = {}): PagerankResult {
  const alpha = options.alpha ?? 0.85;
  const tolerance = options.tolerance ?? 1e-6;
  const maxIterations = options.maxIterations ?? 100;
  const weighted = options.weighted ?? true;
  if (typeof alpha !== 'number' || !(alpha >= 0 && alpha <= 1)) {
    throw invalid(`expected alpha in [0, 1], got ${String(alpha)}`);
  }
  if (typeof tolerance !== 'number' || !(tolerance >= 0) || tolerance === Number.POSITIVE_INFINITY) {
    throw invalid(`expected tolerance to be a finite number >= 0, got ${String(tolerance)}`);
  }
  if (!Number.isInteger(maxIterations) || maxIterations < 0) {
    throw invalid(`expected maxIterations to be a non-negative integer, got ${String(maxIterations)}`);
  }
  if (typeof weighted !== 'boolean') throw invalid(`expected weighted to be a boolean, got ${String(weighted)}`);

  const n = csr.n;
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, converged: true };
  const { offsets, weights } = csr;
  // transposeCsr also checks the Csr's shape.
  const incoming = options.incoming === undefined ? transposeCsr(csr) : checkedTranspose('pagerank', csr, options.incoming);
  const inOffsets = incoming.offsets;
  const inSources = incoming.targets;
  const inWeights = incoming.weights;

  // invOut[u] = alpha / W(u), or 0 for a dangling u, so the inner loop is a plain dot product.
  const invOut = new Float64Array(n);
  let danglingCount = 0;
  const dangling = new Int32Array(n);
  for (let u = 0; u < n; u++) {
    let total = 0;
    const end = offsets[u + 1]!;
    if (weighted) for (let p = offsets[u]!; p < end; p++) total += weights[p]!;
    else total = end - offsets[u]!;
    if (total > 0) invOut[u] = alpha / total;
    else dangling[danglingCount++] = u;
  }

  const p = 1 / n;
  const teleport = (1 - alpha) * p;
  const threshold = n * tolerance;
  let x = new Float64Array(n).fill(p);
  let next = new Float64Array(n);
  // share[u] = alpha * x(u) / W(u): u's mass per unit of out-weight, computed once per node.
  const share = new Float64Array(n);
  let iterations = 0;
  let converged = false;

  while (iterations < maxIterations) {
    let danglingMass = 0;
    for (let i = 0; i < danglingCount; i++) danglingMass += x[dangling[i]!]!;
    const base = alpha * danglingMass * p + teleport;
    for (let u = 0; u < n; u++) share[u] = x[u]! * invOut[u]!;

    let error = 0;
    for (let v = 0; v < n; v++) {
      let sum = 0;
      const end = inOffsets[v + 1]!;
      if (weighted) for (let j = inOffsets[v]!; j < end; j++) sum += share[inSources[j]!]! * inWeights[j]!;
      else for (let j = inOffsets[v]!; j < end; j++) sum += share[inSources[j]!]!;
      const value = sum + base;
      next[v] = value;
      error += Math.abs(value - x[v]!);
    }

    const previous = x;
    x = next;
    next = previous;
    iterations++;
    if (error < threshold) {
      converged = true;
      break;
    }
  }
  return { scores: x, iterations, converged };
}
