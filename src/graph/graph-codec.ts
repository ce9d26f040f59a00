/**
 * A compact binary encoding of a TransitionGraph's learned state (TransitionGraphState) and, optionally,
 * the graph signals that are expensive to recompute (Louvain communities, PageRank) and the
 * text model's caches (the intents' tokens, the tool vectors), for the store's graph snapshot
 * and a fast cold start.
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
 *   format 3 only, the caches: f64 flags (1: intent tokens, 2: tool vectors), then
 *     if 1: tokenizer string table [1]; f64 terms; terms string table; start i32[intents + 1];
 *           tokens i32[start[intents]]
 *     if 2: embedding string table [1]; f64 dimensions, tools, nonZeros; texts string table;
 *           rowStart i32[tools + 1]; rowDims i32[nonZeros]; rowValues f32[nonZeros]
 *
 * A string table is a u32 byte length and the UTF-8 of a JSON array of strings: JSON escapes
 * lone surrogates (`\ud800`), which plain UTF-8 would replace by U+FFFD, so every JavaScript
 * string survives, and JSON.parse is the fastest string decoder Node has.
 *
 * O(bytes) both ways; about 48 bytes per transition and per second-order context.
 */
import type { TransitionColumns, TransitionGraphState } from './transition-graph.js';

/** Bumped whenever the layout changes; the store keeps it beside the bytes. */
export const GRAPH_CODEC_FORMAT = 3;

/**
 * Formats decodeGraph reads: 2 is 3 without the caches, so snapshots written before them still
 * restore (their caches are rebuilt, as they always were).
 */
export function readsGraphFormat(format: number): boolean {
  return format === 2 || format === GRAPH_CODEC_FORMAT;
}

const MAGIC = 0x00534754; // "TGS\0" read as a little-endian u32
const HEADER_F64 = 12;
const HEADER_BYTES = 8 + HEADER_F64 * 8;

/** Signals of the graph at `version`, worth keeping because they are slow to recompute. */
export interface StoredSignals {
  /** The TransitionGraph version they were computed for. */
  readonly version: number;
  readonly communities: Int32Array;
  readonly communityCount: number;
  readonly pagerank: Float64Array;
}

/**
 * The intents' tokens as intent-tokens.ts logs them: record r's are tokens[start[r] ..
 * start[r + 1]), ids into `terms`, made by the tokenizer `tokenizer` names.
 */
export interface StoredIntentTokens {
  readonly tokenizer: string;
  readonly terms: readonly string[];
  readonly start: Int32Array;
  readonly tokens: Int32Array;
}

/**
 * Tool vectors as tool-vectors.ts builds them, by row: tool c's non-zero dimensions are
 * rowDims[rowStart[c] .. rowStart[c + 1]), embedded by `embedding` from `texts[c]`.
 */
export interface StoredToolVectors {
  readonly embedding: string;
  readonly dimensions: number;
  readonly texts: readonly string[];
  readonly rowStart: Int32Array;
  readonly rowDims: Int32Array;
  readonly rowValues: Float32Array;
}

/**
 * What a model derived from the graph's intents and the catalogue and is slow to derive again:
 * at a million transitions, tokenising the intents and embedding the tools took 0.3-0.5 s of a
 * cold start. The codec checks their shape; whether they still hold (same tokenizer, same
 * embedding, same texts) is for their users to check.
 */
export interface StoredCaches {
  readonly intentTokens: StoredIntentTokens | null;
  readonly toolVectors: StoredToolVectors | null;
}

export interface DecodedGraph {
  readonly format: number;
  readonly state: TransitionGraphState;
  readonly signals: StoredSignals | null;
  /** Null for a format-2 snapshot. */
  readonly caches: StoredCaches | null;
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

  array(a: Int32Array | Float32Array | Float64Array): void {
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

/** A typed-array constructor: Int32Array, Float32Array, Float64Array. */
interface TypedArrayType<T> {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
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

  /**
   * n elements as a view over the bytes when they are aligned for it (no copy), else a copy;
   * every array starts on an 8-byte boundary, so the offset moves on to the next one.
   */
  private typed<T>(Ctor: TypedArrayType<T>, n: number, what: string): T {
    const size = n * Ctor.BYTES_PER_ELEMENT;
    this.need(size, what);
    const at = this.bytes.byteOffset + this.offset;
    const out = at % Ctor.BYTES_PER_ELEMENT === 0 ? new Ctor(this.bytes.buffer, at, n) : new Ctor(this.bytes.slice(this.offset, this.offset + size).buffer);
    this.offset = pad8(this.offset + size);
    return out;
  }

  i32s(n: number, what: string): Int32Array {
    return this.typed(Int32Array, n, what);
  }

  f32s(n: number, what: string): Float32Array {
    return this.typed(Float32Array, n, what);
  }

  f64s(n: number, what: string): Float64Array {
    return this.typed(Float64Array, n, what);
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

/** The caches with their string tables encoded, and the bytes they take. */
interface CachesPlan {
  readonly caches: StoredCaches | null;
  readonly tables: Uint8Array[];
  readonly size: number;
}

/** A string table's bytes (see the layout above). */
function stringTable(list: readonly string[]): Uint8Array {
  return encoder.encode(JSON.stringify(list));
}

function planCaches(caches: StoredCaches | null, intents: number): CachesPlan {
  const tokens = caches?.intentTokens ?? null;
  const vectors = caches?.toolVectors ?? null;
  const tables: Uint8Array[] = [];
  let size = 8;
  if (tokens !== null) {
    if (tokens.start.length !== intents + 1 || tokens.tokens.length !== tokens.start[intents]) {
      throw new RangeError(`encodeGraph: intent tokens must cover the ${intents} intents`);
    }
    tables.push(stringTable([tokens.tokenizer]), stringTable(tokens.terms));
    size += pad8(4 + tables[0]!.byteLength) + 8 + pad8(4 + tables[1]!.byteLength) + pad8(tokens.start.length * 4) + pad8(tokens.tokens.length * 4);
  }
  if (vectors !== null) {
    const n = vectors.texts.length;
    const nonZeros = vectors.rowDims.length;
    if (vectors.rowStart.length !== n + 1 || vectors.rowStart[n] !== nonZeros || vectors.rowValues.length !== nonZeros) {
      throw new RangeError('encodeGraph: tool vector rows must cover their texts');
    }
    const at = tables.length;
    tables.push(stringTable([vectors.embedding]), stringTable(vectors.texts));
    size += pad8(4 + tables[at]!.byteLength) + 24 + pad8(4 + tables[at + 1]!.byteLength) + pad8((n + 1) * 4) + 2 * pad8(nonZeros * 4);
  }
  return { caches, tables, size };
}

function writeCaches(w: Writer, plan: CachesPlan): void {
  const tokens = plan.caches?.intentTokens ?? null;
  const vectors = plan.caches?.toolVectors ?? null;
  w.f64((tokens === null ? 0 : 1) | (vectors === null ? 0 : 2));
  let t = 0;
  if (tokens !== null) {
    w.raw(plan.tables[t++]!);
    w.f64(tokens.terms.length);
    w.raw(plan.tables[t++]!);
    w.array(tokens.start);
    w.array(tokens.tokens);
  }
  if (vectors !== null) {
    w.raw(plan.tables[t++]!);
    w.f64(vectors.dimensions);
    w.f64(vectors.texts.length);
    w.f64(vectors.rowDims.length);
    w.raw(plan.tables[t++]!);
    w.array(vectors.rowStart);
    w.array(vectors.rowDims);
    w.array(vectors.rowValues);
  }
}

/** Throws unless start runs from 0 to `end` without decreasing. */
function checkStarts(start: Int32Array, end: number, what: string): void {
  if (start[0] !== 0 || start[start.length - 1] !== end) throw new GraphCodecError(`decodeGraph: ${what} must run from 0 to ${end}`);
  for (let i = 1; i < start.length; i++) if (start[i - 1]! > start[i]!) throw new GraphCodecError(`decodeGraph: ${what} must not decrease`);
}

function readCaches(r: Reader, intents: number): StoredCaches {
  const flags = r.f64('cache flags');
  if (flags !== 0 && flags !== 1 && flags !== 2 && flags !== 3) throw new GraphCodecError(`decodeGraph: cache flags must be 0-3, got ${flags}`);
  let intentTokens: StoredIntentTokens | null = null;
  let toolVectors: StoredToolVectors | null = null;
  if (flags & 1) {
    const tokenizer = r.strings(1, 'tokenizer')[0]!;
    const terms = r.strings(count(r.f64('terms'), 'terms'), 'terms');
    const start = r.i32s(intents + 1, 'intent token starts');
    const end = start[intents]!;
    if (!(end >= 0)) throw new GraphCodecError('decodeGraph: intent token starts must run from 0');
    const tokens = r.i32s(end, 'intent tokens');
    checkStarts(start, tokens.length, 'intent token starts');
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]! < 0 || tokens[i]! >= terms.length) throw new GraphCodecError('decodeGraph: an intent token is out of range');
    }
    intentTokens = { tokenizer, terms, start, tokens };
  }
  if (flags & 2) {
    const embedding = r.strings(1, 'embedding')[0]!;
    const dimensions = count(r.f64('dimensions'), 'dimensions');
    const n = count(r.f64('vector tools'), 'vector tools');
    const nonZeros = count(r.f64('vector non-zeros'), 'vector non-zeros');
    const texts = r.strings(n, 'tool texts');
    const rowStart = r.i32s(n + 1, 'vector row starts');
    const rowDims = r.i32s(nonZeros, 'vector dimensions');
    const rowValues = r.f32s(nonZeros, 'vector values');
    checkStarts(rowStart, nonZeros, 'vector row starts');
    for (let i = 0; i < nonZeros; i++) {
      if (rowDims[i]! < 0 || rowDims[i]! >= dimensions) throw new GraphCodecError('decodeGraph: a vector dimension is out of range');
    }
    toolVectors = { embedding, dimensions, texts, rowStart, rowDims, rowValues };
  }
  return { intentTokens, toolVectors };
}

/**
 * The state (and signals, when given for the same tools, and caches, when given for the same
 * intents) as bytes.
 */
export function encodeGraph(state: TransitionGraphState, signals: StoredSignals | null = null, caches: StoredCaches | null = null): Uint8Array {
  const n = state.names.length;
  const m = state.from.length;
  const s = state.a.length;
  const k = state.intents.length;
  const steps = state.intentSequences.length;
  if (signals !== null && (signals.communities.length !== n || signals.pagerank.length !== n)) {
    throw new RangeError(`encodeGraph: signals must have one entry per tool (${n})`);
  }
  const names = stringTable(state.names);
  const intents = stringTable(state.intents);
  const plan = planCaches(caches, k);
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
    (signals === null ? 0 : pad8(n * 4) + n * 8) +
    plan.size;
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
  writeCaches(w, plan);
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
 * TransitionGraph.fromState.
 */
export function decodeGraph(bytes: Uint8Array): DecodedGraph {
  const r = new Reader(bytes);
  if (bytes.byteLength < HEADER_BYTES || r.u32('magic') !== MAGIC) throw new GraphCodecError('decodeGraph: not a toolgraph graph snapshot (bad magic)');
  const format = r.u32('format');
  if (!readsGraphFormat(format)) {
    throw new GraphCodecError(`decodeGraph: snapshot format ${format}, this toolgraph reads formats 2 and ${GRAPH_CODEC_FORMAT}`);
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
  const caches = format === 2 ? null : readCaches(r, k);
  if (r.offset !== bytes.byteLength) throw new GraphCodecError(`decodeGraph: ${bytes.byteLength - r.offset} unexpected bytes after the snapshot`);
  return {
    format,
    state: { version, traces, successfulTraces, newest, names, calls, seen, from, to, edges, a, b, c, second, intents, intentOffsets, intentSequences },
    signals,
    caches,
  };
}
