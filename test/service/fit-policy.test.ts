import { describe, expect, it } from 'vitest';
import { AUTO_FIT_DEFAULTS, autoFitSettings } from '../../src/schema/fit-options.js';
import { nextFitAt, RETRY_MS } from '../../src/service/fit-policy.js';

const settings = { firstAt: 30, growth: 0.2, minIntervalMs: 60_000, idleMs: 300_000 };
const none = { failedAt: null, lastTraceAt: null };

describe('nextFitAt', () => {
  it('calls for a first fit from firstAt traces, at once', () => {
    expect(nextFitAt({ traces: 29, last: null, ...none }, settings)).toBeNull();
    expect(nextFitAt({ traces: 30, last: null, ...none }, settings)).toBe(0);
    expect(nextFitAt({ traces: 30, last: null, failedAt: null, lastTraceAt: 5_000 }, settings)).toBe(0);
  });

  it('calls for the next fit once the traces grew by the share, an interval after the last', () => {
    const last = { traces: 100, at: 1_000_000 };
    const busy = { failedAt: null, lastTraceAt: 1_200_000 };
    expect(nextFitAt({ traces: 121, last, ...busy }, settings)).toBe(1_060_000);
    // Fewer new traces wait for the store to go quiet: idleMs after the last trace.
    expect(nextFitAt({ traces: 120, last, ...busy }, settings)).toBe(1_500_000);
    // None new: nothing to fit.
    expect(nextFitAt({ traces: 100, last, ...busy }, settings)).toBeNull();
    // Below firstAt (after an explicit fit on fewer), nothing is called for either way.
    expect(nextFitAt({ traces: 20, last: { traces: 5, at: 0 }, ...busy }, settings)).toBeNull();
  });

  it('fits what a store opened with and the fit has not read once the interval allows', () => {
    // No trace since the service started: quiet since then.
    expect(nextFitAt({ traces: 105, last: { traces: 100, at: 1_000 }, ...none }, settings)).toBe(61_000);
  });

  it('waits after an attempt that gave nothing, at least RETRY_MS whatever the interval', () => {
    expect(nextFitAt({ traces: 50, last: null, failedAt: 5_000, lastTraceAt: null }, settings)).toBe(65_000);
    expect(nextFitAt({ traces: 50, last: null, failedAt: 5_000, lastTraceAt: null }, { ...settings, minIntervalMs: 0 })).toBe(5_000 + RETRY_MS);
    expect(nextFitAt({ traces: 500, last: { traces: 100, at: 9_000 }, failedAt: 5_000, lastTraceAt: null }, settings)).toBe(69_000);
  });

  it('is turned off by false, and fills in the defaults of what is left out', () => {
    expect(autoFitSettings(false)).toBeNull();
    expect(autoFitSettings(undefined)).toEqual(AUTO_FIT_DEFAULTS);
    expect(autoFitSettings({ firstAt: 5, growth: undefined })).toEqual({ ...AUTO_FIT_DEFAULTS, firstAt: 5 });
  });
});
