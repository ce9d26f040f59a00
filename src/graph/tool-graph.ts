/**
 * The mutable, learned tool graph: tools as nodes and directed transitions `a -> b` as edges
 * of a graphology graph, plus second-order contexts `(a, b) -> c`.
 *
 * Every edge carries its outcome statistics; a failed trace or a failed step never strengthens
 * an edge, it only adds failure evidence. Ingestion is incremental, O(steps) per trace, and
 * bumps `version`, which is how snapshots know they are stale.
 *
 * Tool names are untrusted strings (`__proto__`, any Unicode): they live only in `Map`s. The
 * graphology graph is keyed by tool index (as a decimal string) with the name as an attribute,
 * because graphology keeps each node's neighbours in plain objects keyed by neighbour key,
 * where a node named `__proto__` would collide with the prototype.
 */
import { DirectedGraph } from 'graphology';
import type { Trace } from '../schema/types.js';

/** Outcome statistics of one observed transition or second-order context. */
export interface TransitionStats {
  /** Times observed, whatever the outcome. */
  count: number;
  /** Observations in successful traces whose target step succeeded. */
  success: number;
  /** Observations in failed traces, or whose target step failed. */
  failure: number;
  /** Sum of the trace values of the successful observations. */
  evidence: number;
  /** Epoch ms of the latest observation. */
  lastSeen: number;
  /**
   * Success evidence (value-weighted) and failures, each observation decayed by
   * 2^(-(lastSeen - t) / halfLife) to the time `lastSeen`: exponentially weighted sums kept
   * incrementally, so reliability can weigh recent outcomes above old ones (edge-reliability.ts)
   * without storing every observation.
   */
  recentSuccess: number;
  recentFailure: number;
}

export interface ToolStats {
  readonly index: number;
  readonly name: string;
  /** Calls of this tool in successful traces. */
  calls: number;
  /** Calls of this tool in any trace. */
  seen: number;
}

/** The intent of one successful trace with the tools it used, for text learning. */
export interface IntentRecord {
  readonly intent: string;
  /** Distinct tools, in order of first use. */
  readonly tools: readonly number[];
  /** The full tool sequence. */
  readonly sequence: readonly number[];
}

export interface ToolGraphOptions {
  /** Half-life of the recent outcome evidence, in ms (default DEFAULT_HALF_LIFE_MS, 14 days). */
  readonly halfLifeMs?: number;
}

/** Two weeks: an outcome a fortnight older than the newest trace weighs half. */
export const DEFAULT_HALF_LIFE_MS = 14 * 86_400_000;

export interface IngestOptions {
  /** Trace value in [0, 1] weighting the success evidence (default 1). */
  readonly value?: number;
}

/** Statistics of many transitions as columns, aligned by position. */
export interface TransitionColumns {
  readonly count: Float64Array;
  readonly success: Float64Array;
  readonly failure: Float64Array;
  readonly evidence: Float64Array;
  readonly lastSeen: Float64Array;
  readonly recentSuccess: Float64Array;
  readonly recentFailure: Float64Array;
}

/**
 * Everything a ToolGraph has learned, as flat typed arrays (graph-codec.ts writes it as bytes).
 * Positions follow the graph's own iteration order, so a restored graph iterates, and therefore
 * snapshots, exactly like the original.
 */
export interface ToolGraphState {
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

function columns(m: number): TransitionColumns {
  return {
    count: new Float64Array(m),
    success: new Float64Array(m),
    failure: new Float64Array(m),
    evidence: new Float64Array(m),
    lastSeen: new Float64Array(m),
    recentSuccess: new Float64Array(m),
    recentFailure: new Float64Array(m),
  };
}

function putColumns(cols: TransitionColumns, i: number, stats: TransitionStats): void {
  cols.count[i] = stats.count;
  cols.success[i] = stats.success;
  cols.failure[i] = stats.failure;
  cols.evidence[i] = stats.evidence;
  cols.lastSeen[i] = stats.lastSeen;
  cols.recentSuccess[i] = stats.recentSuccess;
  cols.recentFailure[i] = stats.recentFailure;
}

function statsAt(cols: TransitionColumns, i: number): TransitionStats {
  return {
    count: cols.count[i]!,
    success: cols.success[i]!,
    failure: cols.failure[i]!,
    evidence: cols.evidence[i]!,
    lastSeen: cols.lastSeen[i]!,
    recentSuccess: cols.recentSuccess[i]!,
    recentFailure: cols.recentFailure[i]!,
  };
}

/** Pair keys pack two tool indices into one safe integer: supports 2^26 tools. */
const PAIR_BASE = 2 ** 26;

export function pairKey(a: number, b: number): number {
  return a * PAIR_BASE + b;
}

function newStats(): TransitionStats {
  return { count: 0, success: 0, failure: 0, evidence: 0, lastSeen: 0, recentSuccess: 0, recentFailure: 0 };
}

export class ToolGraph {
  /** graphology graph: node key = String(tool index), edge attributes = TransitionStats (by reference). */
  private readonly structure: DirectedGraph<ToolStats, TransitionStats>;
  /** Tools and edges added since the graphology graph was last brought up to date. */
  private syncedTools = 0;
  private readonly pendingEdges: number[] = [];
  readonly names: string[] = [];
  private readonly indexByName = new Map<string, number>();
  private readonly toolStats: ToolStats[] = [];
  /** Edge stats by pair key: the same objects graphology holds, so no lookup by name per step. */
  private readonly edges = new Map<number, TransitionStats>();
  /** Second order: pair key (a, b) -> (c -> stats). */
  private readonly second = new Map<number, Map<number, TransitionStats>>();
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

  constructor(options: ToolGraphOptions = {}) {
    const halfLife = options.halfLifeMs ?? DEFAULT_HALF_LIFE_MS;
    if (!(halfLife > 0 && Number.isFinite(halfLife))) throw new RangeError(`ToolGraph: halfLifeMs must be a positive finite number, got ${halfLife}`);
    this.halfLifeMs = halfLife;
    this.decayRate = -Math.LN2 / halfLife;
    this.structure = new DirectedGraph<ToolStats, TransitionStats>({ allowSelfLoops: true });
  }

  /**
   * The graphology view of the tools and transitions, brought up to date on access. Ingestion
   * only appends to typed structures (graphology's per-edge insertion would cost more than the
   * rest of ingestion together); whoever reads the graph sees every trace ingested so far, and
   * edge attributes are the live statistics objects.
   */
  get graph(): DirectedGraph<ToolStats, TransitionStats> {
    const g = this.structure;
    for (; this.syncedTools < this.toolStats.length; this.syncedTools++) {
      g.addNode(String(this.syncedTools), this.toolStats[this.syncedTools]!);
    }
    for (const key of this.pendingEdges) {
      const a = Math.floor(key / PAIR_BASE);
      const b = key % PAIR_BASE;
      g.addDirectedEdge(String(a), String(b), this.edges.get(key)!);
    }
    this.pendingEdges.length = 0;
    return g;
  }

  /** Increases on every change; snapshots remember the version they were built from. */
  get version(): number {
    return this._version;
  }

  get toolCount(): number {
    return this.names.length;
  }

  get edgeCount(): number {
    return this.edges.size;
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
    if (stats === undefined) throw new RangeError(`ToolGraph.tool: no tool at index ${index}`);
    return stats;
  }

  transition(a: number, b: number): Readonly<TransitionStats> | undefined {
    return this.edges.get(pairKey(a, b));
  }

  /** Statistics of the second-order context (a, b) -> c, if observed. */
  secondOrder(a: number, b: number, c: number): Readonly<TransitionStats> | undefined {
    return this.second.get(pairKey(a, b))?.get(c);
  }

  /** Calls `fn(a, b, stats)` for every first-order transition. */
  forEachTransition(fn: (a: number, b: number, stats: Readonly<TransitionStats>) => void): void {
    for (const [key, stats] of this.edges) fn(Math.floor(key / PAIR_BASE), key % PAIR_BASE, stats);
  }

  /** Calls `fn(a, b, c, stats)` for every second-order context. */
  forEachSecondOrder(fn: (a: number, b: number, c: number, stats: Readonly<TransitionStats>) => void): void {
    for (const [key, row] of this.second) {
      const a = Math.floor(key / PAIR_BASE);
      const b = key % PAIR_BASE;
      for (const [c, stats] of row) fn(a, b, c, stats);
    }
  }

  intents(): readonly IntentRecord[] {
    return this.intentRecords;
  }

  /** The learned state as typed arrays, in iteration order: O(tools + transitions + intents). */
  exportState(): ToolGraphState {
    const n = this.names.length;
    const calls = new Float64Array(n);
    const seen = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      calls[i] = this.toolStats[i]!.calls;
      seen[i] = this.toolStats[i]!.seen;
    }
    const m = this.edges.size;
    const from = new Int32Array(m);
    const to = new Int32Array(m);
    const edges = columns(m);
    let e = 0;
    for (const [key, stats] of this.edges) {
      from[e] = Math.floor(key / PAIR_BASE);
      to[e] = key % PAIR_BASE;
      putColumns(edges, e++, stats);
    }
    let s = 0;
    for (const row of this.second.values()) s += row.size;
    const a = new Int32Array(s);
    const b = new Int32Array(s);
    const c = new Int32Array(s);
    const second = columns(s);
    s = 0;
    for (const [key, row] of this.second) {
      const ka = Math.floor(key / PAIR_BASE);
      const kb = key % PAIR_BASE;
      for (const [target, stats] of row) {
        a[s] = ka;
        b[s] = kb;
        c[s] = target;
        putColumns(second, s++, stats);
      }
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
      to,
      edges,
      a,
      b,
      c,
      second,
      intents: records.map((r) => r.intent),
      intentOffsets,
      intentSequences,
    };
  }

  /**
   * A graph holding exactly `state` (from exportState, possibly through graph-codec.ts): same
   * tools and indexes, statistics, iteration order and version. The graphology view is built
   * lazily on first access, as after ingestion. Throws RangeError on an inconsistent state
   * (the codec checks bytes before they get here).
   */
  static fromState(state: ToolGraphState, options: ToolGraphOptions = {}): ToolGraph {
    const graph = new ToolGraph(options);
    const n = state.names.length;
    if (state.calls.length !== n || state.seen.length !== n) throw new RangeError('ToolGraph.fromState: per-tool arrays must have one entry per name');
    for (let i = 0; i < n; i++) {
      const name = state.names[i]!;
      if (graph.indexByName.has(name)) throw new RangeError(`ToolGraph.fromState: tool ${JSON.stringify(name.slice(0, 80))} appears twice`);
      graph.names.push(name);
      graph.indexByName.set(name, i);
      graph.toolStats.push({ index: i, name, calls: state.calls[i]!, seen: state.seen[i]! });
    }
    const inRange = (x: number): boolean => x >= 0 && x < n;
    const m = state.from.length;
    for (let e = 0; e < m; e++) {
      const from = state.from[e]!;
      const to = state.to[e]!;
      if (!inRange(from) || !inRange(to)) throw new RangeError('ToolGraph.fromState: a transition names a tool index out of range');
      const key = pairKey(from, to);
      graph.edges.set(key, statsAt(state.edges, e));
      graph.pendingEdges.push(key);
    }
    if (graph.edges.size !== m) throw new RangeError('ToolGraph.fromState: a transition appears twice');
    for (let s = 0; s < state.a.length; s++) {
      const a = state.a[s]!;
      const b = state.b[s]!;
      const c = state.c[s]!;
      if (!inRange(a) || !inRange(b) || !inRange(c)) throw new RangeError('ToolGraph.fromState: a second-order context names a tool index out of range');
      const key = pairKey(a, b);
      let row = graph.second.get(key);
      if (row === undefined) graph.second.set(key, (row = new Map()));
      row.set(c, statsAt(state.second, s));
    }
    const offsets = state.intentOffsets;
    if (offsets.length !== state.intents.length + 1) throw new RangeError('ToolGraph.fromState: intent offsets must have one more entry than intents');
    for (let i = 0; i < state.intents.length; i++) {
      const sequence = Array.from(state.intentSequences.subarray(offsets[i]!, offsets[i + 1]!));
      if (!sequence.every(inRange)) throw new RangeError('ToolGraph.fromState: an intent record names a tool index out of range');
      graph.intentRecords.push({ intent: state.intents[i]!, tools: [...new Set(sequence)], sequence });
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
    for (let i = 1; i < n; i++) {
      const ok = trace.success && steps[i]!.ok;
      this.observe(this.edgeStats(ids[i - 1]!, ids[i]!), ok, value, trace.timestamp);
      if (i >= 2) this.observe(this.secondStats(ids[i - 2]!, ids[i - 1]!, ids[i]!), ok, value, trace.timestamp);
    }
    if (trace.success && trace.intent !== '') {
      const sequence = Array.from(ids.subarray(0, n));
      this.intentRecords.push({ intent: trace.intent, tools: [...new Set(sequence)], sequence });
    }
    this.traceCount++;
    if (trace.timestamp > this.newestAt) this.newestAt = trace.timestamp;
    if (trace.success) this.successCount++;
    this._version++;
  }

  private observe(stats: TransitionStats, ok: boolean, value: number, at: number): void {
    stats.count++;
    // Bring the recent sums to the later of the two times, then add this observation decayed
    // to it: out-of-order traces are weighed by their own time, never by their arrival.
    let weight = 1;
    if (at > stats.lastSeen) {
      const decay = Math.exp((at - stats.lastSeen) * this.decayRate);
      stats.recentSuccess *= decay;
      stats.recentFailure *= decay;
      stats.lastSeen = at;
    } else if (at < stats.lastSeen) {
      weight = Math.exp((stats.lastSeen - at) * this.decayRate);
    }
    if (ok) {
      stats.success++;
      stats.evidence += value;
      stats.recentSuccess += value * weight;
    } else {
      stats.failure++;
      stats.recentFailure += weight;
    }
  }

  private edgeStats(a: number, b: number): TransitionStats {
    const key = pairKey(a, b);
    let stats = this.edges.get(key);
    if (stats === undefined) {
      stats = newStats();
      this.edges.set(key, stats);
      this.pendingEdges.push(key);
    }
    return stats;
  }

  private secondStats(a: number, b: number, c: number): TransitionStats {
    const key = pairKey(a, b);
    let row = this.second.get(key);
    if (row === undefined) {
      row = new Map();
      this.second.set(key, row);
    }
    let stats = row.get(c);
    if (stats === undefined) {
      stats = newStats();
      row.set(c, stats);
    }
    return stats;
  }
}
