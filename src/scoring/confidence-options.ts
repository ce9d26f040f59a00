/**
 * Options of the confidence model (pattern-confidence.ts, decay.ts), validated at the boundary
 * with defaults from spec 004. Strict: an unknown key is an error, not a silently ignored typo.
 * The rule set (`evidence` or `seed`) is not an option: it is chosen when a pattern is created and
 * kept in its state, since mixing the two on one pattern would count evidence twice.
 *
 *   weights          composite weights, default 0.35 / 0.40 / 0.25, summing to 1
 *   learningRate     human score learning rate r, default 0.15, in (0, 1)
 *   z                Wilson z, default 1.96
 *   historyLimit     newest history entries kept per pattern, default 100
 *   deletionGraceMs  time from deprecation to deletion, default 30 days
 */
import { z } from 'zod';
import { parseWith } from '../schema/issues.js';
import { DEFAULT_CONFIDENCE_WEIGHTS, type ConfidenceWeights } from './composite-confidence.js';
import { HUMAN_LEARNING_RATE } from './human-score.js';
import { DELETION_GRACE_MS } from './lifecycle.js';
import { Z_95 } from './wilson.js';

const SUM_TOLERANCE = 1e-9;
const weight = z.number().min(0).max(1);

export const confidenceOptionsSchema = z.strictObject({
  weights: z
    .strictObject({ frequency: weight, effectiveness: weight, human: weight })
    .refine((w) => Math.abs(w.frequency + w.effectiveness + w.human - 1) <= SUM_TOLERANCE, { error: 'weights must sum to 1' })
    .default({ ...DEFAULT_CONFIDENCE_WEIGHTS }),
  learningRate: z.number().gt(0).lt(1).default(HUMAN_LEARNING_RATE),
  z: z.number().gt(0).max(10).default(Z_95),
  historyLimit: z.number().int().min(1).max(100_000).default(100),
  deletionGraceMs: z.number().min(0).max(Number.MAX_SAFE_INTEGER).default(DELETION_GRACE_MS),
});

export type ConfidenceOptions = z.input<typeof confidenceOptionsSchema>;

export interface ResolvedConfidenceOptions {
  readonly weights: ConfidenceWeights;
  readonly learningRate: number;
  readonly z: number;
  readonly historyLimit: number;
  readonly deletionGraceMs: number;
}

const DEFAULTS: ResolvedConfidenceOptions = Object.freeze(confidenceOptionsSchema.parse({}));

/** Options with defaults applied; INVALID_INPUT naming `caller` and the field otherwise. */
export function resolveConfidenceOptions(options: ConfidenceOptions | undefined, caller: string): ResolvedConfidenceOptions {
  return options === undefined ? DEFAULTS : parseWith(confidenceOptionsSchema, options, caller, ['options']);
}
