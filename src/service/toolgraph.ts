/**
 * The facade every face (library, CLI, later HTTP and MCP) calls: it validates input at the
 * boundary, owns the mutable ToolGraph, and answers queries from the newest complete model.
 *
 * Ingestion mutates the graph and bumps its version; a rebuild of the model (snapshot, text
 * index, profile precomputation) is scheduled after a short debounce and swapped in atomically.
 * Queries never wait for it: they read whichever model is current, and next-tool predictions
 * (and searches with context) read beside it the transitions learned since its snapshot
 * (recent-transitions.ts), so a trace counts in them as soon as it is ingested. Only when no model exists yet (the very first query)
 * is one built on the spot. Node runs one rebuild at a time by
 * construction (it is synchronous), and a pending timer is never doubled.
 */
import { edgeIndex, reliabilityReport, type EdgeReliabilityReport } from '../graph/edge-reliability.js';
import type { StoredCaches, StoredSignals, StoredToolVectors } from '../graph/graph-codec.js';
import { exportGraph, type ExportedGraph } from '../graph/graph-export.js';
import { snapshotInput, type GraphSnapshot } from '../graph/snapshot.js';
import { runStages } from '../graph/stages.js';
import { SnapshotThread } from '../graph/snapshot-thread.js';
import { RecentTransitions } from '../graph/recent-transitions.js';
import { RecentIntents } from '../text/recent-intents.js';
import { DEFAULT_HALF_LIFE_MS, ToolGraph, type ToolGraphState } from '../graph/tool-graph.js';
import { buildEdgeFeedback, type HumanPatternScore } from '../recommend/edge-adjustment.js';
import { fitWeights, type FitOptions, type FitReport } from '../recommend/fit-weights.js';
import { buildModel, buildModelText, modelSnapshotOptions, modelStages, PRIOR_WEIGHTS, type FitRecord, type FittedWeights, type ModelOptions, type RecommenderModel } from '../recommend/model.js';
import type { FitJobOptions } from '../recommend/fit-job.js';
import { FitThread } from '../recommend/fit-thread.js';
import { predictNext, type Prediction } from '../recommend/predict-next.js';
import { TraceToolSets } from '../recommend/capability-evidence.js';
import { mergeCapabilities } from '../recommend/capability-model.js';
import { canReuseClusters, type LastClustering } from '../recommend/recluster-policy.js';
import { CapabilityLearner, type LearnCapabilitiesOptions } from '../recommend/learn-capabilities.js';
import { describeCapability, expandCapability, rankCapabilities, type CapabilityRanking, type ExpandedCapability } from '../recommend/rank-capabilities.js';
import { parseCapabilities, parseCapabilityRequest, type Capability } from '../schema/capability.js';
import { searchTools, type SearchResult } from '../recommend/search-tools.js';
import { contributeTrace, type ContributionResult } from '../scoring/contribute-trace.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { ToolgraphError } from '../schema/errors.js';
import { parseDagRequest, parsePredictRequest, parseSearchRequest } from '../schema/requests.js';
import { suggestDag, type DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { parseToolgraphOptions } from '../schema/options.js';
import { assertSomeRead, readCatalogAs, type SkippedEntry } from '../schema/catalog.js';
import { assertCatalogRoom } from '../schema/tool.js';
import { parseTraceBatch } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { humanScore } from '../scoring/human-score.js';
import { parsePatternFeedback, parsePatternsRequest, parsePatternTarget, type PatternTarget } from '../schema/pattern-requests.js';
import { isReasoningTraceShape } from '../schema/trace.js';
import type { Embedder } from '../text/embedder.js';
import { createHashedEmbedder } from '../text/hashed-embedder.js';
import { checkedBatch, hashedTextEmbedding, prefetchingEmbedding, type PrefetchingEmbedding, type TextEmbedding } from '../text/text-embedding.js';
import { exportIntentTokens, restoreIntentTokens } from '../text/intent-tokens.js';
import {
  asPreviousBuild,
  checkedTexts,
  restoreToolVectors,
  storedVectorsByText,
  storedVectorsMatch,
  storeToolVectors,
  toolText,
  type PreviousToolVectors,
} from '../text/tool-vectors.js';
import { PatternRegistry, patternId, withDecision, type PatternDecision, type PatternRegistryState } from './pattern-registry.js';
import { rebuildWaitMs, type LastRebuild } from './rebuild-schedule.js';
import { describeFit, type FitState } from './background-fit.js';
import { patternConfidence, patternView, type PatternDetail, type PatternView } from './pattern-view.js';
import { graphView, toolNeighbours, type GraphView, type ToolNeighbours } from './graph-view.js';
import { parseGraphRequest, parseNeighboursRequest } from '../schema/graph-requests.js';
import type { PatternConfidence } from '../scoring/confidence-state.js';

/** Queued traces learned at once, between rebuilds, so the queue holds at most this many. */
const CAPABILITY_QUEUE_LIMIT = 10_000;

/**
 * Share of capabilities that may be new since the last full co-clustering before a rebuild runs
 * one again (ToolgraphOptions.reclusterEveryMs; recluster-policy.ts).
 */
export const RECLUSTER_SHARE = 0.1;

export interface ToolgraphOptions {
  /** Seed of every random step (Louvain, fitting). */
  readonly seed?: number;
  /**
   * Debounce of the rebuilds after ingestion, in ms (default 50): a rebuild starts no sooner
   * after the last one ended than this, and than that one took, so that a burst of writes makes
   * one rebuild and under sustained ingestion rebuilds hold at most half of the thread; a write
   * into a service idle for longer is rebuilt at once (rebuild-schedule.ts).
   */
  readonly rebuildDelayMs?: number;
  /** Embeds texts for trace novelty; default the built-in hashed embedder, null for none. */
  readonly embedder?: Embedder | null;
  /** Learning of capabilities from the traces (learn-capabilities.ts); false turns it off. */
  readonly learnCapabilities?: LearnCapabilitiesOptions | false;
  /**
   * Capabilities are co-clustered in full at most this often (ms, default 60,000) while only
   * learned ones are added, and no more than RECLUSTER_SHARE of them are new since the last full
   * run; rebuilds in between carry the clusters over (capability-model.ts, extendClusters). 0:
   * co-cluster at every rebuild.
   */
  readonly reclusterEveryMs?: number;
  /** Half-life of edge reliability's outcome evidence, in ms (default 14 days). */
  readonly halfLifeMs?: number;
  /** Human feedback saved earlier (`patternRegistryState()`), to start from. */
  readonly patterns?: PatternRegistryState;
  /**
   * Transitions from which the debounced rebuilds after ingestion finish their graph snapshot
   * on a worker thread of their own while this thread builds the text model
   * (rebuildInBackground; default Infinity: never). Off unless asked: on a 2-core machine
   * shared with the load it made no measurable difference (docs/decisions/store-performance/
   * 11-the-graph-side-of-the-cold-start.md); with cores to spare it takes the graph signals and Louvain off the
   * service's thread.
   */
  readonly offThreadFrom?: number;
  /** Told when something went wrong in the background (a rebuild's worker thread failed). */
  readonly onWarning?: (message: string) => void;
}

export interface ScoreOptions {
  /** Contribute to the novelty memory whatever the value (an explicit contribution). */
  readonly contribute?: boolean;
  /** Value at or above which a trace is contributed (default 0.75). */
  readonly threshold?: number;
}

/**
 * How far a checked stored vector may be from the asynchronous embedder's vector of the same
 * text, per dimension of the unit vectors, for the stored ones to be adopted: a remote model
 * need not return bit-identical floats twice (batched differently, on other hardware), while a
 * changed model moves them by far more.
 */
const ADOPTION_TOLERANCE = 1e-5;

/** A model about to be built (Toolgraph.planModel) and what installing it updates. */
interface ModelPlan {
  readonly options: ModelOptions;
  /** The restored signals this build uses, if any. */
  readonly reuse: StoredSignals | null;
  readonly reuseClusters: boolean;
  readonly capabilityVersion: number;
  /** Whether capability learning was complete (no backfill under way) when it was planned. */
  readonly complete: boolean;
  readonly catalogVersion: number;
  /** The pattern registry's revision whose human scores the build uses. */
  readonly feedbackRevision: number;
  /** The tool vectors' version (Toolgraph.toolVectorsVersion) when it was planned. */
  readonly toolVectorsVersion: number;
  readonly started: number;
  /** The build's number (Toolgraph.builds). */
  readonly build: number;
}

/**
 * Which of a snapshot's caches restoreGraph took over (the others are made again by the next
 * rebuild). Tool vectors of an asynchronous embedder are not among them: they are checked, and
 * adopted, at its first prefetch (prepareEmbeddings).
 */
export interface RestoredCaches {
  readonly intentTokens: boolean;
  readonly toolVectors: boolean;
}

export interface ToolgraphStats {
  readonly tools: number;
  readonly transitions: number;
  readonly traces: number;
  readonly version: number;
  readonly modelVersion: number;
  readonly rebuildMs: number;
  /** Rebuilds whose graph snapshot a worker thread finished (offThreadFrom). */
  readonly offThreadBuilds: number;
  /** Rebuilds built in stages on this thread with the event loop turning between them (rebuildInSlices). */
  readonly slicedBuilds: number;
  /**
   * Tools and context pairs with successes the model's snapshot lacks, which next-tool
   * predictions read from the live graph until the next rebuild (recent-transitions.ts).
   */
  readonly recentTransitions: number;
  /**
   * Intent records the model's text lacks, whose counts predictions, search and DAG suggestion
   * read beside it until the next rebuild (recent-intents.ts).
   */
  readonly recentIntents: number;
  /** The weights in force: prior or fitted, and by what fit (background-fit.ts). */
  readonly fit: FitState;
}

export interface IngestResult {
  readonly ingested: number;
  readonly version: number;
}

export interface SetToolsResult {
  /** Entries the catalogue holds now. */
  readonly tools: number;
  /** Of the request's entries, those the catalogue did not have before. */
  readonly added: number;
  readonly version: number;
  /** The request's entries that could not be read, left out (readCatalog); empty when strict. */
  readonly skipped: readonly SkippedEntry[];
}

export interface SetToolsOptions {
  /** Write nothing, and throw INVALID_INPUT, when any entry cannot be read. */
  readonly strict?: boolean;
}

/** A turn of the event loop longer than this ran other work (an idle turn takes microseconds). */
const BUSY_TURN_MS = 0.5;

/**
 * Lets the event loop run between two stages of a build: one turn, then more while turns keep
 * running other work, until as long as the stage took. Work waiting (commits, queries, each
 * needing a few turns) so gets about half of the thread while a model is built, and an idle
 * loop costs the build one turn.
 */
async function giveWay(stageMs: number): Promise<void> {
  let given = 0;
  for (;;) {
    const started = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    const turn = performance.now() - started;
    given += turn;
    if (turn < BUSY_TURN_MS || given >= stageMs) return;
  }
}

export class Toolgraph {
  // Replaced only by restoreGraph (a cold start from a stored snapshot).
  private graph: ToolGraph;
  /** What the graph learned since the installed model's snapshot, which predictNext reads beside it. */
  private recent: RecentTransitions;
  /** The intents learned since the model (recent-intents.ts), read beside its association. */
  private recentIntents: RecentIntents;
  /** Half-life of edge reliability, kept for a restored graph. */
  private readonly halfLifeMs: number | undefined;
  /** Human approvals and rejections of patterns (the feedback loop). */
  private readonly registry: PatternRegistry;
  /** Registry revision the current model's feedback reflects. */
  private modelFeedback = -1;
  /** Latest human decision time: with the newest trace, the clock of pattern confidence. */
  private feedbackClock = 0;
  /** The model's communities were restored, not computed: the next rebuild runs Louvain. */
  private restoredSignals = false;
  /** Restored communities the next rebuild uses once (restoreGraph). */
  private pendingSignals: StoredSignals | null = null;
  /** Restored tool vectors the next rebuild reuses, once (restoreGraph, prepareEmbeddings). */
  private pendingVectors: PreviousToolVectors | null = null;
  /**
   * A snapshot's tool vectors that an asynchronous embedder cannot check at restore: checked at
   * its first prefetch, and then adopted instead of embedding the catalogue again.
   */
  private storedForAdoption: StoredToolVectors | null = null;
  private readonly catalog = new Map<string, ToolInfo>();
  private readonly traces: Trace[] = [];
  private readonly seenIds = new Set<string>();
  private weights: FittedWeights = PRIOR_WEIGHTS;
  private fitReport: FitReport | null = null;
  /** Fits off this thread (fitOffThread), started by the first. */
  private fitThread: FitThread | null = null;
  private model: RecommenderModel | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly seed: number | undefined;
  private readonly delay: number;
  /** When and how long the last rebuild took, for the wait before the next (rebuild-schedule.ts). */
  private lastRebuild: LastRebuild | null = null;
  /** Models planned so far: a build installs its model only if none was planned after it. */
  private builds = 0;
  private readonly offThreadFrom: number;
  private readonly warn: (message: string) => void;
  /** The worker of rebuildInBackground, started by its first build; null after a failure too. */
  private thread: SnapshotThread | null = null;
  private threadFailed = false;
  /** The rebuildInBackground build under way. */
  private flight: Promise<RecommenderModel> | null = null;
  private offThreadBuilds = 0;
  private slicedBuilds = 0;
  private closed = false;
  private readonly embedder: Embedder | null;
  /** Vectors of the traces contributed so far: what the next trace's novelty is measured against. */
  private readonly novelty: VectorCache;
  private readonly registered = new Map<string, Capability>();
  /** Bumped by setCapabilities: the model is stale when it was built for another version. */
  private capabilityVersion = 0;
  private builtCapabilityVersion = -1;
  /** Whether the installed model was planned with capability learning complete (no backfill under way). */
  private builtLearningComplete = true;
  /**
   * Catalogue updates, and the one the model was built with: a tool described anew changes no
   * graph version, but the model's text (BM25 index, tool vectors) and data flow must follow.
   */
  private catalogVersion = 0;
  private builtCatalogVersion = -1;
  /** Learns capabilities from `traces` as they grow (null: learning is off). */
  private readonly learner: CapabilityLearner | null;
  /** The traces' tool sets for capability outcomes, indexed as they arrive (capability-evidence.ts). */
  private readonly traceSets = new TraceToolSets();
  /**
   * Traces not yet given to the learner and to traceSets: queued, so ingestion does not pay for
   * learning, and drained at the next rebuild (or at CAPABILITY_QUEUE_LIMIT, to bound memory).
   */
  private capabilityQueue: Trace[] = [];
  /** A durable open is still feeding the traces before its snapshot (beginCapabilityBackfill). */
  private capabilityBackfill = false;
  private readonly reclusterEveryMs: number;
  /** The last full co-clustering: when, of which capabilities, at which registration version. */
  private clustered: LastClustering | null = null;

  /**
   * Counts the arrivals of tool vectors (prepareEmbeddings); the model is stale until one
   * planned after the last arrival is installed. A flag cleared when a build was planned let a
   * query that came while that build was in flight take the model before it, without the vectors
   * it had waited for (a durable restart's concurrent first searches, under load).
   */
  private toolVectorsVersion = 0;
  private builtToolVectorsVersion = 0;
  /** The embedding behind the search signal: the same embedder, behind synchronous access. */
  private readonly embedding: TextEmbedding | PrefetchingEmbedding | null;

  constructor(input: ToolgraphOptions = {}) {
    // Checked here because plain JavaScript and JSON configs reach this unchecked by the
    // compiler: a wrong option is INVALID_INPUT naming it, not a failure far away or a silent default.
    const options = parseToolgraphOptions(input);
    this.halfLifeMs = options.halfLifeMs;
    this.graph = new ToolGraph(options.halfLifeMs === undefined ? {} : { halfLifeMs: options.halfLifeMs });
    this.recent = new RecentTransitions(this.graph);
    this.recentIntents = new RecentIntents(this.graph);
    this.registry = new PatternRegistry(options.patterns);
    for (const p of this.registry.list()) for (const e of p.feedback) this.feedbackClock = Math.max(this.feedbackClock, e.at);
    this.seed = options.seed;
    this.delay = options.rebuildDelayMs ?? 50;
    this.offThreadFrom = options.offThreadFrom ?? Number.POSITIVE_INFINITY;
    this.warn = options.onWarning ?? (() => {});
    this.embedder = options.embedder === undefined ? createHashedEmbedder() : options.embedder;
    this.embedding =
      options.embedder === undefined ? hashedTextEmbedding() : options.embedder === null ? null : prefetchingEmbedding(options.embedder);
    this.learner = options.learnCapabilities === false ? null : new CapabilityLearner(options.learnCapabilities ?? {});
    this.reclusterEveryMs = options.reclusterEveryMs ?? 60_000;
    this.novelty = new VectorCache(this.embedder === null ? {} : { dimensions: this.embedder.dimensions });
  }

  /**
   * Adds or replaces catalogue entries (an array of MCP tools/list entries or dataset tools, a
   * tools/list result, an OpenAPI 3 document). An entry that cannot be read is left out and
   * reported in `skipped` (unless `strict`: then nothing is written); a request whose every
   * entry is unreadable is INVALID_INPUT. A request of more than MAX_CATALOG_TOOLS entries, or
   * one that would make the catalogue hold more, is PAYLOAD_TOO_LARGE and changes nothing.
   * `added`: the entries the catalogue did not have.
   */
  setTools(input: unknown, options: SetToolsOptions = {}): SetToolsResult {
    const { tools, skipped } = assertSomeRead(readCatalogAs(input, 'setTools', options), 'setTools');
    assertCatalogRoom(this.catalog, tools, 'setTools');
    return { ...this.putTools(tools), skipped };
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
    this.invalidate();
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
   * Ingests traces in any accepted format. All are validated before any is applied, so a bad
   * one in a batch leaves the graph untouched. A trace id already ingested is skipped.
   */
  ingest(input: unknown | readonly unknown[]): IngestResult {
    return this.ingestTraces(parseTraceBatch(input));
  }

  /**
   * Ingests already-validated traces. A caller-given id seen before is a retry and is skipped;
   * a content-hash id seen before is a second identical run: it is kept, under a suffixed id.
   */
  ingestTraces(traces: readonly Trace[], options: { readonly values?: readonly number[] } = {}): IngestResult {
    let ingested = 0;
    for (const [i, input] of traces.entries()) {
      let trace = input;
      if (this.seenIds.has(trace.id)) {
        if (trace.idSource !== 'content') continue;
        let n = 2;
        while (this.seenIds.has(`${input.id}#${n}`)) n++;
        trace = { ...input, id: `${input.id}#${n}` };
      }
      this.seenIds.add(trace.id);
      this.traces.push(trace);
      this.queueCapabilityTraces(trace);
      const value = options.values?.[i];
      this.graph.ingest(trace, value === undefined ? {} : { value });
      this.recent.note(trace);
      ingested++;
    }
    if (ingested > 0) this.invalidate();
    return { ingested, version: this.graph.version };
  }

  /**
   * Ingests traces with their value: a ReasoningTrace is scored first (specs 000/001, `score`,
   * contributing it to the novelty memory when it reaches the threshold) and its successful
   * transitions gain that value as evidence; a compact trace counts 1. Validated whole first.
   */
  async ingestScored(input: unknown | readonly unknown[]): Promise<IngestResult & { readonly values: readonly number[] }> {
    const items: readonly unknown[] = Array.isArray(input) ? input : [input];
    const parsed = parseTraceBatch(input);
    const values: number[] = [];
    for (let i = 0; i < items.length; i++) values.push(isReasoningTraceShape(items[i]) ? (await this.score(items[i])).breakdown.score : 1);
    return { ...this.ingestTraces(parsed, { values }), values };
  }

  /** Refits the default profile's weights on every recorded trace, then rebuilds. */
  fit(options: FitOptions = {}): FitReport {
    return this.fitOn(this.traces, options);
  }

  /** The traces ingested into this object (not a durable store's: those stay in the store). */
  get recordedTraces(): readonly Trace[] {
    return this.traces;
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
    this.invalidate();
  }

  predictNext(request: unknown): Prediction {
    return predictNext(this.current(), parsePredictRequest(request), this.recent, this.recentIntents);
  }

  searchTools(request: unknown): SearchResult {
    return searchTools(this.current(), parseSearchRequest(request), this.recent, this.recentIntents);
  }

  /**
   * Embeds, with a configured (asynchronous) embedder, the catalogue's tool texts not embedded
   * yet and the given query texts, so that the synchronous queries find their vectors. A no-op
   * with the built-in embedder, which computes on demand. Rejects with the embedder's error.
   */
  async prepareEmbeddings(queries: readonly string[] = []): Promise<void> {
    const embedding = this.embedding;
    if (embedding === null || !('prefetchTools' in embedding)) return;
    const stored = this.storedForAdoption;
    if (stored !== null) {
      // A snapshot's vectors: a few embedded again decide whether the rest are this embedder's.
      // A failed prefetch leaves them for the next call.
      await embedding.prefetchTools(checkedTexts(stored));
      if (this.storedForAdoption === stored) {
        this.storedForAdoption = null;
        if (storedVectorsMatch(stored, embedding, ADOPTION_TOLERANCE)) {
          embedding.adoptTools(storedVectorsByText(stored));
          this.pendingVectors = asPreviousBuild(stored);
          this.toolVectorsVersion++;
        }
      }
    }
    const texts = this.tools().map((t) => toolText(t.name, t.description, t.params));
    const missing = texts.filter((t) => embedding.tool(t) === null);
    if (missing.length > 0) {
      await embedding.prefetchTools(missing);
      this.toolVectorsVersion++; // the tool vectors are part of the model: rebuild with them
    }
    if (queries.length > 0) await embedding.prefetchQueries(queries);
  }

  /** A workflow of tools for an intent: nodes, dependencies, layers, confidences, warnings. */
  suggestDag(request: unknown): DagSuggestion {
    return suggestDag(this.current(), parseDagRequest(request), this.recent, this.recentIntents);
  }

  /**
   * The value of a ReasoningTrace (specs 000/001) with its breakdown. Traces at or above the
   * threshold, or with `contribute: true`, enter the novelty memory; scoring alone does not.
   */
  score(trace: unknown, options: ScoreOptions = {}): Promise<ContributionResult> {
    return contributeTrace(trace, {
      cache: this.novelty,
      embedder: this.embedder,
      ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
      ...(options.contribute !== undefined ? { force: options.contribute } : {}),
    });
  }

  /**
   * Adds or replaces capabilities by id (an array or `{capabilities: [...]}`, see
   * schema/capability.ts). Every tool must be known (catalogue or traces): UNKNOWN_TOOL names the
   * first that is not, and nothing is registered.
   */
  setCapabilities(input: unknown): { capabilities: number; version: number } {
    return this.registerCapabilities(this.checkCapabilities(input));
  }

  /**
   * setCapabilities' checks without registering anything: the parsed capabilities, or
   * INVALID_INPUT / UNKNOWN_TOOL. The durable service stores what passes, then registers it.
   */
  checkCapabilities(input: unknown, caller = 'setCapabilities'): Capability[] {
    const parsed = parseCapabilities(input);
    for (const c of parsed) {
      const unknown = c.tools.find((tool) => this.graph.indexOf(tool) === undefined);
      if (unknown !== undefined) {
        throw new ToolgraphError('UNKNOWN_TOOL', `${caller}: capability ${JSON.stringify(c.id.slice(0, 80))} names tool ${JSON.stringify(unknown.slice(0, 80))}, which neither the catalogue nor a trace has; register it with setTools first`);
      }
    }
    return parsed;
  }

  /**
   * Registers capabilities checkCapabilities returned (by id: a known id is replaced, in its
   * place). With `replace`, they become the registered set, in their order: a durable instance
   * taking another's registrations puts them in the store's order, which a restart reads.
   */
  registerCapabilities(capabilities: readonly Capability[], options: { readonly replace?: boolean } = {}): { capabilities: number; version: number } {
    if (options.replace === true) this.registered.clear();
    for (const c of capabilities) this.registered.set(c.id, c);
    this.capabilityVersion++;
    this.invalidate();
    return { capabilities: this.registered.size, version: this.graph.version };
  }

  /** Ranks capabilities for an intent and/or context tools (spec 003 section 4.4's three modes). */
  rankCapabilities(request: unknown): CapabilityRanking {
    const parsed = parseCapabilityRequest(request);
    const model = this.current();
    return rankCapabilities(model.capabilities ?? null, model.graph, parsed);
  }

  /**
   * A capability's tools (in run order when ordered), for a DAG node standing for it. A registered
   * capability is found at once; a learned one once the model that learned it is built. NOT_FOUND
   * for an unknown id.
   */
  expandCapability(id: string): ExpandedCapability {
    if (typeof id !== 'string') throw new ToolgraphError('INVALID_INPUT', 'expandCapability: expected id to be a string');
    const registered = this.registered.get(id);
    if (registered !== undefined) return describeCapability(registered);
    return expandCapability(this.current().capabilities ?? null, id);
  }

  /** Every capability of the current model (rebuilt after a short debounce, like predictNext's): registered ones, then learned ones. */
  capabilities(): readonly Capability[] {
    return this.current().capabilities?.capabilities ?? [];
  }

  /** Builds the model now if it is stale; returns the current one. */
  rebuild(): RecommenderModel {
    this.cancelTimer();
    if (this.modelStale()) {
      const plan = this.planModel();
      this.installModel(buildModel(this.graph, this.catalog, this.weights, plan.options), plan);
    } else {
      this.takeFeedback();
    }
    return this.model!;
  }

  /**
   * The installed model takes the factors of every verdict recorded so far. Human feedback
   * changes no snapshot: only its per-edge factors are rebuilt, O(edges), on the model as it is,
   * a stale one too (what else it lacks comes with its rebuild). A verdict used to rebuild the
   * whole model when traces were pending, the thread held: 133-280 ms at 10,000 tools with 500
   * traces pending, against 0.7-3.7 ms now (docs/decisions/feedback-loop.md).
   */
  private takeFeedback(): void {
    if (this.model === null || this.modelFeedback === this.registry.revision) return;
    this.model = { ...this.model, feedback: buildEdgeFeedback(this.model.graph, this.humanScores()) };
    this.modelFeedback = this.registry.revision;
  }

  /**
   * rebuild(), with the graph snapshot built on `thread` while this thread builds the text model
   * (snapshot-thread.ts): a durable cold start's first model. The same model as rebuild()'s. If
   * the thread fails, `onError` hears why and the model is built here; if another build was
   * installed meanwhile, that one stays.
   */
  async rebuildOffThread(thread: SnapshotThread, onError: (error: Error) => void = () => {}): Promise<RecommenderModel> {
    this.cancelTimer();
    if (!this.modelStale()) return this.rebuild();
    const plan = this.planModel();
    const pending = thread.build(snapshotInput(this.graph), modelSnapshotOptions(plan.options));
    // Built now, before any await: the text and the snapshot's copy see the same graph.
    const text = buildModelText(this.graph.names, this.catalog, this.graph.intents(), plan.options);
    let snapshot: GraphSnapshot | null = null;
    try {
      snapshot = await pending;
    } catch (error) {
      onError(error as Error);
    }
    // Superseded, or closed (which stops the thread) with a model to keep: nothing to build.
    if (this.builds !== plan.build || (snapshot === null && this.closed && this.model !== null)) return this.model!;
    const options = snapshot === null ? plan.options : { ...plan.options, parts: { snapshot, text } };
    this.installModel(buildModel(this.graph, this.catalog, this.weights, options), plan);
    if (snapshot !== null) this.offThreadBuilds++;
    return this.model!;
  }

  /**
   * The model rebuilt without holding this thread for the whole build: for a graph of fewer
   * than `from` transitions (default offThreadFrom) in stages here between which the event loop
   * turns (rebuildInSlices); from it, rebuildOffThread on this Toolgraph's own worker thread
   * (started by the first such build, stopped by close()). One such build at a time: a call
   * while one is under way gets that one, and a model stale once it lands is rebuilt after the
   * debounce. If the thread fails, the build runs here, this and every later one (onWarning is
   * told once).
   */
  rebuildInBackground(from = this.offThreadFrom): Promise<RecommenderModel> {
    if (this.flight !== null) return this.flight;
    if (this.closed || !this.modelStale()) return Promise.resolve(this.rebuild());
    const flight = this.threadFailed || this.graph.edgeCount < from ? this.rebuildInSlices() : this.rebuildOnOwnThread();
    this.flight = flight.finally(() => {
      this.flight = null;
      if (!this.closed && this.modelStale()) this.invalidate();
    });
    return this.flight;
  }

  /**
   * Resolves once a model holds every catalogue entry and capability registered before the call,
   * built in the background (rebuildInBackground): a build already under way was planned before
   * them, so it is awaited and another follows. What a service awaits before acknowledging such
   * a write, so that the next query sees it (read-your-writes); queries meanwhile keep the model
   * they had. A failed build is reported (onWarning) and the last model kept, as for the
   * debounced rebuilds: the write is not undone.
   */
  async modelWithWrites(): Promise<void> {
    const catalog = this.catalogVersion;
    const capabilities = this.capabilityVersion;
    while (!this.closed && (this.builtCatalogVersion < catalog || this.builtCapabilityVersion < capabilities)) {
      try {
        await this.rebuildInBackground();
      } catch (error) {
        this.warn(`a model rebuild failed: ${(error as Error).message}`);
        return;
      }
    }
  }

  private rebuildOnOwnThread(): Promise<RecommenderModel> {
    const failed = (error: Error): void => {
      if (this.closed) return;
      this.threadFailed = true;
      void this.thread?.close();
      this.thread = null;
      this.warn(`rebuilds now build their graph snapshot on this thread: the snapshot thread failed (${error.message})`);
    };
    try {
      this.thread ??= SnapshotThread.start();
    } catch (error) {
      failed(error as Error);
      return this.rebuildInSlices();
    }
    return this.rebuildOffThread(this.thread, failed);
  }

  /**
   * rebuild(), in stages between which the event loop turns (modelStages): the thread is held
   * for one stage at a time (2-120 ms at 10,000 tools and 50,000 traces, Louvain the longest; a
   * full co-clustering of capabilities is one stage), and given back between stages
   * (giveWay), so commits are acknowledged and queries answered while a model is built. The graph goes on learning meanwhile; the model
   * is rebuild()'s for the graph as it was when the build began. A build installed meanwhile
   * (a synchronous rebuild()) supersedes this one, which then stops; so does close().
   */
  private async rebuildInSlices(): Promise<RecommenderModel> {
    this.cancelTimer();
    if (!this.modelStale()) return this.rebuild();
    const plan = this.planModel();
    const stages = modelStages(this.graph, this.catalog, this.weights, plan.options);
    for (;;) {
      const started = performance.now();
      const step = stages.next();
      if (step.done === true) {
        this.installModel(step.value, plan);
        this.slicedBuilds++;
        // The installed one: it may have taken verdicts recorded meanwhile (takeFeedback).
        return this.model!;
      }
      await giveWay(performance.now() - started);
      if (this.builds !== plan.build) return this.model!;
      // Closed: nothing will ask again. The model is finished only if there is none to return.
      if (this.closed) return this.model ?? runStages(stages);
    }
  }

  /** The model answering queries is built from everything learned and registered so far, with the weights in force. */
  modelCurrent(): boolean {
    return !this.modelStale();
  }

  private modelStale(): boolean {
    return (
      this.model === null ||
      this.restoredSignals ||
      this.model.graph.version !== this.graph.version ||
      this.model.weights !== this.weights ||
      this.builtCapabilityVersion !== this.capabilityVersion ||
      // Planned with learning complete while a backfill runs, or without it once it is over.
      this.builtLearningComplete === this.capabilityBackfill ||
      this.builtCatalogVersion !== this.catalogVersion ||
      this.builtToolVectorsVersion !== this.toolVectorsVersion
    );
  }

  /**
   * What the next model is built with. Takes the restored signals and tool vectors, which serve
   * one build, and the capability traces queued for learning.
   */
  private planModel(): ModelPlan {
    const started = performance.now();
    const reuse = this.pendingSignals;
    const previousVectors = this.pendingVectors;
    this.pendingSignals = null;
    this.pendingVectors = null;
    this.learnQueued();
    // While a durable open is still reading older traces, learning is incomplete: the model
    // goes without learned capabilities and trace outcomes, as before any trace, until it is done.
    const complete = !this.capabilityBackfill;
    const learned = this.learner === null || !complete ? [] : this.learner.capabilities();
    const merged = mergeCapabilities([...this.registered.values()], learned);
    const previous = this.model?.capabilities ?? null;
    const reuseClusters =
      previous !== null &&
      canReuseClusters({ last: this.clustered, now: performance.now(), version: this.capabilityVersion, capabilities: merged, everyMs: this.reclusterEveryMs, share: RECLUSTER_SHARE });
    const capabilities = { capabilities: merged, traces: complete ? this.traceSets : [], previous, reuseClusters, catalogVersion: this.catalogVersion };
    const options: ModelOptions = {
      seed: this.seed,
      embedding: this.embedding,
      capabilities,
      feedback: this.humanScores(),
      previousVectors,
      ...(reuse === null ? {} : { communities: { communities: reuse.communities, count: reuse.communityCount } }),
    };
    return { options, reuse, reuseClusters, capabilityVersion: this.capabilityVersion, complete, catalogVersion: this.catalogVersion, feedbackRevision: this.registry.revision, toolVectorsVersion: this.toolVectorsVersion, started, build: ++this.builds };
  }

  private installModel(model: RecommenderModel, plan: ModelPlan): void {
    this.model = model;
    this.recent.forget(model.graph.version);
    this.recentIntents.forget(model.text.intents);
    if (!plan.reuseClusters) {
      this.clustered = { at: performance.now(), ids: model.capabilities?.indexById ?? new Map(), version: plan.capabilityVersion };
    }
    this.builtCapabilityVersion = plan.capabilityVersion;
    this.builtLearningComplete = plan.complete;
    this.builtCatalogVersion = plan.catalogVersion;
    this.builtToolVectorsVersion = plan.toolVectorsVersion;
    this.modelFeedback = plan.feedbackRevision;
    // Verdicts recorded while it was built.
    this.takeFeedback();
    this.restoredSignals = plan.reuse !== null && plan.reuse.version !== model.graph.version;
    const endedAt = performance.now();
    this.lastRebuild = { endedAt, tookMs: endedAt - plan.started };
    if (this.restoredSignals) this.invalidate();
  }

  /**
   * A person's verdict on a pattern: a transition `{from, to}`, a second-order pattern
   * `{tools: [a, b, c]}`, or `{id}` as `patterns()` reported it. An approval raises the pattern's
   * human score (spec 004) and multiplies the candidate's probability by H / 0.5 in the default
   * profile; a rejection lowers both. Takes effect at once (the model's feedback factors are
   * rebuilt, not the model). UNKNOWN_TOOL for a tool the graph does not know, NOT_FOUND for an
   * unknown id.
   */
  patternFeedback(pattern: unknown, decision: unknown, options: { readonly at?: number } = {}): PatternView {
    const request = parsePatternFeedback({ pattern, decision, ...options });
    const tools = this.resolvePattern(request.pattern, 'patternFeedback');
    const at = request.at ?? Date.now();
    this.registry.record(tools, request.decision, at);
    this.feedbackClock = Math.max(this.feedbackClock, at);
    this.takeFeedback();
    return this.viewOf(tools);
  }

  /** One pattern with its evidence, reliability and confidence. Errors as patternFeedback. */
  pattern(target: unknown): PatternView {
    return this.viewOf(this.resolvePattern(parsePatternTarget(target, 'pattern'), 'pattern'));
  }

  /** `pattern(target)` with the verdicts people gave it, oldest first (the newest 100). */
  patternDetail(target: unknown): PatternDetail {
    const view = this.pattern(target);
    return { ...view, feedback: [...(this.registry.get(view.id)?.feedback ?? [])] };
  }

  /** The current model's `top` most observed transitions and the tools they join (graph-view.ts), `{top?}`. */
  graphView(request: unknown = {}): GraphView {
    const { top } = parseGraphRequest(request);
    return graphView(this.current(), top);
  }

  /** A tool's successors and predecessors with their figures and pattern confidences (graph-view.ts), `{limit?}`. */
  toolNeighbours(name: unknown, request: unknown = {}): ToolNeighbours {
    if (typeof name !== 'string') throw new ToolgraphError('INVALID_INPUT', 'graph tool: expected the tool name to be a string');
    const { limit } = parseNeighboursRequest(request);
    return toolNeighbours(this.current(), name, limit, (tools) => this.viewOf(tools));
  }

  /**
   * Reviewed patterns (every one with human feedback) and the most observed transitions
   * (`limit`, default 100; only those out of `from` when given), most observed first.
   */
  patterns(request: unknown = {}): readonly PatternView[] {
    const { from, limit } = parsePatternsRequest(request);
    const fromIndex = from === undefined ? undefined : this.toolIndex(from, 'patterns');
    const seen = new Set<string>();
    const out: PatternView[] = [];
    for (const record of this.registry.list()) {
      if (from !== undefined && record.tools[0] !== from) continue;
      seen.add(record.id);
      out.push(this.viewOf(record.tools));
    }
    const observed: { a: number; b: number; count: number }[] = [];
    this.graph.forEachTransition((a, b, stats) => {
      if (fromIndex === undefined || a === fromIndex) observed.push({ a, b, count: stats.count });
    });
    observed.sort((x, y) => y.count - x.count || x.a - y.a || x.b - y.b);
    for (const { a, b } of observed.slice(0, limit)) {
      const tools = [this.graph.names[a]!, this.graph.names[b]!];
      if (!seen.has(patternId(tools))) out.push(this.viewOf(tools));
    }
    // Most observed first; ties in tool index order (the order tools were first seen).
    const order = (v: PatternView): number[] => v.tools.map((name) => this.graph.indexOf(name)!);
    return out.sort((x, y) => {
      if (y.observations !== x.observations) return y.observations - x.observations;
      const ox = order(x);
      const oy = order(y);
      for (let i = 0; i < Math.min(ox.length, oy.length); i++) if (ox[i] !== oy[i]) return ox[i]! - oy[i]!;
      return ox.length - oy.length;
    });
  }

  /**
   * The Beta posterior of the transition from -> to in the current model (decayed to the newest
   * trace), or null when it was never observed. What suggestDag weighs an edge by.
   */
  reliability(from: string, to: string): EdgeReliabilityReport | null {
    const model = this.current();
    const a = model.graph.indexByName.get(from);
    const b = model.graph.indexByName.get(to);
    if (a === undefined || b === undefined) return null;
    const j = edgeIndex(model.graph.out, a, b);
    return j < 0 ? null : reliabilityReport(model.graph.reliability, j);
  }

  /** Human feedback as plain data, for a store; give it back as `new Toolgraph({patterns})`. */
  patternRegistryState(): PatternRegistryState {
    return this.registry.toState();
  }

  /**
   * The spec 004 confidence state of a pattern, as `pattern()` reports its figures, for a store's
   * patterns table; with `pending`, as it will be once that verdict is recorded (a durable
   * service stores the verdict and this state first, then records it). Errors as patternFeedback.
   */
  patternConfidence(target: unknown, pending?: { readonly decision: PatternDecision; readonly at: number }): { readonly tools: readonly string[]; readonly state: PatternConfidence } {
    const tools = this.resolvePattern(parsePatternTarget(target, 'patternConfidence'), 'patternConfidence');
    const { stats, now } = this.patternEvidence(tools);
    const old = this.registry.get(patternId(tools));
    const record = pending === undefined ? old : withDecision(old, tools, pending.decision, pending.at);
    return { tools, state: patternConfidence(tools, stats, record, pending === undefined ? now : Math.max(now, pending.at)) };
  }

  /**
   * Verdicts a store kept (in the order given), put back as patternFeedback recorded them. The
   * names are not checked against the graph: they were when recorded, and the traces that
   * brought them may be replayed later.
   */
  restorePatternFeedback(entries: Iterable<{ readonly tools: readonly string[]; readonly decision: 'approve' | 'reject'; readonly at: number }>): void {
    for (const e of entries) {
      this.registry.record(e.tools, e.decision, e.at);
      this.feedbackClock = Math.max(this.feedbackClock, e.at);
    }
    this.takeFeedback();
  }

  /**
   * Ingests traces a durable store has already accepted (deduplicated, repeats renamed `id#n`),
   * in the store's order: no second deduplication, and they are not kept in memory (the store
   * has them; fit them with fitOn) beyond the capability learning queue, drained at the next rebuild.
   */
  applyStoredTraces(traces: readonly Trace[]): IngestResult {
    for (const trace of traces) {
      this.graph.ingest(trace);
      this.recent.note(trace);
      this.queueCapabilityTraces(trace);
    }
    if (traces.length > 0) this.invalidate();
    return { ingested: traces.length, version: this.graph.version };
  }

  /**
   * A durable open restored a snapshot: the traces before it reach the capability learner and
   * the outcome index through backfillCapabilityTraces, in store order, while newer traces wait
   * in the queue, so learning sees every trace in the order a full replay would. Until
   * endCapabilityBackfill, models have no learned capabilities and no trace outcomes.
   */
  beginCapabilityBackfill(): void {
    this.capabilityBackfill = true;
  }

  /** One page of the traces before the restored snapshot, in store order. */
  backfillCapabilityTraces(traces: readonly Trace[]): void {
    this.traceSets.add(traces, 0);
    this.learner?.add(traces, 0);
  }

  /** The backfill is over: the queued traces are learned and the model is rebuilt. */
  endCapabilityBackfill(): void {
    this.capabilityBackfill = false;
    // Stale now by modelStale's learning test, not by a reset version: a build planned during the
    // backfill and installed after this would have set the version back and kept its model.
    this.learnQueued();
    this.invalidate();
  }

  private queueCapabilityTraces(trace: Trace): void {
    this.capabilityQueue.push(trace);
    if (this.capabilityQueue.length >= CAPABILITY_QUEUE_LIMIT) this.learnQueued();
  }

  private learnQueued(): void {
    if (this.capabilityBackfill || this.capabilityQueue.length === 0) return;
    this.traceSets.add(this.capabilityQueue, 0);
    this.learner?.add(this.capabilityQueue, 0);
    this.capabilityQueue = [];
  }

  /**
   * fit() on the given traces instead of those ingested into this object (a durable store's).
   * One path for both: the fold models must score with the embedding queries will use, or its
   * weight is fitted on zeros (durable services once were, while the evaluation was not).
   */
  fitOn(traces: readonly Trace[], options: FitOptions = {}): FitReport {
    const started = performance.now();
    const report = fitWeights(traces, this.catalog, { seed: this.seed, embedding: this.embedding, ...options });
    const record: FitRecord = {
      traces: traces.length,
      fittedAt: Date.now(),
      ms: Math.round(performance.now() - started),
      kept: { next: report.next.selected, nextNoIntent: report.nextNoIntent.selected, search: report.search.selected },
    };
    this.weights = { ...report.weights, fit: record };
    this.fitReport = report;
    this.rebuild();
    return report;
  }

  /**
   * Replaces the learned graph by a restored one (a stored snapshot). The next rebuild uses the
   * stored Louvain communities instead of running Louvain, most of a cold start's cost; if the
   * graph moved on since they were computed (traces replayed after the snapshot), a full
   * rebuild follows after the usual debounce. `restored` is the state, or a graph already built
   * from it with ToolGraph.fromState (a cold start restores while its database opens); such a
   * graph must have this engine's half-life (RangeError otherwise). `caches` (a snapshot's, for
   * the same graph): the intents' tokens and the tool vectors are taken over where they check
   * out (intent-tokens.ts, tool-vectors.ts) instead of being made again; the result says which did.
   */
  restoreGraph(restored: ToolGraphState | ToolGraph, signals: StoredSignals | null = null, caches: StoredCaches | null = null): RestoredCaches {
    const options = this.halfLifeMs === undefined ? {} : { halfLifeMs: this.halfLifeMs };
    if (restored instanceof ToolGraph && restored.halfLifeMs !== (this.halfLifeMs ?? DEFAULT_HALF_LIFE_MS)) {
      throw new RangeError(`Toolgraph.restoreGraph: the graph decays with a half-life of ${restored.halfLifeMs} ms, this engine's is ${this.halfLifeMs}`);
    }
    this.cancelTimer();
    this.graph = restored instanceof ToolGraph ? restored : ToolGraph.fromState(restored, options);
    this.recent = new RecentTransitions(this.graph);
    this.recentIntents = new RecentIntents(this.graph);
    const intentTokens = caches?.intentTokens ? restoreIntentTokens(this.graph.intents(), caches.intentTokens) : false;
    for (const name of this.catalog.keys()) this.graph.addTool(name);
    this.model = null;
    this.pendingSignals = signals;
    const vectors = caches?.toolVectors ?? null;
    const embedding = this.embedding;
    this.pendingVectors = vectors !== null && embedding !== null ? restoreToolVectors(vectors, embedding) : null;
    // Kept until the embedder's first prefetch: copied, so that the snapshot's bytes (whose views
    // the decoded caches are) need not stay in memory with them.
    this.storedForAdoption =
      vectors !== null && this.pendingVectors === null && embedding !== null && 'adoptTools' in embedding && vectors.embedding === embedding.name && vectors.dimensions === embedding.dimensions
        ? { ...vectors, rowStart: vectors.rowStart.slice(), rowDims: vectors.rowDims.slice(), rowValues: vectors.rowValues.slice() }
        : null;
    return { intentTokens, toolVectors: this.pendingVectors !== null };
  }

  /** The learned graph with its signals, as plain data (for JSON and GraphML export). */
  exportGraph(): ExportedGraph {
    return exportGraph(this.graph, this.rebuild().graph);
  }

  /**
   * The learned graph as typed arrays, with the current model's communities and PageRank when
   * they were computed for exactly this graph, and the caches (what a stored snapshot keeps).
   * The caches view live buffers: encode them before the next rebuild.
   */
  snapshotState(): { state: ToolGraphState; signals: StoredSignals | null; caches: StoredCaches } {
    const model = this.model;
    const fresh = model !== null && !this.restoredSignals && model.graph.version === this.graph.version;
    const text = model?.text;
    return {
      state: this.graph.exportState(),
      signals: fresh
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
      modelVersion: this.model?.graph.version ?? -1,
      rebuildMs: this.lastRebuild?.tookMs ?? 0,
      offThreadBuilds: this.offThreadBuilds,
      slicedBuilds: this.slicedBuilds,
      recentTransitions: this.recent.size,
      recentIntents: this.recentIntents.size,
      fit: describeFit(this.weights),
    };
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
    const catalog = [...this.catalog.values()];
    const jobOptions = { seed: this.seed, ...options };
    const embedder = this.embedder;
    const embedding = this.embedding;
    if (embedding === null || embedder === null) return this.fitThread.fit({ catalog, traces, options: jobOptions, embedding: { kind: 'none' } });
    if (!('prefetchTools' in embedding)) return this.fitThread.fit({ catalog, traces, options: jobOptions, embedding: { kind: 'hashed' } });
    // Another embedder: its vectors of every tool text and every trace's intent go as a table.
    const texts = this.tools().map((t) => toolText(t.name, t.description, t.params));
    await embedding.prefetchTools(texts);
    const tools = texts.flatMap((text) => {
      const v = embedding.tool(text);
      return v === null ? [] : [[text, v] as const];
    });
    const intents = new Set<string>();
    async function* noted(): AsyncIterable<readonly Trace[]> {
      for await (const page of traces) {
        for (const t of page) if (t.intent !== '') intents.add(t.intent);
        yield page;
      }
    }
    async function* queries(): AsyncIterable<readonly (readonly [string, Float32Array])[]> {
      const all = [...intents];
      for (let i = 0; i < all.length; i += 64) {
        const batch = all.slice(i, i + 64);
        const vectors = await checkedBatch(embedder!, batch);
        yield batch.map((text, j) => [text, vectors[j]!] as const);
      }
    }
    return this.fitThread.fit({
      catalog,
      traces: noted(),
      options: jobOptions,
      embedding: { kind: 'table', name: embedding.name, dimensions: embedding.dimensions, tools, queries: [] },
      queries,
    });
  }

  /**
   * Installs the weights of a fit made elsewhere (fitOffThread, another instance's), with its
   * account; the model is rebuilt in the background, queries meanwhile answered by the weights
   * in force.
   */
  adoptFit(report: FitReport, record: FitRecord): void {
    this.weights = { ...report.weights, fit: record };
    this.fitReport = report;
    this.invalidate();
  }

  /** Stops the pending rebuild timer and the worker threads (for shutdown). */
  close(): void {
    this.closed = true;
    this.cancelTimer();
    void this.thread?.close();
    this.thread = null;
    void this.fitThread?.close();
    this.fitThread = null;
  }

  private humanScores(): HumanPatternScore[] {
    const scores: HumanPatternScore[] = [];
    for (const p of this.registry.list()) {
      const tools = p.tools.map((name) => this.graph.indexOf(name));
      if (tools.some((t) => t === undefined)) continue;
      scores.push({ tools: tools as number[], human: humanScore({ approvals: p.approvals, rejections: p.rejections, reflect: 'none' }) });
    }
    return scores;
  }

  private toolIndex(name: string, caller: string): number {
    const index = this.graph.indexOf(name);
    if (index === undefined) throw new ToolgraphError('UNKNOWN_TOOL', `${caller}: unknown tool ${JSON.stringify(name).slice(0, 200)}`);
    return index;
  }

  /** The tool names of a pattern target, each known to the graph. */
  private resolvePattern(target: PatternTarget, caller: string): string[] {
    let tools: string[];
    if ('id' in target) {
      const found = this.registry.get(target.id)?.tools ?? this.findTransition(target.id);
      if (found === undefined) throw new ToolgraphError('NOT_FOUND', `${caller}: no pattern with id ${JSON.stringify(target.id).slice(0, 200)}`);
      tools = [...found];
    } else {
      tools = 'from' in target ? [target.from, target.to] : [...target.tools];
    }
    for (const name of tools) this.toolIndex(name, caller);
    return tools;
  }

  /** The observed transition with this id: O(transitions), only for ids never reviewed. */
  private findTransition(id: string): string[] | undefined {
    let found: string[] | undefined;
    this.graph.forEachTransition((a, b) => {
      if (found !== undefined) return;
      const tools = [this.graph.names[a]!, this.graph.names[b]!];
      if (patternId(tools) === id) found = tools;
    });
    return found;
  }

  private patternEvidence(tools: readonly string[]) {
    const ids = tools.map((name) => this.graph.indexOf(name)!);
    const stats = ids.length === 2 ? this.graph.transition(ids[0]!, ids[1]!) : this.graph.secondOrder(ids[0]!, ids[1]!, ids[2]!);
    return { stats, now: Math.max(this.graph.newest, this.feedbackClock) };
  }

  private viewOf(tools: readonly string[]): PatternView {
    const { stats, now } = this.patternEvidence(tools);
    const reliability = tools.length === 2 && stats !== undefined ? this.reliability(tools[0]!, tools[1]!) : null;
    return patternView(tools, stats, this.registry.get(patternId(tools)), reliability, now);
  }

  private current(): RecommenderModel {
    // Tool vectors an asynchronous embedder just fetched (prepareEmbeddings) are for the request
    // that waited for them: without the rebuild it was answered by the model that lacked them.
    return this.model !== null && this.builtToolVectorsVersion === this.toolVectorsVersion ? this.model : this.rebuild();
  }

  private invalidate(): void {
    if (this.timer !== null) return;
    // No sooner after the last rebuild than it took: a model that takes 300 ms to build, rebuilt
    // 50 ms after every commit under sustained ingestion, left the thread little else (docs/decisions/
    // store/open-group-commit-visibility.md: 25 rebuilds in 49,000 traces at 2,000 per commit).
    this.timer = setTimeout(() => {
      this.timer = null;
      // A failed build is reported and the last model kept; the next ingestion tries again.
      this.rebuildInBackground().catch((error: unknown) => this.warn(`a model rebuild failed: ${(error as Error).message}`));
    }, rebuildWaitMs(performance.now(), this.delay, this.lastRebuild));
    this.timer.unref?.();
  }

  private cancelTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
