import { describe, expect, it } from 'vitest';
import { percentileRanks } from '../../src/graph/percentile.js';
import { createRng } from '../../src/graph/rng.js';
import { expectInvalidInput, randomPermutation } from './_helpers.js';

const ranks = (values: number[]): number[] => Array.from(percentileRanks(Float64Array.from(values)));

/** Reference: O(n^2) definition, mean 0-based rank = (#less) + (#equal - 1)/2. */
function naive(values: Float64Array): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let less = 0;
    let equal = 0;
    for (let j = 0; j < n; j++) {
      if (values[j]! < values[i]!) less++;
      else if (values[j] === values[i]) equal++;
    }
    out[i] = (less + (equal - 1) / 2) / (n - 1);
  }
  return out;
}

describe('percentileRanks', () => {
  it('ranks distinct values evenly from 0 to 1 (hand-computed)', () => {
    // Sorted 0.1 < 0.2 < 0.5 < 0.9 -> ranks 0, 1, 2, 3 over n - 1 = 3.
    expect(ranks([0.5, 0.1, 0.9, 0.2])).toEqual([2 / 3, 0, 1, 1 / 3]);
  });

  it('gives ties their mean rank (hand-computed)', () => {
    // [3, 1, 3, 2, 3]: 1 -> rank 0, 2 -> rank 1, the three 3s share ranks 2, 3, 4 -> mean 3. n - 1 = 4.
    expect(ranks([3, 1, 3, 2, 3])).toEqual([0.75, 0, 0.75, 0.25, 0.75]);
    // [1, 1, 2]: the 1s share ranks 0, 1 -> 0.5; 2 -> 2. n - 1 = 2.
    expect(ranks([1, 1, 2])).toEqual([0.25, 0.25, 1]);
  });

  it('maps a single value, or all-equal values, to 1', () => {
    expect(ranks([0.3])).toEqual([1]);
    expect(ranks([2, 2, 2, 2])).toEqual([1, 1, 1, 1]);
    expect(ranks([0, -0])).toEqual([1, 1]);
  });

  it('returns an empty array for no values', () => {
    expect(percentileRanks(new Float64Array(0)).length).toBe(0);
  });

  it('handles infinities and negative values', () => {
    expect(ranks([Number.NEGATIVE_INFINITY, -1, 0, Number.POSITIVE_INFINITY])).toEqual([0, 1 / 3, 2 / 3, 1]);
  });

  it('agrees with the O(n^2) definition on seeded data with many ties', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const rng = createRng(seed);
      const values = Float64Array.from({ length: 300 }, () => Math.floor(rng() * 40) / 7);
      const ours = percentileRanks(values);
      const reference = naive(values);
      for (let i = 0; i < values.length; i++) expect(ours[i]).toBeCloseTo(reference[i]!, 12);
    }
  });

  it('is invariant under permutation and under strictly increasing transforms', () => {
    const rng = createRng(99);
    const values = Float64Array.from({ length: 200 }, () => Math.floor(rng() * 50));
    const base = percentileRanks(values);
    const perm = randomPermutation(100, values.length);
    const permuted = new Float64Array(values.length);
    for (let i = 0; i < values.length; i++) permuted[perm[i]!] = values[i]!;
    const permutedRanks = percentileRanks(permuted);
    const transformed = percentileRanks(values.map((v) => Math.exp(v / 10) * 3 - 7));
    for (let i = 0; i < values.length; i++) {
      expect(permutedRanks[perm[i]!]).toBe(base[i]);
      expect(transformed[i]).toBe(base[i]);
    }
  });

  it('stays in [0, 1], has mean 1/2 when values vary, and does not mutate its input', () => {
    const rng = createRng(5);
    const values = Float64Array.from({ length: 101 }, () => rng());
    const copy = values.slice();
    const out = percentileRanks(values);
    let total = 0;
    for (const r of out) {
      expect(r >= 0 && r <= 1).toBe(true);
      total += r;
    }
    // The mean rank is (n - 1)/2 whatever the ties, so the mean percentile is exactly 1/2.
    expect(total / out.length).toBeCloseTo(0.5, 12);
    expect(Array.from(values)).toEqual(Array.from(copy));
  });

  it('throws INVALID_INPUT on NaN', () => {
    expectInvalidInput(() => percentileRanks(Float64Array.of(1, Number.NaN, 2)), 'percentileRanks');
    expectInvalidInput(() => percentileRanks(Float64Array.of(Number.NaN)), 'percentileRanks');
  });
});
