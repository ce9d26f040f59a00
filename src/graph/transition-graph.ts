/**
 * The mutable, learned tool graph: tools as nodes and directed transitions `a -> b` as edges,
 * plus second-order contexts `(a, b) -> c`.
 *
 * Every edge carries its outcome statistics; a failed trace or a failed step never strengthens
 * an edge, it only adds failure evidence. The statistics live in typed columns, one row per
 * transition in order of first observation (transition-table.ts), found through integer-pair
 * hashes (pair-index.ts): a million transitions are a handful of arrays that a snapshot reads
 * and a restore copies, not a million objects. Ingestion is incremental, O(steps) per trace, and
 * bumps `version`, which is how snapshots know they are stale.
 *
 * Tool names are untrusted strings (`__proto__`, any Unicode): they live only in `Map`s, and the
 * graph itself is integer indices. (The dashboard draws it with graphology in the browser, keyed
 * by index for the same reason: graphology keeps neighbours in plain objects.)
 */
import { transitionGraphOptionsSchema, type TransitionGraphOptions } from '../schema/factory-options.js';
import { parseWith } from '../schema/issues.js';
import type { Trace } from '../schema/types.js';
import { edgeOrder } from './csr.js';
import { PairIndex } from './pair-index.js';
import { copyColumns, gatherColumns, TransitionTable, type TransitionColumns, type TransitionStats } from './transition-table.js';
import { grown } from './typed-arrays.js';

export type { TransitionColumns, TransitionStats };

export interface ToolStats {
  readonly index: number;
  readonly name: string;
  /** Calls of this tool in successful traces. */
  calls: number;
  /** Calls of this tool in any trace. */
  seen: number;
}

/** The intent of one successful trace with the tools it used (one at least), for text learning. */
export interface IntentRecord {
  readonly intent: string;
  /** Distinct tools, in order of first use. */
  readonly tools: readonly number[];
  /** The full tool sequence. */
  readonly sequence: readonly number[];
}

export type { TransitionGraphOptions } from '../schema/factory-options.js';

/** Two weeks: an outcome a fortnight older than the newest trace weighs half. */
export const DEFAULT_HALF_LIFE_MS = 14 * 86_400_000;

export interface IngestOptions {
  /** Trace value in [0, 1] weighting the success evidence (default 1). */
  readonly value?: number;
}

/**
 * Everything a TransitionGraph has learned, as flat typed arrays (graph-codec.ts writes it as bytes).
 * First-order transitions are sorted by (from, to), second-order contexts follow the graph's
 * own order; a restored graph iterates in this order and snapshots exactly like the original.
 */
export interface TransitionGraphState {
  readonly version: number;
  readonly traces: number;
  /** Timestamp of the newest trace: the clock of reliability decay. */
  readonly newest: number;
  readonly successfulTraces: number;
  readonly names: readonly string[];
  /** Per tool: calls in successful traces, calls in any trace. */
  readonly calls: Float64Array;
  readonly seen: Float64Array;
  /** First-order transitions from[i] -> to[i]. */
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly edges: TransitionColumns;
  /** Second-order contexts (a[i], b[i]) -> c[i]. */
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly c: Int32Array;
  readonly second: TransitionColumns;
  /** Intent records: text, and the sequence sequences[offsets[i] .. offsets[i+1]). */
  readonly intents: readonly string[];
  readonly intentOffsets: Int32Array;
  readonly intentSequences: Int32Array;
}

/** Pair keys pack two tool indices into one safe integer: supports 2^26 tools. */
const PAIR_BASE = 2 ** 26;

export function pairKey(a: number, b: number): number {
  return a * PAIR_BASE + b;
}

/** First-order transitions as columns: row e is from[e] -> to[e], in order of first observation. */
export interface TransitionRows {
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly stats: TransitionColumns;
}

/**
 * Second-order contexts as columns: row s is (contextA[k], contextB[k]) -> target[s] with
 * k = context[s]. Context ids are dense, in order of first observation, as are rows.
 */
export interface SecondOrderRows {
  readonly contextA: Int32Array;
  readonly contextB: Int32Array;
  readonly context: Int32Array;
  readonly target: Int32Array;
  readonly stats: TransitionColumns;
}

export class TransitionGraph {
  readonly names: string[] = [];
  private readonly indexByName = new Map<string, number>();
  private readonly toolStats: ToolStats[] = [];
  /** First order: (a, b) -> row of `edgeTable`, whose endpoints are edgeFrom/edgeTo[row]. */
  private edgeIndex = new PairIndex();
  private readonly edgeTable = new TransitionTable();
  private edgeFrom = new Int32Array(64);
  private edgeTo = new Int32Array(64);
  /** Second order: (a, b) -> context id; (context id, c) -> row of `secondTable`. */
  private contextIndex = new PairIndex();
  private contextA = new Int32Array(64);
  private contextB = new Int32Array(64);
  private secondIndex = new PairIndex();
  private readonly secondTable = new TransitionTable();
  private secondContext = new Int32Array(64);
  private secondTarget = new Int32Array(64);
  private readonly intentRecords: IntentRecord[] = [];
  /** Scratch for one trace's tool indices, grown as needed. */
  private ids = new Int32Array(64);
  private traceCount = 0;
  private successCount = 0;
  private _version = 0;
  private newestAt = 0;
  /** Half-life of the recent outcome evidence (ms). */
  readonly halfLifeMs: number;
  /** -ln 2 / halfLife: 2^(-dt / h) = exp(dt * decayRate), and exp is cheaper than pow. */
  private readonly decayRate: number;

  /** Throws INVALID_INPUT naming TransitionGraph for options it cannot use (factory-options.ts). */
  constructor(options: TransitionGraphOptions = {}) {
    const halfLife = parseWith(transitionGraphOptionsSchema, options, 'TransitionGraph').halfLifeMs ?? DEFAULT_HALF_LIFE_MS;
    this.halfLifeMs = halfLife;
    this.decayRate = -Math.LN2 / halfLife;
  }

  /** Increases on every change; snapshots remember the version they were built from. */
  get version(): number {
    return this._version;
  }

  get toolCount(): number {
    return this.names.length;
  }

  get edgeCount(): number {
    return this.edgeTable.size;
  }

  get traces(): number {
    return this.traceCount;
  }

  /** Timestamp (epoch ms) of the newest trace ingested, 0 before any: the clock of reliability decay. */
  get newest(): number {
    return this.newestAt;
  }

  get successfulTraces(): number {
    return this.successCount;
  }

  indexOf(name: string): number | undefined {
    return this.indexByName.get(name);
  }

  /** Registers a tool (from a catalogue or a trace) and returns its index. */
  addTool(name: string): number {
    const known = this.indexByName.get(name);
    if (known !== undefined) return known;
    const index = this.names.length;
    const stats: ToolStats = { index, name, calls: 0, seen: 0 };
    this.names.push(name);
    this.indexByName.set(name, index);
    this.toolStats.push(stats);
    this._version++;
    return index;
  }

  tool(index: number): Readonly<ToolStats> {
    const stats = this.toolStats[index];
    if (stats === undefined) throw new RangeError(`TransitionGraph.tool: no tool at index ${index}`);
    return stats;
  }

  /** A copy of the statistics of a -> b, if observed. */
  transition(a: number, b: number): Readonly<TransitionStats> | undefined {
    const row = this.edgeIndex.get(a, b);
    return row < 0 ? undefined : this.edgeTable.stats(row);
  }

  /** A copy of the statistics of the second-order context (a, b) -> c, if observed. */
  secondOrder(a: number, b: number, c: number): Readonly<TransitionStats> | undefined {
    const context = this.contextIndex.get(a, b);
    const row = context < 0 ? -1 : this.secondIndex.get(context, c);
    return row < 0 ? undefined : this.secondTable.stats(row);
  }

  /** Successful observations of a -> b (0 when never observed), without copying its statistics. */
  successOf(a: number, b: number): number {
    const row = this.edgeIndex.get(a, b);
    return row < 0 ? 0 : this.edgeTable.read('success', row);
  }

  /** Successful observations of c after the context (a, b) (0 when never observed). */
  secondOrderSuccessOf(a: number, b: number, c: number): number {
    const context = this.contextIndex.get(a, b);
    const row = context < 0 ? -1 : this.secondIndex.get(context, c);
    return row < 0 ? 0 : this.secondTable.read('success', row);
  }

  /** Calls `fn(a, b, stats)` for every first-order transition, in order of first observation. */
  forEachTransition(fn: (a: number, b: number, stats: Readonly<TransitionStats>) => void): void {
    const m = this.edgeTable.size;
    for (let e = 0; e < m; e++) fn(this.edgeFrom[e]!, this.edgeTo[e]!, this.edgeTable.stats(e));
  }

  /** Calls `fn(a, b, c, stats)` for every second-order context, in order of first observation. */
  forEachSecondOrder(fn: (a: number, b: number, c: number, stats: Readonly<TransitionStats>) => void): void {
    const m = this.secondTable.size;
    for (let s = 0; s < m; s++) {
      const k = this.secondContext[s]!;
      fn(this.contextA[k]!, this.contextB[k]!, this.secondTarget[s]!, this.secondTable.stats(s));
    }
  }

  /** The first-order transitions as column views: read them before the next ingestion. */
  transitionRows(): TransitionRows {
    const m = this.edgeTable.size;
    return { from: this.edgeFrom.subarray(0, m), to: this.edgeTo.subarray(0, m), stats: this.edgeTable.columns() };
  }

  /** The second-order contexts as column views: read them before the next ingestion. */
  secondOrderRows(): SecondOrderRows {
    const m = this.secondTable.size;
    const k = this.contextIndex.size;
    return {
      contextA: this.contextA.subarray(0, k),
      contextB: this.contextB.subarray(0, k),
      context: this.secondContext.subarray(0, m),
      target: this.secondTarget.subarray(0, m),
      stats: this.secondTable.columns(),
    };
  }

  intents(): readonly IntentRecord[] {
    return this.intentRecords;
  }

  /** The learned state as typed arrays (see TransitionGraphState for the order): O(tools + transitions + intents). */
  exportState(): TransitionGraphState {
    const n = this.names.length;
    const calls = new Float64Array(n);
    const seen = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      calls[i] = this.toolStats[i]!.calls;
      seen[i] = this.toolStats[i]!.seen;
    }
    // Transitions sorted by (from, to): a graph restored from them has its rows in CSR order,
    // which its snapshots then take in one linear pass (csr.ts, edgeOrder).
    const first = this.transitionRows();
    const order = edgeOrder(n, first.from, first.to);
    const from = new Int32Array(order.perm.length);
    for (let j = 0; j < from.length; j++) from[j] = first.from[order.perm[j]!]!;
    const second = this.secondOrderRows();
    const s = second.context.length;
    const a = new Int32Array(s);
    const b = new Int32Array(s);
    for (let i = 0; i < s; i++) {
      const k = second.context[i]!;
      a[i] = second.contextA[k]!;
      b[i] = second.contextB[k]!;
    }
    const records = this.intentRecords;
    const intentOffsets = new Int32Array(records.length + 1);
    for (let i = 0; i < records.length; i++) intentOffsets[i + 1] = intentOffsets[i]! + records[i]!.sequence.length;
    const intentSequences = new Int32Array(intentOffsets[records.length]!);
    for (let i = 0; i < records.length; i++) intentSequences.set(records[i]!.sequence, intentOffsets[i]!);
    return {
      version: this._version,
      traces: this.traceCount,
      successfulTraces: this.successCount,
      newest: this.newestAt,
      names: this.names.slice(),
      calls,
      seen,
      from,
      to: order.targets,
      edges: gatherColumns(first.stats, order.perm),
      a,
      b,
      c: second.target.slice(),
      second: copyColumns(second.stats),
      intents: records.map((r) => r.intent),
      intentOffsets,
      intentSequences,
    };
  }

  /**
   * A graph holding exactly `state` (from exportState, possibly through graph-codec.ts): same
   * tools and indexes, statistics and version, iterating in the state's order. Throws RangeError on an inconsistent state
   * (the codec checks bytes before they get here). O(tools + transitions + intents), with the
   * statistics copied column by column.
   */
  static fromState(state: TransitionGraphState, options: TransitionGraphOptions = {}): TransitionGraph {
    const graph = new TransitionGraph(options);
    const n = state.names.length;
    if (state.calls.length !== n || state.seen.length !== n) throw new RangeError('TransitionGraph.fromState: per-tool arrays must have one entry per name');
    for (let i = 0; i < n; i++) {
      const name = state.names[i]!;
      if (graph.indexByName.has(name)) throw new RangeError(`TransitionGraph.fromState: tool ${JSON.stringify(name.slice(0, 80))} appears twice`);
      graph.names.push(name);
      graph.indexByName.set(name, i);
      graph.toolStats.push({ index: i, name, calls: state.calls[i]!, seen: state.seen[i]! });
    }
    const inRange = (x: number): boolean => x >= 0 && x < n;
    const m = state.from.length;
    if (state.to.length !== m || state.edges.count.length !== m) throw new RangeError('TransitionGraph.fromState: transition arrays must have equal lengths');
    for (let e = 0; e < m; e++) {
      if (!inRange(state.from[e]!) || !inRange(state.to[e]!)) throw new RangeError('TransitionGraph.fromState: a transition names a tool index out of range');
    }
    // exportState sorts the transitions: then they index themselves (and cannot repeat).
    const sorted = PairIndex.sorted(state.from, state.to, n);
    if (sorted !== null) graph.edgeIndex = sorted;
    else {
      graph.edgeIndex = new PairIndex(m);
      for (let e = 0; e < m; e++) {
        if (graph.edgeIndex.getOrAdd(state.from[e]!, state.to[e]!, e) >= 0) throw new RangeError('TransitionGraph.fromState: a transition appears twice');
      }
    }
    graph.edgeFrom = copyInto(state.from);
    graph.edgeTo = copyInto(state.to);
    graph.edgeTable.append(state.edges, m);

    const s = state.a.length;
    if (state.b.length !== s || state.c.length !== s || state.second.count.length !== s) throw new RangeError('TransitionGraph.fromState: second-order arrays must have equal lengths');
    graph.contextIndex = new PairIndex();
    graph.secondIndex = new PairIndex(s);
    graph.secondContext = new Int32Array(Math.max(64, s + (s >> 2)));
    graph.secondTarget = copyInto(state.c);
    for (let i = 0; i < s; i++) {
      const a = state.a[i]!;
      const b = state.b[i]!;
      const c = state.c[i]!;
      if (!inRange(a) || !inRange(b) || !inRange(c)) throw new RangeError('TransitionGraph.fromState: a second-order context names a tool index out of range');
      const context = graph.contextOf(a, b);
      if (graph.secondIndex.getOrAdd(context, c, i) >= 0) throw new RangeError('TransitionGraph.fromState: a second-order context appears twice');
      graph.secondContext[i] = context;
    }
    graph.secondTable.append(state.second, s);

    const offsets = state.intentOffsets;
    if (offsets.length !== state.intents.length + 1) throw new RangeError('TransitionGraph.fromState: intent offsets must have one more entry than intents');
    const steps = state.intentSequences;
    for (let i = 0; i < state.intents.length; i++) {
      const from = offsets[i]!;
      // A state written before records without tools were left out (ingest) may hold some.
      if (offsets[i + 1]! === from) continue;
      const sequence: number[] = new Array(offsets[i + 1]! - from);
      for (let j = 0; j < sequence.length; j++) {
        const tool = steps[from + j]!;
        if (!inRange(tool)) throw new RangeError('TransitionGraph.fromState: an intent record names a tool index out of range');
        sequence[j] = tool;
      }
      graph.intentRecords.push({ intent: state.intents[i]!, tools: distinctInOrder(sequence), sequence });
    }
    graph.traceCount = state.traces;
    graph.successCount = state.successfulTraces;
    graph.newestAt = state.newest;
    graph._version = state.version;
    return graph;
  }

  /** Adds one validated trace. */
  ingest(trace: Trace, options: IngestOptions = {}): void {
    const value = options.value ?? 1;
    const steps = trace.steps;
    const n = steps.length;
    if (this.ids.length < n) this.ids = new Int32Array(Math.max(n, 2 * this.ids.length));
    const ids = this.ids;
    for (let i = 0; i < n; i++) ids[i] = this.addTool(steps[i]!.tool);

    for (let i = 0; i < n; i++) {
      const stats = this.toolStats[ids[i]!]!;
      stats.seen++;
      if (trace.success && steps[i]!.ok) stats.calls++;
    }
    const at = trace.timestamp;
    for (let i = 1; i < n; i++) {
      const ok = trace.success && steps[i]!.ok;
      this.edgeTable.observe(this.edgeRow(ids[i - 1]!, ids[i]!), ok, value, at, this.decayRate);
      if (i >= 2) this.secondTable.observe(this.secondRow(ids[i - 2]!, ids[i - 1]!, ids[i]!), ok, value, at, this.decayRate);
    }
    // A trace that called no tool says nothing about which tool an intent wants, and the text
    // model's similar tasks are indexed by the records that name one: a record without tools
    // put every later task one place off (its neighbour's tools were credited instead).
    if (trace.success && trace.intent !== '' && n > 0) {
      const sequence: number[] = new Array(n);
      for (let i = 0; i < n; i++) sequence[i] = ids[i]!;
      this.intentRecords.push({ intent: trace.intent, tools: distinctInOrder(sequence), sequence });
    }
    this.traceCount++;
    if (at > this.newestAt) this.newestAt = at;
    if (trace.success) this.successCount++;
    this._version++;
  }

  /** The row of a -> b, added when first observed. */
  private edgeRow(a: number, b: number): number {
    const row = this.edgeTable.size;
    const known = this.edgeIndex.getOrAdd(a, b, row);
    if (known >= 0) return known;
    this.edgeTable.add();
    if (row === this.edgeFrom.length) {
      this.edgeFrom = grown(this.edgeFrom, Math.max(64, 2 * row));
      this.edgeTo = grown(this.edgeTo, Math.max(64, 2 * row));
    }
    this.edgeFrom[row] = a;
    this.edgeTo[row] = b;
    return row;
  }

  /** The id of the context pair (a, b), added when first observed. */
  private contextOf(a: number, b: number): number {
    const id = this.contextIndex.size;
    const known = this.contextIndex.getOrAdd(a, b, id);
    if (known >= 0) return known;
    if (id === this.contextA.length) {
      this.contextA = grown(this.contextA, Math.max(64, 2 * id));
      this.contextB = grown(this.contextB, Math.max(64, 2 * id));
    }
    this.contextA[id] = a;
    this.contextB[id] = b;
    return id;
  }

  /** The row of (a, b) -> c, added when first observed. */
  private secondRow(a: number, b: number, c: number): number {
    const context = this.contextOf(a, b);
    const row = this.secondTable.size;
    const known = this.secondIndex.getOrAdd(context, c, row);
    if (known >= 0) return known;
    this.secondTable.add();
    if (row === this.secondContext.length) {
      this.secondContext = grown(this.secondContext, Math.max(64, 2 * row));
      this.secondTarget = grown(this.secondTarget, Math.max(64, 2 * row));
    }
    this.secondContext[row] = context;
    this.secondTarget[row] = c;
    return row;
  }
}

/**
 * The distinct tools of a sequence in order of first use: the sequence itself when it has no
 * repeat (records share it then; both are read-only), found without allocating for the short
 * sequences traces have. A Set per record was most of restoring 33,334 intent records.
 */
function distinctInOrder(sequence: readonly number[]): readonly number[] {
  const n = sequence.length;
  if (n > 16) return [...new Set(sequence)];
  for (let j = 1; j < n; j++) {
    for (let q = 0; q < j; q++) if (sequence[q] === sequence[j]) return [...new Set(sequence)];
  }
  return sequence;
}

/** A copy of `source` in a new, owned array with a quarter more room (see TransitionTable.append). */
function copyInto(source: Int32Array): Int32Array<ArrayBuffer> {
  const copy = new Int32Array(Math.max(64, source.length + (source.length >> 2)));
  copy.set(source);
  return copy;
}

