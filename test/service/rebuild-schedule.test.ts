/**
 * The wait before a rebuild (rebuild-schedule.ts): the configured delay, and no sooner after the
 * last rebuild ended than that rebuild took.
 */
import { describe, expect, it } from 'vitest';
import { rebuildWaitMs } from '../../src/service/rebuild-schedule.js';

describe('rebuildWaitMs', () => {
  it('waits the delay when nothing was built yet', () => {
    expect(rebuildWaitMs(1_000, 50, null)).toBe(50);
  });

  it('keeps the gap after a rebuild as long as that rebuild took', () => {
    // A 300 ms rebuild ended just now: the next waits 300 ms, not the 50 ms delay.
    expect(rebuildWaitMs(1_000, 50, { endedAt: 1_000, tookMs: 300 })).toBe(300);
    // Ended 100 ms ago: 200 ms of the gap are left.
    expect(rebuildWaitMs(1_100, 50, { endedAt: 1_000, tookMs: 300 })).toBe(200);
  });

  it('waits only the delay once the service has been idle that long', () => {
    // Ended 250 ms ago: 50 ms of the gap are left, which is the delay anyway.
    expect(rebuildWaitMs(1_250, 50, { endedAt: 1_000, tookMs: 300 })).toBe(50);
    // Idle for a second: the delay alone, where the old rule waited the 300 ms again.
    expect(rebuildWaitMs(2_000, 50, { endedAt: 1_000, tookMs: 300 })).toBe(50);
  });

  it('never waits less than the delay for a quick rebuild', () => {
    expect(rebuildWaitMs(1_000, 50, { endedAt: 1_000, tookMs: 5 })).toBe(50);
    expect(rebuildWaitMs(1_000, 0, { endedAt: 1_000, tookMs: 0 })).toBe(0);
  });
});
