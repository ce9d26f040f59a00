/**
 * The facade every face (library, CLI, HTTP, MCP) calls: it validates input at the boundary and
 * answers queries from the newest complete model; the state, the collaborators and what a store
 * drives are ToolgraphCore's (toolgraph-core.ts).
 *
 * Ingestion mutates the graph and bumps its version; the model is rebuilt after a short debounce
 * and swapped in atomically. Queries never wait for it: they read the installed model, and
 * next-tool predictions, searches and DAG suggestions read beside it the transitions and intents
 * learned since its snapshot (recent-transitions.ts, recent-intents.ts), so a trace counts in them
 * as soon as it is ingested.
 */
import { exportGraph, type ExportedGraph } from '../graph/graph-export.js';
import { suggestDag, type DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { fitWeights, type FitOptions, type FitReport } from '../recommend/fit-weights.js';
import { predictNext, type Prediction } from '../recommend/predict-next.js';
import { describeCapability, expandCapability, rankCapabilities, type CapabilityRanking, type ExpandedCapability } from '../recommend/rank-capabilities.js';
import { searchTools, type SearchResult } from '../recommend/search-tools.js';
import { parseCapabilityRequest, type Capability, type CapabilityRequestInput } from '../schema/capability.js';
import { assertSomeRead, readCatalogAs } from '../schema/catalog.js';
import { ToolgraphError } from '../schema/errors.js';
import { parseDagRequest, parsePredictRequest, parseSearchRequest, type DagRequestInput, type PredictRequestInput, type SearchRequestInput } from '../schema/requests.js';
import { assertCatalogRoom } from '../schema/tool.js';
import { isReasoningTraceShape, parseTraceBatch } from '../schema/trace.js';
import type { Trace } from '../schema/types.js';
import { contributeTrace, type ContributionResult } from '../scoring/contribute-trace.js';
import type { PatternDetail, PatternView } from './pattern-view.js';
import { graphView, toolNeighbours, type GraphView, type ToolNeighbours } from './graph-view.js';
import { parseGraphRequest, parseNeighboursRequest } from '../schema/graph-requests.js';
import { ToolgraphCore } from './toolgraph-core.js';
import type { IngestResult, ScoreOptions, SetToolsOptions, SetToolsResult } from './toolgraph-types.js';
export type { ToolgraphOptions } from './options.js';
export type { IngestResult, RestoredCaches, ScoreOptions, SetToolsOptions, SetToolsResult, ToolgraphStats } from './toolgraph-types.js';

export class Toolgraph extends ToolgraphCore {
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
      this.capabilityCatalogue.note(trace);
      const value = options.values?.[i];
      this.graph.ingest(trace, value === undefined ? {} : { value });
      this.recent.note(trace);
      ingested++;
    }
    if (ingested > 0) this.builder.invalidate();
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

  /** The traces ingested into this object (not a durable store's: those stay in the store). */
  get recordedTraces(): readonly Trace[] {
    return this.traces;
  }

  predictNext(request: PredictRequestInput): Prediction {
    return predictNext(this.builder.current(), parsePredictRequest(request), this.recent, this.recentIntents);
  }

  searchTools(request: SearchRequestInput): SearchResult {
    return searchTools(this.builder.current(), parseSearchRequest(request), this.recent, this.recentIntents);
  }

  /** A workflow of tools for an intent: nodes, dependencies, layers, confidences, warnings. */
  suggestDag(request: DagRequestInput): DagSuggestion {
    return suggestDag(this.builder.current(), parseDagRequest(request), this.recent, this.recentIntents);
  }

  /**
   * Embeds, with a configured (asynchronous) embedder, the catalogue's tool texts not embedded
   * yet and the given query texts, so that the synchronous queries find their vectors. A no-op
   * with the built-in embedder, which computes on demand. Rejects with the embedder's error.
   */
  prepareEmbeddings(queries: readonly string[] = []): Promise<void> {
    return this.embeddings.prepare(this.tools(), queries);
  }

  /**
   * The value of a ReasoningTrace (specs 000/001) with its breakdown. Traces at or above the
   * threshold, or with `contribute: true`, enter the novelty memory; scoring alone does not.
   */
  score(trace: unknown, options: ScoreOptions = {}): Promise<ContributionResult> {
    return contributeTrace(trace, {
      cache: this.novelty,
      embedder: this.embeddings.embedder,
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

  /** Ranks capabilities for an intent and/or context tools (spec 003 section 4.4's three modes). */
  rankCapabilities(request: CapabilityRequestInput): CapabilityRanking {
    const parsed = parseCapabilityRequest(request);
    const model = this.builder.current();
    return rankCapabilities(model.capabilities ?? null, model.graph, parsed);
  }

  /**
   * A capability's tools (in run order when ordered), for a DAG node standing for it. A registered
   * capability is found at once; a learned one once the model that learned it is built. NOT_FOUND
   * for an unknown id.
   */
  expandCapability(id: string): ExpandedCapability {
    if (typeof id !== 'string') throw new ToolgraphError('INVALID_INPUT', 'expandCapability: expected id to be a string');
    const registered = this.capabilityCatalogue.get(id);
    if (registered !== undefined) return describeCapability(registered);
    return expandCapability(this.builder.current().capabilities ?? null, id);
  }

  /** Every capability of the current model (rebuilt after a short debounce, like predictNext's): registered ones, then learned ones. */
  capabilities(): readonly Capability[] {
    return this.builder.current().capabilities?.capabilities ?? [];
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
    const tools = this.feedback.record(pattern, decision, options);
    this.builder.takeFeedback();
    return this.feedback.view(tools);
  }

  /** One pattern with its evidence, reliability and confidence. Errors as patternFeedback. */
  pattern(target: unknown): PatternView {
    return this.feedback.pattern(target);
  }

  /** `pattern(target)` with the verdicts people gave it, oldest first (the newest 100). */
  patternDetail(target: unknown): PatternDetail {
    return this.feedback.detail(target);
  }

  /** The current model's `top` most observed transitions and the tools they join (graph-view.ts), `{top?}`. */
  graphView(request: unknown = {}): GraphView {
    const { top } = parseGraphRequest(request);
    return graphView(this.builder.current(), top);
  }

  /** A tool's successors and predecessors with their figures and pattern confidences (graph-view.ts), `{limit?}`. */
  toolNeighbours(name: unknown, request: unknown = {}): ToolNeighbours {
    if (typeof name !== 'string') throw new ToolgraphError('INVALID_INPUT', 'graph tool: expected the tool name to be a string');
    const { limit } = parseNeighboursRequest(request);
    return toolNeighbours(this.builder.current(), name, limit, (tools) => this.feedback.view(tools));
  }

  /**
   * Reviewed patterns (every one with human feedback) and the most observed transitions
   * (`limit`, default 100; only those out of `from` when given), most observed first.
   */
  patterns(request: unknown = {}): readonly PatternView[] {
    return this.feedback.patterns(request);
  }

  /** Refits the default profile's weights on every recorded trace, then rebuilds. */
  fit(options: FitOptions = {}): FitReport {
    return this.fitOn(this.traces, options);
  }

  /**
   * fit() on the given traces instead of those ingested into this object (a durable store's).
   * One path for both: the fold models must score with the embedding queries will use.
   */
  fitOn(traces: readonly Trace[], options: FitOptions = {}): FitReport {
    const started = performance.now();
    const report = fitWeights(traces, this.catalog, { seed: this.seed, embedding: this.embeddings.embedding, ...options });
    this.installWeights(report, {
      traces: traces.length,
      fittedAt: Date.now(),
      ms: Math.round(performance.now() - started),
      kept: { next: report.next.selected, nextNoIntent: report.nextNoIntent.selected, search: report.search.selected },
    });
    this.builder.rebuild();
    return report;
  }

  /** The learned graph with its signals, as plain data (for JSON and GraphML export). */
  exportGraph(): ExportedGraph {
    return exportGraph(this.graph, this.builder.rebuild().graph);
  }
}
