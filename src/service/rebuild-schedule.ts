/**
 * When the model rebuild that a write asks for may start. Two things bound it:
 *
 * - the configured delay (ToolgraphOptions.rebuildDelayMs), so that a burst of writes makes one
 *   rebuild, not one each;
 * - the gap after the last rebuild: at least as long as that rebuild took, so that under
 *   sustained ingestion rebuilds hold at most about half of the thread (README, Store).
 *
 * The gap runs from the end of the last rebuild, not from the write. A write into a service that
 * has been idle since its last rebuild for at least that long waits the delay alone: it used to
 * wait the whole of the last rebuild's time again, so one trace into an idle service at 10,000
 * tools was visible to the whole model after two rebuild times instead of one. Pure.
 */

/** The last rebuild: when it ended and how long it took (ms, one clock). */
export interface LastRebuild {
  readonly endedAt: number;
  readonly tookMs: number;
}

/** Milliseconds from `now` until the rebuild may start; null `last` for none yet. */
export function rebuildWaitMs(now: number, delayMs: number, last: LastRebuild | null): number {
  if (last === null) return delayMs;
  return Math.max(delayMs, last.endedAt + last.tookMs - now);
}
