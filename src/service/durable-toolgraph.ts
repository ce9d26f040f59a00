/**
 * The durable ToolgraphService: the in-memory Toolgraph engine over a Store (PGlite in a folder,
 * or PostgreSQL shared by several instances).
 *
 * - Open: migrate, load the catalogue and the fitted weights, restore the newest graph snapshot
 *   (graph-codec.ts: the learned graph plus its Louvain communities) and replay only the traces
 *   stored after it; without a snapshot, replay every trace.
 * - Ingest: validate the whole input first (nothing of a bad batch is written), then hand it to
 *   the group-commit writer (group-commit.ts): submissions arriving together are committed in
 *   one transaction. A caller's promise resolves only after that commit, so an acknowledged
 *   trace is durable.
 * - Apply: the graph takes traces in the store's seq order only, from one serial queue: this
 *   instance's own commits (applied straight from the append result when nothing else was
 *   committed in between, else read back) and other instances' (a LISTEN/NOTIFY wake-up on
 *   PostgreSQL, and a slow poll as a safety net). So every instance converges on the same graph.
 * - Snapshots: every `snapshotEvery` traces, after a fit, and on close when traces were applied
 *   since the last one; each is followed by a fold of the store's transitions table.
 *
 * Not shared live between instances (read at open): the catalogue, the registered capabilities
 * and the fitted weights.
 */
import { decodeGraph, encodeGraph, GRAPH_CODEC_FORMAT, readsGraphFormat, type StoredCaches, type StoredSignals } from '../graph/graph-codec.js';
import { TransitionGraph } from '../graph/transition-graph.js';
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { SIGNALS } from '../recommend/features.js';
import type { FitReport } from '../recommend/fit-weights.js';
import type { FitJobOptions } from '../recommend/fit-job.js';
import type { FittedWeights } from '../recommend/model.js';
import { describeCapability, type CapabilityRanking, type ExpandedCapability } from '../recommend/rank-capabilities.js';
import type { Prediction } from '../recommend/predict-next.js';
import type { SearchResult } from '../recommend/search-tools.js';
import type { ContributionResult } from '../scoring/contribute-trace.js';
import type { Capability } from '../schema/capability.js';
import { ToolgraphError } from '../schema/errors.js';
import { assertSomeRead, readCatalogAs } from '../schema/catalog.js';
import { assertCatalogRoom, parseTool } from '../schema/tool.js';
import { MAX_CATALOG_TOOLS } from '../schema/limits.js';
import { parseTraceBatch } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { openStore } from '../store/open-store.js';
import { iterateTraces, type AppendResult, type CapabilityInfo, type Store, type StoreStats, type Unsubscribe } from '../store/store.js';
import { tokenizeIntentsInSlices } from '../text/intent-tokens.js';
import { GroupCommit } from './group-commit.js';
import type { GraphView, ToolNeighbours } from './graph-view.js';
import type { PatternDetail, PatternView } from './pattern-view.js';
import { parsePatternDecision } from '../schema/pattern-requests.js';
import { textOf, type ServiceHealth, type ToolgraphService } from './service.js';
import { SerialQueue } from './serial-queue.js';
import { SharedState } from './shared-state.js';
import { parseOpenToolgraphOptions, type OpenToolgraphOptions, type OpenToolgraphSettings } from './options.js';
import { autoFitSettings } from '../schema/fit-options.js';
import { BackgroundFit } from './background-fit.js';
import { Toolgraph, type IngestResult, type RestoredCaches, type ScoreOptions, type SetToolsOptions, type SetToolsResult, type ToolgraphStats } from './toolgraph.js';
import { createSessions, type Sessions } from './sessions.js';
import { storeCalibration } from './session-threshold.js';
import type { DagRequestInput, PredictRequestInput, SearchRequestInput } from '../schema/requests.js';
import type { CapabilityRequestInput } from '../schema/capability.js';

export type { OpenToolgraphOptions } from './options.js';

/** How the instance came up: what the cold start restored and replayed, and how long it took. */
export interface OpenReport {
  readonly kind: 'pglite' | 'postgres';
  /** Trace seq of the restored snapshot; null when there was none (or it could not be read). */
  readonly snapshotSeq: number | null;
  readonly snapshotBytes: number;
  /** Traces replayed after the snapshot. */
  readonly replayed: number;
  /**
   * The snapshot was decoded and restored from the prefetched file while the database opened
   * (PGlite); its `decode` and `restore` times then overlapped `open` instead of following it.
   */
  readonly restoredEarly: boolean;
  /**
   * Which of the snapshot's caches were taken over rather than made again: the intents' tokens
   * and the tool vectors (false when the snapshot had none or they did not check out).
   */
  readonly cachesRestored: RestoredCaches;
  /** The first model's graph snapshot was built on a worker thread beside its text model (firstModelOffThreadFrom). */
  readonly modelOffThread: boolean;
  readonly ms: {
    readonly open: number;
    readonly load: number;
    readonly decode: number;
    readonly restore: number;
    readonly replay: number;
    readonly model: number;
    readonly total: number;
  };
}

export interface SnapshotReport {
  readonly traceSeq: number;
  readonly bytes: number;
  readonly ms: number;
}

export interface DurableToolgraph extends ToolgraphService {
  readonly store: Store;
  readonly openReport: OpenReport;
  /** The highest trace seq applied to this instance's graph. */
  readonly appliedSeq: number;
  /** ingest() for traces already validated (parseTrace output): one all-or-nothing submission. */
  ingestTraces(traces: readonly Trace[]): Promise<IngestResult>;
  /**
   * Resolves once capability learning has every stored trace: at once, unless the open restored
   * a snapshot, whose earlier traces are then read in the background (learned capabilities and
   * capability outcomes appear in the model rebuilt after that).
   */
  capabilitiesLearned(): Promise<void>;
  /** Commits whatever is queued; resolves when it is durable and applied. */
  flush(): Promise<void>;
  /**
   * flush(), then waits until no fit is under way or called for (one due later, after the quiet
   * time of autoFit's idleMs, is waited for) and the model answering is current: what a service
   * answers once it has caught up with what it was sent and gone quiet (evaluations, tests).
   */
  settled(): Promise<void>;
  /** Applies traces other instances committed since appliedSeq; resolves with the new appliedSeq. */
  catchUp(): Promise<number>;
  /** Writes a graph snapshot now (rebuilding the model first if it is stale). */
  snapshot(): Promise<SnapshotReport>;
  /**
   * fit() with options (folds, ...) on every stored trace; stores the weights and a snapshot.
   * INVALID_INPUT, storing nothing, when no stored trace succeeded.
   */
  fitWith(options: FitJobOptions): Promise<FitReport>;
  storeStats(): Promise<StoreStats>;
  /** The in-memory engine, for read-only use (export, graph statistics). */
  readonly engine: Toolgraph;
  /** Group commits so far and the traces submitted through them. */
  readonly commitStats: { readonly commits: number; readonly traces: number };
}

/** How long a health check waits for the store to answer before it reports it degraded, in ms. */
export const HEALTH_TIMEOUT_MS = 2_000;

/**
 * How many of each submission's traces the store kept, by the store's own rule: a content-hash
 * trace is always stored (as `id#n` when repeated), a caller id only the first time it is seen.
 */
function storedPerGroup(groups: readonly (readonly Trace[])[], result: AppendResult): number[] {
  const unclaimed = new Set<string>();
  for (const s of result.stored) unclaimed.add(s.trace.id);
  return groups.map((group) => {
    let n = 0;
    for (const t of group) {
      if (t.idSource === 'content') n++;
      else if (unclaimed.delete(t.id)) n++;
    }
    return n;
  });
}

class DurableToolgraphImpl implements DurableToolgraph {
  readonly engine: Toolgraph;
  openReport!: OpenReport;
  private cursor = 0;
  private snapshotSeq = 0;
  private sinceSnapshot = 0;
  private readonly writer: GroupCommit<Trace, number>;
  /** Serialises every change to the graph (own commits, catch-ups, restore). */
  private readonly applying = new SerialQueue();
  private snapshotting: Promise<unknown> = Promise.resolve();
  private unsubscribe: Unsubscribe | null = null;
  private poll: ReturnType<typeof setInterval> | null = null;
  private catchUpQueued = false;
  /** PostgreSQL: what this instance has of the state other instances write too (syncShared). */
  private shared: SharedState | null = null;
  private syncQueued = false;
  private syncing: Promise<void> = Promise.resolve();
  private closed: Promise<void> | null = null;
  private readonly snapshotEvery: number;
  /** One verdict at a time: each stored state must include the verdicts before it. */
  private readonly verdicts = new SerialQueue();
  /** Registrations in one order, for the store and the engine alike. */
  private readonly registrations = new SerialQueue();
  private backfill: Promise<void> = Promise.resolve();
  private readonly warn: (message: string) => void;
  /** Fits of this service's weights, by itself as traces arrive and on request. */
  private readonly fitting: BackgroundFit;
  /** The store's answer to the health check in flight, which later checks share until it settles. */
  private pinging: Promise<void> | null = null;
  /** A background read failed with STORE_UNAVAILABLE, and none succeeded since (backgroundFailed). */
  private unreachable = false;
  readonly sessions: Sessions;

  constructor(
    readonly store: Store,
    private readonly options: OpenToolgraphSettings,
  ) {
    this.engine = new Toolgraph({
      seed: options.seed,
      rebuildDelayMs: options.rebuildDelayMs,
      ...(options.embedder === undefined ? {} : { embedder: options.embedder }),
      // Learned capabilities with their defaults, or none.
      learnCapabilities: options.learnCapabilities ? {} : false,
      offThreadFrom: options.offThreadFrom,
      onWarning: (message) => this.warn(message),
    });
    this.writer = new GroupCommit((groups) => this.commit(groups), { windowMs: options.batchWindowMs, maxItems: options.maxBatch });
    this.snapshotEvery = options.snapshotEvery;
    this.warn = options.onWarning;
    this.fitting = new BackgroundFit({
      store,
      engine: this.engine,
      settings: autoFitSettings(options.autoFit),
      appliedSeq: () => this.cursor,
      stored: (weights) => this.shared?.noteWeights(weights),
      adopt: (weights) => {
        this.adoptWeights(weights);
        this.shared?.noteWeights(weights);
      },
      warn: (message) => this.warn(message),
    });
    const calibration = storeCalibration(store, this.engine, () => this.cursor);
    this.sessions = createSessions({ recommender: this, rows: store.sessions, calibration, seed: options.seed, warn: (m) => this.warn(m) }, options.sessions);
  }

  get appliedSeq(): number {
    return this.cursor;
  }

  get commitStats(): { commits: number; traces: number } {
    return { commits: this.writer.commits, traces: this.writer.committedItems };
  }

  async start(openMs: number, early: Promise<RestoredSnapshot | null> = Promise.resolve(null)): Promise<void> {
    const t0 = performance.now();
    // Read before the state itself: a write by another instance in between is read again.
    const revisions = this.store.kind === 'postgres' ? await this.store.revisions() : null;
    const [tools, weights, snapshot, feedback, capabilities] = await Promise.all([
      this.store.listTools(),
      // Weights this version cannot read (written by another) are no reason not to open: the
      // prior serves until the next fit, which the service makes by itself.
      this.store.getWeights().catch((error: unknown) => {
        this.warn(`the stored weights were left out (${(error as Error).message}); the prior serves until the next fit`);
        return null;
      }),
      this.store.getSnapshot(),
      this.store.listPatternFeedback(),
      this.store.listCapabilities(),
    ]);
    this.takeTools(tools);
    if (weights !== null) this.adoptWeights(weights);
    const t1 = performance.now();
    let decodeMs = 0;
    let restoreMs = 0;
    let snapshotSeq: number | null = null;
    let restoredEarly = false;
    let cachesRestored: RestoredCaches = { intentTokens: false, toolVectors: false };
    if (snapshot !== null) {
      if (!readsGraphFormat(snapshot.format)) {
        this.warn(`graph snapshot at trace ${snapshot.traceSeq} has format ${snapshot.format}, this toolgraph reads 2 and ${GRAPH_CODEC_FORMAT}: replaying every trace instead`);
      } else {
        try {
          // Restored early only from these very bytes: the buffer the store hands out is the
          // prefetch's when the database names the prefetched file.
          const pre = await early;
          const restored = pre !== null && pre.bytes.buffer === snapshot.data.buffer ? pre : restoreSnapshot(snapshot.data);
          cachesRestored = this.engine.restoreGraph(restored.graph, restored.signals, restored.caches);
          // The traces before the snapshot are not replayed into the graph, but capability
          // learning needs them: they are read in the background once the service is ready.
          this.engine.beginCapabilityBackfill();
          restoredEarly = restored === pre;
          restoreMs = restored.restoreMs;
          decodeMs = restored.decodeMs;
          snapshotSeq = snapshot.traceSeq;
          this.cursor = snapshot.traceSeq;
          this.snapshotSeq = snapshot.traceSeq;
        } catch (error) {
          this.warn(`graph snapshot at trace ${snapshot.traceSeq} could not be restored (${(error as Error).message}): replaying every trace instead`);
        }
      }
    }
    const r0 = performance.now();
    const replayed = await this.replay();
    const r1 = performance.now();
    this.engine.restorePatternFeedback(feedback);
    const registered = this.restoreCapabilities(capabilities);
    if (revisions !== null) {
      this.shared = new SharedState(revisions);
      this.shared.noteTools(tools);
      this.shared.noteCapabilities(registered);
      if (weights !== null) this.shared.noteWeights(weights);
      this.shared.newVerdicts(feedback);
    }
    // Ready to answer: the first model, built now rather than on the first query; for a large
    // graph, with its snapshot built on a thread of its own beside the text model (the thread
    // loads its modules meanwhile too), else in stages here.
    const offThreadBefore = this.engine.stats().offThreadBuilds;
    await this.engine.rebuildInBackground(this.options.firstModelOffThreadFrom);
    const offThread = this.engine.stats().offThreadBuilds > offThreadBefore;
    const r2 = performance.now();
    this.sinceSnapshot = replayed;
    this.openReport = {
      kind: this.store.kind,
      snapshotSeq,
      snapshotBytes: snapshotSeq === null ? 0 : snapshot!.data.byteLength,
      replayed,
      restoredEarly,
      cachesRestored,
      modelOffThread: offThread,
      ms: {
        open: round(openMs),
        load: round(t1 - t0),
        decode: round(decodeMs),
        restore: round(restoreMs),
        replay: round(r1 - r0),
        model: round(r2 - r1),
        total: round(openMs + r2 - t0),
      },
    };
    if (snapshotSeq !== null) this.backfill = this.backfillCapabilities(snapshotSeq);
    // A store opened with traces enough and weights older than they call for fits now.
    this.fitting.note();
    if (this.store.kind === 'postgres') {
      const pollMs = this.options.pollMs;
      const polling = pollMs > 0 ? `polling every ${pollMs} ms` : 'not polling (pollMs 0): their writes arrive once it is back';
      try {
        this.unsubscribe = await this.store.subscribe(
          (change) => {
            if (change.kind !== 'traces') this.scheduleSync();
            else if (change.lastSeq > this.cursor) this.scheduleCatchUp();
          },
          (status) => {
            if (status.state === 'lost') {
              this.warn(`lost the connection that listens for other instances' writes (${status.reason}); ${polling} while it reconnects (next attempt in ${status.retryInMs} ms)`);
              return;
            }
            // Nothing was notified while it was down: read what others wrote meanwhile.
            this.warn(`listening for other instances' writes again, ${status.downMs} ms after the connection was lost (${status.attempts} attempt${status.attempts === 1 ? '' : 's'}); catching up`);
            this.scheduleCatchUp();
            this.scheduleSync();
          },
        );
      } catch (error) {
        this.warn(`cannot LISTEN for other instances' traces (${(error as Error).message}); polling only`);
      }
      // What others wrote between the reads above and the LISTEN.
      this.scheduleCatchUp();
      this.scheduleSync();
      if (pollMs > 0) {
        this.poll = setInterval(() => {
          this.scheduleCatchUp();
          this.scheduleSync();
        }, pollMs);
        this.poll.unref?.();
      }
    }
  }

  /**
   * Registers the stored capabilities, each checked again as setCapabilities checks it (the
   * tools they name are in the catalogue or the replayed traces); one that fails is reported and
   * left out, and the others still count.
   */
  private restoreCapabilities(stored: readonly CapabilityInfo[], options: { readonly replace?: boolean } = {}): CapabilityInfo[] {
    const valid: Capability[] = [];
    const registered: CapabilityInfo[] = [];
    for (const c of stored) {
      try {
        valid.push(...this.engine.checkCapabilities([c], 'open'));
        registered.push(c);
      } catch (error) {
        this.warn(`stored capability ${JSON.stringify(c.id.slice(0, 80))} was left out: ${(error as Error).message}`);
      }
    }
    if (valid.length > 0 || options.replace === true) this.engine.registerCapabilities(valid, options);
    return registered;
  }

  /**
   * Stored catalogue entries (at open, or another instance's), each checked again as a request
   * entry is, but with no request limit on their number: a store always opens with what it
   * holds. One this version refuses (written by another version) is left out with a warning,
   * and the others are taken.
   */
  private takeTools(tools: readonly ToolInfo[]): void {
    if (tools.length === 0) return;
    const valid: ToolInfo[] = [];
    for (const tool of tools) {
      try {
        valid.push(parseTool(tool));
      } catch (error) {
        this.warn(`stored tool ${JSON.stringify(String(tool.name).slice(0, 80))} was left out: ${(error as Error).message}`);
      }
    }
    this.engine.putTools(valid);
  }

  /** Stored weights, unless fitted by a version with another set of signals: the prior serves then, until the next fit. */
  private adoptWeights(weights: FittedWeights): void {
    const fits = [weights.next, weights.nextNoIntent, weights.search].every((w) => w.length === SIGNALS.length);
    if (fits) this.engine.setWeights(weights);
    else this.warn(`the stored weights were fitted for ${weights.next.length} signals, this version has ${SIGNALS.length}: using the prior until the next fit`);
  }

  /**
   * Feeds the traces up to `throughSeq` (the restored snapshot's) to capability learning, page by
   * page, yielding between pages; newer traces wait in the engine's queue meanwhile. A failure
   * is reported and learning goes on with the traces it has.
   */
  private async backfillCapabilities(throughSeq: number): Promise<void> {
    try {
      let page: Trace[] = [];
      for await (const item of iterateTraces(this.store, 0, 5_000)) {
        if (item.seq > throughSeq || this.closed !== null) break;
        page.push(item.trace);
        if (page.length === 5_000) {
          this.engine.backfillCapabilityTraces(page);
          page = [];
        }
      }
      this.engine.backfillCapabilityTraces(page);
    } catch (error) {
      this.warn(`reading the traces before the snapshot for capability learning failed (${(error as Error).message}); learned capabilities miss them until the next open`);
    } finally {
      this.engine.endCapabilityBackfill();
    }
  }

  capabilitiesLearned(): Promise<void> {
    return this.backfill;
  }

  /** Applies every stored trace after the cursor, page by page; returns how many. */
  private async replay(): Promise<number> {
    let n = 0;
    let page: Trace[] = [];
    for await (const item of iterateTraces(this.store, this.cursor, 5_000)) {
      page.push(item.trace);
      this.cursor = item.seq;
      if (page.length === 5_000) {
        this.engine.applyStoredTraces(page);
        n += page.length;
        page = [];
      }
    }
    this.engine.applyStoredTraces(page);
    return n + page.length;
  }

  private scheduleCatchUp(): void {
    if (this.catchUpQueued || this.closed !== null) return;
    this.catchUpQueued = true;
    void this.applying.run(async () => {
      this.catchUpQueued = false;
      await this.replayCounted();
      this.unreachable = false;
    }).catch((error: unknown) => this.backgroundFailed('catching up with the store', error));
  }

  /**
   * Warns of a failed background read; while the store stays out of reach, only the first
   * failure is told (the poll would repeat it every pollMs), until a read succeeds again.
   */
  private backgroundFailed(what: string, error: unknown): void {
    const unavailable = error instanceof ToolgraphError && error.code === 'STORE_UNAVAILABLE';
    if (unavailable && this.unreachable) return;
    this.unreachable = unavailable;
    this.warn(`${what} failed: ${(error as Error).message}${unavailable ? '; retrying at each poll, quietly until it succeeds' : ''}`);
  }

  private async replayCounted(): Promise<void> {
    const n = await this.replay();
    this.noteApplied(n);
  }

  private scheduleSync(): void {
    if (this.syncQueued || this.shared === null || this.closed !== null) return;
    this.syncQueued = true;
    this.syncing = this.syncing
      .then(async () => {
        this.syncQueued = false;
        if (this.closed === null) await this.syncShared(this.shared!);
        this.unreachable = false;
      })
      .catch((error: unknown) => this.backgroundFailed('reading what other instances changed', error));
  }

  /**
   * Reads again what other instances changed of the shared state, as an open reads it: only
   * the kinds whose revision moved, and of those only the entries that differ from what this
   * instance has. Each kind goes through the queue its own writes take (the catalogue through
   * the apply queue, capabilities after registrations, verdicts after verdicts), so it never
   * interleaves with them. A kind that fails to read is read again at the next sync.
   */
  private async syncShared(shared: SharedState): Promise<void> {
    const now = await this.store.revisions();
    const moved = shared.moved(now);
    if (moved.includes('tools')) {
      await this.applying.run(async () => {
        const changed = shared.changedTools(await this.store.listTools());
        this.takeTools(changed);
        // Noted even when refused: an entry is read again only once it changes, not at every poll.
        shared.noteTools(changed);
        shared.read('tools', now.tools);
      });
    }
    if (moved.includes('capabilities')) {
      // After the traces so far: a capability may name a tool only they have brought.
      await this.applying.run(() => this.replayCounted());
      await this.registrations.run(async () => {
        const stored = await this.store.listCapabilities();
        // All of them again, in the store's order (the co-clustering's column order, which a
        // restart reads), when any changed: registrations by two instances may have interleaved.
        if (shared.changedCapabilities(stored).length > 0) shared.noteCapabilities(this.restoreCapabilities(stored, { replace: true }));
        shared.read('capabilities', now.capabilities);
      });
    }
    if (moved.includes('weights')) {
      await this.applying.run(async () => {
        const weights = await this.store.getWeights();
        if (weights !== null && shared.weightsChanged(weights)) {
          this.adoptWeights(weights);
          shared.noteWeights(weights);
        }
        shared.read('weights', now.weights);
      });
    }
    if (moved.includes('feedback')) {
      await this.verdicts.run(async () => {
        const others = shared.newVerdicts(await this.store.listPatternFeedback(shared.lastVerdict));
        if (others.length > 0) this.engine.restorePatternFeedback(others);
        shared.read('feedback', now.feedback);
      });
    }
  }

  catchUp(): Promise<number> {
    return this.applying.run(async () => {
      await this.replayCounted();
      return this.cursor;
    });
  }

  /** The group-commit step: one transaction for every queued submission, then apply in seq order. */
  private async commit(groups: readonly (readonly Trace[])[]): Promise<number[]> {
    const all = groups.length === 1 ? groups[0]! : groups.flat();
    const result = await this.store.appendTraces(all);
    // Durable from here on: whatever happens while applying, the callers are acknowledged, and a
    // graph that could not take the traces now catches up on the next wake-up.
    try {
      await this.applying.run(async () => {
        if (result.lastSeq <= this.cursor) return;
        if (result.previousSeq === this.cursor) {
          this.engine.applyStoredTraces(result.stored.map((s) => s.trace));
          this.cursor = result.lastSeq;
          this.noteApplied(result.stored.length);
        } else {
          await this.replayCounted();
        }
      });
    } catch (error) {
      this.warn(`applying committed traces failed (${(error as Error).message}); catching up later`);
      this.scheduleCatchUp();
    }
    return storedPerGroup(groups, result);
  }

  private noteApplied(n: number): void {
    if (n > 0) this.fitting.applied();
    this.sinceSnapshot += n;
    if (this.sinceSnapshot >= this.snapshotEvery && this.closed === null) {
      this.sinceSnapshot = 0;
      void this.snapshot().catch((error: unknown) => this.warn(`writing a graph snapshot failed: ${(error as Error).message}`));
    }
  }

  snapshot(): Promise<SnapshotReport> {
    const next = this.snapshotting.then(() =>
      // Inside the apply queue, so the graph and the cursor describe the same traces.
      this.applying.run(async () => {
        const t0 = performance.now();
        // The snapshot keeps the model's signals, so a stale model is rebuilt first: for a large
        // graph with its graph snapshot on the worker, as the open's first model is, so that
        // this thread is held for the text model only; else in stages here. No trace is applied
        // meanwhile: this runs in the apply queue.
        const from = this.options.firstModelOffThreadFrom;
        const built = await this.engine.rebuildInBackground(from);
        // A build already under way when this began was planned before traces applied since.
        if (built.graph.version !== this.engine.stats().version) await this.engine.rebuildInBackground(from);
        const { state, signals, caches } = this.engine.snapshotState();
        const data = encodeGraph(state, signals, caches);
        const traceSeq = this.cursor;
        await this.store.putSnapshot({ traceSeq, format: GRAPH_CODEC_FORMAT, data });
        this.snapshotSeq = traceSeq;
        this.sinceSnapshot = 0;
        return { traceSeq, bytes: data.byteLength, ms: round(performance.now() - t0) };
      }),
    );
    // Then the store's transitions table catches up with the traces (Store.foldTransitions):
    // off the apply queue, at a snapshot's pace rather than with every commit.
    this.snapshotting = next.then(
      () =>
        this.store.foldTransitions().then(
          () => {},
          (error: unknown) => this.warn(`folding transitions failed: ${(error as Error).message}`),
        ),
      () => {},
    );
    return next;
  }

  private assertOpen(action: string): void {
    if (this.closed !== null) throw new ToolgraphError('INTERNAL', `${action}: the toolgraph is closed`);
  }

  /** As Toolgraph.setTools; resolves once the entries are durable and searchable. */
  async setTools(input: unknown, options: SetToolsOptions = {}): Promise<SetToolsResult> {
    this.assertOpen('setTools');
    const { tools, skipped } = assertSomeRead(readCatalogAs(input, 'setTools', options), 'setTools');
    // Checked here against what this instance has, and again by the store in its transaction
    // against what every instance wrote: a catalogue past the limit is never stored.
    assertCatalogRoom(this.engine.catalogNames(), tools, 'setTools');
    await this.store.putTools(tools, { maxTotal: MAX_CATALOG_TOOLS });
    const result = await this.applying.run(async () => {
      this.shared?.noteTools(tools);
      return { ...this.engine.putTools(tools), skipped };
    });
    // Acknowledged once searchable: the next query after the answer sees the new entries.
    await this.engine.modelWithWrites();
    return result;
  }

  async tools(): Promise<readonly ToolInfo[]> {
    return this.engine.tools();
  }

  /**
   * Checked first (INVALID_INPUT, UNKNOWN_TOOL: nothing stored), stored, then registered. Calls
   * are queued, so the store and the engine see registrations in the same order.
   */
  async setCapabilities(input: unknown): Promise<{ capabilities: number; version: number }> {
    const result = await this.registrations.run(async () => {
      this.assertOpen('setCapabilities');
      const capabilities = this.engine.checkCapabilities(input);
      await this.store.putCapabilities(capabilities);
      this.shared?.noteCapabilities(capabilities);
      return this.engine.registerCapabilities(capabilities);
    });
    // As for tools: acknowledged once the capabilities are ranked.
    await this.engine.modelWithWrites();
    return result;
  }


  async capabilities(): Promise<readonly ExpandedCapability[]> {
    return this.engine.capabilities().map(describeCapability);
  }

  async rankCapabilities(request: CapabilityRequestInput): Promise<CapabilityRanking> {
    return this.engine.rankCapabilities(request);
  }

  async expandCapability(id: string): Promise<ExpandedCapability> {
    return this.engine.expandCapability(id);
  }

  async ingest(input: unknown): Promise<IngestResult> {
    this.assertOpen('ingest');
    return this.ingestTraces(parseTraceBatch(input));
  }

  async ingestTraces(traces: readonly Trace[]): Promise<IngestResult> {
    this.assertOpen('ingestTraces');
    if (traces.length === 0) return { ingested: 0, version: this.engine.stats().version };
    const ingested = await this.writer.submit(traces);
    return { ingested, version: this.engine.stats().version };
  }

  async predictNext(request: PredictRequestInput): Promise<Prediction> {
    await this.engine.prepareEmbeddings(textOf(request, 'intent'));
    return this.engine.predictNext(request);
  }

  async searchTools(request: SearchRequestInput): Promise<SearchResult> {
    await this.engine.prepareEmbeddings(textOf(request, 'query'));
    return this.engine.searchTools(request);
  }

  async suggestDag(request: DagRequestInput): Promise<DagSuggestion> {
    await this.engine.prepareEmbeddings(textOf(request, 'intent'));
    return this.engine.suggestDag(request);
  }

  async patterns(request?: unknown): Promise<readonly PatternView[]> {
    return this.engine.patterns(request ?? {});
  }

  async pattern(id: string): Promise<PatternDetail> {
    return this.engine.patternDetail({ id });
  }

  async graph(request?: unknown): Promise<GraphView> {
    return this.engine.graphView(request ?? {});
  }

  async toolNeighbours(name: string, request?: unknown): Promise<ToolNeighbours> {
    return this.engine.toolNeighbours(name, request ?? {});
  }

  /**
   * A person's verdict, durable before it takes effect: checked (NOT_FOUND, UNKNOWN_TOOL), then
   * appended to the store's feedback log with the pattern's confidence state after it, then
   * recorded by the engine. Other instances on PostgreSQL take it at their next sync (syncShared).
   */
  patternFeedback(id: string, body: unknown): Promise<PatternView> {
    return this.verdicts.run(async () => {
      this.assertOpen('patternFeedback');
      const { decision, at: given } = parsePatternDecision(body);
      const at = given ?? Date.now();
      const { tools, state } = this.engine.patternConfidence({ id }, { decision, at });
      const seq = await this.store.appendPatternFeedback({ patternId: state.id, tools, decision, at }, state);
      this.shared?.noteOwnVerdict(seq);
      // By its tools, not its id again: finding an id never reviewed walks every transition.
      const target = tools.length === 2 ? { from: tools[0], to: tools[1] } : { tools };
      return this.engine.patternFeedback(target, decision, { at });
    });
  }

  score(trace: unknown, options?: ScoreOptions): Promise<ContributionResult> {
    return this.engine.score(trace, options);
  }

  fit(): Promise<FitReport> {
    return this.fitWith({});
  }

  async fitWith(options: FitJobOptions): Promise<FitReport> {
    this.assertOpen('fit');
    await this.writer.flush();
    await this.applying.idle();
    const report = await this.fitting.fit(options);
    await this.snapshot();
    return report;
  }

  async stats(): Promise<ToolgraphStats> {
    return { ...this.engine.stats(), fit: this.fitting.state() };
  }

  storeStats(): Promise<StoreStats> {
    return this.store.stats();
  }

  /**
   * Asks the store for a trivial answer (Store.ping), at most one at a time: degraded when it
   * fails or takes longer than HEALTH_TIMEOUT_MS, ok as soon as it answers again.
   */
  async health(): Promise<ServiceHealth> {
    this.pinging ??= this.store.ping().finally(() => {
      this.pinging = null;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<ServiceHealth>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'degraded', reason: `the store did not answer within ${HEALTH_TIMEOUT_MS} ms` }), HEALTH_TIMEOUT_MS);
    });
    const answered = this.pinging.then(
      (): ServiceHealth => ({ status: 'ok' }),
      (error: unknown): ServiceHealth => {
        const unavailable = error instanceof ToolgraphError && error.code === 'STORE_UNAVAILABLE';
        return { status: 'degraded', reason: `${unavailable ? 'the store cannot be reached' : 'the store failed its health check'}: ${(error as Error).message}` };
      },
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async flush(): Promise<void> {
    await this.writer.flush();
    await this.applying.idle();
  }

  async settled(): Promise<void> {
    for (;;) {
      await this.flush();
      await this.fitting.idle();
      // A fit that just ended asks at once whether the next one is due.
      await new Promise((resolve) => setImmediate(resolve));
      const at = this.fitting.nextAt();
      if (at !== null) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now()) + 1));
        continue;
      }
      await this.engine.rebuildInBackground();
      if (this.fitting.nextAt() === null && this.engine.modelCurrent()) return;
    }
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.poll !== null) clearInterval(this.poll);
      try {
        await this.sessions.close();
        await this.writer.flush();
        this.fitting.close();
        await this.verdicts.idle();
        await this.registrations.idle();
        await this.backfill;
        await this.unsubscribe?.();
        await this.syncing;
        await this.applying.idle();
        await this.snapshotting;
        if (this.cursor > this.snapshotSeq) await this.snapshot();
        await this.snapshotting;
      } finally {
        this.engine.close();
        await this.fitting.idle();
        await this.store.close();
      }
    })();
    return this.closed;
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** A graph snapshot decoded and restored, with the bytes it came from. */
interface RestoredSnapshot {
  readonly bytes: Uint8Array;
  readonly graph: TransitionGraph;
  readonly signals: StoredSignals | null;
  readonly caches: StoredCaches | null;
  readonly decodeMs: number;
  readonly restoreMs: number;
}

/** Decodes and restores `bytes` (GraphCodecError or RangeError when they are not a valid snapshot). */
function restoreSnapshot(bytes: Uint8Array): RestoredSnapshot {
  const d0 = performance.now();
  const decoded = decodeGraph(bytes);
  const d1 = performance.now();
  // The engine's half-life: a durable instance keeps TransitionGraph's default (restoreGraph checks).
  const graph = TransitionGraph.fromState(decoded.state);
  return { bytes, graph, signals: decoded.signals, caches: decoded.caches, decodeMs: d1 - d0, restoreMs: performance.now() - d1 };
}

/**
 * Opens the durable toolgraph: PostgreSQL when `databaseUrl` is given, else PGlite in `dataDir`
 * (default `.toolgraph/` in the working directory). Ready to answer when it resolves.
 */
export async function openToolgraph(input: OpenToolgraphOptions = {}): Promise<DurableToolgraph> {
  const t0 = performance.now();
  // Before anything is opened: a wrong option is INVALID_INPUT naming it (a numeric dataDir
  // threw node:path's TypeError, a misspelt option was ignored).
  const options = parseOpenToolgraphOptions(input);
  // PGlite opens on its own thread (pglite-worker.js) while this one restores the newest
  // snapshot file as soon as it is inflated: at a million transitions the two take 0.3-0.9 s
  // each. start() uses the result only if the database names that file; a failure here is left
  // to start(), which restores the named snapshot itself and reports what is wrong.
  let early: Promise<RestoredSnapshot | null> = Promise.resolve(null);
  const onSnapshotPrefetch = (bytes: Promise<Uint8Array | null>): void => {
    early = bytes
      .then((b) => {
        if (b === null) return null;
        const restored = restoreSnapshot(b);
        // The first model tokenises every intent once (intent-tokens.ts keeps them for the
        // next), unless the snapshot has their tokens (restoreGraph takes them over): begun
        // here, in slices, it overlaps the database's opening without holding up the thread's
        // answers to it.
        if (!restored.caches?.intentTokens) void tokenizeIntentsInSlices(restored.graph.intents());
        return restored;
      })
      .catch(() => null);
  };
  // Only the store's own options: openStore refuses unknown keys.
  const { dataDir, databaseUrl, schema, cwd } = options;
  const store = options.store ?? (await openStore({ dataDir, databaseUrl, schema, cwd, prefetchSnapshot: true, onSnapshotPrefetch }));
  const openMs = performance.now() - t0;
  const service = new DurableToolgraphImpl(store, options);
  try {
    await service.start(openMs, early);
  } catch (error) {
    await service.sessions.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
  return service;
}
