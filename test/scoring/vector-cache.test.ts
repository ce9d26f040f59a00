import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { VectorCache } from '../../src/scoring/vector-cache.js';
import { expectError, manualClock } from './_helpers.js';

/** Unit basis vector e_i of length d. */
function e(i: number, d = 4): Float32Array {
  const v = new Float32Array(d);
  v[i] = 1;
  return v;
}

describe('VectorCache', () => {
  it('defaults to spec 000: 1000 elements of 384 dimensions, no TTL', () => {
    const cache = new VectorCache();
    expect(cache.maxElements).toBe(1000);
    expect(cache.dimensions).toBe(384);
    expect(cache.ttlMs).toBeNull();
    expect(cache.size).toBe(0);
    expect(new VectorCache({ ttlMs: Infinity }).ttlMs).toBeNull();
  });

  it('computes the maximum cosine by hand', () => {
    const cache = new VectorCache({ maxElements: 10, dimensions: 3 });
    cache.add([2, 0, 0]); // cos with (1, 1, 0): 1/sqrt 2
    cache.add([0, 0, 5]); // orthogonal: 0
    cache.add([3, 3, 0]); // same direction as the query: 1
    expect(cache.size).toBe(3);
    expect(cache.maxCosineSimilarity([1, 1, 0])).toBeCloseTo(1, 6);
    // (1, 2, 0) against (1, 0, 0): 1/sqrt 5; against (1, 1, 0)/sqrt 2: 3/sqrt 10 (the max); against e3: 0.
    expect(cache.maxCosineSimilarity([1, 2, 0])).toBeCloseTo(3 / Math.sqrt(10), 6);
    expect(cache.maxCosineSimilarity(new Float32Array([0, 0, -1]))).toBeCloseTo(0, 6);
  });

  it('returns 0 for an empty cache and for the zero vector; negative cosines stay negative', () => {
    const cache = new VectorCache({ maxElements: 4, dimensions: 2 });
    expect(cache.maxCosineSimilarity([1, 0])).toBe(0);
    cache.add([-1, 0]);
    expect(cache.maxCosineSimilarity([1, 0])).toBeCloseTo(-1, 6);
    expect(cache.maxCosineSimilarity([0, 0])).toBe(0);
    cache.add([0, 0]);
    expect(cache.maxCosineSimilarity([1, 0])).toBe(0);
  });

  it('stores a normalised copy: later changes to the input do not leak in', () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 2 });
    const v = new Float32Array([1, 0]);
    cache.add(v);
    v[0] = 0;
    v[1] = 1;
    expect(cache.maxCosineSimilarity([1, 0])).toBeCloseTo(1, 6);
  });

  it('handles finite values near the double range without overflow', () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 2 });
    cache.add([1e300, 1e300]);
    expect(cache.maxCosineSimilarity([1e-300, 1e-300])).toBeCloseTo(1, 6);
  });

  it('evicts oldest first when full, across several wraps of the ring', () => {
    const cache = new VectorCache({ maxElements: 3, dimensions: 8 });
    for (let i = 0; i < 8; i++) {
      cache.add(e(i, 8), `v${i}`);
      expect(cache.size).toBe(Math.min(i + 1, 3));
    }
    // Live: v5, v6, v7 (v0..v4 evicted in insertion order).
    for (let i = 0; i < 5; i++) expect(cache.maxCosineSimilarity(e(i, 8))).toBe(0);
    for (let i = 5; i < 8; i++) expect(cache.maxCosineSimilarity(e(i, 8))).toBeCloseTo(1, 6);
    const all = cache.search(new Float32Array(8).fill(1), 10).map((m) => m.id);
    expect(all).toEqual(['v5', 'v6', 'v7']); // equal cosines: oldest first
  });

  it('searches the top k by cosine, highest first, ties oldest first', () => {
    const clock = manualClock(100);
    const cache = new VectorCache({ maxElements: 10, dimensions: 2, now: clock.now });
    cache.add([1, 0], 'east');
    clock.advance(1);
    cache.add([0, 1], 'north');
    clock.advance(1);
    cache.add([1, 1], 'north-east');
    clock.advance(1);
    cache.add([2, 0], 'east-again');
    cache.add([-1, 0]);
    const top = cache.search([1, 0], 3);
    expect(top.map((m) => m.id)).toEqual(['east', 'east-again', 'north-east']);
    expect(top[0]!.similarity).toBeCloseTo(1, 6);
    expect(top[2]!.similarity).toBeCloseTo(Math.SQRT1_2, 6);
    expect(top[0]!.addedAt).toBe(100);
    expect(top[1]!.addedAt).toBe(103);
    expect(cache.search([1, 0], 1).map((m) => m.id)).toEqual(['east']);
    const everything = cache.search([1, 0], 50);
    expect(everything.length).toBe(5);
    expect(everything[4]).toEqual({ id: null, similarity: expect.closeTo(-1, 6), addedAt: 103 });
    expect(JSON.parse(JSON.stringify(everything[4]))).toEqual(everything[4]);
  });

  it('honours the TTL with an injected clock: live while age < ttlMs', () => {
    const clock = manualClock(0);
    const cache = new VectorCache({ maxElements: 10, dimensions: 4, ttlMs: 1000, now: clock.now });
    cache.add(e(0), 'a'); // t = 0
    clock.set(500);
    cache.add(e(1), 'b'); // t = 500
    clock.set(999);
    expect(cache.size).toBe(2);
    expect(cache.maxCosineSimilarity(e(0))).toBeCloseTo(1, 6);
    clock.set(1000); // a is 1000 ms old: expired
    expect(cache.maxCosineSimilarity(e(0))).toBe(0);
    expect(cache.size).toBe(1);
    expect(cache.search(e(1), 5).map((m) => m.id)).toEqual(['b']);
    clock.set(1500);
    expect(cache.size).toBe(0);
    expect(cache.search(e(1), 5)).toEqual([]);
    // A topic revisited after the TTL is new again.
    cache.add(e(0), 'a-again');
    expect(cache.size).toBe(1);
  });

  it('frees expired entries before evicting live ones', () => {
    const clock = manualClock(0);
    const cache = new VectorCache({ maxElements: 2, dimensions: 4, ttlMs: 100, now: clock.now });
    cache.add(e(0), 'a');
    clock.set(50);
    cache.add(e(1), 'b');
    clock.set(120); // a expired, b live
    cache.add(e(2), 'c');
    expect(cache.search(e(3), 5).map((m) => m.id)).toEqual(['b', 'c']);
  });

  it('keeps insertion times non-decreasing when the clock steps back', () => {
    const clock = manualClock(1000);
    const cache = new VectorCache({ maxElements: 4, dimensions: 4, ttlMs: 100, now: clock.now });
    cache.add(e(0), 'first');
    clock.set(500);
    cache.add(e(1), 'second');
    expect(cache.search(e(1), 1)[0]!.addedAt).toBe(1000);
    clock.set(1100); // both are 100 ms old by the stamps: both expired
    expect(cache.size).toBe(0);
  });

  it('clear empties the cache and it can be refilled', () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 4 });
    cache.add(e(0));
    cache.add(e(1));
    cache.add(e(2));
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.maxCosineSimilarity(e(2))).toBe(0);
    cache.add(e(3), 'x');
    expect(cache.search(e(3), 2).map((m) => m.id)).toEqual(['x']);
  });

  it('rejects bad options with INVALID_INPUT', () => {
    const bad = [
      { maxElements: 0 },
      { maxElements: 2.5 },
      { maxElements: 20_000_000 },
      { dimensions: 0 },
      { dimensions: 100_000 },
      { maxElements: 1_000_000, dimensions: 1024 },
      { ttlMs: 0 },
      { ttlMs: -5 },
      { ttlMs: Number.NaN },
      { now: 5 as unknown as () => number },
    ];
    for (const options of bad) expectError(() => new VectorCache(options), 'INVALID_INPUT', 'VectorCache');
  });

  it('rejects wrong lengths, non-finite values, bad ids and bad k with INVALID_INPUT', () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 3 });
    expectError(() => cache.add([1, 2]), 'INVALID_INPUT', 'VectorCache.add');
    expectError(() => cache.add([1, Number.NaN, 2]), 'INVALID_INPUT', 'VectorCache.add');
    expectError(() => cache.add([1, Infinity, 2]), 'INVALID_INPUT', 'VectorCache.add');
    expectError(() => cache.add(null as unknown as number[]), 'INVALID_INPUT', 'VectorCache.add');
    expectError(() => cache.add([1, 2, 3], 7 as unknown as string), 'INVALID_INPUT', 'VectorCache.add');
    expectError(() => cache.maxCosineSimilarity([1, 2, 3, 4]), 'INVALID_INPUT', 'VectorCache.maxCosineSimilarity');
    expectError(() => cache.search([1, 2, 3], 0), 'INVALID_INPUT', 'VectorCache.search');
    expectError(() => cache.search([1, 2, 3], 1.5), 'INVALID_INPUT', 'VectorCache.search');
    expectError(() => cache.search([1, 2], 1), 'INVALID_INPUT', 'VectorCache.search');
    expect(cache.size).toBe(0);
  });
});

describe('VectorCache.nearest', () => {
  /** The reference: every live entry scored in doubles, sorted by cosine, ties by insertion. */
  function bruteForce(live: { id: string; v: number[] }[], q: number[], k: number): { id: string; similarity: number }[] {
    const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    const scored = live.map((entry, order) => {
      const n = norm(entry.v) * norm(q);
      const dot = entry.v.reduce((s, x, i) => s + x * q[i]!, 0);
      return { id: entry.id, similarity: n === 0 ? 0 : dot / n, order };
    });
    scored.sort((a, b) => b.similarity - a.similarity || a.order - b.order);
    return scored.slice(0, k).map(({ id, similarity }) => ({ id, similarity }));
  }

  it('equals a brute-force top k (with ties, evictions and TTL expiry) on seeded random data', () => {
    const rng = createRng(7);
    const clock = manualClock(0);
    const d = 6;
    const cache = new VectorCache({ maxElements: 40, dimensions: d, ttlMs: 500, now: clock.now });
    const added: { id: string; v: number[]; at: number }[] = [];
    for (let i = 0; i < 200; i++) {
      // Small integer coordinates make exact ties (and duplicates) frequent.
      const v = i % 7 === 0 && added.length > 0 ? added[added.length - 1]!.v : Array.from({ length: d }, () => Math.floor(rng() * 3) - 1);
      cache.add(v, `v${i}`);
      added.push({ id: `v${i}`, v, at: clock.now() });
      clock.advance(Math.floor(rng() * 10));
      if (i % 10 !== 9) continue;
      const live = added.slice(-40).filter((entry) => clock.now() - entry.at < 500);
      const q = Array.from({ length: d }, () => Math.floor(rng() * 3) - 1);
      for (const k of [1, 3, 50]) {
        const got = cache.nearest(q, k);
        const want = bruteForce(live, q, k);
        expect(got.map((m) => m.id)).toEqual(want.map((m) => m.id));
        got.forEach((m, j) => expect(m.similarity).toBeCloseTo(want[j]!.similarity, 6));
      }
    }
  });

  it('is best first with ties in insertion order, and forgets expired entries', () => {
    const clock = manualClock(0);
    const cache = new VectorCache({ maxElements: 10, dimensions: 2, ttlMs: 100, now: clock.now });
    cache.add([1, 1], 'diagonal');
    clock.set(10);
    cache.add([0, 1], 'north');
    cache.add([2, 0], 'east-1');
    cache.add([5, 0], 'east-2');
    const top = cache.nearest([1, 0], 3);
    expect(top.map((m) => m.id)).toEqual(['east-1', 'east-2', 'diagonal']);
    expect(top[0]).toEqual({ id: 'east-1', similarity: expect.closeTo(1, 6) });
    expect(top[2]!.similarity).toBeCloseTo(Math.SQRT1_2, 6);
    clock.set(100); // 'diagonal' is 100 ms old: expired
    expect(cache.nearest([1, 1], 10).map((m) => m.id)).toEqual(['north', 'east-1', 'east-2']);
    clock.set(110);
    expect(cache.nearest([1, 1], 10)).toEqual([]);
  });

  it('rejects a bad k or query with INVALID_INPUT naming nearest', () => {
    const cache = new VectorCache({ dimensions: 2 });
    expectError(() => cache.nearest([1, 0], 0), 'INVALID_INPUT', 'VectorCache.nearest');
    expectError(() => cache.nearest([1, 0], 1.5), 'INVALID_INPUT', 'VectorCache.nearest');
    expectError(() => cache.nearest([1, 0, 0], 1), 'INVALID_INPUT', 'VectorCache.nearest');
    expectError(() => cache.nearest([NaN, 0], 1), 'INVALID_INPUT', 'VectorCache.nearest');
  });
});
