/**
 * Path confidence of a workflow dependency by its length in hops, and the hop distance that
 * feeds it: a direct transition is near certain, each extra intermediate tool less so.
 *
 *   pathConfidence(h) = 0.95 (h = 1), 0.80 (h = 2), 0.65 (h = 3), 0.50 (h >= 4)
 *   hopDistance(from, to) = length of a shortest directed path, by breadth-first search
 *   cycleHops(node)       = length of a shortest directed cycle through node (1: a self-transition)
 *
 * pathConfidence is O(1). hopDistance is O(V' + E') where V', E' are the nodes and edges
 * within maxHops - 1 hops of `from`; it stops at the first level that reaches `to`. Every
 * stored edge counts, whatever its weight.
 *
 * Reference: spec 003 (ADR-033), section 2.3 "Path Confidence"; Cormen, Leiserson, Rivest,
 * Stein, "Introduction to Algorithms" (3rd ed.), section 22.2 (breadth-first search).
 */
import { ToolgraphError } from '../schema/errors.js';
import type { Csr } from './csr.js';

/**
 * Successors beside the CSR's own: transitions learned since it was built (RecentTransitions),
 * so that a path over them counts before the next rebuild. Indexes past the CSR's are skipped.
 */
export interface LiveSuccessors {
  successorsOf(node: number): Iterable<number> | undefined;
}

/** Reusable BFS buffers, each of length >= n. */
export interface HopScratch {
  /** Must be -1 everywhere on entry; hopDistance restores that before returning. */
  readonly dist: Int32Array;
  readonly queue: Int32Array;
}

/** Confidence of a dependency `hops` transitions long. INVALID_INPUT unless hops is an integer >= 1. */
export function pathConfidence(hops: number): number {
  if (!Number.isInteger(hops) || hops < 1) {
    throw new ToolgraphError('INVALID_INPUT', `pathConfidence: expected hops to be an integer >= 1, got ${String(hops)}`);
  }
  if (hops === 1) return 0.95;
  if (hops === 2) return 0.8;
  if (hops === 3) return 0.65;
  return 0.5;
}

function invalid(caller: string, message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `${caller}: ${message}`);
}

/**
 * Hops on a shortest directed path from `from` to `to`, or -1 when `to` is not reachable within
 * maxHops (0 when from === to). Pass `scratch` to run many searches without allocating: only the
 * entries a search visits are reset afterwards, so reuse costs O(V'), not O(n).
 * INVALID_INPUT for an index outside [0, n), maxHops not a non-negative integer (or Infinity),
 * scratch buffers shorter than n, or a scratch.dist that is not -1 at `from` or `to`.
 */
export function hopDistance(csr: Csr, from: number, to: number, maxHops: number, scratch?: HopScratch, live?: LiveSuccessors): number {
  const { dist, queue } = buffers('hopDistance', csr, from, to, maxHops, scratch);
  return from === to ? 0 : search(csr, from, to, maxHops, dist, queue, live);
}

/**
 * Hops on a shortest directed cycle through `node` (a self-transition is 1), or -1 when none
 * is within maxHops: how far a tool called again depends on its earlier call, where
 * hopDistance(node, node) is the empty path. Same arguments and checks as hopDistance.
 */
export function cycleHops(csr: Csr, node: number, maxHops: number, scratch?: HopScratch, live?: LiveSuccessors): number {
  const { dist, queue } = buffers('cycleHops', csr, node, node, maxHops, scratch);
  return search(csr, node, node, maxHops, dist, queue, live);
}

/** Checks a search's arguments (INVALID_INPUT naming `caller`) and returns its buffers. */
function buffers(caller: string, csr: Csr, from: number, to: number, maxHops: number, scratch: HopScratch | undefined): HopScratch {
  const n = csr.n;
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    if (!Number.isInteger(value) || value < 0 || value >= n) {
      throw invalid(caller, `expected ${name} to be an integer node index in [0, ${n}), got ${String(value)}`);
    }
  }
  if (!(maxHops === Number.POSITIVE_INFINITY || (Number.isInteger(maxHops) && maxHops >= 0))) {
    throw invalid(caller, `expected maxHops to be a non-negative integer or Infinity, got ${String(maxHops)}`);
  }
  if (scratch === undefined) return { dist: new Int32Array(n).fill(-1), queue: new Int32Array(n) };
  const { dist, queue } = scratch;
  if (dist.length < n || queue.length < n) {
    throw invalid(caller, `expected scratch.dist and scratch.queue of length >= ${n}, got ${dist.length} and ${queue.length}`);
  }
  // A cheap partial check of the contract; a zero-filled dist would otherwise read as "visited".
  if (dist[from] !== -1 || dist[to] !== -1) throw invalid(caller, 'expected scratch.dist to be -1 everywhere on entry');
  return scratch;
}

/**
 * Breadth-first from `from` until an edge reaches `to`; arguments already checked. The target
 * is tested before the visited mark, so `to === from` finds the shortest cycle. Resets the
 * entries of `dist` it set.
 */
function search(csr: Csr, from: number, to: number, maxHops: number, dist: Int32Array, queue: Int32Array, live?: LiveSuccessors): number {
  const { offsets, targets, n } = csr;
  dist[from] = 0;
  queue[0] = from;
  let head = 0;
  let tail = 1;
  let result = -1;
  search: while (head < tail) {
    const u = queue[head++]!;
    const d = dist[u]!;
    // Levels come off the queue in order, so every remaining node is at least this far.
    if (d >= maxHops) break;
    const end = offsets[u + 1]!;
    for (let p = offsets[u]!; p < end; p++) {
      const v = targets[p]!;
      if (v === to) {
        result = d + 1;
        break search;
      }
      if (dist[v] !== -1) continue;
      dist[v] = d + 1;
      queue[tail++] = v;
    }
    const more = live?.successorsOf(u);
    if (more === undefined) continue;
    for (const v of more) {
      if (v === to) {
        result = d + 1;
        break search;
      }
      if (v >= n || dist[v] !== -1) continue;
      dist[v] = d + 1;
      queue[tail++] = v;
    }
  }
  for (let i = 0; i < tail; i++) dist[queue[i]!] = -1;
  return result;
}
