/**
 * evaluateValue: how much a ReasoningTrace is worth learning from, in [0, 1] (spec 000, with the
 * domain weight profiles of spec 001).
 *
 *   score = overrides(C * wC + N * wN + D * wD + O * wO)      (see value-breakdown.ts)
 *
 * Novelty compares the trace with the cache the caller passes; scoring never writes to it. Only
 * contributeTrace adds a trace, so a trace scored twice, or scored and rejected, leaves no trace in
 * the novelty memory. This departs from spec 000's SDK, which adds every scored trace to a
 * process-wide cache: scoring alone must not make the next similar trace look familiar, and a
 * process-wide cache would be a global mutable default.
 *
 * Errors: INVALID_INPUT (PAYLOAD_TOO_LARGE past a documented limit) for a trace that is not a valid
 * ReasoningTrace, bad options or weights, an embedder/cache dimension mismatch, or an embedder that
 * returns something other than one finite vector of its dimensions. An embedder's own rejection
 * reaches the caller unchanged.
 *
 * Complexity: O(steps + text) plus, only when the cache holds vectors, one embedding and an
 * O(n d) scan. Budget (spec 001): p99 <= 100 ms with an embedder, <= 1 ms without.
 */
import { embedOne } from '../text/embedder.js';
import { neutralNovelty, noveltyScore, noveltyText, type Novelty } from './novelty.js';
import { valueBreakdown, type ValueBreakdown } from './value-breakdown.js';
import { resolveValueInput, type EvaluateValueOptions } from './value-options.js';

async function evaluate(trace: unknown, options: EvaluateValueOptions, caller: string): Promise<ValueBreakdown> {
  const input = resolveValueInput(trace, options, caller);
  const { embedder, cache } = input;
  let novelty: Novelty;
  if (embedder === null) novelty = neutralNovelty('no-embedder');
  // With no live vector to compare against, N is 0.5 whatever the embedding: skip the embedder.
  else if (cache === null || cache.size === 0) novelty = neutralNovelty('empty-cache');
  else novelty = noveltyScore(await embedOne(embedder, noveltyText(input.trace), caller), cache);
  return valueBreakdown(input.trace, novelty, input.profile, input.weights, embedder?.name ?? null);
}

/** The value with its breakdown: dimensions, weights, profile, overrides fired, novelty source. */
export function evaluateValueDetailed(trace: unknown, options: EvaluateValueOptions = {}): Promise<ValueBreakdown> {
  return evaluate(trace, options, 'evaluateValueDetailed');
}

/** The value of `trace` in [0, 1]. */
export async function evaluateValue(trace: unknown, options: EvaluateValueOptions = {}): Promise<number> {
  return (await evaluate(trace, options, 'evaluateValue')).score;
}
