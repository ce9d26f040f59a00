import { describe, expect, it } from 'vitest';
import { bm25MatchedTerms, buildBm25, scoreBm25 } from '../../src/text/bm25.js';
import { expectCode } from '../helpers/expect-code.js';


function scores(docs: string[][], query: string[], options?: { k1?: number; b?: number }): number[] {
  const index = buildBm25(docs, options);
  const out = new Float64Array(docs.length);
  scoreBm25(index, query, out);
  return Array.from(out);
}

// d0 = [a b], d1 = [a a c], d2 = [c]: N = 3, |d| = 2, 3, 1, avgdl = 2.
const DOCS = [['a', 'b'], ['a', 'a', 'c'], ['c']];

describe('buildBm25 / scoreBm25: hand-computed (Robertson and Zaragoza 2009, eq. 3.15 with Lucene idf)', () => {
  it('scores one query term', () => {
    // idf(a) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6.
    // d0: tf 1, K = 1.2 (0.25 + 0.75 * 2/2) = 1.2    -> 1 * 2.2 / (1 + 1.2) = 1.
    // d1: tf 2, K = 1.2 (0.25 + 0.75 * 3/2) = 1.65   -> 2 * 2.2 / (2 + 1.65) = 4.4 / 3.65.
    const s = scores(DOCS, ['a']);
    expect(s[0]).toBeCloseTo(Math.log(1.6), 12);
    expect(s[1]).toBeCloseTo(Math.log(1.6) * (4.4 / 3.65), 12);
    expect(s[2]).toBe(0);
  });

  it('sums over query terms', () => {
    // idf(b) = ln(1 + 2.5 / 1.5); idf(c) = ln 1.6.
    // d0: b tf 1, K 1.2 -> idf(b) * 1.
    // d1: c tf 1, K 1.65 -> ln 1.6 * 2.2 / 2.65; d2: c tf 1, K = 1.2 (0.25 + 0.375) = 0.75 -> ln 1.6 * 2.2 / 1.75.
    const s = scores(DOCS, ['b', 'c']);
    expect(s[0]).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 12);
    expect(s[1]).toBeCloseTo(Math.log(1.6) * (2.2 / 2.65), 12);
    expect(s[2]).toBeCloseTo(Math.log(1.6) * (2.2 / 1.75), 12);
  });

  it('stores the index fields it documents', () => {
    const index = buildBm25(DOCS);
    expect(index.terms).toEqual(['a', 'b', 'c']);
    expect(index.nDocs).toBe(3);
    expect(index.avgDocLength).toBe(2);
    expect(Array.from(index.postingStart)).toEqual([0, 2, 3, 5]);
    expect(Array.from(index.postingDoc)).toEqual([0, 1, 0, 1, 2]);
    expect(Array.from(index.postingTf)).toEqual([1, 2, 1, 1, 1]);
    expect(Array.from(index.docLength)).toEqual([2, 3, 1]);
  });

  it('with b = 0 ignores length, with k1 = 0 ignores term frequency', () => {
    const flat = scores(DOCS, ['c'], { b: 0 });
    expect(flat[1]).toBeCloseTo(flat[2]!, 12);
    const binary = scores(DOCS, ['a'], { k1: 0 });
    expect(binary[0]).toBeCloseTo(binary[1]!, 12);
    expect(binary[0]).toBeCloseTo(Math.log(1.6), 12);
  });
});

describe('scoreBm25: invariants', () => {
  it('overwrites out, ignores unknown terms and leaves slots past nDocs alone', () => {
    const index = buildBm25(DOCS);
    const out = new Float64Array(5).fill(7);
    scoreBm25(index, ['zzz', '__proto__', 'constructor'], out);
    expect(Array.from(out)).toEqual([0, 0, 0, 7, 7]);
  });

  it('counts a repeated query term once per occurrence', () => {
    const once = scores(DOCS, ['a']);
    const twice = scores(DOCS, ['a', 'a']);
    twice.forEach((s, d) => expect(s).toBeCloseTo(2 * once[d]!, 12));
  });

  it('permuting documents permutes scores', () => {
    const docs = [['weather', 'city'], ['stock', 'price', 'price'], ['city', 'map', 'route'], []];
    const order = [2, 0, 3, 1];
    const query = ['city', 'price', 'unknown'];
    const s = scores(docs, query);
    const p = scores(order.map((i) => docs[i]!), query);
    order.forEach((i, j) => expect(p[j]).toBeCloseTo(s[i]!, 12));
  });

  it('is never negative, even for a term in every document', () => {
    const s = scores([['x'], ['x', 'y'], ['x']], ['x']);
    for (const v of s) expect(v).toBeGreaterThan(0);
  });

  it('handles an empty corpus and empty documents', () => {
    const empty = buildBm25([]);
    scoreBm25(empty, ['a'], new Float64Array(0));
    expect(scores([[], []], ['a'])).toEqual([0, 0]);
  });

  it('terms such as __proto__ are ordinary terms', () => {
    const s = scores([['__proto__'], ['constructor']], ['__proto__']);
    expect(s[0]).toBeGreaterThan(0);
    expect(s[1]).toBe(0);
  });

  it('is plain data: a structured clone scores the same', () => {
    const index = buildBm25(DOCS);
    const clone = structuredClone(index);
    const a = new Float64Array(3);
    const b = new Float64Array(3);
    scoreBm25(index, ['a', 'c'], a);
    scoreBm25(clone, ['a', 'c'], b);
    expect(Array.from(b)).toEqual(Array.from(a));
    for (const value of Object.values(index)) {
      expect(
        typeof value === 'number' || Array.isArray(value) || ArrayBuffer.isView(value),
      ).toBe(true);
    }
  });
});

describe('bm25MatchedTerms', () => {
  it('lists distinct known query terms in query order', () => {
    const index = buildBm25(DOCS);
    expect(bm25MatchedTerms(index, ['c', 'zzz', 'a', 'c'])).toEqual(['c', 'a']);
    expect(bm25MatchedTerms(index, ['zzz'])).toEqual([]);
    expect(bm25MatchedTerms(index, [])).toEqual([]);
  });
});

describe('BM25 errors', () => {
  it('rejects bad parameters', () => {
    expectCode(() => buildBm25(DOCS, { k1: -1 }), 'INVALID_INPUT');
    expectCode(() => buildBm25(DOCS, { k1: Number.NaN }), 'INVALID_INPUT');
    expectCode(() => buildBm25(DOCS, { b: 1.5 }), 'INVALID_INPUT');
    expectCode(() => buildBm25(DOCS, { b: -0.1 }), 'INVALID_INPUT');
  });

  it('rejects an output buffer shorter than the corpus', () => {
    const index = buildBm25(DOCS);
    expectCode(() => scoreBm25(index, ['a'], new Float64Array(2)), 'INVALID_INPUT');
  });
});
