/**
 * Reads of the learned graph for people (the dashboard): `GET /v1/graph`, its strongest edges
 * with the signals that colour, size and shade them; `GET /v1/graph/tools/:name`, one tool's
 * successors and predecessors; `GET /v1/patterns/:id`, one pattern with its feedback log. The
 * requests are URL query parameters, so their numbers arrive as text and are coerced here.
 */
import { z } from 'zod';
import { parseWith } from './issues.js';
import { patternSchema } from './service-requests.js';

/** Most edges one graph read sends: a browser draws this many and stays responsive. */
export const MAX_GRAPH_EDGES = 50_000;
/** Edges a graph read sends when the request names no `top`. */
export const DEFAULT_GRAPH_EDGES = 2_000;
/** Most successors (and predecessors) a neighbourhood read lists. */
export const MAX_NEIGHBOURS = 1_000;

// A query parameter is text: '12' is 12, '' and 'x' are not numbers, a repeated one is an array.
const count = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const graphRequestSchema = z.strictObject({
  /** The strongest transitions (by observations) to send, with the tools they join. */
  top: count(MAX_GRAPH_EDGES, DEFAULT_GRAPH_EDGES),
});

export const neighboursRequestSchema = z.strictObject({
  /** Successors, and predecessors, to list: the most observed first. */
  limit: count(MAX_NEIGHBOURS, 20),
});

export function parseGraphRequest(input: unknown): z.output<typeof graphRequestSchema> {
  return parseWith(graphRequestSchema, input ?? {}, 'graph');
}

export function parseNeighboursRequest(input: unknown): z.output<typeof neighboursRequestSchema> {
  return parseWith(neighboursRequestSchema, input ?? {}, 'graph tool');
}

// ---------------------------------------------------------------------------------------------
// Responses (documentation: OpenAPI)

export const graphNodeSchema = z.object({
  name: z.string(),
  /** Louvain community of the current model. */
  community: z.number(),
  /** Spectral co-cluster of the tool (tools x capabilities), -1 for a tool in no capability. */
  cluster: z.number(),
  pagerank: z.number(),
  calls: z.number().describe('Calls in successful traces'),
});

export const graphEdgeSchema = z.object({
  from: z.string(),
  to: z.string(),
  count: z.number().describe('Times observed, successes and failures'),
  probability: z.number().describe('P(to | from) over successful transitions: the transition signal'),
  reliability: z.number().describe("Mean of the edge's Beta posterior of success, decayed"),
});

export const graphViewSchema = z.object({
  version: z.number().describe('Graph version of the model read'),
  tools: z.number().describe('Tools in the graph'),
  transitions: z.number().describe('Transitions in the graph'),
  communities: z.number(),
  clusters: z.number().describe('Spectral co-clusters (0 without capabilities)'),
  nodes: z.array(graphNodeSchema).describe('Every tool when every transition is sent, else the tools the sent transitions join'),
  edges: z.array(graphEdgeSchema).describe('The `top` most observed transitions, most observed first'),
});

export const neighbourSchema = graphEdgeSchema.extend({
  pattern: z.object({ id: z.string(), composite: z.number(), tier: z.string() }),
});

export const toolNeighboursSchema = z.object({
  tool: graphNodeSchema,
  successors: z.array(neighbourSchema),
  predecessors: z.array(neighbourSchema),
  successorCount: z.number(),
  predecessorCount: z.number(),
});

export const patternDetailSchema = patternSchema.extend({
  feedback: z.array(z.object({ at: z.number(), decision: z.enum(['approve', 'reject']) })).describe("People's verdicts, oldest first (the newest 100)"),
});
