/**
 * The state of one learned pattern's confidence, and the one place it is recomputed.
 *
 *   base        = the dimension formulas of the evidence counts           (evidence rules)
 *               = the formulas of the evidence the pattern was created with (seed rules, frozen)
 *   adjustment  = the deltas added by events and weekly decay (update-rules.ts, decay.ts)
 *   dimension   = clamp(base + adjustment, 0, 1)
 *   composite   = compositeConfidence(dimensions), tier = lifecyclePolicy(composite).tier
 *
 * An adjustment is clamped when it is added, adj' = clamp(base + adj + delta, 0, 1) - base, so a
 * saturated dimension banks nothing: ten causal links on a frequency of 0.95 leave it at 1, and the
 * first contradiction afterwards is felt at once. It is spec 004's GREATEST(0, score - delta)
 * applied to the part of the score that is not evidence.
 *
 * The state is plain JSON data (numbers, strings, arrays), so the store can persist it as is.
 * Every change returns a new object; nothing here reads the clock.
 *
 * O(1) per recomputation, plus O(historyLimit) to copy the history.
 */
import { ToolgraphError } from '../schema/errors.js';
import { compositeConfidence, type ConfidenceDimensions } from './composite-confidence.js';
import type { ResolvedConfidenceOptions } from './confidence-options.js';
import { effectivenessScore, seedEffectivenessScore, type ApplicationOutcomes } from './effectiveness-score.js';
import { frequencyScore } from './frequency-score.js';
import { humanScore, type ReflectDecision } from './human-score.js';
import { lifecyclePolicy, nextPatternStatus, type LifecycleTier, type PatternStatus } from './lifecycle.js';
import type { ConfidenceDelta, ConfidenceEvent } from './update-rules.js';

/** What a pattern is: a transition a -> b, a second-order (a, b) -> c, or a capability. */
export const PATTERN_KINDS = ['transition', 'second_order', 'capability'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];

export type ConfidenceRules = 'evidence' | 'seed';

export interface ConfidenceEvidence {
  readonly observations: number;
  readonly contradictions: number;
  readonly causalLinks: number;
  readonly applications: ApplicationOutcomes;
  readonly approvals: number;
  readonly rejections: number;
  readonly reflect: ReflectDecision;
}

export type HistoryReason = ConfidenceEvent | 'created' | 'weekly_decay' | 'deprecated' | 'reactivated';

/** One row of a pattern's confidence history (spec 004's confidence_history table). */
export interface ConfidenceHistoryEntry {
  readonly at: number;
  readonly reason: HistoryReason;
  readonly frequency: number;
  readonly effectiveness: number;
  readonly human: number;
  readonly composite: number;
}

export interface PatternConfidence {
  readonly id: string;
  readonly kind: PatternKind;
  readonly rules: ConfidenceRules;
  readonly evidence: ConfidenceEvidence;
  readonly base: ConfidenceDimensions;
  readonly adjustment: ConfidenceDimensions;
  readonly dimensions: ConfidenceDimensions;
  readonly composite: number;
  readonly tier: LifecycleTier;
  readonly status: PatternStatus;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Time of the latest event (not of decay): the decay clock runs from here. */
  readonly updatedAt: number;
  /** Decay has been applied for every whole week up to this time (>= updatedAt). */
  readonly decayedThrough: number;
  /** When the pattern was last deprecated, or null while it is active. */
  readonly deprecatedAt: number | null;
  /** Oldest first, at most historyLimit entries (the newest are kept). */
  readonly history: readonly ConfidenceHistoryEntry[];
}

/** Largest time a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
const MAX_EPOCH_MS = 8.64e15;

/** Throws INVALID_INPUT naming `caller` unless `now` is epoch ms (finite, 0 .. 8.64e15). */
export function assertTime(now: number, caller: string): void {
  if (typeof now !== 'number' || !(now >= 0 && now <= MAX_EPOCH_MS)) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected now to be epoch milliseconds, got ${String(now)}`);
  }
}

/** Throws INVALID_INPUT naming `caller` unless `state` looks like a PatternConfidence. */
export function assertState(state: PatternConfidence, caller: string): void {
  if (
    typeof state !== 'object' ||
    state === null ||
    typeof state.id !== 'string' ||
    (state.status !== 'active' && state.status !== 'deprecated') ||
    (state.rules !== 'evidence' && state.rules !== 'seed') ||
    typeof state.evidence !== 'object' ||
    !Array.isArray(state.history) ||
    !Number.isFinite(state.decayedThrough)
  ) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected a PatternConfidence state`);
  }
}

/** The dimension formulas of the evidence. */
export function evidenceBase(evidence: ConfidenceEvidence, rules: ConfidenceRules, options: ResolvedConfidenceOptions): ConfidenceDimensions {
  return {
    frequency: frequencyScore(evidence.observations, evidence.contradictions),
    effectiveness:
      rules === 'seed' ? seedEffectivenessScore(evidence.applications, options.z) : effectivenessScore(evidence.applications, options.z),
    human: humanScore(evidence, options.learningRate),
  };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** adj' = clamp(base + adj + delta * times, 0, 1) - base, per dimension. */
export function addAdjustment(
  base: ConfidenceDimensions,
  adjustment: ConfidenceDimensions,
  delta: ConfidenceDelta,
  times = 1,
): ConfidenceDimensions {
  return {
    frequency: clamp01(base.frequency + adjustment.frequency + delta.frequency * times) - base.frequency,
    effectiveness: clamp01(base.effectiveness + adjustment.effectiveness + delta.effectiveness * times) - base.effectiveness,
    human: clamp01(base.human + adjustment.human + delta.human * times) - base.human,
  };
}

function dimensionsOf(base: ConfidenceDimensions, adjustment: ConfidenceDimensions): ConfidenceDimensions {
  return {
    frequency: clamp01(base.frequency + adjustment.frequency),
    effectiveness: clamp01(base.effectiveness + adjustment.effectiveness),
    human: clamp01(base.human + adjustment.human),
  };
}

function pushHistory(
  history: ConfidenceHistoryEntry[],
  at: number,
  reason: HistoryReason,
  dimensions: ConfidenceDimensions,
  composite: number,
): void {
  history.push({ at, reason, ...dimensions, composite });
}

/** The fields a change may set; everything else is carried over. */
export interface StateChange {
  readonly evidence?: ConfidenceEvidence;
  readonly base: ConfidenceDimensions;
  readonly adjustment: ConfidenceDimensions;
  readonly updatedAt?: number;
  readonly decayedThrough?: number;
}

/**
 * Applies a change at time `at`: recomputes dimensions, composite and tier, moves the status
 * (lifecycle.ts), and appends the history entry for `reason` (and one for a status change).
 */
export function settle(
  state: PatternConfidence,
  change: StateChange,
  at: number,
  reason: HistoryReason,
  options: ResolvedConfidenceOptions,
): PatternConfidence {
  const dimensions = dimensionsOf(change.base, change.adjustment);
  const composite = compositeConfidence(dimensions, options.weights);
  const tier = lifecyclePolicy(composite).tier;
  const status = nextPatternStatus(state.status, state.deprecatedAt, tier, at);
  const history = state.history.slice();
  pushHistory(history, at, reason, dimensions, composite);
  if (status.change !== null) pushHistory(history, at, status.change, dimensions, composite);
  if (history.length > options.historyLimit) history.splice(0, history.length - options.historyLimit);
  return {
    ...state,
    evidence: change.evidence ?? state.evidence,
    base: change.base,
    adjustment: change.adjustment,
    dimensions,
    composite,
    tier,
    status: status.status,
    deprecatedAt: status.deprecatedAt,
    updatedAt: change.updatedAt ?? state.updatedAt,
    decayedThrough: change.decayedThrough ?? state.decayedThrough,
    history,
  };
}
