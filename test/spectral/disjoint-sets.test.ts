import { describe, expect, it } from 'vitest';
import { DisjointSets } from '../../src/spectral/disjoint-sets.js';

describe('DisjointSets', () => {
  it('joins sets and names each by its smallest member (hand-computed)', () => {
    const sets = new DisjointSets(7);
    sets.union(5, 3);
    sets.union(3, 6);
    sets.union(1, 2);
    sets.union(6, 5); // already joined
    expect(Array.from({ length: 7 }, (_, v) => sets.find(v))).toEqual([0, 1, 1, 3, 4, 3, 3]);
    sets.union(2, 6);
    expect(Array.from({ length: 7 }, (_, v) => sets.find(v))).toEqual([0, 1, 1, 1, 4, 1, 1]);
  });
});
