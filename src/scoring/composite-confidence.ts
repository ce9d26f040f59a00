/**
 * Composite confidence of a learned pattern (spec 004): frequency, effectiveness and human score,
 * weighted, with a penalty when any of them is very weak.
 *
 *   c = wF F + wE E + wH H                 (default weights 0.35 / 0.40 / 0.25)
 *   C = min(F, E, H) < 0.2 ? 0.7 c : c,    then clamped to [0, 1]
 *
 * The penalty says one failing dimension (a contradicted, harmful or rejected pattern) should not
 * be averaged away by the other two. Spec 004's SQL column `composite` leaves the penalty out; we
 * use this one definition everywhere (tiers, deprecation, history), so a pattern's tier never
 * disagrees with its stored composite.
 *
 * O(1).
 */
import { ToolgraphError } from '../schema/errors.js';

export interface ConfidenceDimensions {
  readonly frequency: number;
  readonly effectiveness: number;
  readonly human: number;
}

export type ConfidenceWeights = ConfidenceDimensions;

export const DEFAULT_CONFIDENCE_WEIGHTS: ConfidenceWeights = Object.freeze({ frequency: 0.35, effectiveness: 0.4, human: 0.25 });
/** A dimension strictly below this triggers the penalty. */
export const WEAK_DIMENSION_THRESHOLD = 0.2;
export const WEAK_DIMENSION_FACTOR = 0.7;
const SUM_TOLERANCE = 1e-9;

const KEYS = ['frequency', 'effectiveness', 'human'] as const;

/** Throws INVALID_INPUT naming `caller` unless the weights are in [0, 1] and sum to 1. */
export function assertConfidenceWeights(weights: ConfidenceWeights, caller: string): void {
  let sum = 0;
  for (const key of KEYS) {
    const w = weights[key];
    if (typeof w !== 'number' || !(w >= 0 && w <= 1)) {
      throw new ToolgraphError('INVALID_INPUT', `${caller}: expected weights.${key} in [0, 1], got ${String(w)}`);
    }
    sum += w;
  }
  if (Math.abs(sum - 1) > SUM_TOLERANCE) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected weights to sum to 1, got ${sum}`);
  }
}

/** C in [0, 1]. INVALID_INPUT for a dimension outside [0, 1] or weights that do not sum to 1. */
export function compositeConfidence(
  dimensions: ConfidenceDimensions,
  weights: ConfidenceWeights = DEFAULT_CONFIDENCE_WEIGHTS,
): number {
  for (const key of KEYS) {
    const v = dimensions[key];
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
      throw new ToolgraphError('INVALID_INPUT', `compositeConfidence: expected ${key} in [0, 1], got ${String(v)}`);
    }
  }
  if (weights !== DEFAULT_CONFIDENCE_WEIGHTS) assertConfidenceWeights(weights, 'compositeConfidence');
  const { frequency, effectiveness, human } = dimensions;
  const c = frequency * weights.frequency + effectiveness * weights.effectiveness + human * weights.human;
  const weak = Math.min(frequency, effectiveness, human) < WEAK_DIMENSION_THRESHOLD;
  return Math.min(1, Math.max(0, weak ? c * WEAK_DIMENSION_FACTOR : c));
}
