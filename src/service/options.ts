/**
 * The options of the library's two entry points, `new Toolgraph(options)` and
 * `openToolgraph(options)`: one zod schema each, the single source of their types and defaults.
 * Callers write `ToolgraphOptions` / `OpenToolgraphOptions` (the schemas' input: every field
 * optional); the constructors read `ToolgraphSettings` / `OpenToolgraphSettings` (the output,
 * defaults filled in). Checked where they come in: plain JavaScript callers and JSON configs reach
 * them unchecked by the compiler, and a wrong option otherwise failed far from its cause (a string
 * seed threw inside Louvain, a numeric dataDir inside node:path) or not at all (a misspelt option
 * fell back to its default). Strict objects, so an unknown key is INVALID_INPUT naming it.
 *
 * Here in service/, beside the entry points, because a few options are objects of the layers
 * below (an Embedder, a Store, a pattern registry's state, the sessions' settings), checked by
 * their shape: schema/ imports nothing of ours.
 */
import { z } from 'zod';
import { DEFAULT_SEED } from '../graph/rng.js';
import { FIRST_MODEL_OFF_THREAD_FROM } from '../graph/snapshot-thread.js';
import { custom, isFunction, learnCapabilitiesOptionsSchema, openStoreOptionsShape } from '../schema/factory-options.js';
import { autoFitOptionsSchema } from '../schema/fit-options.js';
import { parseWith } from '../schema/issues.js';
import { MAX_BATCH_WINDOW_MS } from '../schema/limits.js';
import type { Store } from '../store/store.js';
import type { Embedder } from '../text/embedder.js';
import type { PatternRegistryState } from './pattern-registry.js';
import type { SessionServiceOptions } from './sessions.js';
import { isClock, SYSTEM_CLOCK, type Clock } from './clock.js';

/** Longest delay setTimeout honours; a longer one fires after 1 ms (Node's TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/** The Embedder contract (text/embedder.ts, assertEmbedder): checked here so it fails at construction, not at the first trace. */
function isEmbedder(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Embedder>;
  return typeof candidate.embed === 'function' && Number.isSafeInteger(candidate.dimensions) && (candidate.dimensions as number) > 0;
}

/** An open store: its kind and the methods openToolgraph calls first. */
function isStore(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Record<keyof Store, unknown>>;
  return (s.kind === 'pglite' || s.kind === 'postgres') && [s.migrate, s.close, s.listTools, s.appendTraces, s.tracesSince].every(isFunction);
}

/** At least 0, where Infinity means never (z.number() refuses it): the off-thread thresholds. */
const orNever = custom<number>('a number at least 0, or Infinity', (v) => typeof v === 'number' && v >= 0);

const seedSchema = z.int();
const timerMsSchema = z.number().min(0).max(MAX_TIMER_MS);
const embedderSchema = custom<Embedder>('an Embedder {dimensions: positive integer, embed(texts)}, or null for none', isEmbedder).nullable();
const onWarningSchema = custom<(message: string) => void>('a function (message) => void', isFunction);
const noWarning = (): void => {};

export const toolgraphOptionsSchema = z.strictObject({
  /** Seed of every random step (Louvain, fitting); default DEFAULT_SEED. */
  seed: seedSchema.default(DEFAULT_SEED),
  /**
   * Debounce of the rebuilds after ingestion, in ms: a rebuild starts no sooner after the last
   * one ended than this, and than that one took, so that a burst of writes makes one rebuild and
   * under sustained ingestion rebuilds hold at most half of the thread; a write into a service
   * idle for longer is rebuilt at once (rebuild-schedule.ts).
   */
  rebuildDelayMs: timerMsSchema.default(50),
  /** Embeds texts for trace novelty and the embedding signal; absent: the built-in hashed embedder; null: none. */
  embedder: embedderSchema.optional(),
  /**
   * Learning of capabilities from the traces (learn-capabilities.ts), with its options; false
   * turns it off. The object first in the union: when it is meant, its own issues are reported.
   */
  learnCapabilities: z
    .union([learnCapabilitiesOptionsSchema, custom<false>('learning options {minSupport?, minTools?, ...}, or false for none', (v) => v === false)])
    .default({}),
  /**
   * Capabilities are co-clustered in full at most this often (ms) while only learned ones are
   * added, and no more than RECLUSTER_SHARE of them are new since the last full run; rebuilds in
   * between carry the clusters over (capability-model.ts, extendClusters). 0: at every rebuild.
   */
  reclusterEveryMs: orNever.default(60_000),
  /** Half-life of edge reliability's outcome evidence, in ms; absent: TransitionGraph's (14 days). */
  halfLifeMs: z.number().positive().optional(),
  /**
   * Human feedback saved earlier (`patternRegistryState()`), to start from. Only its shape here:
   * PatternRegistry validates the state in full (INVALID_INPUT naming PatternRegistry), and a
   * registry of up to a million patterns is not worth parsing twice.
   */
  patterns: custom<PatternRegistryState>('a pattern registry state (patternRegistryState())', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
  /**
   * Transitions from which the debounced rebuilds finish their graph snapshot on a worker thread
   * of their own while this thread builds the text model (rebuildInBackground). Default
   * Infinity, never: on a 2-core machine shared with the load it made no measurable difference
   * (docs/decisions/store-performance/); with cores to spare it takes the graph signals and
   * Louvain off the service's thread.
   */
  offThreadFrom: orNever.default(Number.POSITIVE_INFINITY),
  /** Told when something went wrong in the background (a rebuild's worker thread failed). */
  onWarning: onWarningSchema.default(() => noWarning),
  /**
   * The clock the rebuild debounce runs by (clock.ts): the system's monotonic clock and timers,
   * or one a test or a simulation moves by hand.
   */
  clock: custom<Clock>('a Clock {now(), setTimeout(fn, ms), clearTimeout(handle)}', isClock).default(() => SYSTEM_CLOCK),
});

/** `new Toolgraph(options)` as a caller writes them. */
export type ToolgraphOptions = z.input<typeof toolgraphOptionsSchema>;
/** The same with every default filled in. */
export type ToolgraphSettings = z.output<typeof toolgraphOptionsSchema>;

export const openToolgraphOptionsSchema = z.strictObject({
  ...openStoreOptionsShape,
  /** An already open, migrated store to use instead of opening one; close() closes it too. */
  store: custom<Store>('an open Store (openStore())', isStore).optional(),
  /** Seed of every random step (Louvain, fitting); default DEFAULT_SEED. */
  seed: seedSchema.default(DEFAULT_SEED),
  /** Debounce of the model rebuilds after ingestion, in ms (ToolgraphOptions.rebuildDelayMs). */
  rebuildDelayMs: timerMsSchema.default(50),
  /**
   * Learn capabilities from the stored traces, as the in-memory library does. Off by default
   * because the learner keeps a candidate per distinct group of tools seen together, which grows
   * with the traces: 145 MB more heap at 50,000 synthetic traces over 10,000 tools, and about a
   * quarter of the write path's throughput. Registered capabilities count their trace outcomes
   * either way (a few bytes per trace).
   */
  learnCapabilities: z.boolean().default(false),
  /** Embedder for trace novelty and the embedding signal (ToolgraphOptions.embedder). */
  embedder: embedderSchema.optional(),
  /** Group commit window in ms, 0 .. 100. */
  batchWindowMs: z.number().min(0).max(MAX_BATCH_WINDOW_MS).default(2),
  /** Traces that trigger a commit without waiting for the window. */
  maxBatch: z.int().min(1).default(5_000),
  /** Write a graph snapshot after this many traces were applied since the last. */
  snapshotEvery: z.int().min(1).default(100_000),
  /** Safety-net poll for other instances' traces, in ms (PostgreSQL; 0 for none). */
  pollMs: timerMsSchema.default(1_000),
  /** Told when something went wrong in the background (a failed poll or snapshot). */
  onWarning: onWarningSchema.default(() => noWarning),
  /** ToolgraphOptions.offThreadFrom, for the rebuilds after ingestion. */
  offThreadFrom: orNever.default(Number.POSITIVE_INFINITY),
  /** The same for the first model at open, whose worker starts cold, and for the rebuild of a stale model before a snapshot is written. */
  firstModelOffThreadFrom: orNever.default(FIRST_MODEL_OFF_THREAD_FROM),
  /**
   * When the service fits its own weights as traces accumulate (schema/fit-options.ts: a first
   * fit at 30 stored traces, then each time they have grown by a fifth or gone quiet, at most once
   * a minute), or false never (fit() still does). The object first in the union.
   */
  autoFit: z.union([autoFitOptionsSchema, custom<false>('fit options {firstAt?, growth?, minIntervalMs?, idleMs?}, or false for none', (v) => v === false)]).default({}),
  /** Workflow sessions (sessions.ts): the engine's settings, a telemetry file, the model tiers; only their shape here, the sessions check them in full. */
  sessions: custom<SessionServiceOptions>('session options {options?, telemetryFile?, model?, now?}', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
});

/** `openToolgraph(options)` as a caller writes them. */
export type OpenToolgraphOptions = z.input<typeof openToolgraphOptionsSchema>;
/** The same with every default filled in. */
export type OpenToolgraphSettings = z.output<typeof openToolgraphOptionsSchema>;

/** `new Toolgraph(options)`'s settings, or INVALID_INPUT naming Toolgraph and the option. */
export function parseToolgraphOptions(input: unknown): ToolgraphSettings {
  return parseWith(toolgraphOptionsSchema, input, 'Toolgraph');
}

/** `openToolgraph(options)`'s settings, or INVALID_INPUT naming openToolgraph and the option. */
export function parseOpenToolgraphOptions(input: unknown): OpenToolgraphSettings {
  return parseWith(openToolgraphOptionsSchema, input, 'openToolgraph');
}
