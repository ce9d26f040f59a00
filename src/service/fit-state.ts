/**
 * The fit in force, as `stats()` reports it (GET /v1/stats, `toolgraph stats --json`): prior or
 * fitted weights, the account of the fit that gave them, and this instance's own fits.
 */
import type { FittedWeights, KeptRule } from '../recommend/model.js';

/** The fit in force and this instance's fits, as `stats()` reports them. */
export interface FitState {
  /** 'prior' until weights from a fit are in force. */
  readonly state: 'prior' | 'fitted';
  /** Stored traces the weights in force were fitted on (0 for the prior). */
  readonly traces: number;
  /** When that fit ended (ISO 8601), or null. */
  readonly fittedAt: string | null;
  /** How long it took, ms (0 for the prior). */
  readonly ms: number;
  /** Which rule each task kept; null for the prior. */
  readonly kept: { readonly next: KeptRule; readonly nextNoIntent: KeptRule; readonly search: KeptRule } | null;
  /** A fit is under way on this instance. */
  readonly running: boolean;
  /** Fits this instance finished and installed since it started, and those that failed. */
  readonly fits: number;
  readonly failures: number;
  /** Time those fits took in all, ms. */
  readonly totalMs: number;
}

/** This instance's fits, as FitState counts them. */
export type FitActivity = Pick<FitState, 'running' | 'fits' | 'failures' | 'totalMs'>;

/** The FitState of the weights in force. */
export function describeFit(weights: FittedWeights, activity: FitActivity = { running: false, fits: 0, failures: 0, totalMs: 0 }): FitState {
  const record = weights.source === 'fitted' ? weights.fit : undefined;
  return {
    state: weights.source,
    traces: record?.traces ?? 0,
    fittedAt: record === undefined ? null : new Date(record.fittedAt).toISOString(),
    ms: record?.ms ?? 0,
    kept: record?.kept ?? null,
    ...activity,
  };
}
