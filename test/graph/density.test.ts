import { describe, expect, it } from 'vitest';
import { adaptiveAlpha, graphDensity } from '../../src/graph/density.js';
import { expectInvalidInput } from './_helpers.js';

describe('graphDensity', () => {
  it('divides edges by ordered pairs (hand-computed, spec 003 section 1.1)', () => {
    // 4 nodes have 4 * 3 = 12 ordered pairs; 3 edges -> 0.25.
    expect(graphDensity(4, 3)).toBe(0.25);
    expect(graphDensity(10, 90)).toBe(1);
    expect(graphDensity(10_000, 100_000)).toBeCloseTo(100_000 / 99_990_000, 15);
    expect(graphDensity(5, 0)).toBe(0);
  });

  it('is 0 for fewer than two nodes', () => {
    expect(graphDensity(0, 0)).toBe(0);
    expect(graphDensity(1, 0)).toBe(0);
    expect(graphDensity(1, 1)).toBe(0); // a lone self-loop
  });

  it('throws INVALID_INPUT unless both counts are non-negative integers', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectInvalidInput(() => graphDensity(bad, 1), 'graphDensity');
      expectInvalidInput(() => graphDensity(3, bad), 'graphDensity');
    }
  });
});

describe('adaptiveAlpha', () => {
  it('follows the table of spec 003 section 1.1', () => {
    // density 0 -> 1.0 (cold start), 0.25 -> 0.5, above 0.25 -> floor 0.5.
    expect(adaptiveAlpha(0)).toBe(1);
    expect(adaptiveAlpha(0.25)).toBe(0.5);
    expect(adaptiveAlpha(0.4)).toBe(0.5);
    expect(adaptiveAlpha(1)).toBe(0.5);
    expect(adaptiveAlpha(3)).toBe(0.5);
    expect(adaptiveAlpha(0.1)).toBeCloseTo(0.8, 15);
  });

  it('is non-increasing in density and stays in [0.5, 1]', () => {
    let previous = Number.POSITIVE_INFINITY;
    for (let d = 0; d <= 1; d += 0.01) {
      const alpha = adaptiveAlpha(d);
      expect(alpha).toBeLessThanOrEqual(previous);
      expect(alpha >= 0.5 && alpha <= 1).toBe(true);
      previous = alpha;
    }
  });

  it('composes with graphDensity', () => {
    expect(adaptiveAlpha(graphDensity(4, 3))).toBe(0.5);
    expect(adaptiveAlpha(graphDensity(11, 11))).toBeCloseTo(0.8, 15);
  });

  it('throws INVALID_INPUT for a negative or non-finite density', () => {
    for (const bad of [-0.1, Number.NaN, Number.POSITIVE_INFINITY]) expectInvalidInput(() => adaptiveAlpha(bad), 'adaptiveAlpha');
  });
});
