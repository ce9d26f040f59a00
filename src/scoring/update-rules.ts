/**
 * The named events that move a pattern's confidence (spec 004's UPDATE_RULES), and how much each
 * moves each dimension.
 *
 *   event                    frequency  effectiveness  human
 *   pattern_observed_again     +0.05        0            0
 *   applied_successfully        0          +0.08         0
 *   user_accepted               0          +0.05        +0.10
 *   reflect_approved            0           0           +0.30
 *   causal_link_confirmed      +0.10        0            0
 *   pattern_contradicted       -0.10        0            0
 *   applied_failed              0          -0.15         0
 *   user_corrected              0          -0.10        -0.15
 *   reflect_rejected            0           0           -0.30
 *   weekly_decay               -0.02       -0.01        -0.005   (decay.ts, not an event)
 *   applied_neutral             0           0            0       (ours: spec 004 records neutral
 *                                                                 outcomes but gives no rule)
 *
 * Spec 004 also defines each dimension as a formula of counts (frequency-score.ts,
 * effectiveness-score.ts, human-score.ts), and the two disagree: one more observation moves the
 * frequency formula by 0 or by a whole band (+0.20 at the 3rd), not by +0.05. Adding both would
 * count the same evidence twice. So there are two rule sets (confidence-options.ts `rules`):
 *
 * - `evidence` (default): an event updates the counts, the dimensions are the formulas of the
 *   counts, and only the part of a rule that no formula expresses is added as a delta
 *   (EVIDENCE_RESIDUALS): a confirmed causal link (+0.10 frequency: no count), and the effect of
 *   a user's acceptance or correction on effectiveness (+0.05 / -0.10: the formula counts
 *   applications, the human score counts the approval itself).
 * - `seed`: spec 004 verbatim. The formulas give the starting scores and every event adds its
 *   delta from UPDATE_RULES; counts are still kept for statistics.
 *
 * O(1) lookups.
 */

export const CONFIDENCE_EVENTS = [
  'pattern_observed_again',
  'applied_successfully',
  'applied_neutral',
  'user_accepted',
  'reflect_approved',
  'causal_link_confirmed',
  'pattern_contradicted',
  'applied_failed',
  'user_corrected',
  'reflect_rejected',
] as const;

export type ConfidenceEvent = (typeof CONFIDENCE_EVENTS)[number];

export interface ConfidenceDelta {
  readonly frequency: number;
  readonly effectiveness: number;
  readonly human: number;
}

function delta(frequency: number, effectiveness: number, human: number): ConfidenceDelta {
  return Object.freeze({ frequency, effectiveness, human });
}

/** Spec 004's table, verbatim (plus applied_neutral with no effect). */
export const UPDATE_RULES: Readonly<Record<ConfidenceEvent | 'weekly_decay', ConfidenceDelta>> = Object.freeze({
  pattern_observed_again: delta(0.05, 0, 0),
  applied_successfully: delta(0, 0.08, 0),
  applied_neutral: delta(0, 0, 0),
  user_accepted: delta(0, 0.05, 0.1),
  reflect_approved: delta(0, 0, 0.3),
  causal_link_confirmed: delta(0.1, 0, 0),
  pattern_contradicted: delta(-0.1, 0, 0),
  applied_failed: delta(0, -0.15, 0),
  user_corrected: delta(0, -0.1, -0.15),
  reflect_rejected: delta(0, 0, -0.3),
  weekly_decay: delta(-0.02, -0.01, -0.005),
});

/** What remains of each rule under the `evidence` rules, once the counts have been updated. */
export const EVIDENCE_RESIDUALS: Readonly<Record<ConfidenceEvent, ConfidenceDelta>> = Object.freeze({
  pattern_observed_again: delta(0, 0, 0),
  applied_successfully: delta(0, 0, 0),
  applied_neutral: delta(0, 0, 0),
  user_accepted: delta(0, 0.05, 0),
  reflect_approved: delta(0, 0, 0),
  causal_link_confirmed: delta(0.1, 0, 0),
  pattern_contradicted: delta(0, 0, 0),
  applied_failed: delta(0, 0, 0),
  user_corrected: delta(0, -0.1, 0),
  reflect_rejected: delta(0, 0, 0),
});

const EVENT_SET: ReadonlySet<string> = new Set(CONFIDENCE_EVENTS);

export function isConfidenceEvent(value: unknown): value is ConfidenceEvent {
  return typeof value === 'string' && EVENT_SET.has(value);
}
