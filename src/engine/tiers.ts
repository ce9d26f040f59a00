/**
 * The answer tiers of a session step and what each costs (spec 002, "Tiers de Modelos"): the
 * graph, at no cost; `thinker` (o3-mini, $0.025 per 1K tokens) for an escalation; `cheap`
 * (gpt-4o-mini, $0.005) in economy mode, or when the thinker's reservation no longer fits; and
 * `embed` (text-embedding-3-small, $0.001), priced and counted but not called: the graph's own
 * text index does the semantic side (search, coverage) at no cost.
 *
 *   cost(tokens) = tokens / 1000 x usdPer1kTokens x 100   cents
 *
 * A call's reservation is its worst case: prompt tokens bounded by the prompt's UTF-8 bytes (a
 * byte-level BPE token holds at least one byte) plus a per-message allowance for the chat
 * template, plus the completion bound the request sends. Pure functions.
 */
import { budgetLevel, centsLeft, type BudgetLimits, type BudgetState } from './budget.js';
import type { SessionOptions, TierName } from './options.js';

export type AnswerTier = 'graph' | 'cheap' | 'thinker';

/** Tokens a chat template may add per message, and per request. */
const TEMPLATE_TOKENS_PER_MESSAGE = 8;
const TEMPLATE_TOKENS_PER_REQUEST = 16;

export function costCents(tokens: number, usdPer1kTokens: number): number {
  return (Math.max(0, tokens) / 1000) * usdPer1kTokens * 100;
}

/** An upper bound on the prompt tokens of these messages, for any byte-level tokenizer. */
export function promptTokenBound(messages: readonly { readonly content: string }[]): number {
  let bytes = 0;
  for (const m of messages) bytes += Buffer.byteLength(m.content, 'utf8');
  return bytes + TEMPLATE_TOKENS_PER_MESSAGE * messages.length + TEMPLATE_TOKENS_PER_REQUEST;
}

/**
 * About how many tokens a text is for an English-trained BPE (four characters a token, the
 * usual rule of thumb): what the evaluation's stand-in model is charged for, where no endpoint
 * reports usage. Never used for the hard cap, which uses promptTokenBound.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The worst-case cost of a call at `tier` with this prompt bound, in cents. */
export function reservationCents(tier: TierName, promptBound: number, options: Pick<SessionOptions, 'tiers' | 'model'>): number {
  return costCents(promptBound + options.model.maxCompletionTokens, options.tiers[tier].usdPer1kTokens);
}

export type TierChoice =
  | { readonly tier: 'thinker' | 'cheap'; readonly reservationCents: number }
  | { readonly tier: null; readonly why: 'deterministic' | 'degraded' | 'escalations' | 'budget' };

/**
 * Which model tier a wanted escalation goes to: the thinker at the normal level, the cheap tier
 * in economy mode or when the thinker's reservation would not fit in what is left; none in a
 * deterministic session, at the degraded level, past the escalation cap, or when neither fits.
 */
export function chooseTier(
  budget: BudgetState,
  mode: 'adaptive' | 'deterministic',
  promptBound: number,
  options: Pick<SessionOptions, 'tiers' | 'model'> & BudgetLimits,
): TierChoice {
  if (mode === 'deterministic') return { tier: null, why: 'deterministic' };
  const level = budgetLevel(budget, options);
  if (level === 'degraded') return { tier: null, why: 'degraded' };
  if (budget.escalations >= options.maxEscalations) return { tier: null, why: 'escalations' };
  const left = centsLeft(budget);
  const tiers: readonly ('thinker' | 'cheap')[] = level === 'normal' ? ['thinker', 'cheap'] : ['cheap'];
  for (const tier of tiers) {
    const cents = reservationCents(tier, promptBound, options);
    if (cents <= left) return { tier, reservationCents: cents };
  }
  return { tier: null, why: 'budget' };
}
