/**
 * Seeded synthetic tool graphs with planted communities, and tool-use traces walked on them,
 * for benchmarks that need realistic shape at any size.
 *
 * plantedGraph: a degree-corrected planted partition (stochastic block) model. Nodes are dealt
 * at random into k near-equal communities. Within its community each node gets Zipf
 * propensities, one for out- and one for in-edges, from independent random ranks r:
 * p(r) = (r + 1)^-ZIPF_EXPONENT. Each edge picks its source by out-propensity over all nodes, and
 * its target by in-propensity inside the source's community, or, for exactly
 * round(mixing * edges) of them, inside another community chosen in proportion to size.
 * Duplicates and self-loops are rejected and redrawn, so the result has exactly `edges`
 * distinct directed edges; near saturation, where redraws stall, the remaining pairs are
 * drawn uniformly from an explicit list. Weights are transition counts with a Pareto tail:
 * floor(U^(-1/WEIGHT_TAIL)), >= 1. Expected O(n + m log n) time; O(n + m) space.
 *
 * syntheticTraces: each trace is a weighted random walk of 2..6 steps on the edges inside
 * communities, starting at a node drawn by within-community out-weight; it ends early only at a
 * node with no such out-edge. O(count * 6 * max degree).
 *
 * Reference: Karrer & Newman, "Stochastic blockmodels and community structure in networks",
 * Phys. Rev. E 83, 016107 (2011) (degree-corrected SBM); Lancichinetti, Fortunato, Radicchi,
 * "Benchmark graphs for testing community detection algorithms", Phys. Rev. E 78, 046110 (2008)
 * (power-law degrees, mixing parameter mu).
 */
import { csrFromEdges } from '../src/graph/csr.js';
import { createRng } from '../src/graph/rng.js';
import { ToolgraphError } from '../src/schema/errors.js';

export interface PlantedGraphOptions {
  /** Number of tools (nodes), an integer >= 1. */
  readonly tools: number;
  /** Exact number of distinct directed edges, 0 .. tools * (tools - 1). */
  readonly edges: number;
  /** Planted communities, 1 .. tools; default max(1, round(tools / 100)). */
  readonly communities?: number;
  readonly seed?: number;
  /** Fraction of edges across communities, in [0, 1]; default 0.1. Ignored with one community. */
  readonly mixing?: number;
}

export interface PlantedGraph {
  readonly n: number;
  readonly sources: Int32Array;
  readonly targets: Int32Array;
  /** Positive integer transition counts. */
  readonly weights: Float64Array;
  /** Planted community of each node, 0 .. communities - 1. */
  readonly community: Int32Array;
}

const DEFAULT_SEED = 0x5eed;
const ZIPF_EXPONENT = 0.9;
const WEIGHT_TAIL = 1.5;
const MAX_WEIGHT = 10_000;

function invalid(caller: string, message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `${caller}: ${message}`);
}

/** Index of the first cumulative value > x in cum[lo, hi): inverse-CDF sampling. */
function searchCumulative(cum: Float64Array, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cum[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** In-place Fisher-Yates shuffle of a[lo, hi). */
function shuffle(a: Int32Array, lo: number, hi: number, rng: () => number): void {
  for (let i = hi - 1; i > lo; i--) {
    const j = lo + Math.floor(rng() * (i - lo + 1));
    const tmp = a[i]!;
    a[i] = a[j]!;
    a[j] = tmp;
  }
}

export function plantedGraph(options: PlantedGraphOptions): PlantedGraph {
  const caller = 'plantedGraph';
  const n = options.tools;
  const m = options.edges;
  const seed = options.seed ?? DEFAULT_SEED;
  const mixing = options.mixing ?? 0.1;
  if (!Number.isInteger(n) || n < 1 || n * n > Number.MAX_SAFE_INTEGER) {
    throw invalid(caller, `expected tools to be an integer in [1, 2^26], got ${String(n)}`);
  }
  const k = options.communities ?? Math.max(1, Math.round(n / 100));
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw invalid(caller, `expected communities to be an integer in [1, ${n}], got ${String(k)}`);
  }
  if (!Number.isInteger(m) || m < 0 || m > n * (n - 1)) {
    throw invalid(caller, `expected edges to be an integer in [0, ${n * (n - 1)}], got ${String(m)}`);
  }
  if (typeof mixing !== 'number' || !(mixing >= 0 && mixing <= 1)) {
    throw invalid(caller, `expected mixing in [0, 1], got ${String(mixing)}`);
  }
  if (!Number.isSafeInteger(seed)) throw invalid(caller, `expected seed to be a safe integer, got ${String(seed)}`);
  const rng = createRng(seed);

  // members[start[c] .. start[c+1]) are community c's nodes, dealt at random, sizes within 1.
  const members = new Int32Array(n);
  for (let i = 0; i < n; i++) members[i] = i;
  shuffle(members, 0, n, rng);
  const start = new Int32Array(k + 1);
  for (let c = 0; c <= k; c++) start[c] = Math.floor((c * n) / k);
  const community = new Int32Array(n);
  for (let c = 0; c < k; c++) for (let j = start[c]!; j < start[c + 1]!; j++) community[members[j]!] = c;

  // Zipf propensities from independent random ranks inside each community.
  const outCum = new Float64Array(n); // over node ids, for drawing any source
  const inCum = new Float64Array(n); // over `members` positions, per community block
  const rank = new Int32Array(n);
  let outTotal = 0;
  for (let c = 0; c < k; c++) {
    const lo = start[c]!;
    const hi = start[c + 1]!;
    for (let j = lo; j < hi; j++) rank[j] = j - lo;
    shuffle(rank, lo, hi, rng);
    for (let j = lo; j < hi; j++) outCum[members[j]!] = (rank[j]! + 1) ** -ZIPF_EXPONENT;
    shuffle(rank, lo, hi, rng);
    let inTotal = 0;
    for (let j = lo; j < hi; j++) {
      inTotal += (rank[j]! + 1) ** -ZIPF_EXPONENT;
      inCum[j] = inTotal;
    }
  }
  for (let i = 0; i < n; i++) {
    outTotal += outCum[i]!;
    outCum[i] = outTotal;
  }

  let withinCapacity = 0;
  for (let c = 0; c < k; c++) {
    const size = start[c + 1]! - start[c]!;
    withinCapacity += size * (size - 1);
  }
  const crossCapacity = n * (n - 1) - withinCapacity;
  // Exact split; whatever one kind cannot hold goes to the other.
  let crossWanted = Math.min(crossCapacity, Math.round(mixing * m));
  let withinWanted = Math.min(withinCapacity, m - crossWanted);
  crossWanted = m - withinWanted;

  const sources = new Int32Array(m);
  const targets = new Int32Array(m);
  const weights = new Float64Array(m);
  const seen = new Set<number>();
  let count = 0;

  const add = (s: number, t: number): void => {
    seen.add(s * n + t);
    sources[count] = s;
    targets[count] = t;
    weights[count] = Math.min(MAX_WEIGHT, Math.floor((1 - rng()) ** (-1 / WEIGHT_TAIL)));
    count++;
  };

  // Draws one candidate pair of the wanted kind by propensity; -1 when the draw is a self-loop.
  const draw = (cross: boolean): number => {
    const s = searchCumulative(outCum, 0, n, rng() * outTotal);
    const own = community[s]!;
    let c = own;
    if (cross) {
      // Another community in proportion to its size: a uniform position outside own block.
      const ownSize = start[own + 1]! - start[own]!;
      let position = Math.floor(rng() * (n - ownSize));
      if (position >= start[own]!) position += ownSize;
      c = community[members[position]!]!;
    }
    const lo = start[c]!;
    const hi = start[c + 1]!;
    // inCum restarts per block, so the block's own total is inCum[hi - 1].
    const t = members[searchCumulative(inCum, lo, hi, rng() * inCum[hi - 1]!)]!;
    return s === t ? -1 : s * n + t;
  };

  // Every remaining pair of one kind, then a partial Fisher-Yates draw of `wanted` of them.
  const fillFromList = (cross: boolean, wanted: number): void => {
    const pool: number[] = [];
    for (let s = 0; s < n; s++) {
      for (let t = 0; t < n; t++) {
        if (s !== t && (community[s] !== community[t]) === cross && !seen.has(s * n + t)) pool.push(s * n + t);
      }
    }
    for (let i = 0; i < wanted; i++) {
      const j = i + Math.floor(rng() * (pool.length - i));
      const key = pool[j]!;
      pool[j] = pool[i]!;
      add(Math.floor(key / n), key % n);
    }
  };

  // Rejection sampling, interleaving the two kinds at random; when a kind stalls (near
  // saturation), its remaining pairs come from an explicit list instead.
  const stalled = [false, false];
  const budget = [50 * withinWanted + 10_000, 50 * crossWanted + 10_000];
  while (withinWanted + crossWanted > 0) {
    const cross = rng() * (withinWanted + crossWanted) < crossWanted;
    const kind = cross ? 1 : 0;
    if (stalled[kind]) {
      fillFromList(cross, cross ? crossWanted : withinWanted);
      if (cross) crossWanted = 0;
      else withinWanted = 0;
      continue;
    }
    const key = draw(cross);
    if (key >= 0 && !seen.has(key)) {
      add(Math.floor(key / n), key % n);
      if (cross) crossWanted--;
      else withinWanted--;
    } else if (--budget[kind]! <= 0) {
      stalled[kind] = true;
    }
  }

  return { n, sources, targets, weights, community };
}

/**
 * `count` tool-name sequences (`tool_<i>`), each a weighted random walk of 2..6 steps on the
 * edges inside communities. INVALID_INPUT for a negative or fractional count, a bad seed, or
 * count > 0 on a graph with no edge inside a community.
 */
export function syntheticTraces(graph: PlantedGraph, count: number, seed: number = DEFAULT_SEED): string[][] {
  const caller = 'syntheticTraces';
  if (!Number.isInteger(count) || count < 0) {
    throw invalid(caller, `expected count to be a non-negative integer, got ${String(count)}`);
  }
  if (!Number.isSafeInteger(seed)) throw invalid(caller, `expected seed to be a safe integer, got ${String(seed)}`);
  const { n, sources, targets, weights, community } = graph;
  const keep: number[] = [];
  for (let e = 0; e < sources.length; e++) if (community[sources[e]!] === community[targets[e]!]) keep.push(e);
  const csr = csrFromEdges(
    n,
    keep.map((e) => sources[e]!),
    keep.map((e) => targets[e]!),
    keep.map((e) => weights[e]!),
  );
  const { offsets, targets: next, weights: nextWeights } = csr;
  const rowTotal = new Float64Array(n);
  const startCum = new Float64Array(n);
  let startTotal = 0;
  for (let u = 0; u < n; u++) {
    let total = 0;
    for (let p = offsets[u]!; p < offsets[u + 1]!; p++) total += nextWeights[p]!;
    rowTotal[u] = total;
    startTotal += total;
    startCum[u] = startTotal;
  }
  if (count > 0 && startTotal === 0) throw invalid(caller, 'expected a graph with at least one edge inside a community');

  const names = Array.from({ length: n }, (_, i) => `tool_${i}`);
  const rng = createRng(seed);
  const traces: string[][] = [];
  for (let i = 0; i < count; i++) {
    const length = 2 + Math.floor(rng() * 5);
    let u = searchCumulative(startCum, 0, n, rng() * startTotal);
    const trace = [names[u]!];
    while (trace.length < length && rowTotal[u]! > 0) {
      let x = rng() * rowTotal[u]!;
      const end = offsets[u + 1]!;
      let p = offsets[u]!;
      // Linear scan: rows are short, and this avoids a cumulative array per row.
      while (p < end - 1 && x >= nextWeights[p]!) {
        x -= nextWeights[p]!;
        p++;
      }
      u = next[p]!;
      trace.push(names[u]!);
    }
    traces.push(trace);
  }
  return traces;
}
