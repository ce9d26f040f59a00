/**
 * The options of the library's exported factories below the facade: `new TransitionGraph(options)`,
 * `new VectorCache(options)`, `createHashedEmbedder(options)`, `learnCapabilities(traces,
 * options)` and `openStore(options)`, checked where they come in, as options.ts does for
 * `new Toolgraph` and `openToolgraph`: null threw a TypeError without code, a misspelt option
 * fell back to its default, and a wrong type failed far from its cause (a numeric dataDir inside
 * node:path). Strict objects, so an unknown key is INVALID_INPUT naming the call and the key.
 *
 * This file imports nothing of ours outside schema/, so graph/, scoring/, text/, recommend/ and
 * store/ can use it. The interfaces stay with the code that applies them; options.ts holds the
 * compile-time checks that each schema and its interface agree.
 */
import { z } from 'zod';
import { describeValue } from './issues.js';

/** A z.custom whose message says what was expected and what kind of value came instead. */
export function custom<T>(expected: string, accepts: (value: unknown) => boolean): z.ZodType<T, T> {
  return z.custom<T>(accepts, { error: (issue) => `expected ${expected}, received ${describeValue(issue.input)}` });
}

export const isFunction = (value: unknown): boolean => typeof value === 'function';

/** learnCapabilities' defaults, here so the schema's cross-field check can fill what is not given. */
export const LEARN_DEFAULTS = { minSupport: 3, minTools: 2, maxTools: 12, windowMin: 2, windowMax: 4, maxExamples: 20 } as const;

const count = z.int().min(0);
export const learnCapabilitiesOptionsSchema = z
  .strictObject({
    minSupport: z.int().min(1).optional(),
    minTools: z.int().min(1).optional(),
    maxTools: z.int().min(1).optional(),
    windowMin: count.optional(),
    windowMax: count.optional(),
    maxExamples: count.optional(),
  })
  // Crossed bounds would learn nothing, silently: say so, with the defaults filling what is not given.
  .check((ctx) => {
    const o = ctx.value;
    const minTools = o.minTools ?? LEARN_DEFAULTS.minTools;
    const maxTools = o.maxTools ?? LEARN_DEFAULTS.maxTools;
    if (maxTools < minTools) {
      ctx.issues.push({ code: 'custom', input: o, path: ['maxTools'], message: `expected at least minTools (${minTools}), received ${maxTools}` });
    }
    const windowMin = o.windowMin ?? LEARN_DEFAULTS.windowMin;
    const windowMax = o.windowMax ?? LEARN_DEFAULTS.windowMax;
    if (windowMin > 0 && windowMax < windowMin) {
      ctx.issues.push({ code: 'custom', input: o, path: ['windowMax'], message: `expected at least windowMin (${windowMin}), received ${windowMax}` });
    }
  });

/** TransitionGraph: the half-life of outcome evidence, positive and finite (z.number() refuses Infinity). */
export const transitionGraphOptionsSchema = z.strictObject({
  halfLifeMs: z.number().positive().optional(),
});

/** VectorCache (spec 000): the limits are the ones its documentation states. */
export const VECTOR_CACHE_MAX_ELEMENTS = 10_000_000;
export const VECTOR_CACHE_MAX_DIMENSIONS = 65_536;
export const vectorCacheOptionsSchema = z.strictObject({
  maxElements: z.int().min(1).max(VECTOR_CACHE_MAX_ELEMENTS).optional(),
  dimensions: z.int().min(1).max(VECTOR_CACHE_MAX_DIMENSIONS).optional(),
  // Infinity means never expire, which z.number() refuses.
  ttlMs: custom<number>('a number more than 0, or Infinity', (v) => typeof v === 'number' && v > 0).optional(),
  now: custom<() => number>('a function () => epoch ms', isFunction).optional(),
});

/** createHashedEmbedder: types and single-option ranges; crossed bounds are resolve()'s (hashed-embedder.ts). */
export const HASHED_MAX_DIMENSIONS = 65_536;
export const HASHED_MAX_NGRAM = 16;
const weight = z.number().min(0);
const ngram = z.int().min(1).max(HASHED_MAX_NGRAM);
export const hashedEmbedderOptionsSchema = z.strictObject({
  dimensions: z.int().min(1).max(HASHED_MAX_DIMENSIONS).optional(),
  minN: ngram.optional(),
  maxN: ngram.optional(),
  wordWeight: weight.optional(),
  charWeight: weight.optional(),
  maxChars: z.int().min(1).optional(),
  seed: z.int().optional(),
});

/** What openStore reads; openToolgraph's schema spreads it (options.ts). */
export const openStoreOptionsShape = {
  dataDir: z.string().min(1).optional(),
  // Blank means none, as TOOLGRAPH_DATABASE_URL (open-store.ts): PGlite then.
  databaseUrl: z.string().optional(),
  // Its format is the store's to check (openPgliteStore, openPostgresStore).
  schema: z.string().optional(),
  cwd: z.string().min(1).optional(),
  prefetchSnapshot: z.boolean().optional(),
  onSnapshotPrefetch: custom<(bytes: Promise<Uint8Array | null>) => void>('a function (bytes) => void', isFunction).optional(),
};
export const openStoreOptionsSchema = z.strictObject(openStoreOptionsShape);

