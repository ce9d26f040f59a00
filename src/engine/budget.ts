/**
 * A session's budget (spec 002, "Control de Presupuesto"): cents spent, escalations made, and
 * the level the cents left put it at:
 *
 *   degraded  centsLeft <= thresholdCents                  no model call (deterministic)
 *   economy   centsLeft - thresholdCents < economyCents    the cheap tier only
 *   normal    otherwise                                    the thinker tier
 *
 * The spec puts economy mode at "< 5 cents left" and degradation at 10: read against the cents
 * left, economy could never apply, since a session stops calling at 10. It is read here against
 * what the session may still spend before it degrades (docs/decisions/sessions.md).
 *
 * The hard cap: a model call is made only after its worst-case cost (its reservation, tiers.ts)
 * has been charged, and only when that fits in what is left; when it ends, the charge is settled
 * to the call's cost as the endpoint reported it, never more than the reservation. So the cents
 * spent never exceed the budget, whatever the endpoint answers or fails to. Pure functions over
 * plain values.
 */

export interface BudgetState {
  readonly budgetCents: number;
  readonly centsSpent: number;
  /** Model calls made (or attempted: a failed call counts). */
  readonly escalations: number;
}

export interface BudgetLimits {
  readonly thresholdCents: number;
  readonly economyCents: number;
  readonly maxEscalations: number;
}

export type BudgetLevel = 'normal' | 'economy' | 'degraded';

/** Cents are kept to a hundred-thousandth: sums of token prices stay exact enough to compare. */
export function roundCents(cents: number): number {
  return Math.round(cents * 1e5) / 1e5;
}

export function centsLeft(budget: BudgetState): number {
  return Math.max(0, roundCents(budget.budgetCents - budget.centsSpent));
}

export function budgetLevel(budget: BudgetState, limits: BudgetLimits): BudgetLevel {
  const left = centsLeft(budget);
  if (left <= limits.thresholdCents) return 'degraded';
  return left - limits.thresholdCents < limits.economyCents ? 'economy' : 'normal';
}

/**
 * The budget with `cents` charged up front for one more model call, or null when that would
 * spend more than the budget or pass the escalation cap.
 */
export function reserve(budget: BudgetState, cents: number, limits: BudgetLimits): BudgetState | null {
  if (!(cents >= 0) || budget.escalations >= limits.maxEscalations) return null;
  const spent = roundCents(budget.centsSpent + cents);
  if (spent > budget.budgetCents) return null;
  return { budgetCents: budget.budgetCents, centsSpent: spent, escalations: budget.escalations + 1 };
}

export interface Settlement {
  readonly budget: BudgetState;
  /** What the call is charged: its reported cost, at most the reservation. */
  readonly chargedCents: number;
  /** The reported cost was more than the reservation (an endpoint past its token bound). */
  readonly overrun: boolean;
}

/** Settles a reservation of `reserved` cents to the call's reported cost `actual` (null: unknown, the reservation stands). */
export function settle(budget: BudgetState, reserved: number, actual: number | null): Settlement {
  const charged = actual === null ? reserved : Math.min(Math.max(0, actual), reserved);
  return {
    budget: { ...budget, centsSpent: roundCents(budget.centsSpent - reserved + charged) },
    chargedCents: roundCents(charged),
    overrun: actual !== null && actual > reserved,
  };
}
