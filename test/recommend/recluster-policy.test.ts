import { describe, expect, it } from 'vitest';
import { canReuseClusters } from '../../src/recommend/recluster-policy.js';

const ids = (n: number, prefix = 'c') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}` }));

describe('canReuseClusters', () => {
  const last = { at: 1_000, ids: new Set(ids(100).map((c) => c.id)), version: 3 };
  const base = { last, now: 2_000, version: 3, capabilities: ids(100), everyMs: 60_000, share: 0.1 };

  it('carries over a recent full co-clustering when few capabilities are new', () => {
    expect(canReuseClusters(base)).toBe(true);
    expect(canReuseClusters({ ...base, capabilities: [...ids(100), ...ids(10, 'new')] })).toBe(true);
  });

  it('co-clusters in full past the share of new ones, past the age, after a registration, or without a previous one', () => {
    expect(canReuseClusters({ ...base, capabilities: [...ids(100), ...ids(11, 'new')] })).toBe(false);
    expect(canReuseClusters({ ...base, now: 61_000 })).toBe(false);
    expect(canReuseClusters({ ...base, now: 60_999 })).toBe(true);
    expect(canReuseClusters({ ...base, version: 4 })).toBe(false);
    expect(canReuseClusters({ ...base, last: null })).toBe(false);
    expect(canReuseClusters({ ...base, everyMs: 0 })).toBe(false);
  });
});
