import { describe, expect, it } from 'vitest';
import { betaReliability, CAPABILITY_PRIOR } from '../../src/scoring/beta-reliability.js';
import { expectCode } from '../helpers/expect-code.js';

/** P(p < 1/2) for Beta(a, b) by Simpson's rule on the density (an independent route to the same number). */
function numericBelowHalf(a: number, b: number): number {
  let logB = 0;
  // B(a, b) = (a-1)! (b-1)! / (a+b-1)! for integers.
  for (let i = 1; i < a; i++) logB += Math.log(i);
  for (let i = 1; i < b; i++) logB += Math.log(i);
  for (let i = 1; i < a + b; i++) logB -= Math.log(i);
  const f = (x: number): number => (x <= 0 ? (a === 1 ? Math.exp(-logB) : 0) : Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log(1 - x) - logB));
  const n = 20_000;
  const h = 0.5 / n;
  let sum = f(0) + f(0.5);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return (sum * h) / 3;
}

describe('betaReliability', () => {
  it('is the prior mean 0.5 with no data, and a success never lowers it', () => {
    expect(betaReliability(0, 0).mean).toBe(0.5);
    for (let s = 0; s < 20; s++) {
      for (let f = 0; f < 5; f++) {
        expect(betaReliability(s + 1, f).mean).toBeGreaterThan(betaReliability(s, f).mean);
        expect(betaReliability(s, f + 1).mean).toBeLessThan(betaReliability(s, f).mean);
      }
    }
  });

  it('gives no bonus for one run: above 0.9 only after 9 straight successes (10/11)', () => {
    expect(betaReliability(1, 0).mean).toBeCloseTo(2 / 3, 15);
    expect(betaReliability(8, 0).mean).toBeCloseTo(0.9, 15);
    expect(betaReliability(9, 0).mean).toBeCloseTo(10 / 11, 15);
  });

  it('computes P(p < 1/2) exactly: hand cases and numerical integration', () => {
    // Beta(1, 1): 1/2. Beta(1, 2): density 2(1 - p), mass below 1/2 is 3/4.
    expect(betaReliability(0, 0).probabilityBelowHalf).toBeCloseTo(0.5, 15);
    expect(betaReliability(0, 1).probabilityBelowHalf).toBeCloseTo(0.75, 15);
    for (const [s, f] of [[6, 3], [2, 9], [20, 25], [0, 4]] as const) {
      const r = betaReliability(s, f);
      expect(r.probabilityBelowHalf).toBeCloseTo(numericBelowHalf(s + 1, f + 1), 8);
    }
  });

  it('excludes only when the failure rate is credibly above 50%', () => {
    // Beta(1, 5): 1 - 2^-5 = 0.969 >= 0.95; Beta(1, 4): 1 - 2^-4 = 0.9375.
    expect(betaReliability(0, 4).excluded).toBe(true);
    expect(betaReliability(0, 3).excluded).toBe(false);
    expect(betaReliability(0, 1).excluded).toBe(false);
    expect(betaReliability(10, 14).excluded).toBe(false);
    expect(betaReliability(10, 30).excluded).toBe(true);
  });

  it('rejects bad counts, priors and credibility with INVALID_INPUT', () => {
    expectCode(() => betaReliability(-1, 0), 'INVALID_INPUT', 'successes');
    expectCode(() => betaReliability(0, 1.5), 'INVALID_INPUT', 'failures');
    expectCode(() => betaReliability(0, 0, { alpha: 0.5, beta: 1 }), 'INVALID_INPUT', 'prior');
    expectCode(() => betaReliability(0, 0, CAPABILITY_PRIOR, 1), 'INVALID_INPUT', 'credibility');
  });
});
