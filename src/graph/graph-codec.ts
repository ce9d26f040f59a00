/**
 * A compact binary encoding of a ToolGraph's learned state (ToolGraphState) and, optionally,
 * the graph signals that are expensive to recompute (Louvain communities, PageRank), for the
 * store's graph snapshot and a fast cold start.
 *
 * Layout (little-endian; every array starts on an 8-byte boundary so it decodes as a typed-array
 * view over the bytes, without copying when the input is itself 8-byte aligned):
 *
 *   magic "TGS\0", format u32, then a header of f64 counts:
 *     version, traces, successfulTraces, tools, transitions, secondOrder, intents,
 *     intentSteps, hasSignals, signalsVersion, communityCount, newest
 *   names      string table (see below)
 *   calls, seen                                         f64[tools]
 *   from, to                                            i32[transitions]
 *   count, success, failure, evidence, lastSeen,
 *   recentSuccess, recentFailure                        f64[transitions]
 *   a, b, c                                             i32[secondOrder]
 *   count, ..., recentFailure (the same seven)          f64[secondOrder]
 *   intents    string table; intentOffsets i32[intents + 1]; intentSequences i32[intentSteps]
 *   if hasSignals: communities i32[tools], pagerank f64[tools]
 *
 * A string table is a u32 byte length and the UTF-8 of a JSON array of strings: JSON escapes
 * lone surrogates (`\ud800`), which plain UTF-8 would replace by U+FFFD, so every JavaScript
 * string survives, and JSON.parse is the fastest string decoder Node has.
 *
 * O(bytes) both ways; about 48 bytes per transition and per second-order context.
 */
import type { TransitionColumns, ToolGraphState } from './tool-graph.js';

/** Bumped whenever the layout changes; the store keeps it beside the bytes. */
export const GRAPH_CODEC_FORMAT = 2;

const MAGIC = 0x00534754; // "TGS\0" read as a little-endian u32
const HEADER_F64 = 12;
const HEADER_BYTES = 8 + HEADER_F64 * 8;

/** Signals of the graph at `version`, worth keeping because they are slow to recompute. */
export interface StoredSignals {
  /** The ToolGraph version they were computed for. */
  readonly version: number;
  readonly communities: Int32Array;
  readonly communityCount: number;
  readonly pagerank: Float64Array;
}

export interface DecodedGraph {
  readonly format: number;
  readonly state: ToolGraphState;
  readonly signals: StoredSignals | null;
}

/** A decode failure: the bytes are not a snapshot of this format, or are damaged. */
export class GraphCodecError extends Error {
  override readonly name = 'GraphCodecError';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function pad8(n: number): number {
  return (n + 7) & ~7;
}

class Writer {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  offset = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u32(x: number): void {
    this.view.setUint32(this.offset, x, true);
    this.offset += 4;
  }

  f64(x: number): void {
    this.view.setFloat64(this.offset, x, true);
    this.offset += 8;
  }

  array(a: Int32Array | Float64Array): void {
    // Typed arrays are in platform order; every platform Node runs on is little-endian.
    this.bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), this.offset);
    this.offset = pad8(this.offset + a.byteLength);
  }

  raw(b: Uint8Array): void {
    this.u32(b.byteLength);
    this.bytes.set(b, this.offset);
    this.offset = pad8(this.offset + b.byteLength);
  }
}

class Reader {
  private readonly view: DataView;
  offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number, what: string): void {
    if (!(n >= 0) || this.offset + n > this.bytes.byteLength) {
      throw new GraphCodecError(`decodeGraph: truncated at byte ${this.offset} reading ${what} (${n} bytes wanted, ${this.bytes.byteLength} in all)`);
    }
  }

  u32(what: string): number {
    this.need(4, what);
    const x = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return x;
  }

  f64(what: string): number {
    this.need(8, what);
    const x = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return x;
  }

  i32s(n: number, what: string): Int32Array {
    this.need(n * 4, what);
    const at = this.bytes.byteOffset + this.offset;
    const out =
      at % 4 === 0 ? new Int32Array(this.bytes.buffer, at, n) : new Int32Array(this.bytes.slice(this.offset, this.offset + n * 4).buffer);
    this.offset = pad8(this.offset + n * 4);
    return out;
  }

  f64s(n: number, what: string): Float64Array {
    this.need(n * 8, what);
    const at = this.bytes.byteOffset + this.offset;
    const out =
      at % 8 === 0 ? new Float64Array(this.bytes.buffer, at, n) : new Float64Array(this.bytes.slice(this.offset, this.offset + n * 8).buffer);
    this.offset += n * 8;
    return out;
  }

  strings(count: number, what: string): string[] {
    const length = this.u32(`${what} length`);
    this.need(length, what);
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(this.bytes.subarray(this.offset, this.offset + length)));
    } catch (error) {
      throw new GraphCodecError(`decodeGraph: ${what} is not a JSON string array (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed) || parsed.length !== count || !parsed.every((s) => typeof s === 'string')) {
      throw new GraphCodecError(`decodeGraph: ${what} must be an array of ${count} strings`);
    }
    this.offset = pad8(this.offset + length);
    return parsed as string[];
  }
}

function columnsBytes(m: number): number {
  return 7 * m * 8;
}

function writeColumns(w: Writer, cols: TransitionColumns): void {
  w.array(cols.count);
  w.array(cols.success);
  w.array(cols.failure);
  w.array(cols.evidence);
  w.array(cols.lastSeen);
  w.array(cols.recentSuccess);
  w.array(cols.recentFailure);
}

function readColumns(r: Reader, m: number, what: string): TransitionColumns {
  return {
    count: r.f64s(m, `${what} count`),
    success: r.f64s(m, `${what} success`),
    failure: r.f64s(m, `${what} failure`),
    evidence: r.f64s(m, `${what} evidence`),
    lastSeen: r.f64s(m, `${what} lastSeen`),
    recentSuccess: r.f64s(m, `${what} recentSuccess`),
    recentFailure: r.f64s(m, `${what} recentFailure`),
  };
}

/** The state (and signals, when given for the same tools) as bytes. */
export function encodeGraph(state: ToolGraphState, signals: StoredSignals | null = null): Uint8Array {
  const n = state.names.length;
  const m = state.from.length;
  const s = state.a.length;
  const k = state.intents.length;
  const steps = state.intentSequences.length;
  if (signals !== null && (signals.communities.length !== n || signals.pagerank.length !== n)) {
    throw new RangeError(`encodeGraph: signals must have one entry per tool (${n})`);
  }
  const names = encoder.encode(JSON.stringify(state.names));
  const intents = encoder.encode(JSON.stringify(state.intents));
  const size =
    HEADER_BYTES +
    pad8(4 + names.byteLength) +
    2 * n * 8 +
    pad8(m * 4) * 2 +
    columnsBytes(m) +
    pad8(s * 4) * 3 +
    columnsBytes(s) +
    pad8(4 + intents.byteLength) +
    pad8((k + 1) * 4) +
    pad8(steps * 4) +
    (signals === null ? 0 : pad8(n * 4) + n * 8);
  const w = new Writer(size);
  w.u32(MAGIC);
  w.u32(GRAPH_CODEC_FORMAT);
  for (const x of [state.version, state.traces, state.successfulTraces, n, m, s, k, steps, signals === null ? 0 : 1, signals?.version ?? 0, signals?.communityCount ?? 0, state.newest]) {
    w.f64(x);
  }
  w.raw(names);
  w.array(state.calls);
  w.array(state.seen);
  w.array(state.from);
  w.array(state.to);
  writeColumns(w, state.edges);
  w.array(state.a);
  w.array(state.b);
  w.array(state.c);
  writeColumns(w, state.second);
  w.raw(intents);
  w.array(state.intentOffsets);
  w.array(state.intentSequences);
  if (signals !== null) {
    w.array(signals.communities);
    w.array(signals.pagerank);
  }
  if (w.offset !== size) throw new Error(`encodeGraph: wrote ${w.offset} bytes, sized ${size}`);
  return w.bytes;
}

function count(x: number, what: string): number {
  if (!Number.isSafeInteger(x) || x < 0) throw new GraphCodecError(`decodeGraph: ${what} must be a non-negative integer, got ${x}`);
  return x;
}

/**
 * The state and signals of encodeGraph's bytes. Arrays are views over `bytes` when it is
 * 8-byte aligned (so do not reuse the buffer). Throws GraphCodecError for bytes that are not a
 * snapshot, of another format, truncated, or with trailing data; index ranges are checked by
 * ToolGraph.fromState.
 */
export function decodeGraph(bytes: Uint8Array): DecodedGraph {
  const r = new Reader(bytes);
  if (bytes.byteLength < HEADER_BYTES || r.u32('magic') !== MAGIC) throw new GraphCodecError('decodeGraph: not a toolgraph graph snapshot (bad magic)');
  const format = r.u32('format');
  if (format !== GRAPH_CODEC_FORMAT) {
    throw new GraphCodecError(`decodeGraph: snapshot format ${format}, this toolgraph reads format ${GRAPH_CODEC_FORMAT}`);
  }
  const version = count(r.f64('version'), 'version');
  const traces = count(r.f64('traces'), 'traces');
  const successfulTraces = count(r.f64('successfulTraces'), 'successfulTraces');
  const n = count(r.f64('tools'), 'tools');
  const m = count(r.f64('transitions'), 'transitions');
  const s = count(r.f64('secondOrder'), 'secondOrder');
  const k = count(r.f64('intents'), 'intents');
  const steps = count(r.f64('intentSteps'), 'intentSteps');
  const hasSignals = r.f64('hasSignals');
  const signalsVersion = count(r.f64('signalsVersion'), 'signalsVersion');
  const communityCount = count(r.f64('communityCount'), 'communityCount');
  const newest = r.f64('newest');
  if (!Number.isFinite(newest)) throw new GraphCodecError(`decodeGraph: newest must be finite, got ${newest}`);
  const names = r.strings(n, 'names');
  const calls = r.f64s(n, 'calls');
  const seen = r.f64s(n, 'seen');
  const from = r.i32s(m, 'from');
  const to = r.i32s(m, 'to');
  const edges = readColumns(r, m, 'transitions');
  const a = r.i32s(s, 'a');
  const b = r.i32s(s, 'b');
  const c = r.i32s(s, 'c');
  const second = readColumns(r, s, 'second order');
  const intents = r.strings(k, 'intents');
  const intentOffsets = r.i32s(k + 1, 'intentOffsets');
  const intentSequences = r.i32s(steps, 'intentSequences');
  for (let i = 0; i < k; i++) {
    if (intentOffsets[i]! > intentOffsets[i + 1]!) throw new GraphCodecError('decodeGraph: intent offsets must not decrease');
  }
  if (intentOffsets[0] !== 0 || intentOffsets[k] !== steps) throw new GraphCodecError('decodeGraph: intent offsets must run from 0 to intentSteps');
  let signals: StoredSignals | null = null;
  if (hasSignals === 1) {
    const communities = r.i32s(n, 'communities');
    const pagerank = r.f64s(n, 'pagerank');
    for (let i = 0; i < n; i++) {
      if (communities[i]! < 0 || communities[i]! >= communityCount) throw new GraphCodecError('decodeGraph: a community id is out of range');
    }
    signals = { version: signalsVersion, communities, communityCount, pagerank };
  } else if (hasSignals !== 0) {
    throw new GraphCodecError('decodeGraph: hasSignals must be 0 or 1');
  }
  if (r.offset !== bytes.byteLength) throw new GraphCodecError(`decodeGraph: ${bytes.byteLength - r.offset} unexpected bytes after the snapshot`);
  return {
    format,
    state: { version, traces, successfulTraces, newest, names, calls, seen, from, to, edges, a, b, c, second, intents, intentOffsets, intentSequences },
    signals,
  };
}
