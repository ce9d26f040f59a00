import { describe, expect, it } from 'vitest';
import { budgetLevel, centsLeft, reserve, settle, type BudgetState } from '../../src/engine/budget.js';

const LIMITS = { thresholdCents: 10, economyCents: 5, maxEscalations: 5 };
const budget = (budgetCents: number, centsSpent = 0, escalations = 0): BudgetState => ({ budgetCents, centsSpent, escalations });

describe('budget levels (spec 002: degraded at or below 10 cents left, economy within 5 cents above it)', () => {
  it('is normal well above the threshold, economy within 5 cents above it, degraded at or below it', () => {
    expect(budgetLevel(budget(100), LIMITS)).toBe('normal');
    // 15 left: 5 above the threshold, not less than 5.
    expect(budgetLevel(budget(100, 85), LIMITS)).toBe('normal');
    expect(budgetLevel(budget(100, 85.5), LIMITS)).toBe('economy');
    expect(budgetLevel(budget(100, 89.99), LIMITS)).toBe('economy');
    expect(budgetLevel(budget(100, 90), LIMITS)).toBe('degraded');
    expect(budgetLevel(budget(10), LIMITS)).toBe('degraded');
    expect(budgetLevel(budget(0), LIMITS)).toBe('degraded');
  });

  it('never reports negative cents left', () => {
    expect(centsLeft(budget(10, 12))).toBe(0);
  });
});

describe('reserve and settle: the hard cap', () => {
  it('charges a reservation up front only when it fits, and counts the escalation', () => {
    expect(reserve(budget(100, 95), 5, LIMITS)).toEqual(budget(100, 100, 1));
    expect(reserve(budget(100, 95.5), 5, LIMITS)).toBeNull();
    expect(reserve(budget(100, 0, 5), 1, LIMITS)).toBeNull();
  });

  it('settles to the reported cost, never more than the reservation, and the reservation when the cost is unknown', () => {
    const reserved = reserve(budget(100, 10), 6, LIMITS)!;
    expect(settle(reserved, 6, 2)).toEqual({ budget: budget(100, 12, 1), chargedCents: 2, overrun: false });
    expect(settle(reserved, 6, 9)).toEqual({ budget: budget(100, 16, 1), chargedCents: 6, overrun: true });
    expect(settle(reserved, 6, null)).toEqual({ budget: budget(100, 16, 1), chargedCents: 6, overrun: false });
  });

  it('keeps the spend within the budget over any sequence of reservations and reported costs (seeded)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let run = 0; run < 200; run++) {
      let b = budget(Math.round(rand() * 100), 0, 0);
      for (let i = 0; i < 50; i++) {
        const cents = rand() * 20;
        const next = reserve(b, cents, { ...LIMITS, maxEscalations: 1_000 });
        if (next === null) continue;
        const reported = rand() < 0.2 ? null : rand() * 40;
        b = settle(next, cents, reported).budget;
        expect(b.centsSpent).toBeLessThanOrEqual(b.budgetCents);
        expect(b.centsSpent).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
