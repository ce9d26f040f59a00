import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { hashedTextEmbedding, prefetchingEmbedding, type TextEmbedding } from '../../src/text/text-embedding.js';
import { createHashedEmbedder } from '../../src/text/hashed-embedder.js';
import {
  buildToolVectors,
  CANDIDATES_PER_NEIGHBOUR,
  checkedTexts,
  restoreToolVectors,
  storedVectorsByText,
  storedVectorsMatch,
  storeToolVectors,
  VectorQuery,
  type ToolVectors,
} from '../../src/text/tool-vectors.js';

/** An embedding that returns fixed vectors by text ("t17" is vector 17); null for "missing". */
function fixedEmbedding(vectors: readonly Float32Array[]): TextEmbedding {
  const d = vectors[0]!.length;
  return {
    dimensions: d,
    name: 'fixed',
    query: () => null,
    tool: (text) => (text === 'missing' ? null : vectors[Number(text.slice(1))]!),
    retain: () => {},
  };
}

/** Sparse random vectors: each dimension non-zero with probability `density`, signed values. */
function randomVectors(n: number, d: number, density: number, seed: number): Float32Array[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const v = new Float32Array(d);
    for (let i = 0; i < d; i++) if (rng() < density) v[i] = rng() * 2 - 1;
    return v;
  });
}

function bruteCosines(vectors: readonly (Float32Array | null)[], query: Float32Array): number[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return vectors.map((v) => {
    if (v === null || norm(v) === 0) return 0;
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * query[i]!;
    return dot / (norm(v) * norm(query));
  });
}

/** The exact k nearest with positive cosine, best first, ties by index. */
function bruteNearest(cosines: readonly number[], k: number): number[] {
  return cosines
    .map((s, c) => [s, c] as const)
    .filter(([s]) => s > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, c]) => c);
}

function build(vectors: readonly Float32Array[]): ToolVectors {
  return buildToolVectors(
    vectors.map((_, c) => `t${c}`),
    fixedEmbedding(vectors),
  );
}

describe('tool vectors', () => {
  const d = 64;
  const tools = randomVectors(2000, d, 0.2, 1);
  const queries = randomVectors(40, d, 0.4, 2);
  const index = build(tools);

  it('stores each tool both ways: the tool-major rows hold exactly the postings', () => {
    expect(index.rowStart[index.n]).toBe(index.start[d]);
    for (const c of [0, 7, 1999]) {
      const fromRows = new Map<number, number>();
      for (let p = index.rowStart[c]!; p < index.rowStart[c + 1]!; p++) fromRows.set(index.rowDims[p]!, index.rowValues[p]!);
      const fromPostings = new Map<number, number>();
      for (let i = 0; i < d; i++) {
        for (let p = index.start[i]!; p < index.start[i + 1]!; p++) if (index.tools[p] === c) fromPostings.set(i, index.values[p]!);
      }
      expect(fromRows).toEqual(fromPostings);
    }
  });

  it('gives every tool its exact cosine, the same under both plans', () => {
    const sparse = new VectorQuery(index, 8);
    const dense = new VectorQuery(index, 8);
    for (const q of queries.slice(0, 10)) {
      expect(sparse.load(q, 8, 0)).toBe(true);
      expect(dense.load(q, 8, index.n)).toBe(true);
      expect(sparse.dense).toBe(false);
      expect(dense.dense).toBe(true);
      const expected = bruteCosines(tools, q);
      for (let c = 0; c < index.n; c++) {
        expect(sparse.cosine(c)).toBeCloseTo(expected[c]!, 5);
        // Same products summed in the same order: identical, not just close.
        expect(sparse.cosine(c)).toBe(dense.cosine(c));
      }
    }
  });

  it('finds the exact nearest tools after a dense load, best first and ties by index', () => {
    const vq = new VectorQuery(index, 16);
    const out = new Int32Array(16);
    const scores = new Float64Array(16);
    for (const q of queries) {
      vq.load(q, 16, index.n);
      const size = vq.nearest(16, out, scores);
      expect([...out.subarray(0, size)]).toEqual(bruteNearest(bruteCosines(tools, q), 16));
    }
  });

  it('approximates the nearest tools of a large catalogue with exact scores, best first', () => {
    const vq = new VectorQuery(index, 8);
    const out = new Int32Array(8);
    const scores = new Float64Array(8);
    let found = 0;
    let wanted = 0;
    for (const q of queries) {
      vq.load(q, 8, 0);
      expect(vq.dense).toBe(false);
      const size = vq.nearest(8, out, scores);
      const exact = bruteNearest(bruteCosines(tools, q), 8);
      for (let i = 0; i < size; i++) {
        expect(scores[i]).toBe(vq.cosine(out[i]!));
        expect(scores[i]).toBeGreaterThan(0);
        if (i > 0) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]!);
      }
      found += [...out.subarray(0, size)].filter((c) => exact.includes(c)).length;
      wanted += exact.length;
    }
    // Random dense-ish vectors are the hard case for a probe by query magnitude; real
    // embeddings do better (docs/decisions/query-performance.md). It must still find most of the exact set.
    expect(found / wanted).toBeGreaterThan(0.75);
  });

  it('finds the near-duplicates of real tool texts through the probe', () => {
    const rng = createRng(5);
    const words = Array.from({ length: 400 }, (_, i) => `word${i.toString(36)}${'xyz'[i % 3]}`);
    const texts = Array.from({ length: 3000 }, () => Array.from({ length: 6 }, () => words[Math.floor(rng() * words.length)]).join(' '));
    const embedding = hashedTextEmbedding();
    const real = buildToolVectors(texts, embedding);
    const vq = new VectorQuery(real, 8);
    const out = new Int32Array(8);
    const scores = new Float64Array(8);
    for (const c of [3, 500, 2999]) {
      // The tool's own text, one word changed: its own tool must come first.
      const query = texts[c]!.split(' ').map((w, i) => (i === 0 ? 'other' : w)).join(' ');
      vq.load(embedding.query(query)!, 8, 0);
      expect(vq.dense).toBe(false);
      expect(vq.nearest(8, out, scores)).toBeGreaterThan(0);
      expect(out[0]).toBe(c);
    }
  });

  it('is exact for a catalogue no larger than the candidate list', () => {
    const small = tools.slice(0, 8 * CANDIDATES_PER_NEIGHBOUR);
    const smallIndex = build(small);
    const vq = new VectorQuery(smallIndex, 8);
    const out = new Int32Array(8);
    const scores = new Float64Array(8);
    for (const q of queries) {
      vq.load(q, 8, 0);
      const size = vq.nearest(8, out, scores);
      expect([...out.subarray(0, size)]).toEqual(bruteNearest(bruteCosines(small, q), 8));
    }
  });

  it('reuses the rows of tools whose text is unchanged: the same index as a fresh build, only new texts embedded', () => {
    const asked: string[] = [];
    const counting = (inner: TextEmbedding): TextEmbedding => ({ ...inner, tool: (text) => (asked.push(text), inner.tool(text)) });
    const embedding = fixedEmbedding(tools);
    const first = ['t0', 't1', 't2', 't3'];
    const before = buildToolVectors(first, embedding);
    // A tool seen since (appended), and one whose text changed in place (index 2).
    const next = ['t0', 't1', 't7', 't3', 't4'];
    const reused = buildToolVectors(next, counting(embedding), { texts: first, vectors: before });
    expect(asked).toEqual(['t7', 't4']);
    expect(reused).toEqual(buildToolVectors(next, embedding));
    // A previous build still missing vectors is not trusted: every tool is embedded again.
    asked.length = 0;
    const withMissing = buildToolVectors(['t0', 'missing'], embedding);
    expect(withMissing.missing).toBe(1);
    buildToolVectors(['t0', 't1'], counting(embedding), { texts: ['t0', 'missing'], vectors: withMissing });
    expect(asked).toEqual(['t0', 't1']);
  });

  it('restores stored vectors of the same embedding: 8 rows checked, the rest reused, the same index as a fresh build', () => {
    const asked: string[] = [];
    const counting = (inner: TextEmbedding): TextEmbedding => ({ ...inner, tool: (text) => (asked.push(text), inner.tool(text)) });
    const embedding = hashedTextEmbedding();
    const texts = Array.from({ length: 500 }, (_, c) => `tool ${c}. fetches record ${c % 37} by id`);
    const stored = storeToolVectors(texts, buildToolVectors(texts, embedding), embedding)!;
    // A fresh embedding of the same kind, as in a restarted process.
    const again = counting(hashedTextEmbedding());
    const previous = restoreToolVectors(stored, again);
    expect(previous).not.toBeNull();
    expect(asked.length).toBe(8);
    expect(asked[0]).toBe(texts[0]);
    expect(asked[7]).toBe(texts[499]);
    asked.length = 0;
    const next = [...texts, 'a tool seen since'];
    expect(buildToolVectors(next, again, previous!)).toEqual(buildToolVectors(next, hashedTextEmbedding()));
    expect(asked).toEqual(['a tool seen since']);
  });

  it('refuses stored vectors of another embedding, changed rows, or an embedding that cannot answer now', () => {
    const embedding = hashedTextEmbedding();
    const texts = Array.from({ length: 100 }, (_, c) => `tool ${c}`);
    const stored = storeToolVectors(texts, buildToolVectors(texts, embedding), embedding)!;
    expect(restoreToolVectors(stored, hashedTextEmbedding())).not.toBeNull();
    expect(restoreToolVectors({ ...stored, embedding: 'hashed-128' }, hashedTextEmbedding())).toBeNull();
    expect(restoreToolVectors(stored, hashedTextEmbedding({ dimensions: 128 }))).toBeNull();
    // Same name and length, other vectors (another seed): the checked rows differ.
    expect(restoreToolVectors(stored, hashedTextEmbedding({ seed: 7 }))).toBeNull();
    // The last row is always checked.
    const values = stored.rowValues.slice();
    values[values.length - 1] = values[values.length - 1]! / 2;
    expect(restoreToolVectors({ ...stored, rowValues: values }, hashedTextEmbedding())).toBeNull();
    const unanswered: TextEmbedding = { ...hashedTextEmbedding(), tool: () => null };
    expect(restoreToolVectors(stored, unanswered)).toBeNull();
    // Vectors still missing some tools are not stored at all.
    const partial = buildToolVectors(['t0', 'missing'], fixedEmbedding(tools));
    expect(storeToolVectors(['t0', 'missing'], partial, fixedEmbedding(tools))).toBeNull();
  });

  it('lets an asynchronous embedder adopt stored vectors once the checked rows match within the tolerance', async () => {
    const embedding = hashedTextEmbedding();
    const texts = Array.from({ length: 60 }, (_, c) => `tool ${c} reads table ${c % 9}`);
    const stored = storeToolVectors(texts, buildToolVectors(texts, embedding), embedding)!;
    const inner = createHashedEmbedder();
    const remote = prefetchingEmbedding({ dimensions: inner.dimensions, name: embedding.name, embed: (t) => inner.embed(t) });
    // Not fetched yet: nothing to check against.
    expect(storedVectorsMatch(stored, remote, 1e-5)).toBe(false);
    await remote.prefetchTools(checkedTexts(stored));
    expect(storedVectorsMatch(stored, remote)).toBe(true);
    // A checked row off by a few parts in a million passes the tolerance only; by more, neither.
    const last = stored.rowStart[stored.texts.length]! - 1;
    const nudged = (by: number) => ({ ...stored, rowValues: stored.rowValues.map((v, p) => (p === last ? v + by : v)) });
    expect(storedVectorsMatch(nudged(5e-6), remote)).toBe(false);
    expect(storedVectorsMatch(nudged(5e-6), remote, 1e-5)).toBe(true);
    expect(storedVectorsMatch(nudged(1e-3), remote, 1e-5)).toBe(false);
    // Adopted as dense unit vectors, which index exactly as the stored rows do; fetched texts keep theirs.
    const fetched = remote.tool(texts[0]!);
    remote.adoptTools(storedVectorsByText(stored));
    expect(remote.tool(texts[0]!)).toBe(fetched);
    expect(buildToolVectors(texts, remote)).toEqual(buildToolVectors(texts, embedding));
  });

  it('embeds each text once however many prefetches ask for it at the same time; a failure reaches every caller waiting on it', async () => {
    const inner = createHashedEmbedder();
    const asked: string[] = [];
    let fail = false;
    const remote = prefetchingEmbedding(
      {
        dimensions: inner.dimensions,
        name: 'counted',
        embed: async (texts) => {
          asked.push(...texts);
          await new Promise((r) => setTimeout(r, 5));
          if (fail) throw new Error('the embedder is down');
          return inner.embed(texts);
        },
      },
      4,
    );
    const texts = Array.from({ length: 10 }, (_, i) => `tool ${i}`);
    // Three callers at once, over overlapping texts: the first requests after a start.
    await Promise.all([remote.prefetchTools(texts), remote.prefetchTools(texts.slice(3)), remote.prefetchTools([...texts.slice(8), 'tool 10'])]);
    expect([...asked].sort()).toEqual([...texts, 'tool 10'].sort());
    for (const t of texts) expect(remote.tool(t)).toEqual((await inner.embed([t]))[0]);
    await Promise.all([remote.prefetchQueries(['a query', 'another']), remote.prefetchQueries(['a query'])]);
    expect(asked.filter((t) => t === 'a query')).toHaveLength(1);

    // Failed: both callers hear it, nothing is kept, and a later prefetch asks again.
    fail = true;
    const both = await Promise.allSettled([remote.prefetchTools(['x', 'y']), remote.prefetchTools(['y'])]);
    expect(both.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['the embedder is down', 'the embedder is down']);
    expect(remote.tool('y')).toBeNull();
    fail = false;
    asked.length = 0;
    await remote.prefetchTools(['y']);
    expect(asked).toEqual(['y']);
    expect(remote.tool('y')).not.toBeNull();
  });

  it('matches nothing for a zero query, and never returns a tool without a vector', () => {
    const withMissing = buildToolVectors(['t0', 'missing', 't2'], fixedEmbedding(tools));
    const vq = new VectorQuery(withMissing, 4);
    const out = new Int32Array(4);
    const scores = new Float64Array(4);
    expect(vq.load(new Float32Array(d), 4, 0)).toBe(false);
    expect(vq.cosine(0)).toBe(0);
    expect(vq.nearest(4, out, scores)).toBe(0);
    vq.load(tools[0]!, 4, 0);
    expect(vq.cosine(1)).toBe(0);
    const size = vq.nearest(4, out, scores);
    expect([...out.subarray(0, size)]).not.toContain(1);
    expect(out[0]).toBe(0);
    expect(scores[0]).toBeCloseTo(1, 6);
  });

  it('asked for no neighbours, reads only the candidates: exact cosines, no nearest tools', () => {
    const small = build(tools.slice(0, 8));
    const vq = new VectorQuery(small, 4);
    const expected = bruteCosines(tools.slice(0, 8), queries[0]!);
    // A catalogue this small is searched densely when neighbours are wanted, not when none are.
    vq.load(queries[0]!, 4, 0);
    expect(vq.dense).toBe(true);
    vq.load(queries[0]!, 0, 0);
    expect(vq.dense).toBe(false);
    for (let c = 0; c < 8; c++) expect(vq.cosine(c)).toBeCloseTo(expected[c]!, 6);
    expect(vq.nearest(0, new Int32Array(4), new Float64Array(4))).toBe(0);
  });

  it('refuses more neighbours than it was sized for', () => {
    const vq = new VectorQuery(index, 4);
    vq.load(queries[0]!, 4, 0);
    expect(() => vq.nearest(5, new Int32Array(5), new Float64Array(5))).toThrow(RangeError);
  });
});
