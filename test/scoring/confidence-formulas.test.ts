import { describe, expect, it } from 'vitest';
import { compositeConfidence, DEFAULT_CONFIDENCE_WEIGHTS } from '../../src/scoring/composite-confidence.js';
import { effectivenessScore, seedEffectivenessScore } from '../../src/scoring/effectiveness-score.js';
import { frequencyScore } from '../../src/scoring/frequency-score.js';
import { humanScore, type HumanFeedback } from '../../src/scoring/human-score.js';
import { DAY_MS, isDueForDeletion, LIFECYCLE_POLICIES, lifecyclePolicy, nextPatternStatus } from '../../src/scoring/lifecycle.js';
import { wilsonLowerBound, Z_95 } from '../../src/scoring/wilson.js';
import { expectError } from './_helpers.js';

const Z2 = 1.96 * 1.96; // 3.8416

/** Spec 004's own form of the bound, with its margin written as z sqrt((p(1-p) + z^2/(4n)) / n). */
function specWilson(positive: number, total: number): number {
  const z = 1.96;
  const p = positive / total;
  const denominator = 1 + (z * z) / total;
  const center = (p + (z * z) / (2 * total)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p) + (z * z) / (4 * total)) / total)) / denominator;
  return Math.max(0, Math.min(1, center - margin));
}

describe('wilsonLowerBound', () => {
  it('matches hand-computed values', () => {
    // All successes: L(n, n) = n / (n + z^2). L(1, 1) = 1 / 4.8416 = 0.2065432915.
    expect(wilsonLowerBound(1, 1)).toBeCloseTo(1 / (1 + Z2), 12);
    expect(wilsonLowerBound(4, 4)).toBeCloseTo(4 / (4 + Z2), 12);
    // L(5, 10): p = 0.5, center 0.5 + 3.8416/20 = 0.69208, margin 1.96 sqrt(0.025 + 3.8416/400)
    // = 0.364603, denominator 1.38416: (0.69208 - 0.364603) / 1.38416 = 0.2365896.
    expect(wilsonLowerBound(5, 10)).toBeCloseTo(0.2365895936, 9);
    expect(Z_95).toBe(1.96);
  });

  it('is 0 without successes and without trials', () => {
    expect(wilsonLowerBound(0, 0)).toBe(0);
    for (const n of [1, 2, 10, 1000]) expect(wilsonLowerBound(0, n)).toBe(0);
  });

  it("equals spec 004's form, stays within [0, p], and grows with each success", () => {
    for (let n = 1; n <= 40; n++) {
      for (let s = 0; s <= n; s++) {
        const l = wilsonLowerBound(s, n);
        expect(l).toBeCloseTo(specWilson(s, n), 12);
        expect(l).toBeGreaterThanOrEqual(0);
        expect(l).toBeLessThanOrEqual(s / n + 1e-15);
        // One more trial that succeeded never lowers the bound; one that failed never raises it.
        expect(wilsonLowerBound(s + 1, n + 1)).toBeGreaterThanOrEqual(l);
        expect(wilsonLowerBound(s, n + 1)).toBeLessThanOrEqual(l);
      }
    }
  });

  it('takes another z', () => {
    // z = 1: L(1, 1) = 1 / (1 + 1) = 0.5.
    expect(wilsonLowerBound(1, 1, 1)).toBeCloseTo(0.5, 12);
  });

  it('rejects bad counts and z with INVALID_INPUT', () => {
    for (const [s, n] of [[2, 1], [-1, 3], [1, -1], [Number.NaN, 1], [1, Infinity]] as const) {
      expectError(() => wilsonLowerBound(s, n), 'INVALID_INPUT', 'wilsonLowerBound');
    }
    expectError(() => wilsonLowerBound(1, 2, 0), 'INVALID_INPUT', 'wilsonLowerBound');
    expectError(() => wilsonLowerBound(1, 2, Number.NaN), 'INVALID_INPUT', 'wilsonLowerBound');
  });
});

describe('frequencyScore', () => {
  it('follows the observation table', () => {
    const table: Array<[number, number]> = [
      [0, 0.3], [1, 0.3], [2, 0.3],
      [3, 0.5], [5, 0.5],
      [6, 0.7], [10, 0.7],
      [11, 0.85], [20, 0.85],
      [21, 0.95], [10_000, 0.95],
    ];
    for (const [observations, score] of table) expect(frequencyScore(observations, 0)).toBe(score);
  });

  it('subtracts 0.1 per contradiction, floored at 0', () => {
    // 7 observations: 0.7 - 2 * 0.1 = 0.5.
    expect(frequencyScore(7, 2)).toBeCloseTo(0.5, 12);
    expect(frequencyScore(1, 3)).toBe(0);
    expect(frequencyScore(25, 100)).toBe(0);
  });

  it('rejects counts that are not integers >= 0 with INVALID_INPUT', () => {
    for (const [o, c] of [[-1, 0], [1.5, 0], [1, -1], [1, Number.NaN]] as const) {
      expectError(() => frequencyScore(o, c), 'INVALID_INPUT', 'frequencyScore');
    }
  });
});

describe('effectivenessScore', () => {
  const L11 = 1 / (1 + Z2);

  it('is 0.5 without data, and a first success raises it', () => {
    expect(effectivenessScore({ positive: 0, negative: 0, neutral: 0 })).toBe(0.5);
    // E = 0.5 + (L(1, 1) - L(0, 1)) / 2 = 0.5 + 0.2065433 / 2 = 0.6032716.
    expect(effectivenessScore({ positive: 1, negative: 0, neutral: 0 })).toBeCloseTo(0.5 + L11 / 2, 12);
    expect(effectivenessScore({ positive: 0, negative: 1, neutral: 0 })).toBeCloseTo(0.5 - L11 / 2, 12);
  });

  it('matches a mixed case by hand', () => {
    // 3 positive, 1 negative: E = 0.5 + (L(3, 4) - L(1, 4)) / 2 = 0.5 + (0.3006361 - 0.0455861) / 2 = 0.6275250.
    expect(effectivenessScore({ positive: 3, negative: 1, neutral: 0 })).toBeCloseTo(0.627524995, 8);
  });

  it("spec 004's seed formula drops on a first success (the flaw we fix)", () => {
    expect(seedEffectivenessScore({ positive: 0, negative: 0, neutral: 0 })).toBe(0.5);
    expect(seedEffectivenessScore({ positive: 1, negative: 0, neutral: 0 })).toBeCloseTo(L11, 12);
    expect(seedEffectivenessScore({ positive: 3, negative: 1, neutral: 0 })).toBeCloseTo(specWilson(3, 4), 12);
  });

  it('never falls on a success, never rises on a failure, and is symmetric', () => {
    for (let p = 0; p <= 12; p++) {
      for (let n = 0; n <= 12; n++) {
        for (const u of [0, 1, 5]) {
          const e = effectivenessScore({ positive: p, negative: n, neutral: u });
          expect(e).toBeGreaterThanOrEqual(0);
          expect(e).toBeLessThanOrEqual(1);
          expect(effectivenessScore({ positive: p + 1, negative: n, neutral: u })).toBeGreaterThanOrEqual(e);
          expect(effectivenessScore({ positive: p, negative: n + 1, neutral: u })).toBeLessThanOrEqual(e);
          expect(effectivenessScore({ positive: n, negative: p, neutral: u })).toBeCloseTo(1 - e, 12);
        }
      }
    }
  });

  it('treats neutral outcomes as evidence for neither side, and tends to the rate with data', () => {
    expect(effectivenessScore({ positive: 0, negative: 0, neutral: 7 })).toBe(0.5);
    // 9000 / 1000: 0.5 + (0.8939655 - 0.0942727) / 2 = 0.8998464.
    expect(effectivenessScore({ positive: 9000, negative: 1000, neutral: 0 })).toBeCloseTo(0.8998464, 6);
  });

  it('rejects negative or non-finite counts with INVALID_INPUT', () => {
    expectError(() => effectivenessScore({ positive: -1, negative: 0, neutral: 0 }), 'INVALID_INPUT', 'effectivenessScore');
    expectError(() => effectivenessScore({ positive: 0, negative: Number.NaN, neutral: 0 }), 'INVALID_INPUT', 'effectivenessScore');
    expectError(() => seedEffectivenessScore({ positive: 0, negative: 0, neutral: -2 }), 'INVALID_INPUT', 'seedEffectivenessScore');
  });
});

describe('humanScore', () => {
  const fb = (approvals: number, rejections: number, reflect: HumanFeedback['reflect'] = 'none'): HumanFeedback => ({
    approvals,
    rejections,
    reflect,
  });

  /** Spec 004's loop, verbatim. */
  function specHuman(approvals: number, rejections: number): number {
    if (approvals + rejections === 0) return 0.5;
    let score = 0.5;
    for (let i = 0; i < approvals; i++) score = score + 0.15 * (1 - score);
    for (let i = 0; i < rejections; i++) score = score - 0.15 * score;
    return score;
  }

  it('matches hand-computed values', () => {
    expect(humanScore(fb(0, 0))).toBe(0.5);
    // One approval: 0.5 + 0.15 * 0.5 = 0.575; two: 0.575 + 0.15 * 0.425 = 0.63875.
    expect(humanScore(fb(1, 0))).toBeCloseTo(0.575, 12);
    expect(humanScore(fb(2, 0))).toBeCloseTo(0.63875, 12);
    // One rejection: 0.5 - 0.15 * 0.5 = 0.425. Two approvals then a rejection: 0.63875 * 0.85 = 0.5429375.
    expect(humanScore(fb(0, 1))).toBeCloseTo(0.425, 12);
    expect(humanScore(fb(2, 1))).toBeCloseTo(0.5429375, 12);
  });

  it("equals spec 004's loop", () => {
    for (let a = 0; a <= 25; a++) for (let r = 0; r <= 25; r++) expect(humanScore(fb(a, r))).toBeCloseTo(specHuman(a, r), 12);
  });

  it('is 0.95 after a /reflect approval, and 0.30 lower after a rejection', () => {
    expect(humanScore(fb(0, 9, 'approved'))).toBe(0.95);
    expect(humanScore(fb(0, 0, 'rejected'))).toBeCloseTo(0.2, 12);
    expect(humanScore(fb(2, 0, 'rejected'))).toBeCloseTo(0.33875, 12);
    expect(humanScore(fb(0, 10, 'rejected'))).toBe(0);
  });

  it('takes another learning rate', () => {
    // r = 0.5: one approval 0.75.
    expect(humanScore(fb(1, 0), 0.5)).toBeCloseTo(0.75, 12);
  });

  it('rejects bad counts, decisions and rates with INVALID_INPUT', () => {
    expectError(() => humanScore(fb(-1, 0)), 'INVALID_INPUT', 'humanScore');
    expectError(() => humanScore(fb(0, 0.5)), 'INVALID_INPUT', 'humanScore');
    expectError(() => humanScore(fb(0, 0, 'maybe' as never)), 'INVALID_INPUT', 'humanScore');
    expectError(() => humanScore(fb(1, 0), 1), 'INVALID_INPUT', 'humanScore');
    expectError(() => humanScore(fb(1, 0), 0), 'INVALID_INPUT', 'humanScore');
  });
});

describe('compositeConfidence', () => {
  it('weighs 0.35 / 0.40 / 0.25', () => {
    expect(DEFAULT_CONFIDENCE_WEIGHTS).toEqual({ frequency: 0.35, effectiveness: 0.4, human: 0.25 });
    // Spec 004's column defaults: 0.3 * 0.35 + 0.5 * 0.40 + 0.5 * 0.25 = 0.105 + 0.2 + 0.125 = 0.43.
    expect(compositeConfidence({ frequency: 0.3, effectiveness: 0.5, human: 0.5 })).toBeCloseTo(0.43, 12);
    expect(compositeConfidence({ frequency: 1, effectiveness: 1, human: 1 })).toBeCloseTo(1, 12);
  });

  it('multiplies by 0.7 when any dimension is below 0.2, and not at 0.2', () => {
    // (0.1, 0.5, 0.5): 0.035 + 0.2 + 0.125 = 0.36, x 0.7 = 0.252.
    expect(compositeConfidence({ frequency: 0.1, effectiveness: 0.5, human: 0.5 })).toBeCloseTo(0.252, 12);
    expect(compositeConfidence({ frequency: 0.9, effectiveness: 0.9, human: 0.19 })).toBeCloseTo((0.315 + 0.36 + 0.0475) * 0.7, 12);
    // Exactly 0.2 is not weak: 0.07 + 0.2 + 0.125 = 0.395.
    expect(compositeConfidence({ frequency: 0.2, effectiveness: 0.5, human: 0.5 })).toBeCloseTo(0.395, 12);
  });

  it('takes other weights', () => {
    expect(compositeConfidence({ frequency: 0.3, effectiveness: 0.6, human: 0.9 }, { frequency: 0, effectiveness: 0, human: 1 })).toBeCloseTo(0.9, 12);
  });

  it('rejects dimensions outside [0, 1] and bad weights with INVALID_INPUT', () => {
    expectError(() => compositeConfidence({ frequency: 1.2, effectiveness: 0.5, human: 0.5 }), 'INVALID_INPUT', 'compositeConfidence');
    expectError(() => compositeConfidence({ frequency: Number.NaN, effectiveness: 0.5, human: 0.5 }), 'INVALID_INPUT', 'compositeConfidence');
    expectError(
      () => compositeConfidence({ frequency: 0.5, effectiveness: 0.5, human: 0.5 }, { frequency: 0.5, effectiveness: 0.5, human: 0.5 }),
      'INVALID_INPUT',
      'compositeConfidence',
    );
  });
});

describe('lifecycle', () => {
  it('maps composites to tiers, a bound belonging to the higher tier', () => {
    const cases: Array<[number, string]> = [
      [1, 'core'], [0.8, 'core'], [0.79999, 'strong'], [0.6, 'strong'], [0.59999, 'moderate'],
      [0.4, 'moderate'], [0.39999, 'tentative'], [0.2, 'tentative'], [0.19999, 'deprecated'], [0, 'deprecated'],
    ];
    for (const [composite, tier] of cases) expect(lifecyclePolicy(composite).tier).toBe(tier);
    // 0.35 * 0.8 + 0.40 * 0.8 + 0.25 * 0.8 is 0.8 up to rounding: core.
    expect(lifecyclePolicy(compositeConfidence({ frequency: 0.8, effectiveness: 0.8, human: 0.8 })).tier).toBe('core');
  });

  it('gives each tier its action and injection method', () => {
    expect(LIFECYCLE_POLICIES.map((p) => [p.tier, p.action, p.injection])).toEqual([
      ['core', 'auto_apply', 'system_prompt_prepend'],
      ['strong', 'suggest', 'context_suggestion'],
      ['moderate', 'on_request', 'on_demand'],
      ['tentative', 'observe', 'none'],
      ['deprecated', 'mark_for_deletion', 'none'],
    ]);
  });

  it('deprecates, reactivates, and deletes 30 days after deprecation', () => {
    expect(nextPatternStatus('active', null, 'deprecated', 500)).toEqual({ status: 'deprecated', deprecatedAt: 500, change: 'deprecated' });
    expect(nextPatternStatus('deprecated', 500, 'deprecated', 900)).toEqual({ status: 'deprecated', deprecatedAt: 500, change: null });
    expect(nextPatternStatus('deprecated', 500, 'tentative', 900)).toEqual({ status: 'active', deprecatedAt: null, change: 'reactivated' });
    expect(nextPatternStatus('active', null, 'core', 900)).toEqual({ status: 'active', deprecatedAt: null, change: null });
    expect(isDueForDeletion('deprecated', 0, 30 * DAY_MS - 1)).toBe(false);
    expect(isDueForDeletion('deprecated', 0, 30 * DAY_MS)).toBe(true);
    expect(isDueForDeletion('active', null, 365 * DAY_MS)).toBe(false);
  });

  it('rejects a composite outside [0, 1] with INVALID_INPUT', () => {
    for (const c of [-0.1, 1.1, Number.NaN]) expectError(() => lifecyclePolicy(c), 'INVALID_INPUT', 'lifecyclePolicy');
  });
});
