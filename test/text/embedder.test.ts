import { describe, expect, it } from 'vitest';
import { isToolgraphError, type ErrorCode } from '../../src/schema/errors.js';
import { assertEmbedder, embedOne, type Embedder } from '../../src/text/embedder.js';
import { createHashedEmbedder, hashedEmbedding, HASHED_EMBEDDER_DEFAULTS } from '../../src/text/hashed-embedder.js';

function expectCode(fn: () => unknown, code: ErrorCode, prefix: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(isToolgraphError(thrown), `expected a ToolgraphError from ${prefix}`).toBe(true);
  if (isToolgraphError(thrown)) {
    expect(thrown.code).toBe(code);
    expect(thrown.message.startsWith(`${prefix}: `)).toBe(true);
  }
}

async function expectRejectCode(promise: Promise<unknown>, code: ErrorCode, prefix: string): Promise<void> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  expect(isToolgraphError(thrown), `expected a ToolgraphError from ${prefix}`).toBe(true);
  if (isToolgraphError(thrown)) {
    expect(thrown.code).toBe(code);
    expect(thrown.message.startsWith(`${prefix}: `)).toBe(true);
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function nonZero(v: Float32Array): number[] {
  const out: number[] = [];
  v.forEach((x, i) => {
    if (x !== 0) out.push(i);
  });
  return out;
}

// Reference hash, written with BigInt so it shares no arithmetic with the Math.imul version:
// FNV-1a 32 over code units starting from (offset basis XOR seed), then MurmurHash3's fmix32.
const M32 = 0xffffffffn;
function fnvRef(h: bigint, codes: number[]): bigint {
  for (const c of codes) h = ((h ^ BigInt(c)) * 0x01000193n) & M32;
  return h;
}
function fmixRef(h: bigint): bigint {
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) & M32;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) & M32;
  h ^= h >> 16n;
  return h;
}

describe('hashedEmbedding', () => {
  it('returns a unit vector of 384 dimensions by default', () => {
    const v = hashedEmbedding('Review PR #42 for SQL injection in handler.ts');
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(384);
    expect(HASHED_EMBEDDER_DEFAULTS.dimensions).toBe(384);
    expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 6);
  });

  it('is deterministic, and the seed selects a different embedding', () => {
    const text = 'Analyze TSMC Q4 earnings report';
    expect(hashedEmbedding(text)).toEqual(hashedEmbedding(text));
    expect(hashedEmbedding(text, { seed: 7 })).toEqual(hashedEmbedding(text, { seed: 7 }));
    expect(hashedEmbedding(text, { seed: 7 })).not.toEqual(hashedEmbedding(text));
  });

  it('embeds text without letters or digits as the zero vector', () => {
    for (const text of ['', '   ', '!!! ... ---']) {
      expect(nonZero(hashedEmbedding(text))).toEqual([]);
    }
  });

  it('puts a single word (words only) in the bucket of its reference hash, with its sign', () => {
    // 'weather' tokenizes to ['weather'] and has no bigram: W has one entry +-1, so v = +-e_b with
    //   h = fmix32(FNV-1a(FNV-1a(offset ^ seed, [namespace 1]), 'weather'))
    //   b = floor(h * 384 / 2^32), sign = h odd ? -1 : +1.
    const v = hashedEmbedding('weather', { charWeight: 0 });
    const start = fnvRef(0x811c9dc5n, [1]);
    const h = fmixRef(fnvRef(start, [...'weather'].map((c) => c.charCodeAt(0))));
    const bucket = Number((h * 384n) >> 32n);
    const sign = (h & 1n) === 1n ? -1 : 1;
    expect(nonZero(v)).toEqual([bucket]);
    expect(v[bucket]).toBe(sign);
  });

  it('matches a reference for words and bigrams, collisions and cancellations included', () => {
    // Words only: W = sum over features f of s(f) e_b(f), v = W / |W|. A bigram (a, b) hashes
    // a, the separator 0x1f, then b, in namespace 2. With seed 0, 'weather' and 'forecast' land in
    // the same bucket with opposite signs and cancel: only their bigram is left.
    const codes = (w: string): number[] => [...w].map((c) => c.charCodeAt(0));
    function reference(words: string[]): Float64Array {
      const out = new Float64Array(384);
      const add = (h: bigint): void => {
        const x = fmixRef(h);
        out[Number((x * 384n) >> 32n)]! += (x & 1n) === 1n ? -1 : 1;
      };
      words.forEach((w, i) => {
        add(fnvRef(fnvRef(0x811c9dc5n, [1]), codes(w)));
        if (i + 1 < words.length) add(fnvRef(fnvRef(fnvRef(0x811c9dc5n, [2]), codes(w)), [0x1f, ...codes(words[i + 1]!)]));
      });
      const n = Math.hypot(...out);
      return out.map((x) => x / n);
    }
    for (const [text, words] of [
      ['weather forecast', ['weather', 'forecast']],
      ['rain sun wind', ['rain', 'sun', 'wind']],
    ] as const) {
      const v = hashedEmbedding(text, { charWeight: 0 });
      const expected = reference([...words]);
      for (let i = 0; i < 384; i++) expect(v[i]).toBeCloseTo(expected[i]!, 6);
    }
    expect(nonZero(hashedEmbedding('weather forecast', { charWeight: 0 })).length).toBe(1);
  });

  it('counts character n-grams of <word>: (L + 2) - n + 1 of each length n', () => {
    // 'ab' is written '<ab>' (4 code units): 2 trigrams, 1 four-gram; no 5-gram fits.
    // With words off, that is at most 3 distinct buckets.
    const v = hashedEmbedding('ab', { wordWeight: 0 });
    expect(nonZero(v).length).toBeLessThanOrEqual(3);
    expect(nonZero(v).length).toBeGreaterThan(0);
    // minN = maxN = 3: only the two trigrams '<ab' and 'ab>'.
    const tri = hashedEmbedding('ab', { wordWeight: 0, minN: 3, maxN: 3 });
    expect(nonZero(tri).length).toBe(2);
  });

  it('scores related texts above unrelated ones, and identical texts at 1', () => {
    const a = hashedEmbedding('search flights from Paris to London next Monday');
    const b = hashedEmbedding('find a flight from Paris to London on Monday');
    const c = hashedEmbedding('convert the invoice PDF to a spreadsheet');
    expect(dot(a, a)).toBeCloseTo(1, 6);
    expect(dot(a, b)).toBeGreaterThan(0.4);
    expect(Math.abs(dot(a, c))).toBeLessThan(0.25);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.3);
  });

  it('character n-grams relate inflections and identifiers that share no word', () => {
    const words = { charWeight: 0 };
    // tokenize stems 'users' to 'user' but keeps 'getusers' whole: no word in common besides 'get'.
    const a = hashedEmbedding('getUsers', { wordWeight: 0 });
    const b = hashedEmbedding('get_user_list', { wordWeight: 0 });
    const z = hashedEmbedding('weather radar', { wordWeight: 0 });
    expect(dot(a, b)).toBeGreaterThan(dot(a, z) + 0.2);
    expect(dot(hashedEmbedding('xylophone', words), hashedEmbedding('xylophones', words))).toBeCloseTo(1, 6);
  });

  it('reads only the first maxChars code units', () => {
    const head = 'alpha beta gamma';
    expect(hashedEmbedding(`${head} delta epsilon`, { maxChars: head.length })).toEqual(hashedEmbedding(head));
  });

  it('honours dimensions', () => {
    expect(hashedEmbedding('x y z', { dimensions: 16 }).length).toBe(16);
  });

  it('rejects options out of range with INVALID_INPUT', () => {
    const bad = [
      { dimensions: 0 },
      { dimensions: 1.5 },
      { dimensions: 70_000 },
      { minN: 0 },
      { minN: 4, maxN: 3 },
      { maxN: 17 },
      { wordWeight: -1 },
      { charWeight: Number.NaN },
      { wordWeight: 0, charWeight: 0 },
      { maxChars: 0 },
      { seed: 0.5 },
    ];
    for (const options of bad) {
      expectCode(() => hashedEmbedding('x', options), 'INVALID_INPUT', 'hashedEmbedding');
      expectCode(() => createHashedEmbedder(options), 'INVALID_INPUT', 'createHashedEmbedder');
    }
    expectCode(() => hashedEmbedding(42 as unknown as string), 'INVALID_INPUT', 'hashedEmbedding');
  });
});

describe('createHashedEmbedder', () => {
  it('is an Embedder returning one vector per text, in order, equal to hashedEmbedding', async () => {
    const embedder = createHashedEmbedder({ dimensions: 64 });
    expect(embedder.dimensions).toBe(64);
    expect(embedder.name).toBe('hashed-64');
    const out = await embedder.embed(['one text', 'another text', '']);
    expect(out.length).toBe(3);
    expect(out[0]).toEqual(hashedEmbedding('one text', { dimensions: 64 }));
    expect(out[1]).toEqual(hashedEmbedding('another text', { dimensions: 64 }));
    expect(await embedder.embed([])).toEqual([]);
  });

  it('rejects anything but an array of strings with INVALID_INPUT', async () => {
    const embedder = createHashedEmbedder();
    await expectRejectCode(embedder.embed('text' as unknown as string[]), 'INVALID_INPUT', 'hashedEmbedder.embed');
    await expectRejectCode(embedder.embed(['ok', 3 as unknown as string]), 'INVALID_INPUT', 'hashedEmbedder.embed');
  });
});

describe('embedOne and assertEmbedder', () => {
  function fake(dimensions: number, result: () => unknown): Embedder {
    return { dimensions, embed: async () => result() as Float32Array[] };
  }

  it('returns the single vector of a well-behaved embedder', async () => {
    const v = await embedOne(createHashedEmbedder(), 'hello world', 'caller');
    expect(v).toEqual(hashedEmbedding('hello world'));
  });

  it('rejects a wrong count, length, type or a non-finite value with INVALID_INPUT', async () => {
    await expectRejectCode(embedOne(fake(2, () => []), 't', 'caller'), 'INVALID_INPUT', 'caller');
    await expectRejectCode(embedOne(fake(2, () => [new Float32Array(2), new Float32Array(2)]), 't', 'caller'), 'INVALID_INPUT', 'caller');
    await expectRejectCode(embedOne(fake(2, () => 'nope'), 't', 'caller'), 'INVALID_INPUT', 'caller');
    await expectRejectCode(embedOne(fake(2, () => [new Float32Array(3)]), 't', 'caller'), 'INVALID_INPUT', 'caller');
    await expectRejectCode(embedOne(fake(2, () => [[0, 1]]), 't', 'caller'), 'INVALID_INPUT', 'caller');
    await expectRejectCode(embedOne(fake(2, () => [new Float32Array([0, Number.NaN])]), 't', 'caller'), 'INVALID_INPUT', 'caller');
  });

  it("passes the embedder's own rejection through unchanged", async () => {
    const failure = new Error('model not loaded');
    const embedder: Embedder = { dimensions: 2, embed: () => Promise.reject(failure) };
    await expect(embedOne(embedder, 't', 'caller')).rejects.toBe(failure);
  });

  it('assertEmbedder accepts an embedder and rejects lookalikes with INVALID_INPUT', () => {
    expect(() => assertEmbedder(createHashedEmbedder(), 'caller')).not.toThrow();
    for (const bad of [null, 3, {}, { dimensions: 3 }, { dimensions: 0, embed: () => [] }, { dimensions: 2.5, embed: () => [] }]) {
      expectCode(() => assertEmbedder(bad, 'caller'), 'INVALID_INPUT', 'caller');
    }
  });
});
