/**
 * Fitted weights as a store keeps them: every weight vector as a record from signal name to
 * number, never as a position in a list, so that weights read back by a version whose signals
 * differ (one added, removed, renamed or moved) are refused by name instead of being applied to
 * the wrong signals. One zod schema checks a record on the way in and on the way out; in memory
 * the vectors stay arrays in SIGNALS order, which the hot path indexes.
 *
 * A body that does not parse (another version's, a hand edit) is a ToolgraphError naming what is
 * wrong; a service that meets one at open serves the prior and refits (durable-toolgraph.ts).
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { SIGNALS } from './features.js';
import { validNoMatch } from './no-match.js';
import type { FittedWeights } from './model.js';

const finite = z.number().finite();
const share = z.number().min(0).max(1);

/** One weight per signal, every signal named once: a missing, extra or renamed one is an issue. */
const signalWeightsSchema = z.strictObject(Object.fromEntries(SIGNALS.map((s) => [s, finite])) as Record<(typeof SIGNALS)[number], typeof finite>);

const keptSchema = z.enum(['fitted', 'backoff', 'prior']);

const stepCalibrationSchema = z
  .strictObject({ upper: z.array(finite).min(1), value: z.array(share).min(1) })
  .refine(({ upper, value }) => upper.length === value.length && upper.every((u, k) => k === 0 || (u >= upper[k - 1]! && value[k]! >= value[k - 1]!)), {
    message: 'must hold as many increasing upper bounds as increasing values in [0, 1]',
  });

export const weightsRecordSchema = z.strictObject({
  next: signalWeightsSchema,
  nextNoIntent: signalWeightsSchema,
  search: signalWeightsSchema,
  noMatch: z
    .strictObject({ coverage: z.array(finite), similarity: z.array(finite), confidence: z.array(finite), threshold: finite, wordsThreshold: finite })
    .refine(validNoMatch, 'samples must be ascending in [0, 1], at least one each, thresholds finite and at most 0')
    .optional(),
  stepCalibration: stepCalibrationSchema.optional(),
  dagStatus: z.strictObject({ threshold: share, target: share, nodeF1: share, share }).optional(),
  source: z.enum(['prior', 'fitted']),
  fit: z
    .strictObject({
      traces: z.int().min(0),
      fittedAt: finite,
      ms: z.number().min(0),
      kept: z.strictObject({ next: keptSchema, nextNoIntent: keptSchema, search: keptSchema }),
    })
    .optional(),
});

export type WeightsRecord = z.output<typeof weightsRecordSchema>;

function named(vector: readonly number[]): Record<string, number> {
  return Object.fromEntries(SIGNALS.map((s, f) => [s, vector[f]!]));
}

function positional(record: Readonly<Record<string, number>>): number[] {
  return SIGNALS.map((s) => record[s]!);
}

function message(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const at = issue.path.join('.');
  return at === '' ? issue.message : `${at}: ${issue.message}`;
}

/** The record of `weights`, checked: INVALID_INPUT naming what is wrong (`caller`: who asked). */
export function weightsRecord(weights: FittedWeights, caller: string): WeightsRecord {
  for (const key of ['next', 'nextNoIntent', 'search'] as const) {
    if (weights[key].length !== SIGNALS.length) throw new ToolgraphError('INVALID_INPUT', `${caller}: ${key} holds ${weights[key].length} weights, there are ${SIGNALS.length} signals`);
  }
  const record = {
    next: named(weights.next),
    nextNoIntent: named(weights.nextNoIntent),
    search: named(weights.search),
    ...(weights.noMatch !== undefined ? { noMatch: { coverage: [...weights.noMatch.coverage], similarity: [...weights.noMatch.similarity], confidence: [...weights.noMatch.confidence], threshold: weights.noMatch.threshold, wordsThreshold: weights.noMatch.wordsThreshold } } : {}),
    ...(weights.stepCalibration !== undefined ? { stepCalibration: { upper: [...weights.stepCalibration.upper], value: [...weights.stepCalibration.value] } } : {}),
    ...(weights.dagStatus !== undefined ? { dagStatus: { threshold: weights.dagStatus.threshold, target: weights.dagStatus.target, nodeF1: weights.dagStatus.nodeF1, share: weights.dagStatus.share } } : {}),
    source: weights.source,
    ...(weights.fit !== undefined ? { fit: { traces: weights.fit.traces, fittedAt: weights.fit.fittedAt, ms: weights.fit.ms, kept: { ...weights.fit.kept } } } : {}),
  };
  const checked = weightsRecordSchema.safeParse(record);
  if (!checked.success) throw new ToolgraphError('INVALID_INPUT', `${caller}: ${message(checked.error)}`);
  return checked.data;
}

/**
 * The weights a stored body holds, or INVALID_INPUT saying why it cannot be read (weights of
 * another version's signals name the signal; the positional lists older versions wrote are
 * refused as such).
 */
export function weightsFromRecord(body: unknown, caller: string): FittedWeights {
  const checked = weightsRecordSchema.safeParse(body);
  if (!checked.success) {
    const positionalBody = typeof body === 'object' && body !== null && Array.isArray((body as { next?: unknown }).next);
    const why = positionalBody ? 'weights as positional lists (an older version wrote them), which cannot be matched to signals by name' : message(checked.error);
    throw new ToolgraphError('INVALID_INPUT', `${caller}: the stored weights cannot be read: ${why}`);
  }
  const { next, nextNoIntent, search, ...rest } = checked.data;
  return { next: positional(next), nextNoIntent: positional(nextNoIntent), search: positional(search), ...rest };
}
