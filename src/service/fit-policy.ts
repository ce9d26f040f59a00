/**
 * When a service should fit next (background-fit.ts), from how many traces it holds, the fit in
 * force and the last attempt. Pure: the clock is the caller's.
 *
 * The traces call for a fit when no fit is in force and at least `firstAt` are stored, or when
 * they exceed the last fit's by the share `growth`; the fit is then due `minIntervalMs` after the
 * last fit ended (or after a failed attempt, which would likely fail again at once). Growth by a
 * share keeps the number of fits logarithmic in the traces: a store of a million traces fitted
 * with the defaults has been fitted some seventy times. Fewer new traces than that are fitted
 * once no trace has come for `idleMs`: the fit in force then reads everything stored.
 */
import type { AutoFitSettings } from '../schema/fit-options.js';

export interface FitPolicyState {
  /** Traces the service holds now. */
  readonly traces: number;
  /** The fit in force: how many traces it read and when it ended (ms); null before any. */
  readonly last: { readonly traces: number; readonly at: number } | null;
  /** When the last attempt that gave no weights ended (a failed fit, a lease held elsewhere), ms; null for none. */
  readonly failedAt: number | null;
  /** When the last trace was applied, ms; null for none since the service started. */
  readonly lastTraceAt: number | null;
}

/** The time (ms) from which a fit is due, or null while the traces call for none. */
export function nextFitAt(state: FitPolicyState, settings: AutoFitSettings): number | null {
  const { traces, last, failedAt, lastTraceAt } = state;
  if (traces < settings.firstAt || (last !== null && traces <= last.traces)) return null;
  const grown = last === null || traces > last.traces * (1 + settings.growth);
  const afterFit = last === null ? 0 : last.at + settings.minIntervalMs;
  const afterFailure = failedAt === null ? 0 : failedAt + Math.max(settings.minIntervalMs, RETRY_MS);
  const afterQuiet = grown || lastTraceAt === null ? 0 : lastTraceAt + settings.idleMs;
  return Math.max(afterFit, afterFailure, afterQuiet);
}

/** Least wait after an attempt that gave no weights, whatever the interval: a lease held elsewhere is not asked for in a loop. */
export const RETRY_MS = 1_000;
