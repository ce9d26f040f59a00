import { describe, expect, it } from 'vitest';
import { PairIndex } from '../../src/graph/pair-index.js';
import { createRng } from '../../src/graph/rng.js';

describe('PairIndex', () => {
  it('agrees with a Map on random pairs through every growth, extreme values included', () => {
    const rng = createRng(11);
    const index = new PairIndex();
    const reference = new Map<string, number>();
    const pairs: [number, number][] = [
      [0, 0],
      [0x7fffffff, 0x7fffffff],
      [0, 0x7fffffff],
      [0x7fffffff, 0],
    ];
    // Clustered small values collide in naive hashes; wide ones exercise the high bits.
    for (let i = 0; i < 20_000; i++) {
      pairs.push(i % 2 === 0 ? [Math.floor(rng() * 150), Math.floor(rng() * 150)] : [Math.floor(rng() * 0x7fffffff), Math.floor(rng() * 0x7fffffff)]);
    }
    for (const [a, b] of pairs) {
      const key = `${a} ${b}`;
      const known = reference.get(key);
      const value = reference.size;
      const got = index.getOrAdd(a, b, value);
      if (known === undefined) {
        expect(got).toBe(-1 - value);
        reference.set(key, value);
      } else {
        expect(got).toBe(known);
      }
    }
    expect(index.size).toBe(reference.size);
    for (const [key, value] of reference) {
      const [a, b] = key.split(' ').map(Number);
      expect(index.get(a!, b!)).toBe(value);
    }
    expect(index.get(1, 0x7ffffffe)).toBe(-1);
    expect(index.get(151, 151)).toBe(-1);
  });

  it('tells a pair from its mirror image', () => {
    const index = new PairIndex(4);
    index.getOrAdd(1, 2, 7);
    expect(index.get(1, 2)).toBe(7);
    expect(index.get(2, 1)).toBe(-1);
    expect(index.getOrAdd(2, 1, 8)).toBe(-9);
    expect([index.get(1, 2), index.get(2, 1), index.size]).toEqual([7, 8, 2]);
  });
});
