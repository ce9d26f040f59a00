import { describe, expect, it } from 'vitest';
import { createRng, DEFAULT_SEED } from '../../src/graph/rng.js';
import { expectInvalidInput } from './_helpers.js';

/** bryc/code jshash/PRNGs.md#mulberry32, verbatim apart from types: the reference. */
function referenceMulberry32(seed: number): () => number {
  let a = seed;
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('createRng', () => {
  it('reproduces the published mulberry32 stream for seed 0', () => {
    // First three outputs of the reference implementation with seed 0.
    const rng = createRng(0);
    expect(rng()).toBe(0.26642920868471265);
    expect(rng()).toBe(0.0003297457005828619);
    expect(rng()).toBe(0.2232720274478197);
  });

  it('returns exact multiples of 2^-32 (seed 42: 2581720956, 1925393290)', () => {
    const rng = createRng(42);
    expect(rng() * 2 ** 32).toBe(2581720956);
    expect(rng() * 2 ** 32).toBe(1925393290);
  });

  it('matches the reference for many seeds, including negative and > 2^31 ones', () => {
    for (const seed of [1, 7, 123456789, 0x7fffffff, 0x80000000, 0xffffffff, -1, -123456]) {
      const ours = createRng(seed);
      const ref = referenceMulberry32(seed);
      for (let i = 0; i < 1000; i++) expect(ours()).toBe(ref());
    }
  });

  it('defaults to DEFAULT_SEED, the one seed every random step takes when given none', () => {
    expect(DEFAULT_SEED).toBe(42);
    const a = createRng();
    const b = createRng(DEFAULT_SEED);
    for (let i = 0; i < 100; i++) expect(a()).toBe(b());
  });

  it('takes the seed modulo 2^32', () => {
    const a = createRng(-1);
    const b = createRng(2 ** 32 - 1);
    const c = createRng(2 ** 32 + 5);
    const d = createRng(5);
    for (let i = 0; i < 100; i++) {
      expect(a()).toBe(b());
      expect(c()).toBe(d());
    }
  });

  it('is deterministic per seed and differs across seeds', () => {
    const draw = (seed: number): number[] => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => rng());
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
  });

  it('stays in [0, 1) and looks uniform (mean, variance, deciles)', () => {
    const rng = createRng(2024);
    const n = 200_000;
    const bins = new Int32Array(10);
    let outside = 0;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < n; i++) {
      const x = rng();
      if (!(x >= 0 && x < 1)) outside++;
      sum += x;
      sumSq += x * x;
      bins[Math.floor(x * 10)]! += 1;
    }
    expect(outside).toBe(0);
    const mean = sum / n;
    // Uniform(0,1): mean 1/2, variance 1/12; standard error of the mean ~ 0.00065.
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.005);
    expect(Math.abs(sumSq / n - mean * mean - 1 / 12)).toBeLessThan(0.002);
    for (const count of bins) expect(Math.abs(count - n / 10)).toBeLessThan(n / 100);
  });

  it('throws INVALID_INPUT for a non-integer or unsafe seed', () => {
    for (const seed of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expectInvalidInput(() => createRng(seed), 'createRng');
    }
  });
});
