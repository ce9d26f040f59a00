/**
 * Weights of the four trace value dimensions, per task domain (spec 001).
 *
 *   score = C * wC + N * wN + D * wD + O * wO,   wC + wN + wD + wO = 1
 *
 *   profile            wC    wN    wD    wO
 *   default            0.25  0.35  0.15  0.25   (spec 000's only weights)
 *   finance            0.20  0.25  0.10  0.45
 *   code               0.20  0.30  0.30  0.20
 *   medical            0.15  0.20  0.10  0.55
 *   customer_service   0.20  0.30  0.20  0.30
 *
 * The profile is chosen by metadata.task_domain, matched exactly (case and spelling: `Finance` and
 * `code-review` are not profiles). Any other domain silently uses default, as spec 001 says; own
 * property lookup only, so a domain called `constructor` or `__proto__` is just unknown.
 *
 * O(1).
 */
import { z } from 'zod';
import { parseWith } from '../schema/issues.js';

export interface ScoringWeights {
  readonly complexity: number;
  readonly novelty: number;
  readonly toolDiversity: number;
  readonly outcomeConfidence: number;
}

export type ValueProfileName = 'default' | 'finance' | 'code' | 'medical' | 'customer_service';

function profile(complexity: number, novelty: number, toolDiversity: number, outcomeConfidence: number): ScoringWeights {
  return Object.freeze({ complexity, novelty, toolDiversity, outcomeConfidence });
}

export const VALUE_WEIGHT_PROFILES: Readonly<Record<ValueProfileName, ScoringWeights>> = Object.freeze({
  default: profile(0.25, 0.35, 0.15, 0.25),
  finance: profile(0.2, 0.25, 0.1, 0.45),
  code: profile(0.2, 0.3, 0.3, 0.2),
  medical: profile(0.15, 0.2, 0.1, 0.55),
  customer_service: profile(0.2, 0.3, 0.2, 0.3),
});

/** How far from 1 the weights may sum: room for decimal fractions such as 0.1 + 0.2. */
export const WEIGHT_SUM_TOLERANCE = 1e-9;

const weightSchema = z.number().min(0).max(1);

/** Caller-supplied weights (config, API): four numbers in [0, 1] summing to 1. Strict. */
export const scoringWeightsSchema = z
  .strictObject({
    complexity: weightSchema,
    novelty: weightSchema,
    toolDiversity: weightSchema,
    outcomeConfidence: weightSchema,
  })
  .refine(
    (w) => Math.abs(w.complexity + w.novelty + w.toolDiversity + w.outcomeConfidence - 1) <= WEIGHT_SUM_TOLERANCE,
    { error: 'weights must sum to 1' },
  );

/** Validates weights; throws INVALID_INPUT naming `caller` and the field. */
export function parseScoringWeights(input: unknown, caller = 'parseScoringWeights'): ScoringWeights {
  return parseWith(scoringWeightsSchema, input, caller);
}

/** The profile for a task domain: its own when spec 001 defines one, else default. */
export function valueWeightsFor(domain: string): { readonly profile: ValueProfileName; readonly weights: ScoringWeights } {
  const name: ValueProfileName = Object.hasOwn(VALUE_WEIGHT_PROFILES, domain) ? (domain as ValueProfileName) : 'default';
  return { profile: name, weights: VALUE_WEIGHT_PROFILES[name] };
}
