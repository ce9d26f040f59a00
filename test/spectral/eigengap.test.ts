import { describe, expect, it } from 'vitest';
import { eigengap } from '../../src/spectral/eigengap.js';
import { expectInvalidInput } from './_helpers.js';

describe('eigengap', () => {
  it('picks the largest drop within the range (hand-computed)', () => {
    // Drops: 0.05, 0.05, 0.6, 0.1, ...; largest at k = 3.
    const r = eigengap([1, 0.95, 0.9, 0.3, 0.2, 0.1], { kMin: 2, kMax: 5 });
    expect(r.k).toBe(3);
    expect(r.gap).toBeCloseTo(0.6, 12);
    expect(r.gaps.map((g) => Math.round(g * 100) / 100)).toEqual([0.05, 0.6, 0.1, 0.1]);
    expect(r.clamped).toBe(false);
  });

  it('honours the range, breaks ties toward the smallest k, and measures past the end to 0', () => {
    expect(eigengap([1, 0.875, 0.75, 0.5, 0.25, 0], { kMin: 4, kMax: 5 }).k).toBe(4); // both gaps 0.25 exactly
    expect(eigengap([1, 0.5, 0], { kMin: 1, kMax: 2 }).k).toBe(1);
    // Only two values: kMax clamps to 2 and sigma_3 counts as 0.
    const r = eigengap([1, 0.9], { kMin: 2, kMax: 8 });
    expect([r.k, r.clamped]).toEqual([2, true]);
    expect(r.gap).toBeCloseTo(0.9, 12);
    expect(eigengap([0.7], { kMin: 3, kMax: 4 }).k).toBe(1);
    expect(eigengap([], {})).toEqual({ k: 0, gap: 0, gaps: [], clamped: true });
  });

  it('throws INVALID_INPUT for a bad range or unsorted, negative or non-finite values', () => {
    expectInvalidInput(() => eigengap([1], { kMin: 0 }), 'eigengap');
    expectInvalidInput(() => eigengap([1], { kMin: 3, kMax: 2 }), 'eigengap');
    expectInvalidInput(() => eigengap([1], { kMax: 2.5 }), 'eigengap');
    expectInvalidInput(() => eigengap([0.5, 1]), 'eigengap');
    expectInvalidInput(() => eigengap([1, -0.1]), 'eigengap');
    expectInvalidInput(() => eigengap([Number.NaN]), 'eigengap');
  });
});
