/**
 * The options of the library's entry points, `new Toolgraph(options)` and
 * `openToolgraph(options)`, checked where they come in: plain JavaScript callers and JSON configs
 * reach them unchecked by the compiler, and a wrong option otherwise failed far from its cause
 * (a string seed threw inside Louvain, a numeric dataDir inside node:path) or not at all (a
 * misspelt option fell back to its default). Strict objects, so an unknown key is INVALID_INPUT.
 *
 * The interfaces (ToolgraphOptions, OpenToolgraphOptions) keep the documentation and the
 * defaults stay with the code that applies them; the compile-time checks at the end of this
 * file fail the build when a schema and its interface disagree on a key or a type.
 */
import { z } from 'zod';
import { LEARN_DEFAULTS, type LearnCapabilitiesOptions } from '../recommend/learn-capabilities.js';
import type { OpenToolgraphOptions } from '../service/durable-toolgraph.js';
import { MAX_BATCH_WINDOW_MS } from '../service/group-commit.js';
import type { PatternRegistryState } from '../service/pattern-registry.js';
import type { ToolgraphOptions } from '../service/toolgraph.js';
import type { OpenStoreOptions } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { Embedder } from '../text/embedder.js';
import { describeValue, parseWith } from './issues.js';

/** Longest delay setTimeout honours; a longer one fires after 1 ms (Node's TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/** A z.custom whose message says what was expected and what kind of value came instead. */
function custom<T>(expected: string, accepts: (value: unknown) => boolean): z.ZodType<T, T> {
  return z.custom<T>(accepts, { error: (issue) => `expected ${expected}, received ${describeValue(issue.input)}` });
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** The Embedder contract (text/embedder.ts, assertEmbedder): checked here so it fails at construction, not at the first trace. */
function isEmbedder(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Embedder>;
  return typeof candidate.embed === 'function' && Number.isSafeInteger(candidate.dimensions) && (candidate.dimensions as number) > 0;
}

/** At least 0, where Infinity means never (z.number() refuses it): the off-thread thresholds' default. */
const orNever = custom<number>('a number at least 0, or Infinity', (v) => typeof v === 'number' && v >= 0);

const seedSchema = z.int();
const timerMsSchema = z.number().min(0).max(MAX_TIMER_MS);
const embedderSchema = custom<Embedder>('an Embedder {dimensions: positive integer, embed(texts)}, or null for none', isEmbedder).nullable();
const onWarningSchema = custom<(message: string) => void>('a function (message) => void', isFunction);

const count = z.int().min(0);
const learnCapabilitiesOptionsSchema = z
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

export const toolgraphOptionsSchema = z.strictObject({
  seed: seedSchema.optional(),
  rebuildDelayMs: timerMsSchema.optional(),
  embedder: embedderSchema.optional(),
  // The object first: when it is meant, its own issues are the ones reported (issues.ts, invalidUnion).
  learnCapabilities: z
    .union([learnCapabilitiesOptionsSchema, custom<false>('learning options {minSupport?, minTools?, ...}, or false for none', (v) => v === false)])
    .optional(),
  reclusterEveryMs: orNever.optional(),
  halfLifeMs: z.number().positive().optional(),
  // Only its shape here: PatternRegistry validates the state in full (INVALID_INPUT naming
  // PatternRegistry), and a registry of up to a million patterns is not worth parsing twice.
  patterns: custom<PatternRegistryState>('a pattern registry state (patternRegistryState())', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
  offThreadFrom: orNever.optional(),
  onWarning: onWarningSchema.optional(),
});

/** What openStore reads; openToolgraph passes them on. */
const openStoreOptionsShape = {
  dataDir: z.string().min(1).optional(),
  // Blank means none, as TOOLGRAPH_DATABASE_URL (open-store.ts): PGlite then.
  databaseUrl: z.string().optional(),
  // Its format is the store's to check (openPgliteStore, openPostgresStore).
  schema: z.string().optional(),
  cwd: z.string().min(1).optional(),
  prefetchSnapshot: z.boolean().optional(),
  onSnapshotPrefetch: custom<(bytes: Promise<Uint8Array | null>) => void>('a function (bytes) => void', isFunction).optional(),
};

/** An open store: its kind and the methods openToolgraph calls first. */
function isStore(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Record<keyof Store, unknown>>;
  return (s.kind === 'pglite' || s.kind === 'postgres') && [s.migrate, s.close, s.listTools, s.appendTraces, s.tracesSince].every(isFunction);
}

export const openToolgraphOptionsSchema = z.strictObject({
  ...openStoreOptionsShape,
  store: custom<Store>('an open Store (openStore())', isStore).optional(),
  seed: seedSchema.optional(),
  rebuildDelayMs: timerMsSchema.optional(),
  learnCapabilities: z.boolean().optional(),
  embedder: embedderSchema.optional(),
  batchWindowMs: z.number().min(0).max(MAX_BATCH_WINDOW_MS).optional(),
  maxBatch: z.int().min(1).optional(),
  snapshotEvery: z.int().min(1).optional(),
  pollMs: timerMsSchema.optional(),
  onWarning: onWarningSchema.optional(),
  offThreadFrom: orNever.optional(),
  firstModelOffThreadFrom: orNever.optional(),
});

/** `new Toolgraph(options)`'s options, or INVALID_INPUT naming Toolgraph and the option. */
export function parseToolgraphOptions(input: unknown): ToolgraphOptions {
  return parseWith(toolgraphOptionsSchema, input, 'Toolgraph');
}

/** `openToolgraph(options)`'s options, or INVALID_INPUT naming openToolgraph and the option. */
export function parseOpenToolgraphOptions(input: unknown): OpenToolgraphOptions {
  return parseWith(openToolgraphOptionsSchema, input, 'openToolgraph');
}

// Compile-time: each schema has exactly its interface's keys, each of the same type both ways
// (compared through Required<> on both sides: a `-?` mapping drops `undefined` from one side only).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agrees<S, I> =
  Same<keyof S, keyof I> extends true
    ? { [K in keyof I]-?: Same<Required<S>[K & keyof S], Required<I>[K]> }[keyof I] extends true
      ? true
      : false
    : false;
type Check<T extends true> = T;
export type OptionSchemasAgree = [
  Check<Agrees<z.input<typeof toolgraphOptionsSchema>, ToolgraphOptions>>,
  Check<Agrees<z.output<typeof toolgraphOptionsSchema>, ToolgraphOptions>>,
  Check<Agrees<z.output<typeof learnCapabilitiesOptionsSchema>, LearnCapabilitiesOptions>>,
  Check<Agrees<z.input<typeof openToolgraphOptionsSchema>, OpenToolgraphOptions>>,
  Check<Agrees<z.output<typeof openToolgraphOptionsSchema>, OpenToolgraphOptions>>,
  Check<Agrees<z.output<z.ZodObject<typeof openStoreOptionsShape>>, OpenStoreOptions>>,
];
