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
 * may have done the work (a timeout, a dropped connection, an answer without usage or of the
 * wrong shape), nothing when it refused it with a status other than 2xx.
 */
import { z } from 'zod';
import { toolNameSchema } from '../schema/fields.js';
import { adaptCommandSchema, type AdaptCommand } from '../schema/session-requests.js';
import type { ChatMessage, ChatOutcome } from './chat-client.js';
import type { RankedNext } from './session-state.js';
import { costCents } from './tiers.js';

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
