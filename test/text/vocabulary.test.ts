import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { TermLog } from '../../src/text/term-log.js';
import { extendOrder, internCorpus, internIds, termId } from '../../src/text/vocabulary.js';

describe('internCorpus', () => {
  it('numbers terms by their code-unit order and encodes every document', () => {
    // Sorted: 'Z' (0x5a) < '__proto__' (0x5f) < 'b' < 'constructor' < 'é'.
    const { vocabulary, docs } = internCorpus([
      ['b', '__proto__', 'b'],
      ['constructor', 'é', 'Z'],
      [],
    ]);
    expect(vocabulary.terms).toEqual(['Z', '__proto__', 'b', 'constructor', 'é']);
    expect(Array.from(docs[0]!)).toEqual([2, 1, 2]);
    expect(Array.from(docs[1]!)).toEqual([3, 4, 0]);
    expect(docs[2]!.length).toBe(0);
  });

  it('gives ids that do not depend on document order', () => {
    const a = internCorpus([['x', 'y'], ['z', 'x']]);
    const b = internCorpus([['z', 'x'], ['x', 'y']]);
    expect(a.vocabulary.terms).toEqual(b.vocabulary.terms);
    expect(Array.from(a.docs[0]!)).toEqual(Array.from(b.docs[1]!));
  });

  it('handles an empty corpus', () => {
    const { vocabulary, docs } = internCorpus([]);
    expect(vocabulary.terms).toEqual([]);
    expect(docs).toEqual([]);
  });

  it('is JSON-serialisable as plain data', () => {
    const { vocabulary } = internCorpus([['a', 'b']]);
    expect(JSON.parse(JSON.stringify(vocabulary))).toEqual(vocabulary);
  });
});

describe('termId', () => {
  const { vocabulary } = internCorpus([['toString', 'hasOwnProperty', '__proto__', 'weather', '天气']]);

  it('finds every interned term at its position', () => {
    vocabulary.terms.forEach((term, id) => expect(termId(vocabulary, term)).toBe(id));
  });

  it('returns -1 for unknown terms, including Object.prototype keys', () => {
    expect(termId(vocabulary, 'constructor')).toBe(-1);
    expect(termId(vocabulary, 'valueOf')).toBe(-1);
    expect(termId(vocabulary, '')).toBe(-1);
    expect(termId({ terms: [] }, 'x')).toBe(-1);
  });
});

describe('internIds', () => {
  it('equals internCorpus on the same tokens, whatever order the term list is in, unused terms left out', () => {
    const rng = createRng(3);
    const words = ['__proto__', 'constructor', 'é', 'Z', 'b', 'a', 'hotel', 'book', 'x1', '漢字'];
    const docs = Array.from({ length: 300 }, () => Array.from({ length: Math.floor(rng() * 6) }, () => words[Math.floor(rng() * 8)]!));
    // A log's numbering: arbitrary, with terms no document uses ('x1' and '漢字' are never drawn).
    const list = [...words].sort(() => rng() - 0.5);
    const ids = docs.map((doc) => Int32Array.from(doc, (w) => list.indexOf(w)));
    const got = internIds(list, ids);
    const want = internCorpus(docs);
    expect(got.vocabulary.terms).toEqual(want.vocabulary.terms);
    expect(got.vocabulary.terms).not.toContain('漢字');
    expect(got.docs).toEqual(want.docs);
  });
});

describe('extendOrder and TermLog', () => {
  it('keeps a growing term list in code-unit order, as a full sort would, and renumbers as internCorpus does', () => {
    const rng = createRng(5);
    const alphabet = ['a', 'b', 'Z', '_', 'é', '漢', '😀', '1'];
    const word = (): string => Array.from({ length: 1 + Math.floor(rng() * 4) }, () => alphabet[Math.floor(rng() * alphabet.length)]!).join('');
    const log = new TermLog();
    const docs: string[][] = [];
    const ids: Int32Array[] = [];
    for (let round = 0; round < 30; round++) {
      // Batches of every size, none included: the order is brought up to date lazily.
      for (let d = Math.floor(rng() * 4); d > 0; d--) {
        const doc = Array.from({ length: Math.floor(rng() * 6) }, word);
        docs.push(doc);
        ids.push(log.encode(doc));
      }
      const order = log.order();
      const sorted = [...log.terms.keys()].sort((x, y) => (log.terms[x]! < log.terms[y]! ? -1 : 1));
      expect(Array.from(order)).toEqual(sorted);
      expect(internIds(log.terms, ids, order)).toEqual(internCorpus(docs));
    }
  });

  it('returns the same order when no term is new, and refuses an order of the wrong length', () => {
    const order = extendOrder(['b', 'a'], new Int32Array([1, 0]));
    expect(extendOrder(['b', 'a'], order)).toBe(order);
    expect(() => internIds(['b', 'a', 'c'], [], order)).toThrow(/order has 2 ids for 3 terms/);
  });
});
