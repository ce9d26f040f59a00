/** What the Toolgraph facade's methods take and return, beside its requests (schema/requests.ts). */
import type { SkippedEntry } from '../schema/catalog.js';
import type { FitState } from './fit-state.js';
import type { ModelPart } from './model-versions.js';

export interface ScoreOptions {
  /** Contribute to the novelty memory whatever the value (an explicit contribution). */
  readonly contribute?: boolean;
  /** Value at or above which a trace is contributed (default 0.75). */
  readonly threshold?: number;
}

/**
 * Which of a snapshot's caches restoreGraph took over (the others are made again by the next
 * rebuild). Tool vectors of an asynchronous embedder are not among them: they are checked, and
 * adopted, at its first prefetch (prepareEmbeddings).
 */
export interface RestoredCaches {
  readonly intentTokens: boolean;
  readonly toolVectors: boolean;
}

export interface ToolgraphStats {
  readonly tools: number;
  readonly transitions: number;
  readonly traces: number;
  readonly version: number;
  readonly modelVersion: number;
  readonly rebuildMs: number;
  /**
   * What the model answering queries lacks and its next rebuild brings: the graph (traces
   * since), the weights, the catalogue, the capabilities, the tool vectors, the capability
   * learning, the graph signals (model-versions.ts); empty when it is current.
   */
  readonly stale: readonly ModelPart[];
  /** Rebuilds whose graph snapshot a worker thread finished (offThreadFrom). */
  readonly offThreadBuilds: number;
  /** Rebuilds built in stages on this thread with the event loop turning between them. */
  readonly slicedBuilds: number;
  /**
   * Tools and context pairs with successes the model's snapshot lacks, which next-tool
   * predictions read from the live graph until the next rebuild (recent-transitions.ts).
   */
  readonly recentTransitions: number;
  /**
   * Intent records the model's text lacks, whose counts predictions, search and DAG suggestion
   * read beside it until the next rebuild (recent-intents.ts).
   */
  readonly recentIntents: number;
  /** The weights in force: prior or fitted, and by what fit (background-fit.ts). */
  readonly fit: FitState;
}

export interface IngestResult {
  readonly ingested: number;
  readonly version: number;
}

export interface SetToolsResult {
  /** Entries the catalogue holds now. */
  readonly tools: number;
  /** Of the request's entries, those the catalogue did not have before. */
  readonly added: number;
  readonly version: number;
  /** The request's entries that could not be read, left out (readCatalog); empty when strict. */
  readonly skipped: readonly SkippedEntry[];
}

export interface SetToolsOptions {
  /** Write nothing, and throw INVALID_INPUT, when any entry cannot be read. */
  readonly strict?: boolean;
}
