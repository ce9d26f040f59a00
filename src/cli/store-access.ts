/**
 * How a command reaches the durable store: PGlite in `--data-dir` (default `.toolgraph/` in the
 * working directory), or PostgreSQL when TOOLGRAPH_DATABASE_URL is set. The service is loaded
 * when a command opens the store, not before: a command answering from --data never loads it.
 */
import { resolve } from 'node:path';
import { ToolgraphError } from '../schema/errors.js';
import type { DurableToolgraph } from '../service/durable-toolgraph.js';
import { DATABASE_URL_ENV, DEFAULT_DATA_DIR } from '../store/store-location.js';
import type { CliOutput, Values } from './command.js';
import { intOption } from './options.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** Where the store is, for messages: the PostgreSQL host/db or the PGlite folder. */
export function storeLabel(values: Values): string {
  const url = process.env[DATABASE_URL_ENV];
  if (url !== undefined && url.trim() !== '') return `PostgreSQL (${DATABASE_URL_ENV})`;
  return resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : DEFAULT_DATA_DIR);
}

/** Opens the durable toolgraph the options and environment name, runs `fn`, and closes it. */
export async function withStore<T>(values: Values, fn: (tg: DurableToolgraph) => Promise<T>): Promise<T> {
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const [{ openToolgraph }, { storeOptionsFromEnv }] = await Promise.all([import('../service/durable-toolgraph.js'), import('../store/open-store.js')]);
  // A command that answers once and exits does not fit by itself: `toolgraph fit` does, and a
  // serving process (serve, mcp) fits as traces arrive.
  const tg = await openToolgraph({ ...storeOptionsFromEnv(process.env, dataDir), seed: intOption(values, 'seed', DEFAULT_SEED, 0), autoFit: false });
  try {
    return await fn(tg);
  } finally {
    await tg.close();
  }
}

/**
 * withStore for an answer that reads capabilities or predictions. An open that restores a
 * snapshot reads the traces before it in the background, and until then the model has no trace
 * outcomes (a registered capability's reliability is the 0.5 of none); the model rebuilt after
 * would come too late for a process that answers once, so it is built here.
 */
export function withLearnedStore<T>(values: Values, fn: (tg: DurableToolgraph) => Promise<T>): Promise<T> {
  return withStore(values, async (tg) => {
    await tg.capabilitiesLearned();
    tg.engine.rebuild();
    return fn(tg);
  });
}

/**
 * The line a query from the store prints on stderr while the store has traces but no fit: its
 * answer is the simple rules', and how to get the fitted ranker. Null when there is nothing to say.
 */
export function unfittedNote(tg: DurableToolgraph): string | null {
  if (tg.engine.fittedWeights.source === 'fitted' || tg.engine.stats().traces === 0) return null;
  return 'toolgraph: this store has no fit yet, so this answer is the simple rules\' (BM25 for search, the back-off Markov rule for the next tool); `toolgraph fit` fits it now, and `toolgraph serve` or `mcp` fit by themselves as traces arrive\n';
}

/** withStore (withLearnedStore when `learned`) for a query: says so on stderr when the store has no fit yet (unfittedNote). */
export function queryStore<T>(values: Values, learned: boolean, io: CliOutput, fn: (tg: DurableToolgraph) => Promise<T>): Promise<T> {
  return (learned ? withLearnedStore : withStore)(values, async (tg) => {
    const note = unfittedNote(tg);
    if (note !== null) io.err(note);
    return fn(tg);
  });
}

/**
 * True when a command should answer from the store: no --data / --traces source given. `--tools`
 * then is bad usage rather than ignored: it adds a catalogue to what is learned in memory, and a
 * one-shot command does not change the store's.
 */
export function usesStore(values: Values): boolean {
  const store = values['data'] === undefined && values['traces'] === undefined;
  if (store && values['tools'] !== undefined) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      '--tools goes with --data or --traces (what is learned in memory); a store\'s catalogue is imported with `toolgraph tools import FILE`',
    );
  }
  return store;
}
