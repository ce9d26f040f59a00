/**
 * When a durable service fits its own weights (service/background-fit.ts): a first fit once a
 * few dozen traces are stored, then each time the stored traces have grown by a share since the
 * last fit, and once traffic has been quiet for a while with traces the fit has not read; never
 * sooner than an interval after the last fit. `false` turns it off (`toolgraph fit` and `fit()`
 * still fit on request).
 */
import { z } from 'zod';

/** Longest delay setTimeout honours. */
const MAX_TIMER_MS = 2_147_483_647;

/** The defaults of autoFitOptionsSchema's fields. */
export const AUTO_FIT_DEFAULTS = {
  /** Stored traces before the first fit. */
  firstAt: 30,
  /** Growth of the stored traces since the last fit that calls for the next one: a fifth more. */
  growth: 0.2,
  /** Least time from one fit's end to the next one's start, ms. */
  minIntervalMs: 60_000,
  /**
   * Time without a new trace after which traces the fit in force has not read are fitted, however
   * few, ms: a store that has gone quiet is fitted on all it holds.
   */
  idleMs: 300_000,
} as const;

/** The options as a caller writes them, every field optional (AUTO_FIT_DEFAULTS fills them in). */
export const autoFitOptionsSchema = z.strictObject({
  firstAt: z.int().min(1).optional(),
  growth: z.number().positive().max(1_000).optional(),
  minIntervalMs: z.number().min(0).max(MAX_TIMER_MS).optional(),
  idleMs: z.number().min(0).max(MAX_TIMER_MS).optional(),
});

export type AutoFitOptions = z.input<typeof autoFitOptionsSchema>;

export interface AutoFitSettings {
  readonly firstAt: number;
  readonly growth: number;
  readonly minIntervalMs: number;
  readonly idleMs: number;
}

/** The settings of already-checked options (openToolgraph's schema checks them), or null when turned off. */
export function autoFitSettings(options: AutoFitOptions | false | undefined): AutoFitSettings | null {
  if (options === false) return null;
  return { ...AUTO_FIT_DEFAULTS, ...Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined)) };
}
