/**
 * What people said about learned patterns: approvals and rejections of a transition a -> b or a
 * second-order pattern (a, b) -> c, kept in memory as one plain, JSON-serialisable record
 * (`PatternRegistryState`) that a store can persist and give back (`new PatternRegistry(state)`).
 *
 * Only the human verdicts live here: a pattern's observations, successes and failures are the
 * graph's, and its confidence (spec 004) is derived from both when asked (pattern-view.ts). So
 * the registry never duplicates, and never drifts from, what the traces say.
 *
 * A pattern's id is `transition:` or `second_order:` followed by 32 hex characters of the
 * SHA-256 of its tool names: stable across processes, whatever the names contain.
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { idSchema, toolNameSchema } from '../schema/fields.js';
import { limitedArray, parseWith } from '../schema/issues.js';
import { contentHash } from '../schema/json.js';

export const PATTERN_DECISIONS = ['approve', 'reject'] as const;
export type PatternDecision = (typeof PATTERN_DECISIONS)[number];
export type RegisteredPatternKind = 'transition' | 'second_order';

/** Newest feedback entries kept per pattern (the counts keep everything). */
export const FEEDBACK_HISTORY_LIMIT = 100;
/** Largest registry a state may hold. */
export const MAX_PATTERNS = 1_000_000;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const time = z.number().min(0).max(8.64e15);

const recordSchema = z.strictObject({
  id: idSchema,
  kind: z.enum(['transition', 'second_order']),
  tools: z.array(toolNameSchema).min(2).max(3),
  approvals: count,
  rejections: count,
  feedback: limitedArray(z.strictObject({ at: time, decision: z.enum(PATTERN_DECISIONS) }), FEEDBACK_HISTORY_LIMIT),
});

export const patternRegistryStateSchema = z.strictObject({
  version: z.literal(1),
  patterns: limitedArray(recordSchema, MAX_PATTERNS),
});

export interface PatternFeedbackEntry {
  readonly at: number;
  readonly decision: PatternDecision;
}

export interface PatternRecord {
  readonly id: string;
  readonly kind: RegisteredPatternKind;
  /** [a, b] for a transition, [a, b, c] for a second-order pattern. */
  readonly tools: readonly string[];
  readonly approvals: number;
  readonly rejections: number;
  /** Oldest first, the newest FEEDBACK_HISTORY_LIMIT entries. */
  readonly feedback: readonly PatternFeedbackEntry[];
}

export interface PatternRegistryState {
  readonly version: 1;
  readonly patterns: readonly PatternRecord[];
}

export function patternKind(tools: readonly string[]): RegisteredPatternKind {
  return tools.length === 2 ? 'transition' : 'second_order';
}

export function patternId(tools: readonly string[]): string {
  return `${patternKind(tools)}:${contentHash(tools).slice(0, 32)}`;
}

/** The record of `tools` once `decision` is added to `old` (its record so far, if any). Pure. */
export function withDecision(old: PatternRecord | undefined, tools: readonly string[], decision: PatternDecision, at: number): PatternRecord {
  const feedback = [...(old?.feedback ?? []), { at, decision }];
  if (feedback.length > FEEDBACK_HISTORY_LIMIT) feedback.splice(0, feedback.length - FEEDBACK_HISTORY_LIMIT);
  return {
    id: patternId(tools),
    kind: patternKind(tools),
    tools: [...tools],
    approvals: (old?.approvals ?? 0) + (decision === 'approve' ? 1 : 0),
    rejections: (old?.rejections ?? 0) + (decision === 'reject' ? 1 : 0),
    feedback,
  };
}

export class PatternRegistry {
  private readonly byId = new Map<string, PatternRecord>();
  private _revision = 0;

  /** An empty registry, or the one a store saved (validated: INVALID_INPUT when malformed). */
  constructor(state?: unknown) {
    if (state === undefined) return;
    const parsed = parseWith(patternRegistryStateSchema, state, 'PatternRegistry');
    for (const p of parsed.patterns) {
      if (patternId(p.tools) !== p.id || patternKind(p.tools) !== p.kind) {
        throw new ToolgraphError('INVALID_INPUT', `PatternRegistry: pattern ${JSON.stringify(p.id)} does not match its tools`);
      }
      this.byId.set(p.id, p);
    }
  }

  /** Increases on every change: models know whether their feedback is current. */
  get revision(): number {
    return this._revision;
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): PatternRecord | undefined {
    return this.byId.get(id);
  }

  list(): readonly PatternRecord[] {
    return [...this.byId.values()];
  }

  /** Records one decision on the pattern of `tools` (already validated names) at time `at`. */
  record(tools: readonly string[], decision: PatternDecision, at: number): PatternRecord {
    const next = withDecision(this.byId.get(patternId(tools)), tools, decision, at);
    this.byId.set(next.id, next);
    this._revision++;
    return next;
  }

  /** The whole registry as plain data, for a store. */
  toState(): PatternRegistryState {
    return { version: 1, patterns: this.list() };
  }
}
