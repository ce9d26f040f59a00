/**
 * Capability (and tool) centrality by PageRank on the bipartite tool-capability graph: the
 * star expansion of the tool hypergraph, one node per tool and per capability, an edge each way
 * between a tool and every capability it belongs to, weighted by A[t, c].
 *
 *   nodes 0..T-1 = tools, T..T+C-1 = capabilities;  t -> T+c and T+c -> t with weight A[t, c]
 *   scores = pagerank(that CSR)       (graph/pagerank.ts: damping, dangling mass, tolerance)
 *
 * A walker alternates tool -> capability -> tool, which is the hypergraph random walk of Zhou
 * et al. (pick a hyperedge in proportion to its weight, then a member uniformly) observed every
 * other step; teleportation removes the bipartite periodicity. Unlike a clique expansion, a
 * capability of s tools adds 2s edges, not s(s-1), so large capabilities do not swamp the
 * ranking. Isolated tools and empty capabilities are dangling nodes and keep the teleport
 * mass only. Scores over all T + C nodes sum to 1.
 *
 * O(T + C + nnz) to build, O(iterations (T + C + nnz)) for PageRank.
 *
 * Reference: Zhou, Huang, Schölkopf, "Learning with hypergraphs: clustering, classification,
 * and embedding", NIPS 2006, section 4 (random walk); Page et al., Stanford TR 1999-66.
 */
import { csrFromEdges } from '../graph/csr.js';
import { pagerank, type PagerankOptions } from '../graph/pagerank.js';
import { ToolgraphError } from '../schema/errors.js';
import type { SparseMatrix } from './bipartite-matrix.js';

export interface HypergraphPagerankResult {
  /** Score of each tool. */
  readonly toolScores: Float64Array;
  /** Score of each capability. */
  readonly capabilityScores: Float64Array;
  readonly iterations: number;
  readonly converged: boolean;
}

/** `matrix` is tools x capabilities (bipartiteMatrix().toolsByCapabilities). Options are pagerank's; errors are pagerank's or INVALID_INPUT for a malformed matrix. */
export function hypergraphPagerank(matrix: SparseMatrix, options: PagerankOptions = {}): HypergraphPagerankResult {
  const { rows, cols, offsets, columns, values } = matrix;
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0 || offsets.length !== rows + 1 || columns.length !== offsets[rows] || values.length !== columns.length) {
    throw new ToolgraphError('INVALID_INPUT', 'hypergraphPagerank: expected a SparseMatrix with offsets of length rows+1 and columns/values of length offsets[rows]');
  }
  const nnz = columns.length;
  const sources = new Int32Array(2 * nnz);
  const targets = new Int32Array(2 * nnz);
  const weights = new Float64Array(2 * nnz);
  for (let t = 0; t < rows; t++) {
    for (let p = offsets[t]!; p < offsets[t + 1]!; p++) {
      const c = rows + columns[p]!;
      sources[2 * p] = t;
      targets[2 * p] = c;
      sources[2 * p + 1] = c;
      targets[2 * p + 1] = t;
      weights[2 * p] = weights[2 * p + 1] = values[p]!;
    }
  }
  // csrFromEdges validates indexes and weights (finite, non-negative).
  const csr = csrFromEdges(rows + cols, sources, targets, weights);
  const result = pagerank(csr, options);
  return {
    toolScores: result.scores.slice(0, rows),
    capabilityScores: result.scores.slice(rows),
    iterations: result.iterations,
    converged: result.converged,
  };
}
