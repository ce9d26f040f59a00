/**
 * contributeTrace: scores a trace and, when it is contributed, adds it to the novelty cache.
 *
 *   contributed = force or score >= threshold        (default threshold 0.75)
 *   cached      = contributed and an embedder is configured
 *
 * This is the only way a trace enters the novelty memory (see evaluate-value.ts): traces that are
 * merely scored, or fall below the threshold, leave it untouched. The threshold is met at equality,
 * as spec 000 says a trace "meets" (cumple) the quality threshold; 0.75 is the contribution
 * threshold of the KnowledgePulse SDK that spec 000 documents.
 *
 * Novelty is measured before the trace is added (against itself it would always be 0), and the
 * one embedding serves both. The cache entry's id is the trace's id, when it has one.
 *
 * Errors: those of evaluateValue, with this function's name; INVALID_INPUT without a cache, for a
 * threshold outside [0, 1] or a non-boolean force.
 *
 * Complexity: evaluateValue's, plus one O(d) cache insertion.
 */
import { ToolgraphError } from '../schema/errors.js';
import { embedOne } from '../text/embedder.js';
import { neutralNovelty, noveltyScore, noveltyText, type Novelty } from './novelty.js';
import { valueBreakdown, type ValueBreakdown } from './value-breakdown.js';
import { resolveValueInput, type EvaluateValueOptions } from './value-options.js';
import type { VectorCache } from './vector-cache.js';

export interface ContributeTraceOptions extends EvaluateValueOptions {
  /** The novelty memory to read and, on contribution, to add to. Required. */
  readonly cache: VectorCache;
  /** Minimum value for a contribution, in [0, 1]. Default DEFAULT_CONTRIBUTION_THRESHOLD. */
  readonly threshold?: number;
  /** Contribute whatever the value: an explicit contribution. Default false. */
  readonly force?: boolean;
}

export type ContributionReason = 'explicit' | 'threshold' | 'below-threshold';

export interface ContributionResult {
  readonly breakdown: ValueBreakdown;
  readonly contributed: boolean;
  /** Whether the trace's vector entered the cache (contributed, and an embedder is configured). */
  readonly cached: boolean;
  readonly reason: ContributionReason;
}

export const DEFAULT_CONTRIBUTION_THRESHOLD = 0.75;

const CALLER = 'contributeTrace';

export async function contributeTrace(trace: unknown, options: ContributeTraceOptions): Promise<ContributionResult> {
  if (typeof options !== 'object' || options === null || options.cache === undefined || options.cache === null) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected options.cache, the VectorCache to contribute to`);
  }
  const threshold = options.threshold ?? DEFAULT_CONTRIBUTION_THRESHOLD;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected threshold to be a number in [0, 1], got ${String(threshold)}`);
  }
  const force = options.force ?? false;
  if (typeof force !== 'boolean') {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected force to be a boolean, got ${typeof force}`);
  }
  const input = resolveValueInput(trace, options, CALLER);
  const { embedder } = input;
  const cache = options.cache;

  let embedding: Float32Array | null = null;
  let novelty: Novelty;
  if (embedder === null) novelty = neutralNovelty('no-embedder');
  else if (cache.size === 0) novelty = neutralNovelty('empty-cache');
  else {
    embedding = await embedOne(embedder, noveltyText(input.trace), CALLER);
    novelty = noveltyScore(embedding, cache);
  }
  const breakdown = valueBreakdown(input.trace, novelty, input.profile, input.weights, embedder?.name ?? null);

  const reason: ContributionReason = force ? 'explicit' : breakdown.score >= threshold ? 'threshold' : 'below-threshold';
  const contributed = reason !== 'below-threshold';
  if (!contributed || embedder === null) return { breakdown, contributed, cached: false, reason };
  // The cache was empty when scored: the embedding was skipped then, and is needed now.
  embedding ??= await embedOne(embedder, noveltyText(input.trace), CALLER);
  cache.add(embedding, input.trace.id);
  return { breakdown, contributed, cached: true, reason };
}
