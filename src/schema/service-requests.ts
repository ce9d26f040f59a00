/**
 * Request and response shapes of the network faces (HTTP and MCP) that are not already library
 * requests (predict and search live in requests.ts). One source for three uses: validation of
 * the score request, the MCP tools' input and output schemas, and the OpenAPI document.
 *
 * Response schemas describe what the service returns; they are documentation (OpenAPI, MCP
 * `outputSchema`), never applied to the hot path. Signal and breakdown maps stay open records so
 * adding a signal is not a breaking change for a client that validates against them.
 */
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';
import { parseWith } from './issues.js';
import { compactTraceSchema, reasoningTraceSchema } from './trace.js';

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * Any JSON object, as a JSON Schema can say it. Traces are validated by the service (format
 * detection, limits, depth); this only keeps non-objects out at the door.
 */
export const traceObjectSchema = z
  .record(z.string(), z.unknown())
  .describe('A trace: a ReasoningTrace (spec 000) or a compact trace {id?, intent?, domain?, tools: [name | {name, ok}], success?, timestamp?}');

/** POST /v1/score, MCP score_trace. */
export const scoreRequestSchema = z.strictObject({
  trace: traceObjectSchema.describe('A ReasoningTrace (spec 000)'),
  contribute: z
    .boolean()
    .optional()
    .describe('Add the trace to the novelty memory whatever its value (default: only at or above the threshold)'),
  threshold: z.number().min(0).max(1).optional().describe('Value at or above which the trace is contributed (default 0.75)'),
});

export type ScoreRequest = z.output<typeof scoreRequestSchema>;

export function parseScoreRequest(input: unknown): ScoreRequest {
  return parseWith(scoreRequestSchema, input, 'score');
}

/** MCP record_trace: one trace per call. */
export const recordTraceRequestSchema = z.strictObject({ trace: traceObjectSchema });

/** MCP expand_capability. */
export const expandCapabilityRequestSchema = z.strictObject({ id: z.string().describe('A capability id, as rank_capabilities or suggest_dag reported it') });

/** What POST /v1/traces accepts as JSON (NDJSON: one of these per line), for the OpenAPI document. */
export const traceInputSchema = z.union([reasoningTraceSchema, compactTraceSchema]);
export const tracesBodySchema = z.union([traceInputSchema, z.array(traceInputSchema)]);

/** PUT /v1/tools, for the OpenAPI document: an array of tools, a tools/list result, or an OpenAPI 3 document. */
export const catalogBodySchema = z.union([
  z.array(z.record(z.string(), z.unknown())).describe('Tools: MCP tools/list entries or dataset tools.jsonl lines, mixed'),
  z.looseObject({ tools: z.array(z.record(z.string(), z.unknown())) }).describe('An MCP tools/list result'),
  z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()).optional() }).describe('An OpenAPI 3 document: each operation is a tool'),
]);

// ---------------------------------------------------------------------------------------------
// Responses

const rankedItemSchema = z.object({
  tool: z.string(),
  kind: z.literal('tool'),
  score: z.number(),
  signals: z.record(z.string(), z.number()).describe('Per-signal breakdown of the score'),
});

/** A predicted tool answered as the capability it starts (capability-items.ts): one item per tool. */
const capabilityItemSchema = z.looseObject({
  kind: z.literal('capability'),
  capability: z.string(),
  tool: z.string().describe('The predicted tool that starts what is left of the capability; the item stands in its place'),
  tools: z.array(z.string()),
  score: z.number().describe("The tool's probability, as its tool item would have"),
  capabilityScore: z.number().describe("The capability's own passive-suggestion score"),
  signals: z.record(z.string(), z.number()),
});

/** With kind `empty` in the three answers: the store knows no tool, and how to fill it. */
const emptyHint = z.string().optional().describe("With kind 'empty': the store has no trace and no catalogue, and how to fill it");

export const predictionSchema = z.object({
  kind: z.enum(['prediction', 'cold-start', 'empty']).describe("'cold-start': no trace yet, intent and popularity only; 'empty': no trace and no catalogue, no items"),
  profile: z.enum(['default', 'seed']),
  version: z.number().describe('Graph version of the model that answered'),
  items: z.array(z.union([rankedItemSchema, capabilityItemSchema])).describe('At most k items, one per tool'),
  unknownContext: z.array(z.string()).describe('Context tools the graph has never seen, ignored'),
  hint: emptyHint,
});

const searchItemSchema = rankedItemSchema.extend({
  reliability: z.number().describe("The factor the tool's outcomes put on its probability, in (0, 1]; 1 where nothing says otherwise"),
});

export const searchResultSchema = z.object({
  kind: z.enum(['results', 'no-match', 'empty']).describe("'no-match': nothing fits; items are only the nearest tools. 'empty': no trace and no catalogue, no items"),
  profile: z.enum(['default', 'seed']).describe("'seed': spec 003 section 1 as written, score in [0, 1]; 'default': fitted, score a probability"),
  version: z.number(),
  items: z.array(searchItemSchema),
  coverage: z.number().describe('Best share of the query a returned tool accounts for'),
  similarity: z.number().optional().describe('How much the query resembles the nearest recorded request, where a fitted no-match rule reads it'),
  unmatched: z.array(z.string()).optional().describe('With no-match: the query words no returned tool explains'),
  hint: z.string().optional().describe("With no-match: what fell short; with empty: how to fill the store"),
  unknownContext: z.array(z.string()).describe('Context tools the graph has never seen, ignored'),
});

export const dagSchema = z.object({
  kind: z.enum(['workflow', 'no-match', 'empty']).describe("no-match: nothing fits the intent (as search_tools says); empty: no trace and no catalogue; both: no nodes, edges or layers, status reject"),
  nodes: z.array(
    z.union([
      z.object({ id: z.string(), kind: z.literal('tool'), tool: z.string(), confidence: z.number() }),
      z.object({ id: z.string(), kind: z.literal('capability'), capability: z.string(), tools: z.array(z.string()), confidence: z.number() }),
    ]),
  ),
  edges: z.array(z.object({ from: z.string(), to: z.string(), confidence: z.number(), source: z.enum(['data-flow', 'sequence']) })),
  layers: z.array(z.array(z.string())).describe('Node ids by layer: a layer depends only on earlier ones'),
  confidence: z.number(),
  status: z.enum(['ok', 'warn', 'reject']),
  warnings: z.array(z.string()),
  version: z.number(),
  hint: emptyHint,
});

export const patternSchema = z.looseObject({
  id: z.string(),
  kind: z.string(),
  tools: z.array(z.string()),
  observations: z.number(),
  successes: z.number(),
  failures: z.number(),
  approvals: z.number(),
  rejections: z.number(),
  reliability: z.looseObject({ mean: z.number(), excluded: z.boolean() }).nullable(),
  confidence: z.looseObject({}),
});

export const patternsResponseSchema = z.object({ patterns: z.array(patternSchema) });

export const ingestResultSchema = z.object({
  ingested: z.number().describe('Traces newly recorded (a caller id seen before is a retry and is skipped)'),
  version: z.number(),
});

export const contributionSchema = z.object({
  breakdown: z
    .looseObject({
      score: z.number(),
      composite: z.number(),
      dimensions: z.record(z.string(), z.number()),
      profile: z.string(),
      domain: z.string(),
    })
    .describe('The value and every dimension, weights, overrides and novelty source'),
  contributed: z.boolean(),
  cached: z.boolean(),
  reason: z.enum(['explicit', 'threshold', 'below-threshold']),
});

const keptRuleSchema = z.enum(['fitted', 'backoff', 'prior']);

/** The parts a model is built from, each of which can be stale (service/model-versions.ts). */
export const MODEL_PARTS = ['graph', 'weights', 'catalog', 'capabilities', 'toolVectors', 'learning', 'signals'] as const;
export type ModelPart = (typeof MODEL_PARTS)[number];

export const statsSchema = z.object({
  tools: z.number(),
  transitions: z.number(),
  traces: z.number(),
  version: z.number(),
  modelVersion: z.number(),
  rebuildMs: z.number(),
  stale: z
    .array(z.enum(MODEL_PARTS))
    .describe("What the model answering queries lacks and its next rebuild brings (traces since: 'graph'; 'weights', 'catalog', 'capabilities', 'toolVectors', 'learning', 'signals'); empty when it is current"),
  offThreadBuilds: z.number().describe('Rebuilds whose graph snapshot a worker thread finished'),
  slicedBuilds: z.number().describe('Rebuilds built in stages on the serving thread, the event loop turning between them'),
  recentTransitions: z.number().describe('Tools and context pairs whose successes next-tool predictions read live until the next rebuild'),
  recentIntents: z.number().describe("Intent records the model's text lacks, which predictions, search and DAG suggestion read live until the next rebuild"),
  fit: z
    .object({
      state: z.enum(['prior', 'fitted']).describe("'prior' (the simple rules: BM25 for search, the back-off Markov rule for next tool) until a fit's weights are in force"),
      traces: z.number().describe('Stored traces the weights in force were fitted on (0 for the prior)'),
      fittedAt: z.string().nullable().describe('When that fit ended (ISO 8601)'),
      ms: z.number().describe('How long that fit took'),
      kept: z
        .object({ next: keptRuleSchema, nextNoIntent: keptRuleSchema, search: keptRuleSchema })
        .nullable()
        .describe("Per task, what the fit kept by the one-standard-error rule: its fitted ranker, its simple rule ('backoff'), or the prior for want of queries"),
      running: z.boolean().describe('A fit is under way on this instance'),
      fits: z.number().describe('Fits this instance finished and installed since it started'),
      failures: z.number().describe('Fits this instance attempted that failed'),
      totalMs: z.number().describe('Time those fits took in all'),
    })
    .describe('The weights in force and the fits behind them'),
});

export const toolInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
  params: z.array(z.object({ name: z.string(), type: z.string(), description: z.string(), required: z.boolean() })),
  outputs: z.array(z.string()).optional().describe('Fields the tool returns, as its catalogue declared them: the data flow DAG suggestion reads'),
  outputTypes: z.array(z.string()).optional().describe('Named types the tool returns (an output schema\'s $ref or object title): a tool returning an Airport feeds a parameter of type Airport'),
});

export const toolsResponseSchema = z.object({ tools: z.array(toolInfoSchema) });

export const skippedEntrySchema = z.object({
  index: z.number().optional().describe('0-based position of the entry in the array, or among the OpenAPI operations'),
  line: z.number().optional().describe('1-based line of a JSON Lines catalogue'),
  at: z.string().optional().describe('Path of the entry in the body, e.g. tools[3] or paths["/pets"].get'),
  reason: z.string().describe('What cannot be read, with the path of the field'),
});

export const setToolsResponseSchema = z.object({
  tools: z.number().describe('Entries the catalogue holds now'),
  added: z.number().describe('Entries of this request the catalogue did not have'),
  version: z.number(),
  skipped: z.array(skippedEntrySchema).describe('Entries that could not be read (no usable name, ...), left out while the others were written'),
});

export const capabilityViewSchema = z.object({
  id: z.string(),
  tools: z.array(z.string()).describe('Member tools, in run order when ordered'),
  ordered: z.boolean(),
  description: z.string(),
  code: z.string().optional(),
  source: z.enum(['registered', 'learned']),
});

export const capabilitiesResponseSchema = z.object({ capabilities: z.array(capabilityViewSchema) });

export const setCapabilitiesResponseSchema = z.object({
  capabilities: z.number().describe('Registered capabilities now'),
  version: z.number(),
});

export const capabilityRankingSchema = z.object({
  mode: z.enum(['active-search', 'passive-suggestion', 'exploration']).describe('spec 003 section 4.4: intent given, context only, or neither'),
  items: z.array(
    z.looseObject({
      kind: z.literal('capability'),
      capability: z.string(),
      tools: z.array(z.string()),
      ordered: z.boolean(),
      description: z.string(),
      source: z.enum(['registered', 'learned']),
      score: z.number(),
      relevance: z.number(),
      structuralBoost: z.number(),
      reliability: z.number(),
      confidence: z.number().nullable(),
      cluster: z.number(),
    }),
  ),
  unknownContext: z.array(z.string()).describe('Context tools the graph has never seen, ignored'),
});

/**
 * Codes the HTTP face adds to the library's: a missing or wrong token, a body in another format,
 * a browser page from an origin not allowed (origin.ts).
 */
export const HTTP_ERROR_CODES = [...ERROR_CODES, 'UNAUTHORIZED', 'UNSUPPORTED_MEDIA_TYPE', 'FORBIDDEN_ORIGIN', 'FORBIDDEN_HOST'] as const;
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

export const errorResponseSchema = z.object({
  error: z.object({
    code: z.enum(HTTP_ERROR_CODES),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional(),
  }),
});
