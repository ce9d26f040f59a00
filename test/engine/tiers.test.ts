import { describe, expect, it } from 'vitest';
import { parseSessionOptions, SPEC_TIERS } from '../../src/engine/options.js';
import { chooseTier, costCents, promptTokenBound, reservationCents } from '../../src/engine/tiers.js';

const options = parseSessionOptions({});

describe('tier prices (spec 002 table)', () => {
  it('has the spec models and prices by default', () => {
    expect(options.tiers).toEqual(SPEC_TIERS);
    expect(options.tiers.thinker).toEqual({ model: 'o3-mini', usdPer1kTokens: 0.025 });
  });

  it('costs tokens / 1000 x dollars per 1K x 100 cents', () => {
    // 1,000 thinker tokens at $0.025 per 1K: 2.5 cents; 2,000 cheap ones at $0.005: 1 cent.
    expect(costCents(1_000, 0.025)).toBeCloseTo(2.5, 12);
    expect(costCents(2_000, 0.005)).toBeCloseTo(1, 12);
    expect(costCents(-5, 0.025)).toBe(0);
  });

  it('bounds prompt tokens by the UTF-8 bytes plus the template allowance', () => {
    // 'héllo' is 6 bytes; two messages: 6 + 3 bytes + 2 x 8 + 16.
    expect(promptTokenBound([{ content: 'héllo' }, { content: 'abc' }])).toBe(6 + 3 + 16 + 16);
  });

  it('reserves the prompt bound plus the completion bound at the tier price', () => {
    // (488 + 512) tokens of thinker: 2.5 cents.
    expect(reservationCents('thinker', 488, options)).toBeCloseTo(2.5, 12);
  });
});

describe('chooseTier: every switch', () => {
  const bound = 488; // thinker reservation 2.5 cents, cheap 0.5 cents
  const limits = { ...options, maxEscalations: 5 };
  it('asks the thinker at the normal level', () => {
    expect(chooseTier({ budgetCents: 100, centsSpent: 0, escalations: 0 }, 'adaptive', bound, limits)).toEqual({ tier: 'thinker', reservationCents: 2.5 });
  });
  it('asks the cheap tier in economy mode', () => {
    // 14 left: 4 above the threshold.
    const choice = chooseTier({ budgetCents: 100, centsSpent: 86, escalations: 0 }, 'adaptive', bound, limits);
    expect(choice.tier).toBe('cheap');
  });
  it('falls to the cheap tier when the thinker reservation does not fit', () => {
    const big = 40_000; // thinker (40,000 + 512) / 1000 x 2.5 = 101.28 cents; cheap 20.26
    expect(chooseTier({ budgetCents: 100, centsSpent: 0, escalations: 0 }, 'adaptive', big, limits).tier).toBe('cheap');
    expect(chooseTier({ budgetCents: 100, centsSpent: 85, escalations: 0 }, 'adaptive', big, limits)).toEqual({ tier: null, why: 'budget' });
  });
  it('calls nothing when degraded, past the cap, or deterministic', () => {
    expect(chooseTier({ budgetCents: 100, centsSpent: 90, escalations: 0 }, 'adaptive', bound, limits)).toEqual({ tier: null, why: 'degraded' });
    expect(chooseTier({ budgetCents: 100, centsSpent: 0, escalations: 5 }, 'adaptive', bound, limits)).toEqual({ tier: null, why: 'escalations' });
    expect(chooseTier({ budgetCents: 100, centsSpent: 0, escalations: 0 }, 'deterministic', bound, limits)).toEqual({ tier: null, why: 'deterministic' });
  });
});
