/**
 * Weekly confidence decay of a learned pattern (spec 004), computed from the time since its last
 * update, and the cleanup job's verdict on it.
 *
 *   k              = floor((now - decayedThrough) / WEEK)      whole weeks not yet decayed
 *   adjustment    += k * (-0.02, -0.01, -0.005)                (frequency, effectiveness, human),
 *                                                              clamped so no dimension goes below 0
 *   decayedThrough += k * WEEK
 *
 * An event resets the clock (decayedThrough = updatedAt = the event's time), after first settling
 * the decay owed up to it, so a pattern loses 0.02 frequency per whole week without news.
 *
 * Why not spec 004's job: it subtracts one week's decay from every active pattern last seen more
 * than 7 days ago, each time it runs. Run twice it decays twice; run daily it decays seven times a
 * week; a pattern unseen for a month loses a week's worth per run, however long the gap. Here the
 * decay owed is a function of elapsed time only: running the job twice at the same time changes
 * nothing the second time (the same state object is returned), and running it daily, weekly or
 * once after a month gives the same scores, because k weeks are subtracted in one step rather than
 * compounded run by run, and the remainder of a part week is kept for the next run.
 *
 * The rest of the job, as in spec 004: only active patterns decay; a pattern whose composite falls
 * into the deprecated tier is marked deprecated (lifecycle.ts); a pattern deprecated for 30 days
 * (deletionGraceMs) is due for deletion. Deleting is the store's job: this function only says so.
 *
 * O(historyLimit) when something changes, O(1) otherwise.
 */
import { resolveConfidenceOptions, type ConfidenceOptions, type ResolvedConfidenceOptions } from './confidence-options.js';
import { addAdjustment, assertState, assertTime, settle, type PatternConfidence } from './confidence-state.js';
import { DAY_MS, isDueForDeletion } from './lifecycle.js';
import { UPDATE_RULES } from './update-rules.js';

export const WEEK_MS = 7 * DAY_MS;

export interface DecayResult {
  readonly state: PatternConfidence;
  /** Whole weeks of decay applied by this call (0 when none was owed). */
  readonly weeks: number;
  /** Whether this call moved the pattern to deprecated. */
  readonly deprecated: boolean;
  /** Whether the pattern has been deprecated for deletionGraceMs and should be deleted now. */
  readonly due: boolean;
}

/** Settles the decay owed at `now` (internal to the confidence model; see decayConfidence). */
export function settleDecay(state: PatternConfidence, now: number, options: ResolvedConfidenceOptions): { state: PatternConfidence; weeks: number } {
  const weeks = Math.floor((now - state.decayedThrough) / WEEK_MS);
  if (weeks <= 0 || state.status !== 'active') return { state, weeks: 0 };
  const adjustment = addAdjustment(state.base, state.adjustment, UPDATE_RULES.weekly_decay, weeks);
  const decayedThrough = state.decayedThrough + weeks * WEEK_MS;
  return { state: settle(state, { base: state.base, adjustment, decayedThrough }, now, 'weekly_decay', options), weeks };
}

/**
 * The decay job for one pattern at time `now`: decay owed, deprecation, and whether it is due for
 * deletion. Idempotent at a fixed `now`. INVALID_INPUT for a bad state, time or options.
 */
export function decayConfidence(state: PatternConfidence, now: number, options?: ConfidenceOptions): DecayResult {
  const resolved = resolveConfidenceOptions(options, 'decayConfidence');
  assertState(state, 'decayConfidence');
  assertTime(now, 'decayConfidence');
  const settled = settleDecay(state, now, resolved);
  const next = settled.state;
  return {
    state: next,
    weeks: settled.weeks,
    deprecated: state.status === 'active' && next.status === 'deprecated',
    due: isDueForDeletion(next.status, next.deprecatedAt, now, resolved.deletionGraceMs),
  };
}
