/**
 * Workflow sessions at the boundary (spec 002, the budget engine): the adaptation command the
 * bounded planner may emit, the requests that start a session and report its steps, and the
 * shapes the faces answer with. One source for validation, the OpenAPI document and the MCP
 * tools' schemas. Response schemas are documentation, never applied on the hot path.
 */
import { z } from 'zod';
import { idSchema, toolNameSchema } from './fields.js';
import { limitedString, parseWith } from './issues.js';
import { MAX_ID_LENGTH, MAX_INTENT_LENGTH, MAX_TEXT_LENGTH } from './limits.js';

export const ADAPT_OPS = ['reask', 'hint', 'goto', 'repeat', 'insert_micro'] as const;
export const ADAPT_REASONS = ['SEM_LOW', 'THINKER_ESCALATION', 'OFF_TOPIC', 'BUDGET_LIMIT'] as const;

/** Longest note of an adaptation command. */
export const MAX_NOTE_LENGTH = 2_000;

/**
 * Spec 002's AdaptCommand, as the spec writes it: `op`, and optionally `targetAskCode` (here a
 * step id of the session's plan), `note` and `reason`. Strict: a command with any other key is
 * refused, as is an op or reason outside the spec's lists. Whether the target is a known step of
 * the plan is the planner's check (engine/planner.ts), which needs the session.
 */
export const adaptCommandSchema = z.strictObject({
  op: z.enum(ADAPT_OPS),
  targetAskCode: z.string().min(1).max(MAX_ID_LENGTH).optional(),
  note: z.string().max(MAX_NOTE_LENGTH).optional(),
  reason: z.enum(ADAPT_REASONS).optional(),
});

export type AdaptCommand = z.output<typeof adaptCommandSchema>;

export function parseAdaptCommand(input: unknown, where = 'AdaptCommand'): AdaptCommand {
  return parseWith(adaptCommandSchema, input, where);
}

export const SESSION_MODES = ['adaptive', 'deterministic'] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

/** Largest budget a session may be given, in cents (1,000 dollars). */
export const MAX_SESSION_BUDGET_CENTS = 100_000;

const intentText = limitedString(MAX_INTENT_LENGTH)
  .min(1)
  .refine((s) => s === '' || /\S/u.test(s), { error: 'must not be blank' });

/** POST /v1/sessions, MCP start_session, startSession(). */
export const startSessionRequestSchema = z.strictObject({
  intent: intentText.describe("The agent's task in words"),
  mode: z.enum(SESSION_MODES).default('adaptive').describe("'deterministic': never call a model; 'adaptive': a model tier may answer the steps the graph is unsure of, within the budget"),
  budgetCents: z
    .number()
    .min(0)
    .max(MAX_SESSION_BUDGET_CENTS)
    .optional()
    .describe('What the session may spend on model calls, in US cents (default SESSION_BUDGET_CENTS, 100)'),
});

export type StartSessionRequest = z.output<typeof startSessionRequestSchema>;
export type StartSessionInput = z.input<typeof startSessionRequestSchema>;

export function parseStartSessionRequest(input: unknown): StartSessionRequest {
  return parseWith(startSessionRequestSchema, input, 'startSession');
}

const stepShape = {
  tool: toolNameSchema.describe('The tool the agent called'),
  success: z.boolean().default(true).describe('Whether the call succeeded (default true)'),
  response: limitedString(MAX_TEXT_LENGTH).optional().describe("The agent's text for this step, checked against the intent (ON_TOPIC, VAGUE, OFF_TOPIC)"),
};

/** POST /v1/sessions/{id}/steps, session.step(). */
export const stepRequestSchema = z.strictObject(stepShape);

export type StepRequest = z.output<typeof stepRequestSchema>;
export type StepInput = z.input<typeof stepRequestSchema>;

export function parseStepRequest(input: unknown): StepRequest {
  return parseWith(stepRequestSchema, input, 'step');
}

/** MCP report_step: the session's id and the step. */
export const reportStepRequestSchema = z.strictObject({ id: idSchema.describe('The session id start_session returned'), ...stepShape });

// ---------------------------------------------------------------------------------------------
// Responses

export const budgetViewSchema = z.object({
  budgetCents: z.number(),
  centsLeft: z.number(),
  centsSpent: z.number(),
  escalations: z.number(),
  maxEscalations: z.number(),
  mode: z.enum(SESSION_MODES),
  level: z.enum(['normal', 'economy', 'degraded']).describe("'degraded': at or below the threshold, no model call; 'economy': the cheap tier only"),
});

export const planViewSchema = z.object({
  nodes: z.array(z.object({ id: z.string(), tool: z.string(), status: z.enum(['pending', 'done']), temporary: z.boolean() })),
  edges: z.array(z.object({ from: z.string(), to: z.string() })),
  current: z.string().nullable().describe('The step the session is at (a plan step id, or a temporary step)'),
});

const nextItemSchema = z.object({ tool: z.string(), score: z.number() });

export const sessionViewSchema = z.object({
  id: z.string(),
  intent: z.string(),
  plan: planViewSchema,
  budget: budgetViewSchema,
  steps: z.array(z.object({ tool: z.string(), success: z.boolean(), result: z.enum(['accept', 'reject']), step: z.string().nullable() })),
  next: z.array(nextItemSchema),
  threshold: z.object({ value: z.number(), source: z.enum(['calibrated', 'default']) }),
  createdAt: z.string(),
  updatedAt: z.string(),
  expiresAt: z.string(),
});

export const stepResultSchema = z.object({
  evaluation: z.object({ result: z.enum(['accept', 'reject']), reason: z.string(), step: z.string().nullable() }),
  deviation: z.object({
    class: z.enum(['ON_TOPIC', 'VAGUE', 'OFF_TOPIC']),
    matchRatio: z.number().nullable().describe("Share of the intent's words the response holds; null without a response"),
    graph: z.enum(['covered', 'uncovered']).describe('Whether the tool is planned, predicted, or found by a search of the intent'),
  }),
  adaptation: adaptCommandSchema.nullable(),
  next: z.array(nextItemSchema),
  escalated: z.boolean(),
  answeredBy: z.enum(['graph', 'cheap', 'thinker']),
  confidence: z.number().describe("The graph's probability of its top candidate"),
  budget: budgetViewSchema,
});

export const telemetryEventSchema = z.object({
  timestamp: z.string(),
  level: z.enum(['debug', 'info', 'warn']),
  event: z.string(),
  sessionId: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const deletedSessionSchema = z.object({ id: z.string(), deleted: z.literal(true) });
