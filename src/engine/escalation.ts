/**
 * Escalation of a step the graph is unsure of (spec 002, "Evaluación Híbrida"): the prompt a
 * model tier is given (the intent, the steps so far, the plan's pending steps and the graph's
 * candidate tools with their probabilities and descriptions), the strict zod schema its answer
 * must meet, and what a call costs:
 *
 *   answer  {"tool": <one of the candidates>, "command"?: AdaptCommand}
 *
 * An answer that is not JSON, fails the schema or names a tool outside the candidates is
 * refused, and the step keeps the graph's answer. The cost is the endpoint's reported usage at
 * the tier's price; a call whose usage is unknown is charged its reservation when the endpoint
 * may have done the work (a timeout, a failure below HTTP, an answer without usage or of the
 * wrong shape), nothing when it refused it with a status other than 2xx.
 */
import { z } from 'zod';
import { toolNameSchema } from '../schema/fields.js';
import { adaptCommandSchema, type AdaptCommand } from '../schema/session-requests.js';
import { budgetLevel, centsLeft, reserve, settle } from './budget.js';
import type { ChatMessage, ChatOutcome } from './chat-client.js';
import type { SessionOptions } from './options.js';
import { currentStep, pendingSteps } from './plan.js';
import type { PlannerInput } from './planner.js';
import type { Plan, RankedNext, RecordedStep, SessionBudget, SessionState } from './session-state.js';
import type { TelemetryLog } from './telemetry.js';
import { chooseTier, costCents, promptTokenBound, type AnswerTier } from './tiers.js';

/** How a session reaches a model tier: the product's is the chat client; the evaluation's a stand-in. */
export interface ModelPort {
  ask(request: {
    readonly tier: 'cheap' | 'thinker';
    readonly model: string;
    readonly messages: readonly ChatMessage[];
    /** The tools the answer may name. */
    readonly candidates: readonly string[];
  }): Promise<ChatOutcome>;
}

/** Characters of a tool's description shown in the prompt. */
const DESCRIPTION_CHARS = 240;

export const SYSTEM_PROMPT = [
  "You choose the next tool call of an AI agent's task at a tool gateway.",
  'Reply with one JSON object and nothing else: {"tool": "<name>"}, where <name> is exactly one of the candidate tools listed.',
  'You may add "command" to adapt the plan: {"op": "goto", "targetAskCode": "<a plan step id>"} to move to a listed pending step,',
  'or {"op": "insert_micro", "note": "<candidate tool>"} to insert a temporary step the plan lacks.',
].join(' ');

export interface PromptInput {
  readonly intent: string;
  readonly steps: readonly { readonly tool: string; readonly success: boolean }[];
  readonly pending: readonly { readonly id: string; readonly tool: string }[];
  readonly candidates: readonly RankedNext[];
  readonly descriptions: ReadonlyMap<string, string>;
}

function clip(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars)}...` : flat;
}

export function buildPrompt(input: PromptInput): ChatMessage[] {
  const lines = [`Task: ${clip(input.intent, 4_000)}`, '', 'Steps so far:'];
  if (input.steps.length === 0) lines.push('(none)');
  // The last steps only: a long session must not grow the prompt without bound.
  const shown = input.steps.slice(-20);
  const skipped = input.steps.length - shown.length;
  if (skipped > 0) lines.push(`(${skipped} earlier steps)`);
  shown.forEach((s, i) => lines.push(`${skipped + i + 1}. ${s.tool} (${s.success ? 'ok' : 'failed'})`));
  lines.push('', 'Plan steps still to do:');
  if (input.pending.length === 0) lines.push('(none)');
  for (const p of input.pending.slice(0, 20)) lines.push(`${p.id}: ${p.tool}`);
  lines.push('', "Candidate tools (the tool graph's probability that each comes next):");
  for (const c of input.candidates) {
    const description = input.descriptions.get(c.tool);
    lines.push(`- ${c.tool} (${c.score.toFixed(3)})${description ? `: ${clip(description, DESCRIPTION_CHARS)}` : ''}`);
  }
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: lines.join('\n') },
  ];
}

export const modelAnswerSchema = z.strictObject({ tool: toolNameSchema, command: adaptCommandSchema.optional() });

export type ModelAnswer = { readonly ok: true; readonly tool: string; readonly command: AdaptCommand | null } | { readonly ok: false; readonly reason: string };

/** The model's answer text, checked: JSON (a fenced block is unwrapped), the schema, a candidate tool. */
export function readModelAnswer(content: string, candidates: readonly string[]): ModelAnswer {
  const text = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/u, '$1');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the answer is not JSON' };
  }
  const parsed = modelAnswerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `the answer fails the schema (${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'answer'}: ${issue.message}`})` };
  }
  if (!candidates.includes(parsed.data.tool)) return { ok: false, reason: `the answer names ${JSON.stringify(parsed.data.tool.slice(0, 100))}, which is no candidate` };
  return { ok: true, tool: parsed.data.tool, command: parsed.data.command ?? null };
}

/**
 * A call's cost in cents for settlement (budget.ts): its usage's, nothing for an answer refusing
 * it with a status, or null (unknown: the reservation is charged) otherwise.
 */
export function callCost(outcome: ChatOutcome, usdPer1kTokens: number): number | null {
  if (outcome.usage !== null) return costCents(outcome.usage.promptTokens + outcome.usage.completionTokens, usdPer1kTokens);
  return !outcome.ok && outcome.failure === 'status' ? 0 : null;
}

/** What an escalation decided: the step's answer and budget after it, and the call made, if any. */
export interface Escalation {
  readonly budget: SessionBudget;
  readonly next: readonly RankedNext[];
  readonly answeredBy: AnswerTier;
  /** A model was called (its answer may still have been unusable). */
  readonly escalated: boolean;
  readonly modelCommand: AdaptCommand | null;
  /** Why no model answered, when none did. */
  readonly withoutModel: PlannerInput['withoutModel'];
  readonly modelCutOff: boolean;
  readonly call: { readonly tier: 'cheap' | 'thinker'; readonly ok: boolean; readonly promptTokens: number; readonly completionTokens: number; readonly cents: number } | null;
}

export interface EscalationDeps {
  readonly model: ModelPort | null;
  readonly options: SessionOptions;
  readonly describe?: (tools: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  readonly reserve?: (state: SessionState) => Promise<void>;
}

export interface EscalationInput {
  /** The state before the step (what a reservation stores, with the charge). */
  readonly state: SessionState;
  readonly plan: Plan;
  readonly steps: readonly RecordedStep[];
  readonly graphNext: readonly RankedNext[];
  readonly confidence: number;
  readonly turn: number;
  readonly at: number;
  readonly log: TelemetryLog;
}

/**
 * A step the graph is unsure of: a model tier answers it when one is configured, the session is
 * adaptive and the budget allows (tiers.ts, chooseTier), its worst case charged first and stored
 * (`reserve`), the charge settled to its usage after; otherwise, or when its answer cannot be
 * used, the graph's answer stands.
 */
export async function escalate(input: EscalationInput, deps: EscalationDeps): Promise<Escalation> {
  const { state, plan, steps, graphNext, confidence, turn, log } = input;
  const { options } = deps;
  const kept: Escalation = { budget: state.budget, next: graphNext, answeredBy: 'graph', escalated: false, modelCommand: null, withoutModel: null, modelCutOff: state.modelCutOff, call: null };
  const pending = pendingSteps(plan).map((s) => ({ id: s.id, tool: s.tool }));
  const candidates = [...new Set([...graphNext.map((n) => n.tool), ...pending.map((p) => p.tool)])];
  const scored = candidates.map((c) => ({ tool: c, score: graphNext.find((n) => n.tool === c)?.score ?? 0 }));
  const prompt = (descriptions: ReadonlyMap<string, string>) => buildPrompt({ intent: state.intent, steps, pending, candidates: scored, descriptions });
  // Whether any tier could answer, before the descriptions are looked up for the prompt.
  let messages = prompt(new Map());
  let choice = deps.model === null || state.modelCutOff ? null : chooseTier(state.budget, state.mode, promptTokenBound(messages), options);
  if (choice !== null && choice.tier !== null && deps.describe !== undefined) {
    messages = prompt(await deps.describe(candidates));
    choice = chooseTier(state.budget, state.mode, promptTokenBound(messages), options);
  }
  if (choice === null || choice.tier === null) {
    const why: PlannerInput['withoutModel'] = choice === null ? (state.modelCutOff ? 'escalations' : state.mode === 'deterministic' ? 'deterministic' : 'no-endpoint') : choice.why;
    log.debug('escalation.skipped', () => ({ turn, why, confidence, threshold: state.threshold.value, centsLeft: centsLeft(state.budget) }));
    return { ...kept, withoutModel: why };
  }
  const { tier, reservationCents } = choice;
  const model = options.tiers[tier].model;
  const reserved = reserve(state.budget, reservationCents, options)!;
  log.info('escalation.triggered', { turn, tier, model, confidence, threshold: state.threshold.value, reservationCents, askCode: currentStep(plan)?.id ?? null });
  log.debug('model.request', () => ({ tier, model, promptTokenBound: promptTokenBound(messages), messages }));
  await deps.reserve?.({ ...state, budget: reserved, updatedAt: input.at });
  const outcome = await deps.model!.ask({ tier, model, messages, candidates });
  const answer = outcome.ok ? readModelAnswer(outcome.content, candidates) : ({ ok: false, reason: outcome.message } as const);
  const settled = settle(reserved, reservationCents, callCost(outcome, options.tiers[tier].usdPer1kTokens));
  const budget = settled.budget;
  log.debug('model.answer', () => ({ tier, ok: outcome.ok, ms: outcome.ms, content: outcome.ok ? outcome.content.slice(0, 2_000) : null }));
  log.info('budget.usage', {
    tier,
    model,
    promptTokens: outcome.usage?.promptTokens ?? null,
    completionTokens: outcome.usage?.completionTokens ?? null,
    cents: settled.chargedCents,
    centsSpent: budget.centsSpent,
    centsLeft: centsLeft(budget),
    escalations: budget.escalations,
    level: budgetLevel(budget, options),
    ...(settled.overrun ? { overrun: true } : {}),
  });
  const usage = outcome.usage ?? { promptTokens: 0, completionTokens: 0 };
  const made = { ...kept, budget, escalated: true, modelCutOff: state.modelCutOff || settled.overrun, call: { tier, ok: answer.ok, ...usage, cents: settled.chargedCents } };
  if (!answer.ok) {
    log.warn('escalation.fallback', { turn, tier, reason: answer.reason, ...(outcome.ok ? {} : { failure: outcome.failure, status: outcome.status ?? null }) });
    return { ...made, withoutModel: 'failed' };
  }
  const first = { tool: answer.tool, score: graphNext.find((n) => n.tool === answer.tool)?.score ?? 0 };
  return { ...made, answeredBy: tier, modelCommand: answer.command, next: [first, ...graphNext.filter((n) => n.tool !== answer.tool)] };
}
