/**
 * The three rule overrides of trace value (spec 000, spec 001), applied to the weighted composite
 * in this order, each to the result of the previous one:
 *
 *   1. single_thought        steps = 1 and it is a thought         score = 0.1
 *   2. error_recovery_bonus  errorRecoveries > 2 and success       score = min(1, score + 0.1)
 *   3. low_tool_diversity    uniqueTools <= 1 and a step has a tool score = max(0, score - 0.1)
 *
 * Precedence, as the specs state it: rule 1 replaces whatever the composite was, and rules 2 and 3
 * then apply on top of that 0.1 if their conditions also hold. A lone thought cannot hold three
 * error recoveries, but it can name a tool (the trace format allows `tool` on any step): then
 * rules 1 and 3 both fire and the score is 0.1 - 0.1 = 0.
 *
 * O(1) from TraceStats.
 */
import type { TraceStats } from './trace-stats.js';

export type ValueOverrideRule = 'single_thought' | 'error_recovery_bonus' | 'low_tool_diversity';

/** One override that fired: the score it received and the score it returned. */
export interface FiredOverride {
  readonly rule: ValueOverrideRule;
  readonly before: number;
  readonly after: number;
}

export interface OverrideResult {
  readonly score: number;
  /** In the order applied. */
  readonly fired: readonly FiredOverride[];
}

export const SINGLE_THOUGHT_SCORE = 0.1;
export const ERROR_RECOVERY_BONUS = 0.1;
export const LOW_TOOL_DIVERSITY_PENALTY = 0.1;
/** The bonus needs strictly more error recoveries than this. */
export const ERROR_RECOVERY_BONUS_MIN = 2;

export function applyValueOverrides(composite: number, stats: TraceStats, success: boolean): OverrideResult {
  const fired: FiredOverride[] = [];
  let score = composite;
  if (stats.singleThought) {
    fired.push({ rule: 'single_thought', before: score, after: SINGLE_THOUGHT_SCORE });
    score = SINGLE_THOUGHT_SCORE;
  }
  if (stats.errorRecoveries > ERROR_RECOVERY_BONUS_MIN && success) {
    const after = Math.min(1, score + ERROR_RECOVERY_BONUS);
    fired.push({ rule: 'error_recovery_bonus', before: score, after });
    score = after;
  }
  if (stats.uniqueTools <= 1 && stats.usesTools) {
    const after = Math.max(0, score - LOW_TOOL_DIVERSITY_PENALTY);
    fired.push({ rule: 'low_tool_diversity', before: score, after });
    score = after;
  }
  return { score, fired };
}
