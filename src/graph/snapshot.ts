/**
 * An immutable, query-ready view of a TransitionGraph: CSR typed arrays and the graph signals
 * (PageRank, Louvain communities, density and adaptive alpha) computed once per rebuild.
 *
 * Edge weights are success counts: failed observations never strengthen an edge (they are kept
 * apart, aligned with the same CSR, for reliability). Building is O(V + E log E) plus PageRank
 * and Louvain; queries never touch the mutable graph.
 */
import { edgeOrder, symmetrizeCsr, transposeCsr, type Csr } from './csr.js';
import { graphDensity, adaptiveAlpha } from './density.js';
import { edgeReliability, type EdgeReliability } from './edge-reliability.js';
import { louvainCommunities } from './louvain.js';
import { pagerank } from './pagerank.js';
import { percentileRanks } from './percentile.js';
import { PairIndex } from './pair-index.js';
import { runStages } from './stages.js';
import type { SecondOrderRows, TransitionGraph, TransitionRows } from './transition-graph.js';
import { gatherColumns } from './transition-table.js';
import { DEFAULT_SEED } from './rng.js';

/** Second-order successors of one context pair, sorted by target. */
export interface SecondOrderRow {
  readonly targets: Int32Array;
  readonly weights: Float64Array;
  readonly total: number;
}

/**
 * The successful second-order contexts as one CSR: the context pair (a, b) has row
 * r = rows.get(a, b) (-1 when never seen in a success), whose successors c are
 * targets[offsets[r] .. offsets[r+1]), sorted, with success counts in `weights` and their sum
 * in totals[r]. One set of arrays rather than a pair of typed arrays per context: a rebuild
 * allocated a hundred thousand of them at a million transitions.
 */
export interface SecondOrder {
  readonly rows: Pick<PairIndex, 'get' | 'size'>;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  readonly weights: Float64Array;
  readonly totals: Float64Array;
}

/** The row of context (a, b) as views, or undefined: for callers outside the hot path. */
export function secondOrderRow(second: SecondOrder, a: number, b: number): SecondOrderRow | undefined {
  const r = second.rows.get(a, b);
  if (r < 0) return undefined;
  const lo = second.offsets[r]!;
  const hi = second.offsets[r + 1]!;
  return { targets: second.targets.subarray(lo, hi), weights: second.weights.subarray(lo, hi), total: second.totals[r]! };
}

export interface GraphSnapshot {
  /** The TransitionGraph version this snapshot reflects. */
  readonly version: number;
  readonly n: number;
  readonly names: readonly string[];
  readonly indexByName: ReadonlyMap<string, number>;
  /** Directed transitions weighted by success count. */
  readonly out: Csr;
  /** Failure counts aligned with `out` (same offsets and targets). */
  readonly outFailures: Float64Array;
  /** Raw observation counts aligned with `out`. */
  readonly outCounts: Float64Array;
  /** Beta posterior of each `out` edge's success rate, decayed to the newest trace (edge-reliability.ts). */
  readonly reliability: EdgeReliability;
  /** Row sums of `out` weights. */
  readonly outTotal: Float64Array;
  /** Undirected view of successful transitions, for Adamic-Adar and Louvain. */
  readonly undirected: Csr;
  readonly second: SecondOrder;
  readonly pagerank: Float64Array;
  readonly pagerankPercentile: Float64Array;
  readonly communities: Int32Array;
  readonly communityCount: number;
  /** Members of community c: communityMembers[communityOffsets[c] .. communityOffsets[c+1]). */
  readonly communityOffsets: Int32Array;
  readonly communityMembers: Int32Array;
  /** Successful calls per tool. */
  readonly calls: Float64Array;
  readonly maxCalls: number;
  readonly totalCalls: number;
  readonly traces: number;
  readonly edgeCount: number;
  readonly density: number;
  readonly alpha: number;
}

export interface SnapshotOptions {
  readonly seed?: number;
  readonly pagerankAlpha?: number;
  /** Beta prior and exclusion credibility of edge reliability (defaults 1, 1, 0.95). */
  readonly reliability?: { readonly priorAlpha?: number; readonly priorBeta?: number; readonly credibility?: number };
  /**
   * Communities to use instead of running Louvain (restored from a stored snapshot, where
   * Louvain is most of a cold start's cost): tools past their length, learned since, each get a
   * community of their own until the next full rebuild.
   */
  readonly communities?: { readonly communities: Int32Array; readonly count: number };
}

/** Stored communities extended to n tools, new tools as singletons. */
function reuseCommunities(stored: { readonly communities: Int32Array; readonly count: number }, n: number): { communities: Int32Array; count: number } {
  const communities = new Int32Array(n);
  const known = Math.min(n, stored.communities.length);
  communities.set(stored.communities.subarray(0, known));
  let count = stored.count;
  for (let i = known; i < n; i++) communities[i] = count++;
  return { communities, count };
}

/**
 * Everything a snapshot is built from, as plain data: the graph's transitions and second-order
 * rows (views of its columns, read before the next ingestion) and its counters. Plain, so that a
 * worker thread can build the snapshot from a copy (snapshot-thread.ts).
 */
export interface SnapshotInput {
  readonly version: number;
  readonly names: readonly string[];
  readonly transitions: TransitionRows;
  /** The second-order rows, with the one statistic a snapshot reads. */
  readonly second: Omit<SecondOrderRows, 'stats'> & { readonly success: Float64Array };
  /** Successful calls per tool. */
  readonly calls: Float64Array;
  readonly newest: number;
  readonly halfLifeMs: number;
  readonly traces: number;
}

export function snapshotInput(graph: TransitionGraph): SnapshotInput {
  const n = graph.toolCount;
  const calls = new Float64Array(n);
  for (let i = 0; i < n; i++) calls[i] = graph.tool(i).calls;
  const { contextA, contextB, context, target, stats } = graph.secondOrderRows();
  return {
    version: graph.version,
    names: graph.names,
    transitions: graph.transitionRows(),
    second: { contextA, contextB, context, target, success: stats.success },
    calls,
    newest: graph.newest,
    halfLifeMs: graph.halfLifeMs,
    traces: graph.traces,
  };
}

export function buildSnapshot(graph: TransitionGraph, options: SnapshotOptions = {}): GraphSnapshot {
  return buildSnapshotFrom(snapshotInput(graph), options);
}

/**
 * A graph's transitions in CSR order with the statistics a snapshot reads, aligned with `out`
 * (whose weights are the success counts): a snapshot's first stage, in arrays of its own.
 */
export interface OrderedEdges {
  readonly out: Csr;
  readonly failure: Float64Array;
  readonly count: Float64Array;
  readonly recentSuccess: Float64Array;
  readonly recentFailure: Float64Array;
  readonly lastSeen: Float64Array;
}

/** A snapshot's input with its transitions ordered: what the second stage reads. */
export type OrderedInput = Omit<SnapshotInput, 'transitions'> & { readonly edges: OrderedEdges };

const SNAPSHOT_COLUMNS = ['success', 'failure', 'count', 'recentSuccess', 'recentFailure', 'lastSeen'] as const;

/** The snapshot of the graph `input` was taken from. */
export function buildSnapshotFrom(input: SnapshotInput, options: SnapshotOptions = {}): GraphSnapshot {
  return finishSnapshot(orderInput(input), options);
}

/** `input` with its transitions in CSR order (new arrays; the rest is shared with `input`). */
export function orderInput(input: SnapshotInput): OrderedInput {
  const { transitions, ...rest } = input;
  return { ...rest, edges: orderEdges(input.names.length, transitions) };
}

/**
 * `input` ordered, owning every array the rest of the snapshot reads: the live graph goes on
 * learning while that is built, on a worker (snapshot-transfer.ts) or in slices on this thread.
 */
export function orderDetached(input: SnapshotInput): OrderedInput {
  const ordered = orderInput(input);
  const s = ordered.second;
  return {
    ...ordered,
    names: ordered.names.slice(),
    second: { contextA: s.contextA.slice(), contextB: s.contextB.slice(), context: s.context.slice(), target: s.target.slice(), success: s.success.slice() },
    calls: ordered.calls.slice(),
  };
}

function orderEdges(n: number, { from, to, stats }: TransitionRows): OrderedEdges {
  // The permutation from TransitionGraph order to CSR order; every per-edge column is gathered through
  // it, so the success, failure, count and reliability arrays line up with `out`. A restored
  // graph's rows are already in CSR order but for what it learned since (edgeOrder).
  const order = edgeOrder(n, from, to);
  const { success, ...columns } = gatherColumns(stats, order.perm, SNAPSHOT_COLUMNS);
  return { out: { n, offsets: order.offsets, targets: order.targets, weights: success }, ...columns };
}

/** The rest of a snapshot, from its ordered transitions (a worker thread runs this, snapshot-thread.ts). */
export function finishSnapshot(input: OrderedInput, options: SnapshotOptions = {}): GraphSnapshot {
  return runStages(snapshotStages(input, options));
}

/**
 * finishSnapshot as stages, yielding between them: a caller that runs them with the event loop
 * turning in between (Toolgraph.rebuildInSlices) holds the thread for one stage at a time, the
 * longest Louvain's. Everything read is `input`'s own arrays, so the graph may go on learning.
 */
export function* snapshotStages(input: OrderedInput, options: SnapshotOptions = {}): Generator<void, GraphSnapshot> {
  const n = input.names.length;
  const { out, failure: outFailures, count: outCounts, recentSuccess, recentFailure, lastSeen } = input.edges;
  const reliability = edgeReliability(recentSuccess, recentFailure, lastSeen, {
    now: input.newest,
    halfLifeMs: input.halfLifeMs,
    ...options.reliability,
  });

  const outTotal = new Float64Array(n);
  let positive = 0;
  for (let u = 0; u < n; u++) {
    let total = 0;
    for (let j = out.offsets[u]!; j < out.offsets[u + 1]!; j++) {
      const w = out.weights[j]!;
      total += w;
      if (w > 0) positive++;
    }
    outTotal[u] = total;
  }
  yield;

  // One transpose of the successful transitions serves the undirected view and PageRank, whose
  // weighted walk gives a zero-weight entry no mass: its scores are the same without them.
  const positiveOut = positiveOnly(out);
  const incoming = transposeCsr(positiveOut);
  const undirected = symmetrizeCsr(positiveOut, incoming);
  yield;
  const pr = pagerank(positiveOut, { alpha: options.pagerankAlpha ?? 0.85, weighted: true, incoming }).scores;
  const pagerankPercentile = percentileRanks(pr);
  yield;
  const louvain =
    options.communities === undefined ? louvainCommunities(undirected, { seed: options.seed ?? DEFAULT_SEED }) : reuseCommunities(options.communities, n);
  yield;
  const second = buildSecondOrder(input.second);
  yield;

  const calls = input.calls;
  let maxCalls = 0;
  let totalCalls = 0;
  for (let i = 0; i < n; i++) {
    const c = calls[i]!;
    totalCalls += c;
    if (c > maxCalls) maxCalls = c;
  }

  const { offsets: communityOffsets, members: communityMembers } = groupByCommunity(
    louvain.communities,
    louvain.count,
  );
  const density = graphDensity(n, positive);
  return {
    version: input.version,
    n,
    names: input.names.slice(),
    indexByName: new Map(input.names.map((name, i) => [name, i])),
    out,
    outFailures,
    outCounts,
    reliability,
    outTotal,
    undirected,
    second,
    pagerank: pr,
    pagerankPercentile,
    communities: louvain.communities,
    communityCount: louvain.count,
    communityOffsets,
    communityMembers,
    calls,
    maxCalls,
    totalCalls,
    traces: input.traces,
    edgeCount: positive,
    density,
    alpha: adaptiveAlpha(density),
  };
}

/** Counting sort of tools by community: a CSR from community to its members. */
function groupByCommunity(communities: Int32Array, count: number): { offsets: Int32Array; members: Int32Array } {
  const offsets = new Int32Array(count + 1);
  for (let i = 0; i < communities.length; i++) offsets[communities[i]! + 1]!++;
  for (let c = 0; c < count; c++) offsets[c + 1]! += offsets[c]!;
  const cursor = offsets.slice(0, count);
  const members = new Int32Array(communities.length);
  for (let i = 0; i < communities.length; i++) members[cursor[communities[i]!]!++] = i;
  return { offsets, members };
}

/**
 * Drops zero-weight entries (transitions seen only in failures) from a CSR. Rows stay sorted and
 * free of duplicates, so this is one compacting pass, O(n + m).
 */
function positiveOnly(csr: Csr): Csr {
  let kept = 0;
  for (let j = 0; j < csr.weights.length; j++) if (csr.weights[j]! > 0) kept++;
  const offsets = new Int32Array(csr.n + 1);
  const targets = new Int32Array(kept);
  const weights = new Float64Array(kept);
  let p = 0;
  for (let u = 0; u < csr.n; u++) {
    for (let j = csr.offsets[u]!; j < csr.offsets[u + 1]!; j++) {
      const w = csr.weights[j]!;
      if (w > 0) {
        targets[p] = csr.targets[j]!;
        weights[p++] = w;
      }
    }
    offsets[u + 1] = p;
  }
  return { n: csr.n, offsets, targets, weights };
}

/**
 * The successful second-order contexts as a CSR. Their rows are grouped by a counting sort on
 * the context id (dense, in order of first observation), then each row is sorted by target in
 * place (by insertion when short). O(contexts + rows) plus the sorts of the rows.
 */
function buildSecondOrder(input: SnapshotInput['second']): SecondOrder {
  const { contextA, contextB, context, target, success } = input;
  const contexts = contextA.length;
  const start = new Int32Array(contexts + 1);
  for (let s = 0; s < context.length; s++) if (success[s]! > 0) start[context[s]! + 1]!++;
  let rowCount = 0;
  for (let k = 0; k < contexts; k++) {
    if (start[k + 1]! > 0) rowCount++;
    start[k + 1]! += start[k]!;
  }
  const m = start[contexts]!;
  const targets = new Int32Array(m);
  const weights = new Float64Array(m);
  const cursor = start.slice(0, contexts);
  for (let s = 0; s < context.length; s++) {
    const w = success[s]!;
    if (w <= 0) continue;
    const at = cursor[context[s]!]!++;
    targets[at] = target[s]!;
    weights[at] = w;
  }
  const rows = new PairIndex(rowCount);
  const offsets = new Int32Array(rowCount + 1);
  const totals = new Float64Array(rowCount);
  let r = 0;
  for (let k = 0; k < contexts; k++) {
    const lo = start[k]!;
    const hi = start[k + 1]!;
    if (hi === lo) continue;
    sortRange(targets, weights, lo, hi);
    let total = 0;
    for (let j = lo; j < hi; j++) total += weights[j]!;
    rows.getOrAdd(contextA[k]!, contextB[k]!, r);
    totals[r] = total;
    offsets[++r] = hi;
  }
  return { rows, offsets, targets, weights, totals };
}

/** Sorts targets[lo, hi) ascending, weights alongside: by insertion, after an index sort when long. */
function sortRange(targets: Int32Array, weights: Float64Array, lo: number, hi: number): void {
  if (hi - lo > 32) {
    // A hub pair with many successors: sort an index instead of shifting.
    const order = Array.from({ length: hi - lo }, (_, i) => lo + i).sort((x, y) => targets[x]! - targets[y]!);
    const t = order.map((i) => targets[i]!);
    const w = order.map((i) => weights[i]!);
    targets.set(t, lo);
    weights.set(w, lo);
  }
  for (let i = lo + 1; i < hi; i++) {
    const t = targets[i]!;
    const w = weights[i]!;
    let j = i - 1;
    for (; j >= lo && targets[j]! > t; j--) {
      targets[j + 1] = targets[j]!;
      weights[j + 1] = weights[j]!;
    }
    targets[j + 1] = t;
    weights[j + 1] = w;
  }
}
