import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { strongestEdges } from '../../src/graph/strongest-edges.js';
import { expectCode } from '../helpers/expect-code.js';

/** Reference: every position sorted by weight descending, then position ascending, cut at k. */
function bySort(weights: Float64Array, k: number): number[] {
  return [...weights.keys()].sort((a, b) => weights[b]! - weights[a]! || a - b).slice(0, k);
}

describe('strongestEdges', () => {
  it('keeps the k largest weights, strongest first, ties by position', () => {
    // Hand example: weights by position 0..5 = 3, 7, 3, 1, 7, 2. Top 4: 7 (1), 7 (4), 3 (0), 3 (2).
    const w = Float64Array.from([3, 7, 3, 1, 7, 2]);
    expect([...strongestEdges(w, 4)]).toEqual([1, 4, 0, 2]);
    expect([...strongestEdges(w, 1)]).toEqual([1]);
    expect([...strongestEdges(w, 0)]).toEqual([]);
    expect([...strongestEdges(w, 10)]).toEqual([1, 4, 0, 2, 5, 3]);
  });

  it('agrees with a full sort on random weights with many ties', () => {
    const rng = createRng(7);
    for (let trial = 0; trial < 50; trial++) {
      const m = Math.floor(rng() * 300);
      const w = Float64Array.from({ length: m }, () => Math.floor(rng() * 20));
      const k = Math.floor(rng() * (m + 5));
      expect([...strongestEdges(w, k)]).toEqual(bySort(w, k));
    }
  });

  it('refuses a k that is not a count', () => {
    for (const k of [-1, 1.5, Number.NaN]) expectCode(() => strongestEdges(new Float64Array(3), k), 'INVALID_INPUT', 'strongestEdges');
  });
});
