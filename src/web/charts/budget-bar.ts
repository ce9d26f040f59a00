/**
 * Spec 002's budget bar: the share of a session's budget still left, `centsLeft / budgetCents`,
 * as the width of a bar in its track (a meter for screen readers).
 */
import { h, num } from '../dom.js';
import type { Budget } from '../api.js';

export function budgetBar(budget: Budget): HTMLElement {
  const share = budget.budgetCents > 0 ? Math.min(1, Math.max(0, budget.centsLeft / budget.budgetCents)) : 0;
  const fill = h('span', { class: `fill level-${budget.level}` });
  fill.style.width = `${(share * 100).toFixed(2)}%`;
  return h(
    'div',
    {
      class: 'budget-bar',
      role: 'meter',
      'aria-valuemin': 0,
      'aria-valuemax': budget.budgetCents,
      'aria-valuenow': budget.centsLeft,
      'aria-label': `budget: ${num(budget.centsLeft, 2)} of ${num(budget.budgetCents, 2)} cents left`,
      'data-share': share,
    },
    fill,
  );
}
