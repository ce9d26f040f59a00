/**
 * Composite confidence of a learned pattern (spec 004) as a pure state machine:
 *
 *   createPatternConfidence(input)            -> state
 *   applyConfidenceEvent(state, event, now)   -> state'
 *   decayConfidence(state, now)               -> state'  (decay.ts)
 *
 * A pattern is a transition a -> b, a second-order pattern (a, b) -> c, or a capability; the
 * caller names it with `id`. Time is always passed in (`now`, epoch ms): nothing here reads the
 * clock, so a replay of the same events at the same times gives the same state, bit for bit.
 *
 * On an event at `now`: first the decay owed up to `now` is settled (so the result does not depend
 * on whether the decay job ran just before), then the evidence counts move, the dimensions are
 * recomputed (confidence-state.ts), the status follows the tier (lifecycle.ts), and the decay clock
 * restarts at `now` (the part week since the last whole decayed week is forgiven: the pattern is
 * in use). An event older than the last update (delivered late) is applied without moving the clocks
 * back.
 *
 * Under the `evidence` rules (default) the counts move the formulas and only the residual deltas of
 * update-rules.ts are added; a /reflect decision also clears the human dimension's accumulated
 * adjustment, since a fresh human review supersedes the decay and nudges before it. Under the
 * `seed` rules each event adds spec 004's delta verbatim. See update-rules.ts for the table.
 *
 * Errors: INVALID_INPUT (PAYLOAD_TOO_LARGE for an id past the length limit) naming the function
 * and the field, for a bad id, kind, rules, evidence count, event, time, state or option.
 *
 * O(historyLimit) per call (the history is copied, newest historyLimit entries kept).
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { idSchema } from '../schema/fields.js';
import { parseWith } from '../schema/issues.js';
import type { ConfidenceDimensions } from './composite-confidence.js';
import { resolveConfidenceOptions, type ConfidenceOptions } from './confidence-options.js';
import {
  addAdjustment,
  assertState,
  assertTime,
  evidenceBase,
  PATTERN_KINDS,
  settle,
  type ConfidenceEvidence,
  type PatternConfidence,
} from './confidence-state.js';
import { settleDecay } from './decay.js';
import { lifecyclePolicy } from './lifecycle.js';
import { CONFIDENCE_EVENTS, EVIDENCE_RESIDUALS, isConfidenceEvent, UPDATE_RULES, type ConfidenceEvent } from './update-rules.js';

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const evidenceSchema = z.strictObject({
  observations: count.default(1),
  contradictions: count.default(0),
  causalLinks: count.default(0),
  applications: z
    .strictObject({ positive: count.default(0), negative: count.default(0), neutral: count.default(0) })
    .prefault({}),
  approvals: count.default(0),
  rejections: count.default(0),
  reflect: z.enum(['none', 'approved', 'rejected']).default('none'),
});

/** Evidence with nothing recorded, from the schema's defaults: a base to add known counts to. */
export const NO_EVIDENCE: ConfidenceEvidence = evidenceSchema.parse({ observations: 0 });

/**
 * A new pattern. `evidence` defaults to one observation and nothing else (spec 004's column
 * defaults: frequency 0.30, effectiveness 0.50, human 0.50); give the counts already known when a
 * pattern starts being tracked late, e.g. an edge seen 7 times.
 */
export const createPatternConfidenceSchema = z.strictObject({
  id: idSchema,
  kind: z.enum(PATTERN_KINDS),
  now: z.number().min(0).max(8.64e15),
  rules: z.enum(['evidence', 'seed']).default('evidence'),
  evidence: evidenceSchema.prefault({}),
});

export type CreatePatternConfidenceInput = z.input<typeof createPatternConfidenceSchema>;

const ZERO: ConfidenceDimensions = Object.freeze({ frequency: 0, effectiveness: 0, human: 0 });

export function createPatternConfidence(input: CreatePatternConfidenceInput, options?: ConfidenceOptions): PatternConfidence {
  return patternConfidenceOf(parseWith(createPatternConfidenceSchema, input, 'createPatternConfidence'), options);
}

/**
 * createPatternConfidence for input already valid and complete (every evidence count given):
 * for callers inside the library that build it from counts they hold, such as a model rebuild
 * scoring thousands of capabilities, where validating each one again cost most of the call.
 */
export function patternConfidenceOf(input: z.output<typeof createPatternConfidenceSchema>, options?: ConfidenceOptions): PatternConfidence {
  const resolved = resolveConfidenceOptions(options, 'createPatternConfidence');
  const { id, kind, now, rules, evidence } = input;
  const base = evidenceBase(evidence, rules, resolved);
  // Causal links have no count in any formula: their delta is an adjustment under both rule sets.
  const adjustment = addAdjustment(base, ZERO, UPDATE_RULES.causal_link_confirmed, evidence.causalLinks);
  // A skeleton that settle() completes: dimensions, composite, tier, status and the first history row.
  const skeleton: PatternConfidence = {
    id,
    kind,
    rules,
    evidence,
    base,
    adjustment,
    dimensions: base,
    composite: 0,
    tier: lifecyclePolicy(0).tier,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    decayedThrough: now,
    deprecatedAt: null,
    history: [],
  };
  return settle(skeleton, { base, adjustment }, now, 'created', resolved);
}

function nextEvidence(evidence: ConfidenceEvidence, event: ConfidenceEvent): ConfidenceEvidence {
  const apps = evidence.applications;
  switch (event) {
    case 'pattern_observed_again':
      return { ...evidence, observations: evidence.observations + 1 };
    case 'pattern_contradicted':
      return { ...evidence, contradictions: evidence.contradictions + 1 };
    case 'causal_link_confirmed':
      return { ...evidence, causalLinks: evidence.causalLinks + 1 };
    case 'applied_successfully':
      return { ...evidence, applications: { ...apps, positive: apps.positive + 1 } };
    case 'applied_failed':
      return { ...evidence, applications: { ...apps, negative: apps.negative + 1 } };
    case 'applied_neutral':
      return { ...evidence, applications: { ...apps, neutral: apps.neutral + 1 } };
    case 'user_accepted':
      return { ...evidence, approvals: evidence.approvals + 1 };
    case 'user_corrected':
      return { ...evidence, rejections: evidence.rejections + 1 };
    case 'reflect_approved':
      return { ...evidence, reflect: 'approved' };
    case 'reflect_rejected':
      return { ...evidence, reflect: 'rejected' };
  }
}

/** The state after `event` at `now`. INVALID_INPUT for an unknown event, a bad time, state or option. */
export function applyConfidenceEvent(
  state: PatternConfidence,
  event: ConfidenceEvent,
  now: number,
  options?: ConfidenceOptions,
): PatternConfidence {
  const resolved = resolveConfidenceOptions(options, 'applyConfidenceEvent');
  assertState(state, 'applyConfidenceEvent');
  if (!isConfidenceEvent(event)) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `applyConfidenceEvent: expected event to be one of ${CONFIDENCE_EVENTS.join(', ')}, got ${JSON.stringify(String(event)).slice(0, 80)}`,
    );
  }
  assertTime(now, 'applyConfidenceEvent');
  const current = settleDecay(state, now, resolved).state;
  const evidence = nextEvidence(current.evidence, event);
  let base: ConfidenceDimensions;
  let adjustment: ConfidenceDimensions;
  if (current.rules === 'seed') {
    base = current.base;
    adjustment = addAdjustment(base, current.adjustment, UPDATE_RULES[event]);
  } else {
    base = evidenceBase(evidence, current.rules, resolved);
    const carried =
      event === 'reflect_approved' || event === 'reflect_rejected' ? { ...current.adjustment, human: 0 } : current.adjustment;
    adjustment = addAdjustment(base, carried, EVIDENCE_RESIDUALS[event]);
  }
  return settle(
    current,
    {
      evidence,
      base,
      adjustment,
      updatedAt: Math.max(current.updatedAt, now),
      decayedThrough: Math.max(current.decayedThrough, now),
    },
    now,
    event,
    resolved,
  );
}
