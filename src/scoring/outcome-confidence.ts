/**
 * Outcome confidence O of a trace (spec 000): the agent's self-reported confidence, discounted
 * when the task failed.
 *
 *   O = outcome.confidence * (success ? 1 : 0.3)
 *
 * O(1). `confidence` is in [0, 1] (validated with the trace).
 */

/** Multiplier of a failed task's confidence. */
export const FAILED_OUTCOME_FACTOR = 0.3;

export function outcomeConfidenceScore(confidence: number, success: boolean): number {
  return confidence * (success ? 1 : FAILED_OUTCOME_FACTOR);
}
