import { describe, expect, it } from 'vitest';
import { PairIndex } from '../../src/graph/pair-index.js';
import { createRng } from '../../src/graph/rng.js';

/**
 * getOrAdd of each pair, a new one at the next position, against `reference` (pair key ->
 * position, updated alike); then every pair the reference holds is found by get.
 */
function addAndCompare(index: PairIndex, reference: Map<string, number>, pairs: readonly [number, number][]): void {
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
}

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
    addAndCompare(index, reference, pairs);
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

  it('starts from sorted pairs at their positions, then adds others, agreeing with a Map', () => {
    const rng = createRng(17);
    const span = 50;
    const keys = new Set<string>();
    for (let i = 0; i < 600; i++) keys.add(`${Math.floor(rng() * span)} ${Math.floor(rng() * 80)}`);
    const pairs = [...keys].map((k) => k.split(' ').map(Number) as [number, number]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const first = Int32Array.from(pairs, (p) => p[0]);
    const second = Int32Array.from(pairs, (p) => p[1]);
    const index = PairIndex.sorted(first, second, span)!;
    expect(index).not.toBeNull();
    expect(index.size).toBe(pairs.length);
    const reference = new Map(pairs.map((p, i) => [`${p[0]} ${p[1]}`, i]));
    // The input arrays are copied: changing them afterwards changes nothing.
    second.fill(0);
    // Tool indices past the span too: a restored graph goes on learning new tools.
    const more = Array.from({ length: 3_000 }, (): [number, number] => [Math.floor(rng() * (span + 10)), Math.floor(rng() * 90)]);
    addAndCompare(index, reference, more);
    expect(index.get(-1, 0)).toBe(-1);
    expect(index.get(span + 20, 0)).toBe(-1);
    expect(index.get(0, 1_000)).toBe(-1);
  });

  it('takes sorted pairs only: a repeat, a step back or a first element outside the span gives null', () => {
    const sorted = (a: number[], b: number[], span = 5) => PairIndex.sorted(Int32Array.from(a), Int32Array.from(b), span);
    expect(sorted([0, 0, 2], [1, 3, 0])).not.toBeNull();
    expect(sorted([], [])!.size).toBe(0);
    expect(sorted([0, 0], [1, 1])).toBeNull();
    expect(sorted([0, 0], [3, 1])).toBeNull();
    expect(sorted([2, 1], [0, 0])).toBeNull();
    expect(sorted([0, 5], [0, 0])).toBeNull();
    expect(sorted([-1, 0], [0, 0])).toBeNull();
    expect(sorted([0, 1], [0])).toBeNull();
  });
});
