/**
 * Lower bound of the Wilson score interval for a binomial proportion: the smallest success rate
 * consistent, at confidence z, with `successes` out of `trials`.
 *
 *   p = s / n
 *   L = (p + z^2 / (2n) - z * sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n)
 *
 * (Spec 004 writes the same bound with the margin as z sqrt((p(1-p) + z^2/(4n)) / n).) Unlike the
 * normal approximation it stays inside [0, 1] and does not call 1 success out of 1 a certainty:
 * L(1, 1) = 0.2065 at z = 1.96. With no trials there is no evidence of success, so L(0, 0) = 0;
 * callers that want a neutral no-data value add their own prior (effectiveness-score.ts).
 *
 * O(1). Reference: E. B. Wilson, "Probable inference, the law of succession, and statistical
 * inference", JASA 22(158), 1927; A. Agresti, B. Coull, "Approximate is better than 'exact' for
 * interval estimation of binomial proportions", The American Statistician 52(2), 1998.
 */
import { ToolgraphError } from '../schema/errors.js';

/** z of a two-sided 95% interval, spec 004's choice. */
export const Z_95 = 1.96;

/**
 * Wilson lower bound in [0, 1]. Counts may be fractional (weighted evidence) but must satisfy
 * 0 <= successes <= trials, finite; z finite and > 0. INVALID_INPUT otherwise.
 */
export function wilsonLowerBound(successes: number, trials: number, z: number = Z_95): number {
  if (!Number.isFinite(trials) || trials < 0 || !Number.isFinite(successes) || successes < 0 || successes > trials) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `wilsonLowerBound: expected 0 <= successes <= trials, both finite, got ${String(successes)} and ${String(trials)}`,
    );
  }
  if (!Number.isFinite(z) || z <= 0) {
    throw new ToolgraphError('INVALID_INPUT', `wilsonLowerBound: expected z to be a finite number > 0, got ${String(z)}`);
  }
  // No successes: the bound is exactly 0, which the formula reaches only up to rounding.
  if (trials === 0 || successes === 0) return 0;
  const n = trials;
  const p = successes / n;
  const z2 = z * z;
  const center = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.min(1, Math.max(0, (center - margin) / (1 + z2 / n)));
}
