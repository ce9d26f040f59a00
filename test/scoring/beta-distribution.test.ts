import { describe, expect, it } from 'vitest';
import { betaCdf, lnGamma } from '../../src/scoring/beta-distribution.js';

/**
 * Composite Simpson rule of the Beta(a, b) density on [0, x] after substituting p = u^2
 * (integrand 2u f(u^2) = 2 norm u^(2a-1) (1-u^2)^(b-1)), which is smooth at 0 for a >= 1/2 where
 * the density itself has a square-root kink; for x < 1, b >= 1.
 */
function simpsonCdf(x: number, a: number, b: number, steps = 20_000): number {
  const norm = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b));
  const g = (u: number): number => 2 * norm * u ** (2 * a - 1) * (1 - u * u) ** (b - 1);
  const end = Math.sqrt(x);
  const h = end / steps;
  let sum = g(0) + g(end);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * g(i * h);
  return (sum * h) / 3;
}

describe('lnGamma', () => {
  it('matches factorials and Gamma(1/2) = sqrt(pi)', () => {
    expect(lnGamma(1)).toBeCloseTo(0, 12);
    expect(lnGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(lnGamma(11)).toBeCloseTo(Math.log(3_628_800), 10);
    expect(lnGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
  });
});

describe('betaCdf', () => {
  it('has the closed forms of Beta(1, b) and Beta(a, 1)', () => {
    // Beta(1, b): 1 - (1 - x)^b; Beta(a, 1): x^a.
    expect(betaCdf(0.5, 1, 6)).toBeCloseTo(1 - 0.5 ** 6, 12);
    expect(betaCdf(0.3, 1, 2.5)).toBeCloseTo(1 - 0.7 ** 2.5, 12);
    expect(betaCdf(0.5, 4, 1)).toBeCloseTo(0.5 ** 4, 12);
  });

  it('is 1/2 at x = 1/2 for a symmetric Beta, and symmetric: I_x(a, b) = 1 - I_{1-x}(b, a)', () => {
    for (const a of [0.5, 1, 3.7, 40]) expect(betaCdf(0.5, a, a)).toBeCloseTo(0.5, 12);
    expect(betaCdf(0.2, 2.5, 7)).toBeCloseTo(1 - betaCdf(0.8, 7, 2.5), 12);
  });

  it('agrees with numerical integration of the density for fractional parameters', () => {
    // I_0.5(3, 4) = 42/64 = 0.65625 (binomial sum: P(at least 3 of 6 fair coins)).
    expect(betaCdf(0.5, 3, 4)).toBeCloseTo(0.65625, 12);
    for (const [x, a, b] of [[0.5, 1.5, 6], [0.5, 2.2, 1.4], [0.35, 12.5, 9.25], [0.9, 3, 1.01]] as const) {
      expect(betaCdf(x, a, b)).toBeCloseTo(simpsonCdf(x, a, b), 8);
    }
  });

  it('is 0 and 1 at the ends and rejects non-positive parameters', () => {
    expect(betaCdf(0, 2, 3)).toBe(0);
    expect(betaCdf(1, 2, 3)).toBe(1);
    expect(() => betaCdf(0.5, 0, 1)).toThrow(RangeError);
  });
});
