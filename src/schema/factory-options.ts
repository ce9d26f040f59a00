/**
 * The options of the library's exported factories below the facade: `new TransitionGraph(options)`,
 * `new VectorCache(options)`, `createHashedEmbedder(options)`, `learnCapabilities(traces,
 * options)` and `openStore(options)`, checked where they come in, as options.ts does for
 * `new Toolgraph` and `openToolgraph`: null threw a TypeError without code, a misspelt option
 * fell back to its default, and a wrong type failed far from its cause (a numeric dataDir inside
 * node:path). Strict objects, so an unknown key is INVALID_INPUT naming the call and the key.
 *
 * This file imports nothing of ours outside schema/, so graph/, scoring/, text/, recommend/ and
 * store/ can use it. Each schema is the one source of its options' type (`z.input`, every field
 * optional), documented field by field here; the defaults are the factories' own constants.
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
    /** Successful traces needed to promote a tool set; default 3. */
    minSupport: z.int().min(1).optional(),
    /** Fewest distinct tools in a capability; default 2 (one tool is a tool). */
    minTools: z.int().min(1).optional(),
    /** Most distinct tools in a capability; default 12. */
    maxTools: z.int().min(1).optional(),
    /** Shortest contiguous window counted as a sub-sequence; default 2. 0 turns windows off. */
    windowMin: count.optional(),
    /** Longest contiguous window; default 4. */
    windowMax: count.optional(),
    /** Intents kept per capability as search text; default 20. */
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

export type LearnCapabilitiesOptions = z.input<typeof learnCapabilitiesOptionsSchema>;

/** TransitionGraph: the half-life of outcome evidence, positive and finite (z.number() refuses Infinity). */
export const transitionGraphOptionsSchema = z.strictObject({
  /** Half-life of the recent outcome evidence, in ms (default DEFAULT_HALF_LIFE_MS, 14 days). */
  halfLifeMs: z.number().positive().optional(),
});

export type TransitionGraphOptions = z.input<typeof transitionGraphOptionsSchema>;

/** VectorCache (spec 000): the limits are the ones its documentation states. */
export const VECTOR_CACHE_MAX_ELEMENTS = 10_000_000;
export const VECTOR_CACHE_MAX_DIMENSIONS = 65_536;
export const vectorCacheOptionsSchema = z.strictObject({
  /** Capacity, an integer in [1, 10^7]. Default 1000 (spec 000). */
  maxElements: z.int().min(1).max(VECTOR_CACHE_MAX_ELEMENTS).optional(),
  /** Vector length, an integer in [1, 65536]. Default 384 (spec 000). */
  dimensions: z.int().min(1).max(VECTOR_CACHE_MAX_DIMENSIONS).optional(),
  /** Lifetime of an entry in ms, > 0; absent or Infinity (which z.number() refuses): entries never expire. */
  ttlMs: custom<number>('a number more than 0, or Infinity', (v) => typeof v === 'number' && v > 0).optional(),
  /** Clock in epoch ms; default Date.now. */
  now: custom<() => number>('a function () => epoch ms', isFunction).optional(),
});

export type VectorCacheOptions = z.input<typeof vectorCacheOptionsSchema>;

/** createHashedEmbedder: types and single-option ranges; crossed bounds are resolve()'s (hashed-embedder.ts). */
export const HASHED_MAX_DIMENSIONS = 65_536;
export const HASHED_MAX_NGRAM = 16;
const weight = z.number().min(0);
const ngram = z.int().min(1).max(HASHED_MAX_NGRAM);
export const hashedEmbedderOptionsSchema = z.strictObject({
  /** Output length, 1 .. 65536. Default 384, the length of all-MiniLM-L6-v2 (spec 000). */
  dimensions: z.int().min(1).max(HASHED_MAX_DIMENSIONS).optional(),
  /** Shortest and longest character n-gram, 1 <= min <= max <= 16. Default 3 and 5. */
  minN: ngram.optional(),
  maxN: ngram.optional(),
  /** Mix of the two normalised blocks, each finite and >= 0, not both 0. Default 1 and 1. */
  wordWeight: weight.optional(),
  charWeight: weight.optional(),
  /** Code units of the text read, a positive integer. Default 32768. */
  maxChars: z.int().min(1).optional(),
  /**
   * Hash seed, a safe integer taken modulo 2^32 (like createRng). A different seed is a different
   * embedding: vectors made with different seeds must not be compared. Default 0.
   */
  seed: z.int().optional(),
});

export type HashedEmbedderOptions = z.input<typeof hashedEmbedderOptionsSchema>;

/** What openStore reads; openToolgraph's schema spreads it (service/options.ts). */
export const openStoreOptionsShape = {
  /** PGlite folder; default `.toolgraph/` under `cwd`. Ignored when a database URL is given. */
  dataDir: z.string().min(1).optional(),
  /** PostgreSQL connection URL; takes precedence over dataDir. Blank means none, as TOOLGRAPH_DATABASE_URL: PGlite then. */
  databaseUrl: z.string().optional(),
  /** Schema for the tables (tests, tenants); the database default when omitted. Its format is the store's to check. */
  schema: z.string().optional(),
  /** Base of a relative default data dir; process.cwd() when omitted. */
  cwd: z.string().min(1).optional(),
  /** PGlite: inflate the newest snapshot file while the database opens (openToolgraph does). */
  prefetchSnapshot: z.boolean().optional(),
  /** PGlite, with prefetchSnapshot: receives the prefetched bytes as the database opens (see PgliteStoreOptions). */
  onSnapshotPrefetch: custom<(bytes: Promise<Uint8Array | null>) => void>('a function (bytes) => void', isFunction).optional(),
};
export const openStoreOptionsSchema = z.strictObject(openStoreOptionsShape);

export type OpenStoreOptions = z.input<typeof openStoreOptionsSchema>;

