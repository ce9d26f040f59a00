import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { backoffDelay, RECONNECT_BACKOFF } from '../../src/store/backoff.js';

describe('backoffDelay', () => {
  it('doubles from 100 ms to a 5 s ceiling, each delay in [ceiling/2, ceiling]', () => {
    // Hand-computed ceilings: 100, 200, 400, 800, 1600, 3200, then 5000 for good.
    const ceilings = [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000];
    for (const [n, ceiling] of ceilings.entries()) {
      expect(backoffDelay(n, RECONNECT_BACKOFF, 0)).toBe(ceiling / 2);
      expect(backoffDelay(n, RECONNECT_BACKOFF, 0.5)).toBe(ceiling * 0.75);
      expect(backoffDelay(n, RECONNECT_BACKOFF, 0.999_999)).toBeLessThanOrEqual(ceiling);
    }
    // No overflow after a very long outage.
    expect(backoffDelay(10_000, RECONNECT_BACKOFF, 0.5)).toBe(3_750);
  });

  it('gives the same delays for a seed, other delays for another', () => {
    const delays = (seed: number) => {
      const u = createRng(seed);
      return Array.from({ length: 12 }, (_, n) => backoffDelay(n, RECONNECT_BACKOFF, u()));
    };
    expect(delays(7)).toEqual(delays(7));
    expect(delays(7)).not.toEqual(delays(8));
    for (const [n, d] of delays(7).entries()) {
      const ceiling = Math.min(5_000, 100 * 2 ** n);
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
  });
});
