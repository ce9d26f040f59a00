/**
 * Lifecycle of a learned pattern (spec 004): the tier its composite confidence falls in, what the
 * product does with a pattern of that tier, and when a deprecated pattern is deleted.
 *
 *   composite    tier         action              injection (spec 004)
 *   [0.8, 1.0]   core         auto_apply          system_prompt_prepend  (applied without asking)
 *   [0.6, 0.8)   strong       suggest             context_suggestion     (suggested when relevant)
 *   [0.4, 0.6)   moderate     on_request          on_demand              (offered when asked)
 *   [0.2, 0.4)   tentative    observe             none                   (watched, never applied)
 *   [0.0, 0.2)   deprecated   mark_for_deletion   none                   (removed at cleanup)
 *
 * Spec 004 writes the ranges closed at both ends ([0.6, 0.8] and [0.8, 1.0]); a bound belongs to
 * the higher tier. A composite within 1e-9 below a bound counts as reaching it, so that
 * 0.35 * 0.8 + 0.40 * 0.8 + 0.25 * 0.8, which is 0.8 up to rounding, is core.
 *
 * Status: an active pattern whose tier becomes deprecated is marked deprecated (at that time); a
 * deprecated pattern whose tier rises again (new evidence) is active again; a pattern deprecated
 * for DELETION_GRACE_MS (30 days, spec 004's cleanup job) is due for deletion.
 *
 * O(1).
 */
import { ToolgraphError } from '../schema/errors.js';

export type LifecycleTier = 'core' | 'strong' | 'moderate' | 'tentative' | 'deprecated';
export type LifecycleAction = 'auto_apply' | 'suggest' | 'on_request' | 'observe' | 'mark_for_deletion';
export type InjectionMethod = 'system_prompt_prepend' | 'context_suggestion' | 'on_demand' | 'none';
export type PatternStatus = 'active' | 'deprecated';

export interface LifecyclePolicy {
  readonly tier: LifecycleTier;
  /** Inclusive lower bound of the tier's composite range. */
  readonly min: number;
  /** Exclusive upper bound (inclusive for core). */
  readonly max: number;
  readonly action: LifecycleAction;
  readonly injection: InjectionMethod;
}

/** Highest tier first. */
export const LIFECYCLE_POLICIES: readonly LifecyclePolicy[] = Object.freeze([
  Object.freeze({ tier: 'core', min: 0.8, max: 1, action: 'auto_apply', injection: 'system_prompt_prepend' }),
  Object.freeze({ tier: 'strong', min: 0.6, max: 0.8, action: 'suggest', injection: 'context_suggestion' }),
  Object.freeze({ tier: 'moderate', min: 0.4, max: 0.6, action: 'on_request', injection: 'on_demand' }),
  Object.freeze({ tier: 'tentative', min: 0.2, max: 0.4, action: 'observe', injection: 'none' }),
  Object.freeze({ tier: 'deprecated', min: 0, max: 0.2, action: 'mark_for_deletion', injection: 'none' }),
] as const);

const BOUND_TOLERANCE = 1e-9;
export const DAY_MS = 86_400_000;
/** How long a pattern stays deprecated before it is deleted. */
export const DELETION_GRACE_MS = 30 * DAY_MS;

/** The policy of a composite in [0, 1]. INVALID_INPUT otherwise. */
export function lifecyclePolicy(composite: number): LifecyclePolicy {
  if (typeof composite !== 'number' || !(composite >= 0 && composite <= 1)) {
    throw new ToolgraphError('INVALID_INPUT', `lifecyclePolicy: expected a composite in [0, 1], got ${String(composite)}`);
  }
  for (const policy of LIFECYCLE_POLICIES) {
    if (composite >= policy.min - BOUND_TOLERANCE) return policy;
  }
  return LIFECYCLE_POLICIES[LIFECYCLE_POLICIES.length - 1]!;
}

export interface StatusChange {
  readonly status: PatternStatus;
  readonly deprecatedAt: number | null;
  /** What happened, or null when the status stayed. */
  readonly change: 'deprecated' | 'reactivated' | null;
}

/** The status after the composite became `tier` at time `now`. */
export function nextPatternStatus(
  status: PatternStatus,
  deprecatedAt: number | null,
  tier: LifecycleTier,
  now: number,
): StatusChange {
  if (status === 'active' && tier === 'deprecated') return { status: 'deprecated', deprecatedAt: now, change: 'deprecated' };
  if (status === 'deprecated' && tier !== 'deprecated') return { status: 'active', deprecatedAt: null, change: 'reactivated' };
  return { status, deprecatedAt, change: null };
}

/** Whether a pattern deprecated at `deprecatedAt` is to be deleted at `now`. */
export function isDueForDeletion(
  status: PatternStatus,
  deprecatedAt: number | null,
  now: number,
  graceMs: number = DELETION_GRACE_MS,
): boolean {
  return status === 'deprecated' && deprecatedAt !== null && now - deprecatedAt >= graceMs;
}
