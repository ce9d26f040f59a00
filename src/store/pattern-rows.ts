/**
 * Learned patterns (spec 004 confidence states) as table rows: the columns SQL readers filter and
 * order on, a check of states coming in and going out, and which history entries are new; and
 * the schema of a human verdict in the feedback log.
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { idSchema, toolNameSchema } from '../schema/fields.js';
import { PATTERN_KINDS, type ConfidenceHistoryEntry, type PatternConfidence } from '../scoring/confidence-state.js';

const TIERS = new Set(['core', 'strong', 'moderate', 'tentative', 'deprecated']);

function finite(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function validHistoryEntry(entry: unknown): boolean {
  const h = entry as ConfidenceHistoryEntry | null;
  return (
    typeof h === 'object' &&
    h !== null &&
    finite(h.at) &&
    typeof h.reason === 'string' &&
    finite(h.frequency) &&
    finite(h.effectiveness) &&
    finite(h.human) &&
    finite(h.composite)
  );
}

/**
 * The state unchanged when it has what the columns need; INVALID_INPUT naming `where` otherwise.
 * The full shape is the scoring module's business (assertState); the store only refuses what it
 * could not index or read back.
 */
export function validPattern(pattern: PatternConfidence, where: string): PatternConfidence {
  const p = pattern as PatternConfidence | null;
  const problem =
    typeof p !== 'object' || p === null
      ? 'expected a PatternConfidence object'
      : typeof p.id !== 'string' || p.id === ''
        ? 'id must be a non-empty string'
        : !(PATTERN_KINDS as readonly string[]).includes(p.kind)
          ? `kind must be one of ${PATTERN_KINDS.join(', ')}`
          : p.status !== 'active' && p.status !== 'deprecated'
            ? "status must be 'active' or 'deprecated'"
            : !TIERS.has(p.tier)
              ? 'tier is not a lifecycle tier'
              : typeof p.dimensions !== 'object' || p.dimensions === null || ![p.dimensions.frequency, p.dimensions.effectiveness, p.dimensions.human, p.composite].every(finite)
                ? 'dimensions and composite must be finite numbers'
                : typeof p.evidence !== 'object' || p.evidence === null || typeof p.evidence.applications !== 'object' || p.evidence.applications === null
                  ? 'evidence with applications is required'
                  : ![p.createdAt, p.updatedAt].every(finite)
                    ? 'createdAt and updatedAt must be epoch ms'
                    : !Array.isArray(p.history) || !p.history.every(validHistoryEntry)
                      ? 'history must be an array of entries {at, reason, frequency, effectiveness, human, composite}'
                      : null;
  if (problem !== null) throw new ToolgraphError('INVALID_INPUT', `${where}: ${problem}`);
  return pattern;
}

/** kind .. updated_ms, in the column order of the patterns table (after id). */
export function patternColumns(p: PatternConfidence): unknown[] {
  const apps = p.evidence.applications;
  return [
    p.kind,
    p.status,
    p.tier,
    p.dimensions.frequency,
    p.dimensions.effectiveness,
    p.dimensions.human,
    p.composite,
    p.evidence.observations,
    apps.positive + apps.negative + apps.neutral,
    apps.positive,
    p.evidence.contradictions,
    p.createdAt,
    p.updatedAt,
  ];
}

/** A body read back from the database (another version may have written it): checked. */
export function parseStoredPattern(body: string, action: string): PatternConfidence {
  try {
    return validPattern(JSON.parse(body) as PatternConfidence, action);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolgraphError('INTERNAL', `${action}: a stored pattern is malformed (${reason}); put it again`);
  }
}

function sameEntry(a: ConfidenceHistoryEntry, b: ConfidenceHistoryEntry): boolean {
  return (
    a.at === b.at &&
    a.reason === b.reason &&
    a.frequency === b.frequency &&
    a.effectiveness === b.effectiveness &&
    a.human === b.human &&
    a.composite === b.composite
  );
}

/**
 * The entries of `next.history` not stored before. A state only appends to its history and drops
 * the oldest entries past a bound, so next.history = stored.history minus its first d entries,
 * plus new ones. The smallest d for which the rest of the stored history is a prefix of the new
 * one is taken (the largest overlap), so repeated identical entries are not mistaken for old
 * ones; when no overlap is left (everything rotated out) every entry is new. O(h^2) for a history
 * bound h (100 by default).
 */
export function historyToAppend(stored: PatternConfidence | undefined, next: PatternConfidence): readonly ConfidenceHistoryEntry[] {
  if (stored === undefined) return next.history;
  const old = stored.history;
  for (let d = 0; d < old.length; d++) {
    const overlap = old.length - d;
    if (overlap > next.history.length) continue;
    let match = true;
    for (let j = 0; j < overlap && match; j++) match = sameEntry(old[d + j]!, next.history[j]!);
    if (match) return next.history.slice(overlap);
  }
  return next.history;
}

/** A verdict as appendPatternFeedback takes it (store.ts, PatternFeedbackRow). */
export const patternFeedbackRowSchema = z.strictObject({
  patternId: idSchema,
  tools: z.array(toolNameSchema).min(2).max(3),
  decision: z.enum(['approve', 'reject']),
  at: z.number().min(0).max(8.64e15),
});
