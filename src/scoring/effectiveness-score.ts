/**
 * Effectiveness score of a learned pattern (spec 004): when it was applied, did it work?
 *
 * Spec 004 scores the Wilson lower bound L (wilson.ts) of the positive rate, and 0.5 without data:
 *
 *   E_spec = n = 0 ? 0.5 : L(positive, n)
 *
 * That punishes success: L(1, 1) = 0.2066, so a pattern's first successful application drops it
 * from 0.5 to 0.21, it takes four straight successes, L(4, 4) = 0.51, to climb back, and one
 * success with one failure, L(1, 2) = 0.09, already trips the composite's x0.7 weak-dimension
 * penalty. DESIGN.md requires that a
 * first success never lowers a score. We therefore centre the score on a 0.5 prior and let each
 * side's credible evidence, as Wilson bounds it, pull it away:
 *
 *   E = 0.5 + (L(positive, n) - L(negative, n)) / 2,      n = positive + negative + neutral
 *
 * - No data: both bounds are 0, E = 0.5 (the prior; no special case).
 * - A success raises L(positive) and lowers L(negative): E never goes down on a success, and never
 *   up on a failure. First success 0.6033, first failure 0.3967.
 * - Symmetric: swapping positive and negative gives 1 - E.
 * - With much data the bounds approach the rates and E -> p_positive + p_neutral / 2: a neutral
 *   outcome is evidence for neither side and counts half. Spec 004 counts it as a non-success.
 * - E stays in [0, 1], since 0 <= L(k, n) <= k / n.
 *
 * spec 004's own formula is kept as seedEffectivenessScore, for the `seed` rules and for
 * side-by-side evaluation.
 *
 * O(1).
 */
import { ToolgraphError } from '../schema/errors.js';
import { wilsonLowerBound, Z_95 } from './wilson.js';

/** Application outcomes of a pattern, as counts (spec 004's ApplicationRecord.outcome). */
export interface ApplicationOutcomes {
  readonly positive: number;
  readonly negative: number;
  readonly neutral: number;
}

/** The no-data effectiveness. */
export const EFFECTIVENESS_PRIOR = 0.5;

function total(outcomes: ApplicationOutcomes, caller: string): number {
  for (const key of ['positive', 'negative', 'neutral'] as const) {
    const value = outcomes[key];
    if (!Number.isFinite(value) || value < 0) {
      throw new ToolgraphError('INVALID_INPUT', `${caller}: expected ${key} to be a finite count >= 0, got ${String(value)}`);
    }
  }
  return outcomes.positive + outcomes.negative + outcomes.neutral;
}

/** E = 0.5 + (L(positive, n) - L(negative, n)) / 2. INVALID_INPUT for negative or non-finite counts. */
export function effectivenessScore(outcomes: ApplicationOutcomes, z: number = Z_95): number {
  const n = total(outcomes, 'effectivenessScore');
  return EFFECTIVENESS_PRIOR + (wilsonLowerBound(outcomes.positive, n, z) - wilsonLowerBound(outcomes.negative, n, z)) / 2;
}

/** Spec 004 as written: 0.5 without data, else L(positive, n). */
export function seedEffectivenessScore(outcomes: ApplicationOutcomes, z: number = Z_95): number {
  const n = total(outcomes, 'seedEffectivenessScore');
  return n === 0 ? EFFECTIVENESS_PRIOR : wilsonLowerBound(outcomes.positive, n, z);
}
