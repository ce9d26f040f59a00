/**
 * The state of a toolgraph and what a store-backed service drives: the mutable TransitionGraph,
 * the catalogue and the weights, with the collaborators that hold the rest (the model builder,
 * model-builder.ts: when and how a model is built, off the event loop, and which of its parts
 * are stale; the capability catalogue; the pattern feedback; the tool embeddings), and the
 * methods a durable service calls to load, replay, restore, snapshot and adopt fits. The
 * Toolgraph facade (toolgraph.ts) adds the queries and the writes a caller makes.
 */
import type { EdgeReliabilityReport } from '../graph/edge-reliability.js';
import { edgeIndex, reliabilityReport } from '../graph/edge-reliability.js';
import type { StoredCaches, StoredSignals } from '../graph/graph-codec.js';
import { RecentTransitions } from '../graph/recent-transitions.js';
import type { SnapshotThread } from '../graph/snapshot-thread.js';
import { DEFAULT_HALF_LIFE_MS, TransitionGraph, type TransitionGraphState } from '../graph/transition-graph.js';
import type { FitJobOptions } from '../recommend/fit-job.js';
import { FitThread } from '../recommend/fit-thread.js';
import type { FitReport } from '../recommend/fit-weights.js';
import { PRIOR_WEIGHTS, type FitRecord, type FittedWeights, type ModelOptions, type RecommenderModel } from '../recommend/model.js';
import type { Capability } from '../schema/capability.js';
import { ToolgraphError } from '../schema/errors.js';
import type { PatternConfidence } from '../scoring/confidence-state.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { exportIntentTokens, restoreIntentTokens } from '../text/intent-tokens.js';
import { RecentIntents } from '../text/recent-intents.js';
import { storeToolVectors } from '../text/tool-vectors.js';
import { CapabilityCatalogue } from './capability-catalogue.js';
import type { Clock } from './clock.js';
import { describeFit } from './fit-state.js';
import { ModelBuilder, type ModelPlan } from './model-builder.js';
import type { VersionVector } from './model-versions.js';
import { parseToolgraphOptions, type ToolgraphOptions } from './options.js';
import { PatternFeedback } from './pattern-feedback.js';
import type { PatternDecision, PatternRegistryState } from './pattern-registry.js';
import { ToolEmbeddings } from './tool-embeddings.js';
import type { IngestResult, RestoredCaches, SetToolsResult, ToolgraphStats } from './toolgraph-types.js';

export class ToolgraphCore {
  // Replaced only by restoreGraph (a cold start from a stored snapshot).
  protected graph: TransitionGraph;
  /** What the graph learned since the installed model's snapshot, read beside it. */
  protected recent: RecentTransitions;
  protected recentIntents: RecentIntents;
  private readonly halfLifeMs: number | undefined;
  protected readonly seed: number;
  private readonly clock: Clock;
  protected readonly catalog = new Map<string, ToolInfo>();
  /** Catalogue updates: a tool described anew changes no graph version, but the model's text must follow. */
  private catalogVersion = 0;
  protected readonly traces: Trace[] = [];
  protected readonly seenIds = new Set<string>();
  private weights: FittedWeights = PRIOR_WEIGHTS;
  private weightsVersion = 0;
  private fitReport: FitReport | null = null;
  /** Fits off this thread (fitOffThread), started by the first. */
  private fitThread: FitThread | null = null;
  /** Restored communities the next build uses once (restoreGraph). */
  private pendingSignals: StoredSignals | null = null;
  private closed = false;
  /** Vectors of the traces contributed so far: what the next trace's novelty is measured against. */
  protected readonly novelty: VectorCache;
  protected readonly capabilityCatalogue: CapabilityCatalogue;
  protected readonly feedback: PatternFeedback;
  protected readonly embeddings: ToolEmbeddings;
  protected readonly builder: ModelBuilder;

  constructor(input: ToolgraphOptions = {}) {
    // Checked here because plain JavaScript and JSON configs reach this unchecked by the
    // compiler: a wrong option is INVALID_INPUT naming it, not a failure far away or a silent default.
    const options = parseToolgraphOptions(input);
    this.halfLifeMs = options.halfLifeMs;
    this.graph = new TransitionGraph(options.halfLifeMs === undefined ? {} : { halfLifeMs: options.halfLifeMs });
    this.recent = new RecentTransitions(this.graph);
    this.recentIntents = new RecentIntents(this.graph);
    this.seed = options.seed;
    this.clock = options.clock;
    this.embeddings = new ToolEmbeddings(options.embedder);
    this.novelty = new VectorCache(this.embeddings.embedder === null ? {} : { dimensions: this.embeddings.embedder.dimensions });
    this.capabilityCatalogue = new CapabilityCatalogue(options.learnCapabilities, options.reclusterEveryMs);
    this.feedback = new PatternFeedback({ graph: () => this.graph, reliability: (from, to) => this.reliability(from, to) }, options.patterns);
    this.builder = new ModelBuilder(
      {
        graph: () => this.graph,
        catalog: () => this.catalog,
        versions: () => this.versions(),
        plan: (previous) => this.planModel(previous),
        installed: (model, plan) => {
          this.recent.forget(model.graph.version);
          this.recentIntents.forget(model.text.intents);
          this.capabilityCatalogue.installed(plan.capabilities, model.capabilities ?? null, this.clock.now());
        },
        feedback: () => ({ revision: this.feedback.revision, scores: () => this.feedback.humanScores() }),
      },
      { clock: options.clock, delayMs: options.rebuildDelayMs, offThreadFrom: options.offThreadFrom, warn: options.onWarning },
    );
  }

  /**
   * Catalogue entries already checked (by parseCatalog or parseTool), from the store or another
   * instance: no request limit applies, so a store always opens with what it holds.
   */
  putTools(tools: readonly ToolInfo[]): Omit<SetToolsResult, 'skipped'> {
    let added = 0;
    for (const tool of tools) {
      if (!this.catalog.has(tool.name)) added++;
      this.catalog.set(tool.name, tool);
      this.graph.addTool(tool.name);
    }
    this.catalogVersion++;
    this.builder.invalidate();
    return { tools: this.catalog.size, added, version: this.graph.version };
  }

  /** The names the catalogue holds (not the tools only traces have named). */
  catalogNames(): { has(name: string): boolean; readonly size: number } {
    return this.catalog;
  }

  tools(): readonly ToolInfo[] {
    return this.graph.names.map((name) => this.catalog.get(name) ?? { name, description: '', params: [] });
  }

  /**
   * Ingests traces a durable store has already accepted (deduplicated, repeats renamed `id#n`),
   * in the store's order: no second deduplication, and they are not kept in memory (the store
   * has them; fit them with fitOn) beyond the capability learning queue.
   */
  applyStoredTraces(traces: readonly Trace[]): IngestResult {
    for (const trace of traces) {
      this.graph.ingest(trace);
      this.recent.note(trace);
      this.capabilityCatalogue.note(trace);
    }
    if (traces.length > 0) this.builder.invalidate();
    return { ingested: traces.length, version: this.graph.version };
  }

  /**
   * setCapabilities' checks without registering anything: the parsed capabilities, or
   * INVALID_INPUT / UNKNOWN_TOOL. The durable service stores what passes, then registers it.
   */
  checkCapabilities(input: unknown, caller = 'setCapabilities'): Capability[] {
    return this.capabilityCatalogue.check(input, (tool) => this.graph.indexOf(tool) !== undefined, caller);
  }

  /**
   * Registers capabilities checkCapabilities returned (by id: a known id is replaced, in its
   * place). With `replace`, they become the registered set, in their order: a durable instance
   * taking another's registrations puts them in the store's order, which a restart reads.
   */
  registerCapabilities(capabilities: readonly Capability[], options: { readonly replace?: boolean } = {}): { capabilities: number; version: number } {
    const size = this.capabilityCatalogue.register(capabilities, options.replace === true);
    this.builder.invalidate();
    return { capabilities: size, version: this.graph.version };
  }

  /**
   * A durable open restored a snapshot: the traces before it reach the capability learner and
   * the outcome index through backfillCapabilityTraces, in store order, while newer traces wait.
   * Until endCapabilityBackfill, models have no learned capabilities and no trace outcomes.
   */
  beginCapabilityBackfill(): void {
    this.capabilityCatalogue.beginBackfill();
  }

  /** One page of the traces before the restored snapshot, in store order. */
  backfillCapabilityTraces(traces: readonly Trace[]): void {
    this.capabilityCatalogue.backfill(traces);
  }

  /** The backfill is over: the queued traces are learned and the model is rebuilt. */
  endCapabilityBackfill(): void {
    this.capabilityCatalogue.endBackfill();
    this.builder.invalidate();
  }

  /** Builds the model now, on this thread, if it is stale; returns the current one. */
  rebuild(): RecommenderModel {
    return this.builder.rebuild();
  }

  /** rebuild(), with the graph snapshot built on `thread` (a durable cold start's first model); see ModelBuilder. */
  rebuildOffThread(thread: SnapshotThread, onError?: (error: Error) => void): Promise<RecommenderModel> {
    return this.builder.rebuildOffThread(thread, onError);
  }

  /** The model rebuilt without holding this thread (ModelBuilder.rebuildInBackground); one at a time. */
  rebuildInBackground(from?: number): Promise<RecommenderModel> {
    return this.builder.rebuildInBackground(from);
  }

  /**
   * Resolves once a model holds every catalogue entry and capability registered before the call:
   * what a service awaits before acknowledging such a write, so that the next query sees it.
   */
  modelWithWrites(): Promise<void> {
    return this.builder.modelWithWrites();
  }

  /** The model answering queries is built from everything learned and registered so far, with the weights in force. */
  modelCurrent(): boolean {
    return !this.builder.isStale();
  }

  /**
   * The spec 004 confidence state of a pattern, as `pattern()` reports its figures, for a store's
   * patterns table; with `pending`, as it will be once that verdict is recorded (a durable
   * service stores the verdict and this state first, then records it). Errors as patternFeedback.
   */
  patternConfidence(target: unknown, pending?: { readonly decision: PatternDecision; readonly at: number }): { readonly tools: readonly string[]; readonly state: PatternConfidence } {
    return this.feedback.confidence(target, pending);
  }

  /** Verdicts a store kept (in the order given), put back as patternFeedback recorded them. */
  restorePatternFeedback(entries: Iterable<{ readonly tools: readonly string[]; readonly decision: 'approve' | 'reject'; readonly at: number }>): void {
    this.feedback.restore(entries);
    this.builder.takeFeedback();
  }

  /** Human feedback as plain data, for a store; give it back as `new Toolgraph({patterns})`. */
  patternRegistryState(): PatternRegistryState {
    return this.feedback.state();
  }

  /**
   * The Beta posterior of the transition from -> to in the current model (decayed to the newest
   * trace), or null when it was never observed. What suggestDag weighs an edge by.
   */
  reliability(from: string, to: string): EdgeReliabilityReport | null {
    const model = this.builder.current();
    const a = model.graph.indexByName.get(from);
    const b = model.graph.indexByName.get(to);
    if (a === undefined || b === undefined) return null;
    const j = edgeIndex(model.graph.out, a, b);
    return j < 0 ? null : reliabilityReport(model.graph.reliability, j);
  }

  /**
   * fitWeights on `traces` (pages of them, a store's read), on this engine's worker thread
   * (fit-thread.ts) with this engine's catalogue and embedding: the report fitOn would give for
   * the same traces, while this thread goes on answering. The weights are not installed: the
   * caller decides (adoptFit). Rejects when the thread fails; nothing changes then.
   */
  async fitOffThread(traces: AsyncIterable<readonly Trace[]>, options: FitJobOptions = {}): Promise<FitReport> {
    if (this.closed) throw new ToolgraphError('INTERNAL', 'fit: the toolgraph is closed');
    this.fitThread ??= FitThread.start();
    const parts = await this.embeddings.forFit(this.tools(), traces);
    return this.fitThread.fit({ catalog: [...this.catalog.values()], options: { seed: this.seed, ...options }, ...parts });
  }

  /**
   * Installs the weights of a fit made elsewhere (fitOffThread, another instance's), with its
   * account; the model is rebuilt in the background, queries meanwhile answered by the weights
   * in force.
   */
  adoptFit(report: FitReport, record: FitRecord): void {
    this.installWeights(report, record);
    this.builder.invalidate();
  }

  /** The report of the latest fit, or null before any. */
  get lastFit(): FitReport | null {
    return this.fitReport;
  }

  get fittedWeights(): FittedWeights {
    return this.weights;
  }

  /** Installs weights fitted elsewhere (loaded from a store). */
  setWeights(weights: FittedWeights): void {
    this.weights = weights;
    this.weightsVersion++;
    this.builder.invalidate();
  }

  /**
   * Replaces the learned graph by a restored one (a stored snapshot). The next rebuild uses the
   * stored Louvain communities instead of running Louvain, most of a cold start's cost; if the
   * graph moved on since they were computed (traces replayed after the snapshot), a full
   * rebuild follows after the usual debounce. `restored` is the state, or a graph already built
   * from it with TransitionGraph.fromState (a cold start restores while its database opens); such a
   * graph must have this engine's half-life (RangeError otherwise). `caches` (a snapshot's, for
   * the same graph): the intents' tokens and the tool vectors are taken over where they check
   * out (intent-tokens.ts, tool-vectors.ts) instead of being made again; the result says which did.
   */
  restoreGraph(restored: TransitionGraphState | TransitionGraph, signals: StoredSignals | null = null, caches: StoredCaches | null = null): RestoredCaches {
    if (restored instanceof TransitionGraph && restored.halfLifeMs !== (this.halfLifeMs ?? DEFAULT_HALF_LIFE_MS)) {
      throw new RangeError(`Toolgraph.restoreGraph: the graph decays with a half-life of ${restored.halfLifeMs} ms, this engine's is ${this.halfLifeMs}`);
    }
    this.builder.reset();
    this.graph = restored instanceof TransitionGraph ? restored : TransitionGraph.fromState(restored, this.halfLifeMs === undefined ? {} : { halfLifeMs: this.halfLifeMs });
    this.recent = new RecentTransitions(this.graph);
    this.recentIntents = new RecentIntents(this.graph);
    const intentTokens = caches?.intentTokens ? restoreIntentTokens(this.graph.intents(), caches.intentTokens) : false;
    for (const name of this.catalog.keys()) this.graph.addTool(name);
    this.pendingSignals = signals;
    return { intentTokens, toolVectors: this.embeddings.restore(caches?.toolVectors ?? null) };
  }

  /**
   * The learned graph as typed arrays, with the current model's communities and PageRank when
   * they were computed for exactly this graph, and the caches (what a stored snapshot keeps).
   * The caches view live buffers: encode them before the next rebuild.
   */
  snapshotState(): { state: TransitionGraphState; signals: StoredSignals | null; caches: StoredCaches } {
    const model = this.builder.installed;
    const text = model?.text;
    return {
      state: this.graph.exportState(),
      signals:
        model !== null && this.builder.signalsFresh()
          ? { version: model.graph.version, communities: model.graph.communities, communityCount: model.graph.communityCount, pagerank: model.graph.pagerank }
          : null,
      caches: {
        intentTokens: exportIntentTokens(this.graph.intents()),
        // Rows keyed by their texts: valid for the tools they name even if the model is older.
        toolVectors: text?.vectors && text.embedding ? storeToolVectors(text.texts, text.vectors, text.embedding) : null,
      },
    };
  }

  stats(): ToolgraphStats {
    return {
      tools: this.graph.toolCount,
      transitions: this.graph.edgeCount,
      traces: this.graph.traces,
      version: this.graph.version,
      ...this.builder.stats(),
      stale: this.builder.staleParts(),
      recentTransitions: this.recent.size,
      recentIntents: this.recentIntents.size,
      fit: describeFit(this.weights),
    };
  }

  /** Stops the pending rebuild timer and the worker threads (for shutdown). */
  close(): void {
    this.closed = true;
    this.builder.close();
    void this.fitThread?.close();
    this.fitThread = null;
  }

  /** What the source holds now, for the builder's version vector. */
  private versions(): VersionVector {
    return {
      graph: this.graph.version,
      weights: this.weightsVersion,
      catalog: this.catalogVersion,
      capabilities: this.capabilityCatalogue.version,
      toolVectors: this.embeddings.version,
      learningComplete: this.capabilityCatalogue.learningComplete,
      signals: true,
    };
  }

  /** What the next model is built with; takes the restored signals and tool vectors, which serve one build. */
  private planModel(previous: RecommenderModel | null): ModelPlan {
    const reuse = this.pendingSignals;
    this.pendingSignals = null;
    const previousVectors = this.embeddings.takePending();
    const capabilities = this.capabilityCatalogue.plan(previous?.capabilities ?? null, this.catalogVersion, this.clock.now());
    const options: ModelOptions = {
      seed: this.seed,
      embedding: this.embeddings.embedding,
      capabilities: capabilities.input,
      feedback: this.feedback.humanScores(),
      previousVectors,
      ...(reuse === null ? {} : { communities: { communities: reuse.communities, count: reuse.communityCount } }),
    };
    return { options, weights: this.weights, versions: this.versions(), reuse, capabilities, feedbackRevision: this.feedback.revision };
  }

  protected installWeights(report: FitReport, record: FitRecord): void {
    this.weights = { ...report.weights, fit: record };
    this.weightsVersion++;
    this.fitReport = report;
  }
}
