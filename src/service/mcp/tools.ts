/**
 * The MCP tools as a table, each one a thin call into `ToolgraphService`. server.ts registers
 * the rows with the SDK; adding a tool is one row.
 *
 * Inputs are zod schemas (listed to clients as JSON Schema and checked by the SDK before a call),
 * and the service validates again with its own schemas. Results are structured (`structuredContent`
 * matching `outputSchema`) with the same JSON as text for clients that only read text. Errors are
 * tool errors (`isError: true`) whose text is the HTTP error body `{error: {code, message}}`, so
 * an agent sees what was wrong and the session goes on.
 */
import type { z } from 'zod';
import { dagRequestBaseSchema, predictRequestSchema, searchRequestSchema } from '../../schema/requests.js';
import { capabilityRequestSchema } from '../../schema/capability.js';
import {
  capabilityRankingSchema,
  capabilityViewSchema,
  dagSchema,
  expandCapabilityRequestSchema,
  contributionSchema,
  ingestResultSchema,
  parseScoreRequest,
  predictionSchema,
  recordTraceRequestSchema,
  scoreRequestSchema,
  searchResultSchema,
} from '../../schema/service-requests.js';
import { reportStepRequestSchema, sessionViewSchema, startSessionRequestSchema, stepResultSchema } from '../../schema/session-requests.js';
import type { ToolgraphService } from '../service.js';
import type { DagRequestInput, PredictRequestInput, SearchRequestInput } from '../../schema/requests.js';

export interface McpToolSpec {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Changes state: over HTTP it needs the bearer token when the server has one. */
  readonly write: boolean;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  /** Gets the arguments as sent, already checked against `input`. */
  call(service: ToolgraphService, args: Record<string, unknown>): Promise<unknown>;
}

export const MCP_TOOLS: readonly McpToolSpec[] = [
  {
    name: 'predict_next_tool',
    title: 'Predict the next tool',
    description:
      'Rank the tools most likely to be called next, given the tools called so far in this task (in order) and, optionally, the task intent in words. Learned from recorded traces; at most k items, one per tool, each with a per-signal breakdown (a tool that starts a known capability comes as that capability). Kind empty, with a hint, when the store has no trace and no catalogue yet.',
    write: false,
    input: predictRequestSchema,
    output: predictionSchema,
    call: (service, args) => service.predictNext(args as PredictRequestInput),
  },
  {
    name: 'search_tools',
    title: 'Search tools',
    description:
      'Rank the tools that fit a request in words, optionally given the tools called so far; each item has a per-signal breakdown. When nothing in the catalogue fits, kind is no-match: the items are only the nearest tools, and the hint says what fell short (the words nothing matched, or a request unlike any recorded one). Kind empty, with a hint, when the store has no trace and no catalogue yet.',
    write: false,
    input: searchRequestSchema,
    output: searchResultSchema,
    // Arguments off the wire, checked by the service against the request's schema (INVALID_INPUT).
    call: (service, args) => service.searchTools(args as SearchRequestInput),
  },
  {
    name: 'suggest_dag',
    title: 'Suggest a workflow',
    description:
      'Suggest a workflow (a DAG of tools) for a task in words: nodes with confidences, dependencies from declared data flow or the learned order, layers that can run in parallel, and warnings when confidence is low; status ok when held-out workflows of that confidence reached node-F1 0.8; kind no-match (no nodes, status reject, with the hint) when nothing fits the task, as search_tools says; kind empty when the store has no trace and no catalogue yet.',
    write: false,
    input: dagRequestBaseSchema,
    output: dagSchema,
    call: (service, args) => service.suggestDag(args as DagRequestInput),
  },
  {
    name: 'rank_capabilities',
    title: 'Rank capabilities',
    description:
      'Rank capabilities (named, reusable groups of tools, registered or learned from traces) for a task intent and/or the tools called so far. Each item has its tools, relevance, structural boost from spectral co-clustering, and reliability.',
    write: false,
    input: capabilityRequestSchema,
    output: capabilityRankingSchema,
    call: (service, args) => service.rankCapabilities(args),
  },
  {
    name: 'expand_capability',
    title: 'Expand a capability',
    description: "A capability's tools, in run order when it is ordered: what a capability node of suggest_dag or an item of rank_capabilities stands for.",
    write: false,
    input: expandCapabilityRequestSchema,
    output: capabilityViewSchema,
    call: (service, args) => service.expandCapability(args['id'] as string),
  },
  {
    name: 'record_trace',
    title: 'Record a trace',
    description:
      'Record one tool-use trace so later predictions learn from it: a compact trace {intent?, tools: [name | {name, ok}], success?} or a ReasoningTrace (spec 000). A trace id sent again is a retry and is skipped.',
    write: true,
    input: recordTraceRequestSchema,
    output: ingestResultSchema,
    call: (service, args) => service.ingest(args['trace']),
  },
  {
    name: 'start_session',
    title: 'Start a workflow session',
    description:
      "Start a budget-controlled session for a task in words: its plan (a suggested workflow of steps with ids), and its budget in cents. Report each tool call with report_step. mode 'deterministic' never calls a model; 'adaptive' (default) lets a model tier answer the steps the tool graph is unsure of, within budgetCents (default 100).",
    write: true,
    input: startSessionRequestSchema,
    output: sessionViewSchema,
    call: async (service, args) => (await service.sessions.startSession(args)).view(),
  },
  {
    name: 'report_step',
    title: 'Report a session step',
    description:
      "Report the tool a session's agent called (id from start_session; success, and the step's text if any): whether it follows the plan (accept or reject), whether it is on topic, the planner's adaptation (reask, hint, goto, repeat or insert_micro), the next tools to call, whether a model was asked, and the budget left.",
    write: true,
    input: reportStepRequestSchema,
    output: stepResultSchema,
    call: (service, args) => {
      const { id, ...step } = args;
      return service.sessions.step(id as string, step);
    },
  },
  {
    name: 'score_trace',
    title: 'Score a trace',
    description:
      "The value of a ReasoningTrace (specs 000/001) in [0, 1] with its breakdown (complexity, novelty, tool diversity, outcome confidence, overrides). At or above the threshold (or with contribute: true) it enters the novelty memory.",
    write: true,
    input: scoreRequestSchema,
    output: contributionSchema,
    call(service, args) {
      const { contribute, threshold } = parseScoreRequest(args);
      return service.score(args['trace'], {
        ...(contribute !== undefined ? { contribute } : {}),
        ...(threshold !== undefined ? { threshold } : {}),
      });
    },
  },
];
