/**
 * Reliability of a capability as a Beta posterior over its success probability p:
 *
 *   prior       p ~ Beta(a0, b0)                     default Beta(1, 1): mean 0.5, the no-data value
 *   posterior   p ~ Beta(a0 + successes, b0 + failures)
 *   reliability = posterior mean = (a0 + s) / (a0 + b0 + s + f)
 *   excluded    = P(p < 1/2 | data) >= credibility (0.95): the failure rate is credibly above 50%
 *
 * The prior mean is the value with no data, so a success never lowers reliability and a failure
 * never raises it; and one run cannot earn spec 003 section 4.2's bonus (reliability > 0.9):
 * with Beta(1, 1) that takes 9 successes without a failure (10/11). Spec 003 section 5.3's
 * exclusion ("failure rate > 50%") is read as credibly above, so one failure excludes nothing.
 *
 * For integer a, b, P(p < 1/2) = I_{1/2}(a, b) = P(Binomial(a + b - 1, 1/2) >= a) (the Beta-binomial
 * identity), summed exactly in log space: O(a + b). The prior must be integer for that reason.
 *
 * Same prior family as the per-edge posterior the feedback loop keeps (DESIGN.md: "Beta
 * posterior per edge and per capability"); the two should share one prior.
 *
 * Reference: Gelman et al., Bayesian Data Analysis (3rd ed.), section 2.4; Abramowitz, Stegun
 * 26.5.24 (incomplete beta and the binomial tail).
 */
import { ToolgraphError } from '../schema/errors.js';

export interface BetaPrior {
  /** Pseudo-successes, a positive integer. */
  readonly alpha: number;
  /** Pseudo-failures, a positive integer. */
  readonly beta: number;
}

export const CAPABILITY_PRIOR: BetaPrior = Object.freeze({ alpha: 1, beta: 1 });

/** Posterior probability that p < 1/2 at or above which a capability is excluded. */
export const EXCLUSION_CREDIBILITY = 0.95;

export interface BetaReliability {
  readonly alpha: number;
  readonly beta: number;
  /** Posterior mean, in (0, 1). */
  readonly mean: number;
  /** P(p < 1/2 | data). */
  readonly probabilityBelowHalf: number;
  /** True when probabilityBelowHalf >= credibility. */
  readonly excluded: boolean;
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new ToolgraphError('INVALID_INPUT', `betaReliability: expected ${name} to be a non-negative integer, got ${String(value)}`);
}

/** P(Binomial(n, 1/2) >= a), exact in log space. */
function binomialTailHalf(n: number, a: number): number {
  if (a <= 0) return 1;
  if (a > n) return 0;
  // log C(n, j) built incrementally from j = 0; terms summed relative to the largest (log-sum-exp).
  const logs: number[] = [];
  let logC = 0;
  let max = Number.NEGATIVE_INFINITY;
  for (let j = 0; j <= n; j++) {
    if (j > 0) logC += Math.log(n - j + 1) - Math.log(j);
    if (j >= a) {
      logs.push(logC);
      if (logC > max) max = logC;
    }
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - max);
  return Math.min(1, Math.exp(max + Math.log(sum) - n * Math.LN2));
}

export function betaReliability(successes: number, failures: number, prior: BetaPrior = CAPABILITY_PRIOR, credibility = EXCLUSION_CREDIBILITY): BetaReliability {
  checkCount('successes', successes);
  checkCount('failures', failures);
  if (!Number.isInteger(prior.alpha) || !Number.isInteger(prior.beta) || prior.alpha < 1 || prior.beta < 1) {
    throw new ToolgraphError('INVALID_INPUT', `betaReliability: expected prior alpha and beta to be positive integers, got ${String(prior.alpha)}, ${String(prior.beta)}`);
  }
  if (!(credibility > 0.5 && credibility < 1)) throw new ToolgraphError('INVALID_INPUT', `betaReliability: expected credibility in (0.5, 1), got ${String(credibility)}`);
  const alpha = prior.alpha + successes;
  const beta = prior.beta + failures;
  const probabilityBelowHalf = binomialTailHalf(alpha + beta - 1, alpha);
  return { alpha, beta, mean: alpha / (alpha + beta), probabilityBelowHalf, excluded: probabilityBelowHalf >= credibility };
}
