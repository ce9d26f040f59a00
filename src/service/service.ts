/**
 * The contract every face (CLI, HTTP, MCP) codes against. Two implementations: the in-memory
 * Toolgraph facade (toolgraph.ts, wrapped by `inMemoryService`) and the durable one over a store
 * (PGlite or PostgreSQL). Every method is asynchronous because the durable one acknowledges an
 * ingestion only once it is committed, and an embedder behind search may be a remote endpoint.
 */
import type { FitReport } from '../recommend/fit-weights.js';
import type { Prediction } from '../recommend/predict-next.js';
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { describeCapability, type CapabilityRanking, type ExpandedCapability } from '../recommend/rank-capabilities.js';
import type { SearchResult } from '../recommend/search-tools.js';
import type { ContributionResult } from '../scoring/contribute-trace.js';
import { parsePatternDecision } from '../schema/pattern-requests.js';
import type { ToolInfo } from '../schema/types.js';
import type { GraphView, ToolNeighbours } from './graph-view.js';
import type { PatternDetail, PatternView } from './pattern-view.js';
import type { IngestResult, ScoreOptions, SetToolsOptions, SetToolsResult, Toolgraph, ToolgraphStats } from './toolgraph.js';
import { MemorySessionRows } from './memory-session-rows.js';
import { createSessions, type SessionServiceOptions, type Sessions } from './sessions.js';
import type { DagRequestInput, PredictRequestInput, SearchRequestInput } from '../schema/requests.js';
import type { CapabilityRequestInput } from '../schema/capability.js';

/**
 * What `/healthz` reports: `ok`, or `degraded` with the reason while the store cannot be
 * reached (the in-memory service has none and is always ok).
 */
export type ServiceHealth = { readonly status: 'ok' } | { readonly status: 'degraded'; readonly reason: string };

export interface ToolgraphService {
  /**
   * Adds or replaces catalogue entries (MCP tools/list entries or dataset tools, a tools/list
   * result, an OpenAPI 3 document). Entries that cannot be read are left out and listed in
   * `skipped` (none is written when `strict`). Resolves once they are durable and a model holds
   * them: the next query finds them.
   */
  setTools(input: unknown, options?: SetToolsOptions): Promise<SetToolsResult>;
  tools(): Promise<readonly ToolInfo[]>;
  /**
   * Adds or replaces registered capabilities by id (an array or `{capabilities: [...]}`); every
   * tool must be known. Resolves once they are durable and a model holds them: the next query
   * ranks them.
   */
  setCapabilities(input: unknown): Promise<{ readonly capabilities: number; readonly version: number }>;
  /** Every capability of the current model: registered ones, then learned ones. */
  capabilities(): Promise<readonly ExpandedCapability[]>;
  /** Ranks capabilities for an intent and/or context tools (spec 003 section 4.4). */
  rankCapabilities(request: CapabilityRequestInput): Promise<CapabilityRanking>;
  /** A capability's tools (in run order when ordered); NOT_FOUND for an unknown id. */
  expandCapability(id: string): Promise<ExpandedCapability>;
  /** One trace or an array of them, any accepted format; resolves once they are durable. */
  ingest(input: unknown): Promise<IngestResult>;
  predictNext(request: PredictRequestInput): Promise<Prediction>;
  searchTools(request: SearchRequestInput): Promise<SearchResult>;
  /** A workflow (DAG) of tools for an intent. */
  suggestDag(request: DagRequestInput): Promise<DagSuggestion>;
  /** Reviewed patterns and the most observed transitions, with evidence and confidence. */
  patterns(request?: unknown): Promise<readonly PatternView[]>;
  /** The pattern with this id (as `patterns` reported it) and its verdicts; NOT_FOUND for an unknown id. */
  pattern(id: string): Promise<PatternDetail>;
  /** A person approves or rejects the pattern with this id (as `patterns` reported it). */
  patternFeedback(id: string, body: unknown): Promise<PatternView>;
  /** The learned graph's strongest transitions and their tools, `{top?}` (graph-view.ts). */
  graph(request?: unknown): Promise<GraphView>;
  /** One tool's successors and predecessors, `{limit?}`; UNKNOWN_TOOL for a tool the graph lacks. */
  toolNeighbours(name: string, request?: unknown): Promise<ToolNeighbours>;
  /** Trace value (specs 000/001) with its breakdown; contributes to the novelty memory as asked. */
  score(trace: unknown, options?: ScoreOptions): Promise<ContributionResult>;
  fit(): Promise<FitReport>;
  stats(): Promise<ToolgraphStats>;
  /** Whether the service can do its work now: its store answers (see ServiceHealth). */
  health(): Promise<ServiceHealth>;
  /** Budget-controlled workflow sessions (spec 002) over this service's graph (sessions.ts). */
  readonly sessions: Sessions;
  /** Commits what is pending and releases resources. Idempotent. */
  close(): Promise<void>;
}

/** The in-memory facade behind the service contract (nothing survives a restart). */
export function inMemoryService(tg: Toolgraph, options: { readonly sessions?: SessionServiceOptions } = {}): ToolgraphService {
  // A catalogue or capability write is answered once a model holds it, as the durable service does.
  const heldBy = async <T>(result: T): Promise<T> => {
    await tg.modelWithWrites();
    return result;
  };
  const service: Omit<ToolgraphService, 'sessions'> = {
    setTools: async (input, options) => heldBy(tg.setTools(input, options)),
    tools: async () => tg.tools(),
    setCapabilities: async (input) => heldBy(tg.setCapabilities(input)),
    capabilities: async () => tg.capabilities().map(describeCapability),
    rankCapabilities: async (request) => tg.rankCapabilities(request),
    expandCapability: async (id) => tg.expandCapability(id),
    ingest: async (input) => tg.ingest(input),
    predictNext: async (request) => {
      await tg.prepareEmbeddings(textOf(request, 'intent'));
      return tg.predictNext(request);
    },
    searchTools: async (request) => {
      await tg.prepareEmbeddings(textOf(request, 'query'));
      return tg.searchTools(request);
    },
    suggestDag: async (request) => {
      await tg.prepareEmbeddings(textOf(request, 'intent'));
      return tg.suggestDag(request);
    },
    patterns: async (request) => tg.patterns(request ?? {}),
    pattern: async (id) => tg.patternDetail({ id }),
    patternFeedback: async (id, body) => patternFeedback(tg, id, body),
    graph: async (request) => tg.graphView(request ?? {}),
    toolNeighbours: async (name, request) => tg.toolNeighbours(name, request ?? {}),
    score: (trace, options) => tg.score(trace, options),
    fit: async () => tg.fit(),
    stats: async () => tg.stats(),
    health: async () => ({ status: 'ok' }),
    close: async () => {
      await sessions.close();
      tg.close();
    },
  };
  const calibration = {
    current: async () => ({ traces: tg.stats().traces, weights: tg.fittedWeights }),
    read: async () => ({ traces: tg.recordedTraces, catalog: new Map(tg.tools().map((t) => [t.name, t])) }),
  };
  const sessions = createSessions({ recommender: service, rows: new MemorySessionRows(), calibration }, options.sessions);
  return { ...service, sessions };
}

/** The request's text field to embed ahead of a query, when it is a string (validation comes later). */
export function textOf(request: unknown, field: string): string[] {
  const value = typeof request === 'object' && request !== null ? Object.getOwnPropertyDescriptor(request, field)?.value : undefined;
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/** Feedback on the pattern `id` with a `{decision, at?}` body: what both service implementations do. */
export function patternFeedback(tg: Toolgraph, id: string, body: unknown): PatternView {
  const { decision, at } = parsePatternDecision(body);
  return tg.patternFeedback({ id }, decision, at === undefined ? {} : { at });
}
