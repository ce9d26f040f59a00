/**
 * When a durable service fits its own weights (service/background-fit.ts): a first fit once a
 * few dozen traces are stored, then each time the stored traces have grown by a share since the
 * last fit, and once traffic has been quiet for a while with traces the fit has not read; never
 * sooner than an interval after the last fit. `false` turns it off (`toolgraph fit` and `fit()`
 * still fit on request).
 */
import { z } from 'zod';
import { AUTO_FIT_DEFAULTS } from './fit-defaults.js';

/** The defaults of autoFitOptionsSchema's fields. */
export { AUTO_FIT_DEFAULTS } from './fit-defaults.js';

/** Longest delay setTimeout honours. */
const MAX_TIMER_MS = 2_147_483_647;

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
