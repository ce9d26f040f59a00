/**
 * The facade every face (library, CLI, later HTTP and MCP) calls: it validates input at the
 * boundary, owns the mutable ToolGraph, and answers queries from the newest complete model.
 *
 * Ingestion mutates the graph and bumps its version; a rebuild of the model (snapshot, text
 * index, profile precomputation) is scheduled after a short debounce and swapped in atomically.
 * Queries never wait for it: they read whichever model is current. Only when no model exists
 * yet (the very first query) is one built on the spot. Node runs one rebuild at a time by
 * construction (it is synchronous), and a pending timer is never doubled.
 */
import type { StoredSignals } from '../graph/graph-codec.js';
import { exportGraph, type ExportedGraph } from '../graph/graph-export.js';
import { ToolGraph, type ToolGraphState } from '../graph/tool-graph.js';
import { fitWeights, type FitOptions, type FitReport } from '../recommend/fit-weights.js';
import { buildModel, PRIOR_WEIGHTS, type FittedWeights, type RecommenderModel } from '../recommend/model.js';
import { predictNext, type Prediction } from '../recommend/predict-next.js';
import { searchTools, type SearchResult } from '../recommend/search-tools.js';
import { contributeTrace, type ContributionResult } from '../scoring/contribute-trace.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { ToolgraphError } from '../schema/errors.js';
import { parsePredictRequest, parseSearchRequest } from '../schema/requests.js';
import { parseCatalog } from '../schema/tool.js';
import { parseTrace } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { Embedder } from '../text/embedder.js';
import { createHashedEmbedder } from '../text/hashed-embedder.js';

export interface ToolgraphOptions {
  /** Seed of every random step (Louvain, fitting). */
  readonly seed?: number;
  /** Debounce before a rebuild after ingestion, in ms (default 50). */
  readonly rebuildDelayMs?: number;
  /** Embeds texts for trace novelty; default the built-in hashed embedder, null for none. */
  readonly embedder?: Embedder | null;
}

export interface ScoreOptions {
  /** Contribute to the novelty memory whatever the value (an explicit contribution). */
  readonly contribute?: boolean;
  /** Value at or above which a trace is contributed (default 0.75). */
  readonly threshold?: number;
}

export interface ToolgraphStats {
  readonly tools: number;
  readonly transitions: number;
  readonly traces: number;
  readonly version: number;
  readonly modelVersion: number;
  readonly rebuildMs: number;
}

export interface IngestResult {
  readonly ingested: number;
  readonly version: number;
}

export class Toolgraph {
  // Replaced only by restoreGraph (a cold start from a stored snapshot).
  private graph = new ToolGraph();
  /** The model's communities were restored, not computed: the next rebuild runs Louvain. */
  private restoredSignals = false;
  /** Restored communities the next rebuild uses once (restoreGraph). */
  private pendingSignals: StoredSignals | null = null;
  private readonly catalog = new Map<string, ToolInfo>();
  private readonly traces: Trace[] = [];
  private readonly seenIds = new Set<string>();
  private weights: FittedWeights = PRIOR_WEIGHTS;
  private fitReport: FitReport | null = null;
  private model: RecommenderModel | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly seed: number | undefined;
  private readonly delay: number;
  private lastRebuildMs = 0;
  private readonly embedder: Embedder | null;
  /** Vectors of the traces contributed so far: what the next trace's novelty is measured against. */
  private readonly novelty: VectorCache;

  constructor(options: ToolgraphOptions = {}) {
    this.seed = options.seed;
    this.delay = options.rebuildDelayMs ?? 50;
    this.embedder = options.embedder === undefined ? createHashedEmbedder() : options.embedder;
    this.novelty = new VectorCache(this.embedder === null ? {} : { dimensions: this.embedder.dimensions });
  }

  /** Adds or replaces catalogue entries (MCP tools/list entries or dataset tools). */
  setTools(input: unknown): { tools: number; version: number } {
    const tools = parseCatalog(input);
    for (const tool of tools) {
      this.catalog.set(tool.name, tool);
      this.graph.addTool(tool.name);
    }
    this.invalidate();
    return { tools: this.catalog.size, version: this.graph.version };
  }

  tools(): readonly ToolInfo[] {
    return this.graph.names.map((name) => this.catalog.get(name) ?? { name, description: '', params: [] });
  }

  /**
   * Ingests traces in any accepted format. All are validated before any is applied, so a bad
   * one in a batch leaves the graph untouched. A trace id already ingested is skipped.
   */
  ingest(input: unknown | readonly unknown[]): IngestResult {
    const items = Array.isArray(input) ? input : [input];
    const parsed = items.map((item, i) => {
      try {
        return parseTrace(item);
      } catch (error) {
        if (error instanceof ToolgraphError && items.length > 1) {
          throw new ToolgraphError(error.code, `traces[${i}]: ${error.message}`, error.details);
        }
        throw error;
      }
    });
    return this.ingestTraces(parsed);
  }

  /**
   * Ingests already-validated traces. A caller-given id seen before is a retry and is skipped;
   * a content-hash id seen before is a second identical run: it is kept, under a suffixed id.
   */
  ingestTraces(traces: readonly Trace[]): IngestResult {
    let ingested = 0;
    for (const input of traces) {
      let trace = input;
      if (this.seenIds.has(trace.id)) {
        if (trace.idSource !== 'content') continue;
        let n = 2;
        while (this.seenIds.has(`${input.id}#${n}`)) n++;
        trace = { ...input, id: `${input.id}#${n}` };
      }
      this.seenIds.add(trace.id);
      this.traces.push(trace);
      this.graph.ingest(trace);
      ingested++;
    }
    if (ingested > 0) this.invalidate();
    return { ingested, version: this.graph.version };
  }

  /** Refits the default profile's weights on every recorded trace, then rebuilds. */
  fit(options: FitOptions = {}): FitReport {
    const report = fitWeights(this.traces, this.catalog, { seed: this.seed, ...options });
    this.weights = report.weights;
    this.fitReport = report;
    this.rebuild();
    return report;
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
    return predictNext(this.current(), parsePredictRequest(request));
  }

  searchTools(request: unknown): SearchResult {
    return searchTools(this.current(), parseSearchRequest(request));
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

  /** Builds the model now if it is stale; returns the current one. */
  rebuild(): RecommenderModel {
    this.cancelTimer();
    if (this.model === null || this.restoredSignals || this.model.graph.version !== this.graph.version || this.model.weights !== this.weights) {
      const started = performance.now();
      const reuse = this.pendingSignals;
      this.pendingSignals = null;
      this.model = buildModel(this.graph, this.catalog, this.weights, {
        seed: this.seed,
        ...(reuse === null ? {} : { communities: { communities: reuse.communities, count: reuse.communityCount } }),
      });
      this.restoredSignals = reuse !== null && reuse.version !== this.graph.version;
      this.lastRebuildMs = performance.now() - started;
      if (this.restoredSignals) this.invalidate();
    }
    return this.model;
  }

  /**
   * Ingests traces a durable store has already accepted (deduplicated, repeats renamed `id#n`),
   * in the store's order: no second deduplication, and they are not kept in memory (the store
   * has them; fit them with fitOn).
   */
  applyStoredTraces(traces: readonly Trace[]): IngestResult {
    for (const trace of traces) this.graph.ingest(trace);
    if (traces.length > 0) this.invalidate();
    return { ingested: traces.length, version: this.graph.version };
  }

  /** fit() on the given traces instead of those ingested into this object (a durable store's). */
  fitOn(traces: readonly Trace[], options: FitOptions = {}): FitReport {
    const report = fitWeights(traces, this.catalog, { seed: this.seed, ...options });
    this.weights = report.weights;
    this.fitReport = report;
    this.rebuild();
    return report;
  }

  /**
   * Replaces the learned graph by a restored one (a stored snapshot). The next rebuild uses the
   * stored Louvain communities instead of running Louvain, most of a cold start's cost; if the
   * graph moved on since they were computed (traces replayed after the snapshot), a full
   * rebuild follows after the usual debounce.
   */
  restoreGraph(state: ToolGraphState, signals: StoredSignals | null = null): void {
    this.cancelTimer();
    this.graph = ToolGraph.fromState(state);
    for (const name of this.catalog.keys()) this.graph.addTool(name);
    this.model = null;
    this.pendingSignals = signals;
  }

  /** The learned graph with its signals, as plain data (for JSON and GraphML export). */
  exportGraph(): ExportedGraph {
    return exportGraph(this.graph, this.rebuild().graph);
  }

  /**
   * The learned graph as typed arrays, with the current model's communities and PageRank when
   * they were computed for exactly this graph (what a stored snapshot keeps).
   */
  snapshotState(): { state: ToolGraphState; signals: StoredSignals | null } {
    const model = this.model;
    const fresh = model !== null && !this.restoredSignals && model.graph.version === this.graph.version;
    return {
      state: this.graph.exportState(),
      signals: fresh
        ? { version: model.graph.version, communities: model.graph.communities, communityCount: model.graph.communityCount, pagerank: model.graph.pagerank }
        : null,
    };
  }

  stats(): ToolgraphStats {
    return {
      tools: this.graph.toolCount,
      transitions: this.graph.edgeCount,
      traces: this.graph.traces,
      version: this.graph.version,
      modelVersion: this.model?.graph.version ?? -1,
      rebuildMs: this.lastRebuildMs,
    };
  }

  /** Stops the pending rebuild timer (for shutdown). */
  close(): void {
    this.cancelTimer();
  }

  private current(): RecommenderModel {
    return this.model ?? this.rebuild();
  }

  private invalidate(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.rebuild();
    }, this.delay);
    this.timer.unref?.();
  }

  private cancelTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
