/**
 * The session engine's settings, one zod schema whose defaults are spec 002's constants:
 * SESSION_BUDGET_CENTS 100, MAX_ESCALATIONS_PER_SESSION 5, ESCALATION_THRESHOLD_CENTS 10, the
 * economy mode's 5 cents, and the tiers' models and prices (CHEAP_MODEL gpt-4o-mini at $0.005
 * per 1K tokens, EMBED_MODEL text-embedding-3-small at $0.001, THINKER_MODEL o3-mini at $0.025).
 * `sessionOptionsFromEnv` reads the spec's environment variables, and TOOLGRAPH_LLM_URL /
 * TOOLGRAPH_LLM_KEY for the model endpoint, into the schema's input.
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { parseWith } from '../schema/issues.js';
import { MAX_SESSION_BUDGET_CENTS } from '../schema/session-requests.js';

export const TIER_NAMES = ['cheap', 'embed', 'thinker'] as const;
export type TierName = (typeof TIER_NAMES)[number];

/** The tiers of spec 002's table: model and price in US dollars per 1K tokens. */
export const SPEC_TIERS = {
  cheap: { model: 'gpt-4o-mini', usdPer1kTokens: 0.005 },
  embed: { model: 'text-embedding-3-small', usdPer1kTokens: 0.001 },
  thinker: { model: 'o3-mini', usdPer1kTokens: 0.025 },
} as const;

const tierSchema = (d: { model: string; usdPer1kTokens: number }) =>
  z.strictObject({ model: z.string().min(1).default(d.model), usdPer1kTokens: z.number().min(0).max(1_000).default(d.usdPer1kTokens) }).prefault({});

const httpUrl = z.string().refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'expected an http or https URL');

/** The OpenAI-compatible chat-completions endpoint the model tiers are reached through. */
export const modelEndpointSchema = z.strictObject({
  /** Base URL up to the version segment (`http://127.0.0.1:8080/v1`); none: no model tier. */
  url: httpUrl.optional(),
  /** Sent as `Authorization: Bearer <key>` when given. */
  key: z.string().min(1).optional(),
  /** Limit per call, headers and body included, in ms. */
  timeoutMs: z.int().min(1).max(600_000).default(20_000),
  /** Completion tokens a call may use (reasoning ones included): part of every call's reservation. */
  maxCompletionTokens: z.int().min(1).max(100_000).default(512),
  /** The request field that carries that bound: OpenAI's current name, or the older one many local servers read. */
  tokenField: z.enum(['max_completion_tokens', 'max_tokens']).default('max_completion_tokens'),
  /** Ask for a JSON object (`response_format: {type: 'json_object'}`). */
  jsonMode: z.boolean().default(true),
});

export type ModelEndpoint = z.output<typeof modelEndpointSchema>;

export const sessionOptionsSchema = z.strictObject({
  /** SESSION_BUDGET_CENTS: a session's budget when its request names none. */
  budgetCents: z.number().min(0).max(MAX_SESSION_BUDGET_CENTS).default(100),
  /** MAX_ESCALATIONS_PER_SESSION: model calls a session may make, whatever its budget. */
  maxEscalations: z.int().min(0).max(1_000).default(5),
  /** ESCALATION_THRESHOLD_CENTS: at or below this many cents left, no model call (degraded). */
  thresholdCents: z.number().min(0).max(MAX_SESSION_BUDGET_CENTS).default(10),
  /** Economy mode (the cheap tier only) while less than this is left above the threshold. */
  economyCents: z.number().min(0).max(MAX_SESSION_BUDGET_CENTS).default(5),
  tiers: z
    .strictObject({ cheap: tierSchema(SPEC_TIERS.cheap), embed: tierSchema(SPEC_TIERS.embed), thinker: tierSchema(SPEC_TIERS.thinker) })
    .prefault({}),
  model: modelEndpointSchema.prefault({}),
  /** Graph candidates a step answers with, and the model is shown. */
  candidates: z.int().min(1).max(20).default(5),
  /** A tool off the plan that the intent's search ranks this high counts as on topic. */
  intentTools: z.int().min(1).max(100).default(10),
  /** Largest plan (suggested DAG) a session starts with. */
  maxPlanSteps: z.int().min(1).max(50).default(10),
  /** Temporary steps (insert_micro) a session may be given in all. */
  maxMicroSteps: z.int().min(0).max(100).default(3),
  /** Retries (repeat) of one step after failures, before the plan moves on. */
  maxRepeats: z.int().min(0).max(100).default(2),
  /** The deviation rule: spec 002's as written ('seed'), or with case and punctuation folded ('default'; deviation.ts). */
  deviation: z.enum(['default', 'seed']).default('default'),
  /** Held-out precision the graph's confident answers must reach: sets the escalation threshold (confidence-threshold.ts). */
  targetPrecision: z.number().gt(0).max(1).default(0.95),
  /** The confidence threshold until one is calibrated (too few held-out positions). */
  defaultThreshold: z.number().min(0).max(1).default(0.5),
  /** Calibrate the threshold on the service's traces; false: sessions run with defaultThreshold. */
  calibrate: z.boolean().default(true),
  /** An idle session expires after this many ms. */
  idleMs: z.int().min(1_000).max(365 * 86_400_000).default(30 * 60_000),
  /** ENGINE_DEBUG: debug lines in the telemetry. */
  debug: z.boolean().default(false),
});

export type SessionOptions = z.output<typeof sessionOptionsSchema>;
export type SessionOptionsInput = z.input<typeof sessionOptionsSchema>;

export function parseSessionOptions(input: unknown = {}, where = 'sessions'): SessionOptions {
  return parseWith(sessionOptionsSchema, input, where);
}

function numberVar(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new ToolgraphError('INVALID_INPUT', `${name}: expected a number, got ${JSON.stringify(raw.slice(0, 100))}`);
  return value;
}

function textVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

function flagVar(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = textVar(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ToolgraphError('INVALID_INPUT', `${name}: expected true or false, got ${JSON.stringify(raw.slice(0, 100))}`);
}

/** The session options the environment sets (spec 002's variables), over `base`; checked. */
export function sessionOptionsFromEnv(env: NodeJS.ProcessEnv, base: SessionOptionsInput = {}): SessionOptions {
  const set = <T>(value: T | undefined, key: string): Record<string, T> => (value === undefined ? {} : { [key]: value });
  const model = { ...set(textVar(env, 'TOOLGRAPH_LLM_URL'), 'url'), ...set(textVar(env, 'TOOLGRAPH_LLM_KEY'), 'key') };
  const tier = (name: TierName, variable: string) => {
    const chosen = textVar(env, variable);
    return chosen === undefined ? {} : { [name]: { ...base.tiers?.[name], model: chosen } };
  };
  const input = {
    ...base,
    ...set(numberVar(env, 'SESSION_BUDGET_CENTS'), 'budgetCents'),
    ...set(numberVar(env, 'MAX_ESCALATIONS_PER_SESSION'), 'maxEscalations'),
    ...set(numberVar(env, 'ESCALATION_THRESHOLD_CENTS'), 'thresholdCents'),
    ...set(numberVar(env, 'TOOLGRAPH_SESSION_IDLE_MS'), 'idleMs'),
    ...set(flagVar(env, 'ENGINE_DEBUG'), 'debug'),
    tiers: { ...base.tiers, ...tier('cheap', 'CHEAP_MODEL'), ...tier('embed', 'EMBED_MODEL'), ...tier('thinker', 'THINKER_MODEL') },
    model: { ...base.model, ...model },
  };
  try {
    return parseSessionOptions(input, 'session options');
  } catch (error) {
    // Named as the user set it: the variable, not the option it feeds.
    if (!(error instanceof ToolgraphError)) throw error;
    const message = Object.entries(VARIABLES).reduce((m, [key, variable]) => m.replace(`session options: ${key}`, `${variable} (session option ${key})`), error.message);
    throw new ToolgraphError(error.code, message, error.details);
  }
}

/** The environment variable behind each option sessionOptionsFromEnv reads. */
const VARIABLES: Readonly<Record<string, string>> = {
  budgetCents: 'SESSION_BUDGET_CENTS',
  maxEscalations: 'MAX_ESCALATIONS_PER_SESSION',
  thresholdCents: 'ESCALATION_THRESHOLD_CENTS',
  idleMs: 'TOOLGRAPH_SESSION_IDLE_MS',
  'model.url': 'TOOLGRAPH_LLM_URL',
  'tiers.cheap.model': 'CHEAP_MODEL',
  'tiers.embed.model': 'EMBED_MODEL',
  'tiers.thinker.model': 'THINKER_MODEL',
};
