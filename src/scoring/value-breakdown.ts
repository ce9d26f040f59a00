/**
 * Trace value with its breakdown (spec 000, spec 001): the four dimensions, the weighted
 * composite, and the rule overrides on top.
 *
 *   C = complexityScore, N = novelty, D = toolDiversityScore, O = outcomeConfidenceScore
 *   composite = min(1, C * wC + N * wN + D * wD + O * wO)
 *   score     = applyValueOverrides(composite)       (rule-overrides.ts: order and precedence)
 *
 * The min(1, ...) only absorbs rounding: weights summing to 1 +- 1e-9 times dimensions in [0, 1]
 * can exceed 1 by an ulp. Novelty is computed by the caller (it needs the embedder and the cache).
 *
 * O(steps).
 */
import type { ReasoningTrace } from '../schema/trace.js';
import { complexityScore } from './complexity.js';
import type { Novelty, NoveltySource } from './novelty.js';
import { outcomeConfidenceScore } from './outcome-confidence.js';
import { applyValueOverrides, type FiredOverride } from './rule-overrides.js';
import { toolDiversityScore } from './tool-diversity.js';
import { traceStats, type TraceStats } from './trace-stats.js';
import type { ScoringWeights, ValueProfileName } from './value-weights.js';

export interface ValueDimensions {
  readonly complexity: number;
  readonly novelty: number;
  readonly toolDiversity: number;
  readonly outcomeConfidence: number;
}

/** Everything behind one trace value: plain, JSON-serialisable data for the API and the CLI. */
export interface ValueBreakdown {
  /** The value in [0, 1]: what evaluateValue returns. */
  readonly score: number;
  /** The weighted sum before the rule overrides. */
  readonly composite: number;
  readonly dimensions: ValueDimensions;
  readonly weights: ScoringWeights;
  /** The weight profile used: the domain's, default, or 'custom' for caller-given weights. */
  readonly profile: ValueProfileName | 'custom';
  readonly domain: string;
  /** The overrides that fired, in the order applied; empty when none did. */
  readonly overrides: readonly FiredOverride[];
  readonly novelty: {
    readonly source: NoveltySource;
    readonly maxSimilarity: number | null;
    /** The embedder's name, or null when none is configured or it has no name. */
    readonly embedder: string | null;
  };
  readonly stats: TraceStats;
}

export function valueBreakdown(
  trace: ReasoningTrace,
  novelty: Novelty,
  profile: ValueProfileName | 'custom',
  weights: ScoringWeights,
  embedderName: string | null,
): ValueBreakdown {
  const stats = traceStats(trace);
  const dimensions: ValueDimensions = {
    complexity: complexityScore(stats),
    novelty: novelty.score,
    toolDiversity: toolDiversityScore(stats),
    outcomeConfidence: outcomeConfidenceScore(trace.outcome.confidence, trace.metadata.success),
  };
  const composite = Math.min(
    1,
    dimensions.complexity * weights.complexity +
      dimensions.novelty * weights.novelty +
      dimensions.toolDiversity * weights.toolDiversity +
      dimensions.outcomeConfidence * weights.outcomeConfidence,
  );
  const { score, fired } = applyValueOverrides(composite, stats, trace.metadata.success);
  return {
    score,
    composite,
    dimensions,
    weights: {
      complexity: weights.complexity,
      novelty: weights.novelty,
      toolDiversity: weights.toolDiversity,
      outcomeConfidence: weights.outcomeConfidence,
    },
    profile,
    domain: trace.metadata.task_domain,
    overrides: fired,
    novelty: { source: novelty.source, maxSimilarity: novelty.maxSimilarity, embedder: embedderName },
    stats,
  };
}
