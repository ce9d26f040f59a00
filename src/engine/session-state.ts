/**
 * A session's state as one plain, JSON-serialisable value: what the store keeps, what every step
 * reads and returns anew. Its zod schema checks a state read back from a store (another version
 * may have written it) before a step trusts it.
 */
import { z } from 'zod';
import { SESSION_MODES, type SessionMode } from '../schema/session-requests.js';

export const SESSION_STATE_FORMAT = 1;

export interface PlanStep {
  /** The suggested DAG's node id (`n1`, ...), or `m1`, ... for a temporary step. */
  readonly id: string;
  readonly tool: string;
  readonly done: boolean;
  /** Inserted by insert_micro: lasts one turn, is not part of the plan the session started with. */
  readonly temporary: boolean;
}

export interface Plan {
  /** In the plan's order (the DAG's topological order), temporary steps where they were inserted. */
  readonly steps: readonly PlanStep[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
  /** The step the session is at; null once every step is done. */
  readonly current: string | null;
}

export interface RankedNext {
  readonly tool: string;
  readonly score: number;
}

export interface RecordedStep {
  readonly tool: string;
  readonly success: boolean;
  readonly result: 'accept' | 'reject';
  /** The plan step it did, if any. */
  readonly step: string | null;
}

export interface SessionBudget {
  readonly budgetCents: number;
  readonly centsSpent: number;
  readonly escalations: number;
}

export interface SessionState {
  readonly format: typeof SESSION_STATE_FORMAT;
  readonly id: string;
  readonly intent: string;
  readonly mode: SessionMode;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly plan: Plan;
  /** The tools a search of the intent ranks first: the graph's view of what the intent covers. */
  readonly intentTools: readonly string[];
  readonly steps: readonly RecordedStep[];
  /** Consecutive failed calls of the current step. */
  readonly repeats: number;
  /** Temporary steps inserted so far. */
  readonly microUsed: number;
  /** A reask the agent has not answered yet: the words it should address. */
  readonly reask: readonly string[] | null;
  /** The graph's ranking for the next step, and its top candidate's probability. */
  readonly graphNext: readonly RankedNext[];
  readonly confidence: number;
  /** The session's answer for the next step (the model's pick first when it was asked). */
  readonly next: readonly RankedNext[];
  readonly budget: SessionBudget;
  /** The escalation threshold the session runs with, fixed when it started. */
  readonly threshold: { readonly value: number; readonly source: 'calibrated' | 'default' };
  /** The endpoint reported more than a call's bound: no further call for this session. */
  readonly modelCutOff: boolean;
  readonly turn: number;
}

const ranked = z.array(z.strictObject({ tool: z.string(), score: z.number() }));

export const sessionStateSchema = z.strictObject({
  format: z.literal(SESSION_STATE_FORMAT),
  id: z.string().min(1),
  intent: z.string(),
  mode: z.enum(SESSION_MODES),
  createdAt: z.number(),
  updatedAt: z.number(),
  plan: z.strictObject({
    steps: z.array(z.strictObject({ id: z.string().min(1), tool: z.string().min(1), done: z.boolean(), temporary: z.boolean() })),
    edges: z.array(z.strictObject({ from: z.string(), to: z.string() })),
    current: z.string().nullable(),
  }),
  intentTools: z.array(z.string()),
  steps: z.array(z.strictObject({ tool: z.string(), success: z.boolean(), result: z.enum(['accept', 'reject']), step: z.string().nullable() })),
  repeats: z.int().min(0),
  microUsed: z.int().min(0),
  reask: z.array(z.string()).nullable(),
  graphNext: ranked,
  confidence: z.number(),
  next: ranked,
  budget: z.strictObject({ budgetCents: z.number().min(0), centsSpent: z.number().min(0), escalations: z.int().min(0) }),
  threshold: z.strictObject({ value: z.number().min(0).max(1), source: z.enum(['calibrated', 'default']) }),
  modelCutOff: z.boolean(),
  turn: z.int().min(0),
}) satisfies z.ZodType<SessionState>;

/** A stored state, checked; INTERNAL naming the session when it is not one this version reads. */
export function readSessionState(value: unknown, id: string): SessionState | { readonly error: string } {
  const parsed = sessionStateSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return { error: `session ${JSON.stringify(id)} is stored in a form this toolgraph cannot read (${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'state'}: ${issue.message}`})` };
}
