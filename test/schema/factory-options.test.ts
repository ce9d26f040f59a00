/**
 * The options of the exported factories below the facade (src/schema/factory-options.ts):
 * `new TransitionGraph`, `new VectorCache`, `createHashedEmbedder`, `learnCapabilities` and `openStore`
 * refuse null, a non-object, an unknown key and a wrong type with INVALID_INPUT naming the call
 * and the option (null threw a TypeError, unknown keys were ignored, a bad halfLifeMs was a
 * RangeError, a numeric dataDir failed inside node:path), and take undefined and valid options
 * as before.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { learnCapabilities } from '../../src/recommend/learn-capabilities.js';
import { VectorCache } from '../../src/scoring/vector-cache.js';
import { openStore } from '../../src/store/open-store.js';
import { createHashedEmbedder } from '../../src/text/hashed-embedder.js';
import { expectError, expectRejection } from './_helpers.js';

const root = mkdtempSync(join(tmpdir(), 'toolgraph-factory-options-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Options as a plain JavaScript caller hands them over: unchecked by the compiler. */
const loose = <T>(value: unknown): T => value as T;

describe('new TransitionGraph(options)', () => {
  const make = (options: unknown): TransitionGraph => new TransitionGraph(loose(options));

  it.each([
    [null, 'TransitionGraph: expected object, received null'],
    [14, 'TransitionGraph: expected object, received number'],
    [{ halfLife: 1_000 }, 'TransitionGraph: halfLife: unknown key'],
    [{ halfLifeMs: '1000' }, 'TransitionGraph: halfLifeMs: expected number, received string'],
    [{ halfLifeMs: 0 }, 'TransitionGraph: halfLifeMs: expected more than 0'],
    [{ halfLifeMs: Number.POSITIVE_INFINITY }, 'TransitionGraph: halfLifeMs: expected number, received Infinity'],
  ])('refuses %o', (options, message) => {
    expectError(() => make(options), 'INVALID_INPUT', message);
  });

  it('refuses them in fromState too', () => {
    expectError(() => TransitionGraph.fromState(new TransitionGraph().exportState(), loose({ halfLifeMs: -1 })), 'INVALID_INPUT', 'TransitionGraph: halfLifeMs');
  });

  it('takes no options, undefined and a valid half-life', () => {
    expect(new TransitionGraph().halfLifeMs).toBe(new TransitionGraph(undefined).halfLifeMs);
    expect(new TransitionGraph({ halfLifeMs: 1_000 }).halfLifeMs).toBe(1_000);
    expect(TransitionGraph.fromState(new TransitionGraph().exportState(), { halfLifeMs: 5 }).halfLifeMs).toBe(5);
  });
});

describe('new VectorCache(options)', () => {
  const make = (options: unknown): VectorCache => new VectorCache(loose(options));

  it.each([
    [null, 'VectorCache: expected object, received null'],
    ['384', 'VectorCache: expected object, received string'],
    [{ dimension: 8 }, 'VectorCache: dimension: unknown key'],
    [{ maxElements: 10, capacity: 10 }, 'VectorCache: capacity: unknown key'],
    [{ dimensions: '8' }, 'VectorCache: dimensions: expected number, received string'],
    [{ maxElements: 0 }, 'VectorCache: maxElements: expected at least 1'],
    [{ ttlMs: '60000' }, 'VectorCache: ttlMs: expected a number more than 0, or Infinity, received string'],
    [{ now: 5 }, 'VectorCache: now: expected a function () => epoch ms, received number'],
  ])('refuses %o', (options, message) => {
    expectError(() => make(options), 'INVALID_INPUT', message);
  });

  it('keeps the size check across options', () => {
    expectError(() => make({ maxElements: 1_000_000, dimensions: 1024 }), 'INVALID_INPUT', 'VectorCache: expected maxElements * dimensions');
  });

  it('takes no options, undefined and valid options', () => {
    expect(new VectorCache().dimensions).toBe(384);
    expect(new VectorCache(undefined).maxElements).toBe(1000);
    const cache = new VectorCache({ maxElements: 2, dimensions: 3, ttlMs: Number.POSITIVE_INFINITY, now: () => 0 });
    cache.add([1, 0, 0], 'x');
    expect(cache.maxCosineSimilarity([1, 0, 0])).toBeCloseTo(1);
    expect(cache.ttlMs).toBeNull();
  });
});

describe('createHashedEmbedder(options)', () => {
  const make = (options: unknown) => createHashedEmbedder(loose(options));

  it.each([
    [null, 'createHashedEmbedder: expected object, received null'],
    [64, 'createHashedEmbedder: expected object, received number'],
    [{ dims: 64 }, 'createHashedEmbedder: dims: unknown key'],
    [{ dimensions: '64' }, 'createHashedEmbedder: dimensions: expected number, received string'],
    [{ seed: 0.5 }, 'createHashedEmbedder: seed: expected int, received number'],
    [{ wordWeight: -1 }, 'createHashedEmbedder: wordWeight: expected at least 0'],
  ])('refuses %o', (options, message) => {
    expectError(() => make(options), 'INVALID_INPUT', message);
  });

  it('keeps the checks across options', () => {
    expectError(() => make({ minN: 4, maxN: 3 }), 'INVALID_INPUT', 'createHashedEmbedder: expected maxN');
    expectError(() => make({ wordWeight: 0, charWeight: 0 }), 'INVALID_INPUT', 'createHashedEmbedder: expected wordWeight or charWeight');
  });

  it('takes no options, undefined and valid options', async () => {
    expect(createHashedEmbedder().dimensions).toBe(384);
    expect(createHashedEmbedder(undefined).dimensions).toBe(384);
    const embedder = createHashedEmbedder({ dimensions: 16, minN: 2, maxN: 4, wordWeight: 1, charWeight: 0.5, maxChars: 100, seed: 7 });
    const [v] = await embedder.embed(['read a file']);
    expect(v).toHaveLength(16);
  });
});

describe('learnCapabilities(traces, options)', () => {
  const traces = [1, 2, 3].map((i) => ({ steps: ['search', 'read', 'write'].map((name) => ({ tool: { name } })), intent: `edit ${i}`, outcome: 'success' as const }));
  const learn = (options: unknown) => learnCapabilities(loose(traces), loose(options));

  it.each([
    [null, 'learnCapabilities: expected object, received null'],
    [true, 'learnCapabilities: expected object, received boolean'],
    [{ minSuport: 2 }, 'learnCapabilities: minSuport: unknown key'],
    [{ minSupport: '2' }, 'learnCapabilities: minSupport: expected number, received string'],
    [{ minTools: 5, maxTools: 3 }, 'learnCapabilities: maxTools: expected at least minTools (5), received 3'],
  ])('refuses %o', (options, message) => {
    expectError(() => learn(options), 'INVALID_INPUT', message);
  });

  it('takes no options, undefined and valid options alike', () => {
    const byDefault = learn(undefined);
    expect(learnCapabilities(loose(traces))).toEqual(byDefault);
    expect(learn({ minSupport: 3, maxExamples: 20 })).toEqual(byDefault);
  });
});

describe('openStore(options)', () => {
  const open = (options: unknown) => openStore(loose(options));

  it.each([
    [null, 'openStore: expected object, received null'],
    ['.toolgraph', 'openStore: expected object, received string'],
    [{ dataDir: join(root, 'unknown'), dir: 'x' }, 'openStore: dir: unknown key'],
    [{ dataDir: 42 }, 'openStore: dataDir: expected string, received number'],
    [{ dataDir: join(root, 'unknown'), prefetchSnapshot: 'yes' }, 'openStore: prefetchSnapshot: expected boolean, received string'],
  ])('refuses %o before opening anything', async (options, message) => {
    await expectRejection(open(options), 'INVALID_INPUT', message);
    expect(existsSync(join(root, 'unknown'))).toBe(false);
  });

  it('opens with valid options', async () => {
    const store = await openStore({ dataDir: join(root, 'valid'), databaseUrl: ' ', schema: 'factory_options' });
    try {
      expect(store.kind).toBe('pglite');
    } finally {
      await store.close();
    }
  }, 60_000);
});
