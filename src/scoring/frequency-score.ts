/**
 * Frequency score of a learned pattern (spec 004): how often it was observed, less a penalty per
 * contradiction.
 *
 *   observations   1-2    3-5    6-10   11-20   21+
 *   base           0.30   0.50   0.70   0.85    0.95
 *
 *   F = max(0, base(observations) - 0.1 * contradictions)
 *
 * Zero observations score as the first band (0.30), as spec 004's code does: a pattern is created
 * by its first observation, so 0 only appears in hand-built evidence. Time decay is not applied
 * here (decay.ts).
 *
 * O(1).
 */
import { ToolgraphError } from '../schema/errors.js';

/** Upper bound (inclusive) of each band's observations, and the band's base score. */
export const FREQUENCY_BANDS: readonly { readonly maxObservations: number; readonly score: number }[] = Object.freeze([
  { maxObservations: 2, score: 0.3 },
  { maxObservations: 5, score: 0.5 },
  { maxObservations: 10, score: 0.7 },
  { maxObservations: 20, score: 0.85 },
  { maxObservations: Infinity, score: 0.95 },
]);

export const CONTRADICTION_PENALTY = 0.1;

function count(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ToolgraphError('INVALID_INPUT', `frequencyScore: expected ${name} to be an integer >= 0, got ${String(value)}`);
  }
  return value;
}

/** F in [0, 0.95]. INVALID_INPUT unless both counts are integers >= 0. */
export function frequencyScore(observations: number, contradictions: number): number {
  count('observations', observations);
  count('contradictions', contradictions);
  let base = 0;
  for (const band of FREQUENCY_BANDS) {
    if (observations <= band.maxObservations) {
      base = band.score;
      break;
    }
  }
  return Math.max(0, base - CONTRADICTION_PENALTY * contradictions);
}
