/**
 * When the model rebuild that a write asks for may start: once the last rebuild ended at least
 * the configured gap ago (ToolgraphOptions.rebuildDelayMs, 50 ms by default) and at least as long
 * ago as that rebuild took.
 *
 * - The gap makes a burst of writes one rebuild, not one each: a write within it waits for its
 *   end, and the writes after it join that wait.
 * - A gap as long as the rebuild keeps rebuilds to at most about half of the thread under
 *   sustained ingestion (docs/decisions/store/open-group-commit-visibility.md).
 * - Both run from the end of the last rebuild, not from the write. A write into a service idle
 *   for longer is rebuilt at once: it used to wait the delay and the last rebuild's time again,
 *   so one trace into an idle service at 10,000 tools reached the whole model after two rebuild
 *   times and the delay instead of one rebuild time.
 *
 * Pure.
 */

/** The last rebuild: when it ended and how long it took (ms, one clock). */
export interface LastRebuild {
  readonly endedAt: number;
  readonly tookMs: number;
}

/** Milliseconds from `now` until the rebuild may start; null `last` for none yet (the delay). */
export function rebuildWaitMs(now: number, delayMs: number, last: LastRebuild | null): number {
  if (last === null) return delayMs;
  return Math.max(0, last.endedAt + Math.max(delayMs, last.tookMs) - now);
}
