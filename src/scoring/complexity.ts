/**
 * Complexity C of a trace (spec 000): how structurally rich it is.
 *
 *   C = min(1, (uniqueTypes / 4) * 0.5 + (errorRecoveries > 0 ? 0.3 : 0) + (steps / 20) * 0.2)
 *
 * Spec 000's table says the step term is worth "up to 0.20 (capped at 20 steps)", but its formula,
 * and the SDK it documents, cap only the sum. We follow the formula, which the issue asks for
 * exactly: a 40-step trace of one step type scores 0.125 + 0.4 = 0.525, not 0.325. Long traces
 * therefore reach C = 1 on length alone (from 88 single-type steps on).
 *
 * O(1) from TraceStats.
 */
import type { TraceStats } from './trace-stats.js';

export function complexityScore(stats: TraceStats): number {
  const types = (stats.uniqueTypes / 4) * 0.5;
  const recovery = stats.errorRecoveries > 0 ? 0.3 : 0;
  const length = (stats.steps / 20) * 0.2;
  return Math.min(1, types + recovery + length);
}
