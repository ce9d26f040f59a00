/**
 * The persistence contract: one interface, implemented over PGlite (an embedded PostgreSQL in a
 * local folder, the zero-set-up default) and over a PostgreSQL server (several gateway instances
 * sharing one graph). Both run the same SQL (migrations.ts, sql-store.ts), so they behave alike
 * and one contract suite (test/store/contract.ts) checks both.
 *
 * Traces are the source of truth: the graph is rebuilt by replaying them in `seq` order. The
 * transitions table is a convenience for SQL readers and is kept consistent with the traces in
 * the same transaction.
 *
 * How an instance uses it: at start, `listTools`, `getWeights` and replay `iterateTraces(store)`
 * into the graph, remembering the last seq. To ingest, `appendTraces` (acknowledge the caller
 * only after it resolves), then catch up with `tracesSince(cursor)`: that applies exactly what
 * was stored (repeats of content-hash ids under their `#n` id, retries not at all), and every
 * other instance's writes too, so all instances converge on the same graph.
 */
import type { FittedWeights } from '../recommend/model.js';
import type { ConfidenceHistoryEntry, PatternConfidence, PatternKind } from '../scoring/confidence-state.js';
import type { PatternStatus } from '../scoring/lifecycle.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { SessionRows } from './session-rows.js';
import type { SubscriptionStatus } from './subscription.js';

/**
 * A registered capability as stored: a named group of tools that together do one job (the columns
 * of the tools x capabilities matrix), as schema/capability.ts accepts it. The store keeps it as
 * given; the service validates it before storing and again when it reads it back.
 */
export interface CapabilityInfo {
  readonly id: string;
  readonly description: string;
  readonly tools: readonly string[];
  /** The tools run in this order (a sequence), or are an unordered set. */
  readonly ordered: boolean;
  readonly code?: string;
  /** Outcomes recorded elsewhere, before the traces count. */
  readonly successes: number;
  readonly failures: number;
}

export interface AppendResult {
  /** Traces written by this call (a repeated content-hash trace counts: it is a new observation). */
  readonly inserted: number;
  /** Traces skipped because their caller-given id was stored before (retries). */
  readonly duplicates: number;
  /**
   * The highest sequence number in the store once this call committed: a caller that has
   * replayed up to here has seen its own writes.
   */
  readonly lastSeq: number;
  /**
   * The highest seq committed before this call's rows (read under the append lock): when it is
   * the seq a caller has replayed up to, `stored` is exactly what comes next and the caller can
   * apply it without reading it back.
   */
  readonly previousSeq: number;
  /** What this call stored, in seq order, under the ids it was stored with (`id#2` for repeats). */
  readonly stored: readonly StoredTrace[];
}

/** A stored trace with its position in the store's total order. */
export interface StoredTrace {
  readonly seq: number;
  readonly trace: Trace;
}

export interface TracePage {
  readonly traces: readonly StoredTrace[];
  /** The seq to pass to the next `tracesSince`; equals the argument when nothing was new. */
  readonly lastSeq: number;
}

/** Outcome statistics of one first-order transition a -> b, as the graph counts them. */
export interface TransitionRow {
  readonly from: string;
  readonly to: string;
  readonly count: number;
  readonly successes: number;
  readonly failures: number;
  /** Latest trace timestamp that used the transition, epoch ms. */
  readonly lastSeen: number;
}

export interface StoreStats {
  readonly kind: 'pglite' | 'postgres';
  readonly schemaVersion: number;
  readonly tools: number;
  readonly capabilities: number;
  readonly traces: number;
  readonly transitions: number;
  /** Highest trace seq; 0 when empty. */
  readonly lastSeq: number;
  readonly patterns: number;
  /** Trace seq of the newest graph snapshot; null when there is none. */
  readonly snapshotSeq: number | null;
}

export interface PatternFilter {
  readonly kind?: PatternKind;
  readonly status?: PatternStatus;
  /** Only patterns whose composite confidence is at least this. */
  readonly minComposite?: number;
  /** At most this many, highest composite first (default: all, ordered by id). */
  readonly limit?: number;
}

/** A stored confidence history entry of one pattern, with its position in the store's log. */
/** One person's verdict on a learned pattern, as the facade's patternFeedback recorded it. */
export interface PatternFeedbackRow {
  readonly patternId: string;
  /** [a, b] for a transition, [a, b, c] for a second-order pattern. */
  readonly tools: readonly string[];
  readonly decision: 'approve' | 'reject';
  /** Epoch ms. */
  readonly at: number;
}

export interface PatternHistoryRow extends ConfidenceHistoryEntry {
  readonly seq: number;
}

/** The learned graph encoded by src/graph/graph-codec.ts, as of a trace seq. */
export interface GraphSnapshotRecord {
  /** Every trace with seq <= traceSeq is in the snapshot, none after it. */
  readonly traceSeq: number;
  /** The codec's format version, so a newer encoding is never misread. */
  readonly format: number;
  readonly data: Uint8Array;
}

/** A stored verdict with its position in the feedback log. */
export interface StoredPatternFeedback extends PatternFeedbackRow {
  readonly seq: number;
}

/** Shared state besides the traces, which every instance on one database serves. */
export const SHARED_KINDS = ['tools', 'capabilities', 'weights', 'feedback'] as const;
export type SharedKind = (typeof SHARED_KINDS)[number];

/**
 * Per kind of shared state, a counter that each write of it moves forward in the write's own
 * transaction: an instance compares them with the ones it last read to know what to read again.
 */
export type StoreRevisions = Readonly<Record<SharedKind, number>>;

/** What another connection committed: traces up to `lastSeq`, or a write of one kind of shared state. */
export type StoreChange = { readonly kind: 'traces'; readonly lastSeq: number } | { readonly kind: SharedKind };

export type { SubscriptionStatus } from './subscription.js';

/** Stops a subscription; idempotent. */
export type Unsubscribe = () => Promise<void>;

export interface Store {
  readonly kind: 'pglite' | 'postgres';
  /** Workflow sessions and their telemetry (session-rows.ts). */
  readonly sessions: SessionRows;
  /** Applies pending migrations in order; safe to call on every start and from several instances at once. */
  migrate(): Promise<{ readonly from: number; readonly to: number }>;
  /** Adds or replaces catalogue entries by name, in one transaction. */
  /**
   * With `maxTotal`, PAYLOAD_TOO_LARGE (nothing written) when the catalogue would then hold more
   * entries than that, counted in the same transaction, so instances writing at once cannot
   * pass the limit together.
   */
  putTools(tools: readonly ToolInfo[], options?: { readonly maxTotal?: number }): Promise<void>;
  /**
   * Takes the fit lease for `holder` for `ms` from now, unless another holder's lease is still
   * running: true when taken (or renewed). One instance of several fits at a time.
   */
  leaseFit(holder: string, ms: number): Promise<boolean>;
  /** Gives the fit lease back, if `holder` has it. */
  releaseFit(holder: string): Promise<void>;
  /** Every catalogue entry, ordered by name (code point order). */
  listTools(): Promise<ToolInfo[]>;
  /** Adds or replaces capabilities by id, in one transaction; a replaced one keeps its place. */
  putCapabilities(capabilities: readonly CapabilityInfo[]): Promise<void>;
  /** Every stored capability, in the order each id was first stored. */
  listCapabilities(): Promise<CapabilityInfo[]>;
  /**
   * Appends traces in one transaction (all or nothing), committed before the promise resolves.
   * A caller-given id stored before is skipped (a retry); a content-hash id stored before is a
   * second identical run and is stored again as `id#2`, `id#3`, ... (as the in-memory facade
   * does), so replaying the store rebuilds the same graph.
   */
  appendTraces(traces: readonly Trace[]): Promise<AppendResult>;
  /** Traces with `seq > afterSeq` in seq order, at most `limit` (default 1,000). */
  tracesSince(afterSeq: number, limit?: number): Promise<TracePage>;
  /**
   * Transition statistics, derived from every stored trace. Appends do not maintain them; the
   * traces since the last fold are folded in by foldTransitions, and first by this call and by
   * `stats`, so what they report is always complete.
   */
  listTransitions(): Promise<TransitionRow[]>;
  /** Folds the traces stored since the last fold into the transitions; returns how many. */
  foldTransitions(): Promise<number>;
  /** Stores a new version of the fitted weights; the latest one wins. */
  putWeights(weights: FittedWeights): Promise<void>;
  /** The latest stored weights, or null before any fit was stored. */
  getWeights(): Promise<FittedWeights | null>;
  /**
   * Adds or replaces learned patterns (spec 004 confidence states) by id, in one transaction.
   * Each state's history entries not stored before are appended to the pattern's history log.
   */
  putPatterns(patterns: readonly PatternConfidence[]): Promise<void>;
  /** Stored patterns, as they were put (with their bounded history). */
  listPatterns(filter?: PatternFilter): Promise<PatternConfidence[]>;
  /**
   * Appends a verdict to the feedback log and, in the same transaction, stores the pattern's
   * confidence state after it (as putPatterns does): both or neither.
   */
  appendPatternFeedback(entry: PatternFeedbackRow, state: PatternConfidence): Promise<number>;
  /**
   * The verdicts appended after `afterSeq` (default: all), in the order they were. Appends are
   * serialised, so seqs commit in order: reading past the last seq seen never skips a verdict.
   */
  listPatternFeedback(afterSeq?: number): Promise<StoredPatternFeedback[]>;
  /** Every history entry ever stored for a pattern, oldest first; [] for an unknown id. */
  patternHistory(id: string): Promise<PatternHistoryRow[]>;
  /**
   * Stores a graph snapshot; older ones beyond the newest two are deleted in the same
   * transaction. The bytes are compressed off the event loop: they must not change until the
   * promise settles.
   */
  putSnapshot(snapshot: GraphSnapshotRecord): Promise<void>;
  /** The snapshot with the highest trace seq, or null. */
  getSnapshot(): Promise<GraphSnapshotRecord | null>;
  /**
   * Calls `listener` when another connection commits traces or writes shared state, for an
   * instance to catch up at once instead of polling. PostgreSQL: LISTEN/NOTIFY on a dedicated
   * connection, which reconnects by itself when lost, telling `onStatus` (SubscriptionStatus).
   * PGlite: one process owns the folder, so nobody else can write; neither is ever called.
   */
  subscribe(listener: (change: StoreChange) => void, onStatus?: (status: SubscriptionStatus) => void): Promise<Unsubscribe>;
  /**
   * Resolves once the database answers a trivial statement: what a health check asks.
   * STORE_UNAVAILABLE when it cannot be reached.
   */
  ping(): Promise<void>;
  /** The shared state's revisions (StoreRevisions), read in one statement. */
  revisions(): Promise<StoreRevisions>;
  stats(): Promise<StoreStats>;
  /** Releases the database; further calls fail with INTERNAL. Idempotent. */
  close(): Promise<void>;
}

/** Every trace after `afterSeq`, page by page: what an instance replays at start and to catch up. */
export async function* iterateTraces(store: Store, afterSeq = 0, pageSize = 1_000): AsyncGenerator<StoredTrace> {
  let seq = afterSeq;
  for (;;) {
    const page = await store.tracesSince(seq, pageSize);
    for (const item of page.traces) yield item;
    if (page.traces.length < pageSize) return;
    seq = page.lastSeq;
  }
}
