/**
 * Tool diversity D of a trace (spec 000): distinct tools relative to the number of steps.
 *
 *   D = min(1, (uniqueTools / max(1, steps)) * 3)
 *
 * The factor 3 gives full marks once a third of the steps are distinct tools (spec 000), so a
 * trace is not penalised for the thoughts and observations between its calls. O(1) from TraceStats.
 */
import type { TraceStats } from './trace-stats.js';

export function toolDiversityScore(stats: TraceStats): number {
  return Math.min(1, (stats.uniqueTools / Math.max(1, stats.steps)) * 3);
}
