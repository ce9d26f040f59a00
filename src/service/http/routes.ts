/**
 * The `/v1` API as a table: each row is one endpoint over one `ToolgraphService` method. The
 * server (server.ts) mounts the rows, checks auth and content type from them, and the OpenAPI
 * document (openapi.ts) is generated from the same rows, so the two cannot drift.
 *
 * Adding an endpoint is one row. Inputs are validated with zod by the service (predict, search,
 * traces, catalogue) or here (score); a row never trusts its body.
 */
import type { z } from 'zod';
import { parseScoreRequest } from '../../schema/service-requests.js';
import {
  capabilitiesResponseSchema,
  capabilityRankingSchema,
  capabilityViewSchema,
  catalogBodySchema,
  contributionSchema,
  dagSchema,
  ingestResultSchema,
  patternSchema,
  patternsResponseSchema,
  predictionSchema,
  scoreRequestSchema,
  searchResultSchema,
  setCapabilitiesResponseSchema,
  setToolsResponseSchema,
  statsSchema,
  toolsResponseSchema,
  tracesBodySchema,
} from '../../schema/service-requests.js';
import { capabilityInputListSchema, capabilityRequestSchema } from '../../schema/capability.js';
import { graphRequestSchema, graphViewSchema, neighboursRequestSchema, patternDetailSchema, toolNeighboursSchema } from '../../schema/graph-requests.js';
import { patternDecisionSchema, patternsRequestSchema } from '../../schema/pattern-requests.js';
import { dagRequestSchema, predictRequestSchema, searchRequestSchema, type DagRequestInput, type PredictRequestInput, type SearchRequestInput } from '../../schema/requests.js';
import { deletedSessionSchema, sessionViewSchema, startSessionRequestSchema, stepRequestSchema, stepResultSchema, telemetryEventSchema } from '../../schema/session-requests.js';
import { toJsonLines } from '../../engine/telemetry.js';
import type { ToolgraphService } from '../service.js';
import type { HttpMetrics } from './metrics.js';

/**
 * The endpoints server.ts mounts beside the `/v1` table, for `toolgraph serve --help` (a test
 * asks a live server each of them).
 */
export const SERVICE_ENDPOINTS: readonly { readonly method: string; readonly url: string; readonly summary: string }[] = [
  { method: 'GET', url: '/', summary: 'The dashboard (docs/dashboard.md): the graph, answers with their breakdowns, patterns, sessions, health; its files under /assets/.' },
  { method: 'GET', url: '/healthz', summary: 'Whether the service is up (503 once shutting down).' },
  { method: 'GET', url: '/metrics', summary: 'Prometheus metrics: requests, durations, graph size, rebuilds.' },
  { method: 'GET', url: '/v1/openapi.json', summary: 'The OpenAPI document of the /v1 API.' },
  { method: 'POST', url: '/mcp', summary: 'The MCP server over Streamable HTTP (stateless JSON-RPC), with the MCP tools below.' },
];

/** Body limits. Queries are small; traces and catalogues may be large, up to a point. */
export const QUERY_BODY_LIMIT = 1024 * 1024;
export const WRITE_BODY_LIMIT = 8 * 1024 * 1024;

export interface RouteContext {
  readonly service: ToolgraphService;
  readonly metrics: HttpMetrics;
}

export interface RouteInput {
  readonly body: unknown;
  readonly params: Readonly<Record<string, string>>;
  /** The URL's query parameters, for a route that declares `query` (`{}` otherwise). */
  readonly query: unknown;
}

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path syntax: `/v1/patterns/:id/feedback`. */
  readonly url: string;
  readonly summary: string;
  /** Changes state: needs the bearer token when one is configured. */
  readonly write: boolean;
  /**
   * The request body: its schema for the OpenAPI document, whether NDJSON is accepted, its size
   * limit, and whether it may be left out (every field optional: a bodiless request is `{}`).
   */
  readonly body?: { readonly schema: z.ZodType; readonly ndjson?: boolean; readonly limit: number; readonly optional?: boolean };
  /** The URL query parameters it reads (an object schema, for the OpenAPI document; the service validates them). */
  readonly query?: z.ZodObject;
  readonly response: z.ZodType;
  /** The success status (default 200). */
  readonly status?: 201;
  /** The answer is NDJSON text (one `response` per line) rather than one JSON value. */
  readonly ndjson?: boolean;
  handle(context: RouteContext, input: RouteInput): Promise<unknown>;
}

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    url: '/v1/traces',
    summary: 'Record one trace, an array of traces (JSON), or a batch (NDJSON, one trace per line). All or nothing: a bad trace rejects the batch.',
    write: true,
    body: { schema: tracesBodySchema, ndjson: true, limit: WRITE_BODY_LIMIT },
    response: ingestResultSchema,
    async handle({ service, metrics }, { body }) {
      const result = await service.ingest(body);
      metrics.ingestion(result.ingested, result.version);
      return result;
    },
  },
  {
    method: 'POST',
    url: '/v1/predict',
    summary: 'Rank the next tool after the tools called so far (and the task intent).',
    write: false,
    body: { schema: predictRequestSchema, limit: QUERY_BODY_LIMIT },
    response: predictionSchema,
    // A body off the wire, checked by the service against the request's schema (INVALID_INPUT, 400).
    handle: ({ service }, { body }) => service.predictNext(body as PredictRequestInput),
  },
  {
    method: 'POST',
    url: '/v1/search',
    summary: 'Rank the tools that fit a request in words.',
    write: false,
    body: { schema: searchRequestSchema, limit: QUERY_BODY_LIMIT },
    response: searchResultSchema,
    handle: ({ service }, { body }) => service.searchTools(body as SearchRequestInput),
  },
  {
    method: 'POST',
    url: '/v1/dag',
    summary: 'Suggest a workflow for a task: tools with dependencies, layers that can run in parallel, confidences and warnings.',
    write: false,
    body: { schema: dagRequestSchema, limit: QUERY_BODY_LIMIT },
    response: dagSchema,
    handle: ({ service }, { body }) => service.suggestDag(body as DagRequestInput),
  },
  {
    method: 'POST',
    url: '/v1/patterns',
    summary: 'Reviewed patterns and the most observed transitions ({from?, limit?}), with evidence, reliability and confidence (spec 004).',
    write: false,
    body: { schema: patternsRequestSchema, limit: QUERY_BODY_LIMIT, optional: true },
    response: patternsResponseSchema,
    handle: async ({ service }, { body }) => ({ patterns: await service.patterns(body ?? {}) }),
  },
  {
    method: 'POST',
    url: '/v1/patterns/:id/feedback',
    summary: "A person's verdict on a pattern ({decision: 'approve' | 'reject', at?}): its confidence and the ranking respond at once.",
    write: true,
    body: { schema: patternDecisionSchema, limit: QUERY_BODY_LIMIT },
    response: patternSchema,
    handle: ({ service }, { body, params }) => service.patternFeedback(params['id']!, body),
  },
  {
    method: 'GET',
    url: '/v1/patterns/:id',
    summary: 'One pattern (as POST /v1/patterns reports it) with the verdicts people gave it, oldest first.',
    write: false,
    response: patternDetailSchema,
    handle: ({ service }, { params }) => service.pattern(params['id']!),
  },
  {
    method: 'POST',
    url: '/v1/score',
    summary: 'The value of a ReasoningTrace (specs 000/001) with its breakdown; contributes it to the novelty memory at or above the threshold.',
    // It may add the trace to the novelty memory, which changes later scores.
    write: true,
    body: { schema: scoreRequestSchema, limit: WRITE_BODY_LIMIT },
    response: contributionSchema,
    handle({ service }, { body }) {
      const { contribute, threshold } = parseScoreRequest(body);
      // The trace as sent: zod's record drops an own `__proto__` key the trace schema must see.
      return service.score((body as { trace: unknown }).trace, {
        ...(contribute !== undefined ? { contribute } : {}),
        ...(threshold !== undefined ? { threshold } : {}),
      });
    },
  },
  {
    method: 'GET',
    url: '/v1/tools',
    summary: 'The tool catalogue: every tool the graph knows, with its description and parameters.',
    write: false,
    response: toolsResponseSchema,
    handle: async ({ service }) => ({ tools: await service.tools() }),
  },
  {
    method: 'PUT',
    url: '/v1/tools',
    summary: 'Add or replace catalogue entries (an array of tools, an MCP tools/list result, or an OpenAPI 3 document). Tools not named are kept. An entry that cannot be read is left out and listed in `skipped`; 400 when none can be read.',
    write: true,
    body: { schema: catalogBodySchema, limit: WRITE_BODY_LIMIT },
    response: setToolsResponseSchema,
    handle: ({ service }, { body }) => service.setTools(body),
  },
  {
    method: 'GET',
    url: '/v1/capabilities',
    summary: 'Every capability of the current model: registered ones, then ones learned from traces.',
    write: false,
    response: capabilitiesResponseSchema,
    handle: async ({ service }) => ({ capabilities: await service.capabilities() }),
  },
  {
    method: 'PUT',
    url: '/v1/capabilities',
    summary: 'Add or replace capabilities by id (an array, or {capabilities: [...]}); every tool must be known. Capabilities not named are kept.',
    write: true,
    body: { schema: capabilityInputListSchema, limit: WRITE_BODY_LIMIT },
    response: setCapabilitiesResponseSchema,
    handle: ({ service }, { body }) => service.setCapabilities(body),
  },
  {
    method: 'POST',
    url: '/v1/capabilities/rank',
    summary: 'Rank capabilities for an intent and/or the tools called so far ({intent?, context?, k?, boost?}).',
    write: false,
    body: { schema: capabilityRequestSchema, limit: QUERY_BODY_LIMIT, optional: true },
    response: capabilityRankingSchema,
    handle: ({ service }, { body }) => service.rankCapabilities(body ?? {}),
  },
  {
    method: 'GET',
    url: '/v1/capabilities/:id',
    summary: "A capability's tools, in run order when it is ordered (for a DAG node that stands for it).",
    write: false,
    response: capabilityViewSchema,
    handle: ({ service }, { params }) => service.expandCapability(params['id']!),
  },
  {
    method: 'POST',
    url: '/v1/sessions',
    summary:
      "Start a workflow session for a task ({intent, mode?: 'adaptive' | 'deterministic', budgetCents?}): its plan (a suggested DAG) and its budget. The graph answers its steps at no cost; a model tier only the ones it is unsure of, within the budget.",
    write: true,
    status: 201,
    body: { schema: startSessionRequestSchema, limit: QUERY_BODY_LIMIT },
    response: sessionViewSchema,
    handle: async ({ service }, { body }) => (await service.sessions.startSession(body)).view(),
  },
  {
    method: 'GET',
    url: '/v1/sessions/:id',
    summary: 'A session: its plan and where it is, its steps, its answer for the next step, its budget.',
    write: false,
    response: sessionViewSchema,
    handle: async ({ service }, { params }) => (await service.sessions.session(params['id']!)).view(),
  },
  {
    method: 'POST',
    url: '/v1/sessions/:id/steps',
    summary:
      "Report a session's step ({tool, success?, response?}): its evaluation (accept or reject), deviation (ON_TOPIC, VAGUE, OFF_TOPIC), the planner's adaptation (one AdaptCommand or null), the next tools, whether a model was asked, and the budget.",
    write: true,
    body: { schema: stepRequestSchema, limit: QUERY_BODY_LIMIT },
    response: stepResultSchema,
    handle: ({ service }, { body, params }) => service.sessions.step(params['id']!, body),
  },
  {
    method: 'GET',
    url: '/v1/sessions/:id/telemetry',
    summary: "A session's telemetry, one event per line (NDJSON): {timestamp, level, event, sessionId, data}.",
    write: false,
    ndjson: true,
    response: telemetryEventSchema,
    handle: async ({ service }, { params }) => toJsonLines(await service.sessions.telemetry(params['id']!)),
  },
  {
    method: 'DELETE',
    url: '/v1/sessions/:id',
    summary: 'End a session: it and its telemetry are deleted.',
    write: true,
    response: deletedSessionSchema,
    handle: ({ service }, { params }) => service.sessions.deleteSession(params['id']!),
  },
  {
    method: 'GET',
    url: '/v1/graph',
    summary: "The learned graph for drawing: the `top` most observed transitions (default 2,000) with P(to | from) and reliability, and the tools they join with community, spectral cluster and PageRank.",
    write: false,
    query: graphRequestSchema,
    response: graphViewSchema,
    handle: ({ service }, { query }) => service.graph(query),
  },
  {
    method: 'GET',
    url: '/v1/graph/tools/:name',
    summary: "A tool's successors and predecessors (`limit` of each, default 20), most observed first, with P(to | from), reliability and each transition's pattern confidence.",
    write: false,
    query: neighboursRequestSchema,
    response: toolNeighboursSchema,
    handle: ({ service }, { params, query }) => service.toolNeighbours(params['name']!, query),
  },
  {
    method: 'GET',
    url: '/v1/stats',
    summary: 'Graph size, versions and the last rebuild time.',
    write: false,
    response: statsSchema,
    handle: ({ service }) => service.stats(),
  },
];
