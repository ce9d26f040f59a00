/**
 * The wait before a rebuild (rebuild-schedule.ts): until the last rebuild ended at least the
 * configured gap ago, and at least as long ago as it took.
 */
import { describe, expect, it } from 'vitest';
import { rebuildWaitMs } from '../../src/service/rebuild-schedule.js';

describe('rebuildWaitMs', () => {
  it('waits the delay when nothing was built yet', () => {
    expect(rebuildWaitMs(1_000, 50, null)).toBe(50);
  });

  it('keeps the gap after a rebuild as long as that rebuild took', () => {
    // A 300 ms rebuild ended just now: the next waits 300 ms, not the 50 ms gap.
    expect(rebuildWaitMs(1_000, 50, { endedAt: 1_000, tookMs: 300 })).toBe(300);
    // Ended 100 ms ago: 200 ms of the gap are left.
    expect(rebuildWaitMs(1_100, 50, { endedAt: 1_000, tookMs: 300 })).toBe(200);
  });

  it('keeps the configured gap after a quick rebuild', () => {
    expect(rebuildWaitMs(1_000, 50, { endedAt: 1_000, tookMs: 5 })).toBe(50);
    expect(rebuildWaitMs(1_030, 50, { endedAt: 1_000, tookMs: 5 })).toBe(20);
  });

  it('rebuilds at once once the service has been idle that long', () => {
    expect(rebuildWaitMs(1_300, 50, { endedAt: 1_000, tookMs: 300 })).toBe(0);
    // Idle for a second: no wait, where the rule before waited the 300 ms again.
    expect(rebuildWaitMs(2_000, 50, { endedAt: 1_000, tookMs: 300 })).toBe(0);
    expect(rebuildWaitMs(2_000, 50, { endedAt: 1_000, tookMs: 5 })).toBe(0);
  });
});
