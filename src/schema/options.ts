/**
 * The options of the library's entry points, `new Toolgraph(options)` and
 * `openToolgraph(options)`, checked where they come in: plain JavaScript callers and JSON configs
 * reach them unchecked by the compiler, and a wrong option otherwise failed far from its cause
 * (a string seed threw inside Louvain, a numeric dataDir inside node:path) or not at all (a
 * misspelt option fell back to its default). Strict objects, so an unknown key is INVALID_INPUT.
 *
 * The interfaces (ToolgraphOptions, OpenToolgraphOptions) keep the documentation and the
 * defaults stay with the code that applies them; the compile-time checks at the end of this
 * file fail the build when a schema and its interface disagree on a key or a type; they cover
 * the factories' schemas too (factory-options.ts: TransitionGraph, VectorCache, createHashedEmbedder,
 * learnCapabilities, openStore), kept here so that file imports nothing outside schema/.
 */
import { z } from 'zod';
import type { TransitionGraphOptions } from '../graph/transition-graph.js';
import type { LearnCapabilitiesOptions } from '../recommend/learn-capabilities.js';
import type { VectorCacheOptions } from '../scoring/vector-cache.js';
import type { OpenToolgraphOptions } from '../service/durable-toolgraph.js';
import type { PatternRegistryState } from '../service/pattern-registry.js';
import type { SessionServiceOptions } from '../service/sessions.js';
import type { ToolgraphOptions } from '../service/toolgraph.js';
import type { OpenStoreOptions } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { Embedder } from '../text/embedder.js';
import type { HashedEmbedderOptions } from '../text/hashed-embedder.js';
import {
  custom,
  hashedEmbedderOptionsSchema,
  isFunction,
  learnCapabilitiesOptionsSchema,
  openStoreOptionsSchema,
  openStoreOptionsShape,
  transitionGraphOptionsSchema,
  vectorCacheOptionsSchema,
} from './factory-options.js';
import { autoFitOptionsSchema } from './fit-options.js';
import { parseWith } from './issues.js';
import { MAX_BATCH_WINDOW_MS } from './limits.js';

/** Longest delay setTimeout honours; a longer one fires after 1 ms (Node's TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

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
  // The object first: when it is meant, its own issues are the ones reported.
  autoFit: z.union([autoFitOptionsSchema, custom<false>('fit options {firstAt?, growth?, minIntervalMs?}, or false for none', (v) => v === false)]).optional(),
  // Only its shape here: the sessions check their settings in full (INVALID_INPUT naming sessions).
  sessions: custom<SessionServiceOptions>('session options {options?, telemetryFile?, model?, now?}', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
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
  Check<Agrees<z.input<typeof openStoreOptionsSchema>, OpenStoreOptions>>,
  Check<Agrees<z.output<typeof openStoreOptionsSchema>, OpenStoreOptions>>,
  // The factories' schemas (factory-options.ts), kept beside these so schema/ stays import-free at run time.
  Check<Agrees<z.input<typeof learnCapabilitiesOptionsSchema>, LearnCapabilitiesOptions>>,
  Check<Agrees<z.input<typeof transitionGraphOptionsSchema>, TransitionGraphOptions>>,
  Check<Agrees<z.output<typeof transitionGraphOptionsSchema>, TransitionGraphOptions>>,
  Check<Agrees<z.input<typeof vectorCacheOptionsSchema>, VectorCacheOptions>>,
  Check<Agrees<z.output<typeof vectorCacheOptionsSchema>, VectorCacheOptions>>,
  Check<Agrees<z.input<typeof hashedEmbedderOptionsSchema>, HashedEmbedderOptions>>,
  Check<Agrees<z.output<typeof hashedEmbedderOptionsSchema>, HashedEmbedderOptions>>,
];
