/**
 * Louvain communities of the undirected tool graph: groups of tools used together, found by
 * greedily maximising modularity, deterministic for a given seed.
 *
 *   Q = 1/(2M) * sum_{i,j} [A_ij - gamma * k_i k_j / (2M)] * delta(c_i, c_j)
 *
 * M: total edge weight, k_i: weighted degree, gamma: resolution. Local moves then
 * aggregation, repeated until no move improves Q; roughly O(M log N) in practice.
 *
 * The algorithm is graphology-communities-louvain 2.0.2 (`louvain.detailed`, fast local moves,
 * random visiting order from createRng(seed)). It is fed a read-only graphology *view* of the
 * CSR rather than a real graphology Graph: at 10k nodes / 100k edges, inserting the edges into a
 * Graph costs ~350 ms, more than the whole snapshot rebuild budget (300 ms), while Louvain
 * itself runs in ~45 ms. Its index reads only `type`, `multi`, `order`, `size`,
 * `selfLoopCount`, `forEachNode`, `undirectedDegreeWithoutSelfLoops` and `forEachEdge`; the view
 * provides exactly those, and enumerates nodes and edges in the order a Graph built from the
 * CSR would, so the result is identical to running on that Graph (the tests check this, which
 * also catches a library upgrade that reads more of the graph). Every other method throws.
 *
 * Reference: Blondel, Guillaume, Lambiotte, Lefebvre, "Fast unfolding of communities in large
 * networks", J. Stat. Mech. (2008) P10008; graphology-communities-louvain/index.js.
 */
import type { AbstractGraph } from 'graphology-types';
import louvainModule from 'graphology-communities-louvain';
import { ToolgraphError } from '../schema/errors.js';
import type { Csr } from './csr.js';
import { createRng, DEFAULT_SEED } from './rng.js';

// CommonJS package typed with `export default`: under NodeNext the default import is
// module.exports itself, which TypeScript types as the namespace.
const louvain = ('default' in louvainModule ? louvainModule.default : louvainModule) as typeof louvainModule.default;

export interface LouvainOptions {
  /** Seed of the visiting order; default 0x9e3779b9 (createRng's default). */
  readonly seed?: number;
  /** Modularity resolution gamma > 0; larger gives more, smaller communities. Default 1. */
  readonly resolution?: number;
}

export interface LouvainResult {
  /** Community of each node, numbered 0..count-1 in order of first appearance by node index. */
  readonly communities: Int32Array;
  readonly count: number;
  /** Modularity Q (at the given resolution) of the partition; 0 when the graph has no weight. */
  readonly modularity: number;
}


function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `louvainCommunities: ${message}`);
}

function readOnly(): never {
  throw new ToolgraphError('INTERNAL', 'louvainCommunities: the CSR graph view is read-only and partial');
}

/**
 * The graphology surface graphology-communities-louvain reads, over a symmetric loop-free CSR.
 * Node keys are the indexes themselves; edge keys are CSR positions, so the weight getter reads
 * the weight array directly instead of allocating an attributes object per edge.
 */
function graphView(csr: Csr, size: number): AbstractGraph {
  const { n, offsets, targets } = csr;
  const view = {
    type: 'undirected',
    multi: false,
    order: n,
    size,
    directedSize: 0,
    undirectedSize: size,
    selfLoopCount: 0,
    forEachNode(callback: (node: number) => void): void {
      for (let i = 0; i < n; i++) callback(i);
    },
    undirectedDegreeWithoutSelfLoops(node: number): number {
      return offsets[node + 1]! - offsets[node]!;
    },
    // Each undirected edge once, as (u, v) with u < v, in CSR order: the insertion order of a
    // Graph built row by row, which fixes Louvain's neighbourhood order.
    forEachEdge(callback: (edge: number, attributes: object, source: number, target: number, sa: undefined, ta: undefined, undirected: boolean) => void): void {
      const empty = {};
      for (let u = 0; u < n; u++) {
        const end = offsets[u + 1]!;
        for (let p = offsets[u]!; p < end; p++) {
          const v = targets[p]!;
          if (v > u) callback(p, empty, u, v, undefined, undefined, true);
        }
      }
    },
    // isGraph() checks that these exist; Louvain never calls them.
    addUndirectedEdgeWithKey: readOnly,
    dropNode: readOnly,
    setNodeAttribute: readOnly,
    updateEachNodeAttributes: readOnly,
  };
  return view as unknown as AbstractGraph;
}

/**
 * Louvain communities of an undirected CSR (from symmetrizeCsr). Isolated nodes, and every node
 * of a graph whose total weight is 0, get a community of their own.
 * Throws INVALID_INPUT when the CSR is not symmetric with equal weights both ways or has a
 * self-loop (a directed CSR passed by mistake), or for a non-integer seed or a resolution that
 * is not a finite positive number.
 */
export function louvainCommunities(undirected: Csr, options: LouvainOptions = {}): LouvainResult {
  const seed = options.seed ?? DEFAULT_SEED;
  const resolution = options.resolution ?? 1;
  if (!Number.isSafeInteger(seed)) throw invalid(`expected seed to be a safe integer, got ${String(seed)}`);
  if (typeof resolution !== 'number' || !(resolution > 0) || resolution === Number.POSITIVE_INFINITY) {
    throw invalid(`expected resolution to be a finite number > 0, got ${String(resolution)}`);
  }
  const { n, offsets, targets, weights } = undirected;
  if (!Number.isInteger(n) || n < 0 || offsets.length !== n + 1 || targets.length !== offsets[n] || weights.length !== targets.length) {
    throw invalid('expected a Csr with offsets of length n+1 and targets/weights of length offsets[n]');
  }

  // Symmetry check, O(M log deg): Louvain reads each edge from its lower endpoint only, so a
  // directed CSR would silently lose its "backward" edges.
  let totalWeight = 0;
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1]!;
    for (let p = offsets[u]!; p < end; p++) {
      const v = targets[p]!;
      if (v === u) throw invalid(`expected no self-loops (symmetrizeCsr drops them), found one at node ${u}`);
      let lo = offsets[v]!;
      let hi = offsets[v + 1]! - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const t = targets[mid]!;
        if (t === u) {
          found = mid;
          break;
        }
        if (t < u) lo = mid + 1;
        else hi = mid - 1;
      }
      if (found < 0 || weights[found] !== weights[p]) {
        throw invalid(`expected an undirected (symmetric) Csr, edge ${u} -> ${v} has no equal reverse edge`);
      }
      totalWeight += weights[p]!;
    }
  }

  const communities = new Int32Array(n);
  if (totalWeight === 0) {
    // No edges, or only zero-weight ones: modularity is 0/0; every node stands alone.
    for (let i = 0; i < n; i++) communities[i] = i;
    return { communities, count: n, modularity: 0 };
  }

  const result = louvain.detailed(graphView(undirected, offsets[n]! / 2), {
    getEdgeWeight: (edge: unknown) => weights[edge as number]!,
    fastLocalMoves: true,
    randomWalk: true,
    resolution,
    rng: createRng(seed),
  });

  // Renumber by first appearance so ids do not depend on Louvain's internal numbering.
  const mapping = result.communities;
  const renumber = new Int32Array(n).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const raw = mapping[i]!;
    if (renumber[raw] === -1) renumber[raw] = count++;
    communities[i] = renumber[raw]!;
  }
  return { communities, count, modularity: result.modularity };
}
