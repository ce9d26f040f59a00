/**
 * The simple rules every fitted ranker is measured against, written as weights of the
 * log-linear ranker (linear-profile.ts), and what a store answers with before its first fit.
 *
 * - Next tool: the back-off Markov rule. Second order first, then first order, popularity only
 *   to break ties: ratios large enough to act lexicographically over the log signals.
 * - Search: BM25 of the request against the catalogue (the `lexical` signal, BM25 / max), ties
 *   by popularity.
 *
 * A fit keeps a rule unless its fitted ranker beats it on held-out traces by more than one
 * standard error (fit-weights.ts). Before any fit there is no such evidence, so a store serves
 * the rules themselves (PRIOR_WEIGHTS in model.ts): never worse than the baselines a user would
 * otherwise reach for (docs/decisions/prior.md).
 */
import { SIGNALS } from './features.js';

/** The back-off Markov rule (second order, first order, popularity). */
export const BACKOFF_WEIGHTS: readonly number[] = SIGNALS.map((s) =>
  s === 'secondOrder' ? 1e6 : s === 'transition' ? 1e3 : s === 'popularity' ? 1e-3 : 0,
);

/**
 * The back-off rule with one more tier before popularity: the request's words (BM25 against the
 * catalogue), so that where no transition speaks (no context yet, or a last tool never followed
 * by anything) the tool the request names comes before the busiest one. The lexical signal is
 * linear in [0, 1] where the others are logarithms: popularity sits a million times below it.
 */
export const BACKOFF_LEXICAL_WEIGHTS: readonly number[] = SIGNALS.map((s) =>
  s === 'secondOrder' ? 1e6 : s === 'transition' ? 1e3 : s === 'lexical' ? 1 : s === 'popularity' ? 1e-6 : 0,
);

/** BM25 on the catalogue, ties by popularity. */
export const LEXICAL_WEIGHTS: readonly number[] = SIGNALS.map((s) => (s === 'lexical' ? 1e3 : s === 'popularity' ? 1e-3 : 0));

/**
 * The factor the back-off rule's weights are multiplied by before any fit: the first-order tier
 * then weighs 1, so where no second-order context was seen a tool's score is its first-order
 * estimate P1(c | last) itself (up to the EPSILON floor), a probability; the tiers keep their
 * ratios of 1e3, so the ranking is the rule's. (A fit that keeps the rule serves it unscaled:
 * fit-weights.ts says why.)
 */
export const PRIOR_BACKOFF_SCALE = 1e-3;

/**
 * The factor the lexical rule's weights are multiplied by before any fit, so that its scores are
 * probabilities of a plausible sharpness rather than near-certainties (a factor changes no
 * ranking). A fit that keeps the rule fits the factor on held-out searches (fitScale); on the
 * four public datasets' train splits it came out at 0.0058-0.0099, and this is their geometric
 * mean (docs/decisions/prior.md).
 */
export const PRIOR_LEXICAL_SCALE = 0.007;
