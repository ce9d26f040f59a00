/**
 * A recommender model: one graph snapshot, its text model, the fitted weights, and what the
 * profiles precompute from them. Immutable once built; queries only read it (the scratch
 * buffers are reset after every synchronous query).
 */
import { buildSnapshot, orderDetached, snapshotInput, snapshotStages, type GraphSnapshot, type SnapshotOptions } from '../graph/snapshot.js';
import type { IntentRecord, TransitionGraph } from '../graph/transition-graph.js';
import { toolReliability, type ToolReliability } from '../graph/tool-reliability.js';
import type { ToolInfo } from '../schema/types.js';
import type { TextEmbedding } from '../text/text-embedding.js';
import { buildTextModel, textModelStages, type TextModel } from '../text/text-model.js';
import type { PreviousToolVectors } from '../text/tool-vectors.js';
import type { StepCalibration } from './dag/calibration.js';
import type { DagStatusCalibration } from './dag/status-threshold.js';
import type { NoMatchCalibration } from './no-match.js';
import { buildCapabilityModel, type CapabilityModel, type CapabilityModelInput } from './capability-model.js';
import { buildEdgeFeedback, type EdgeFeedback, type HumanPatternScore } from './edge-adjustment.js';
import { F, FeatureScratch, SIGNALS, type SignalName } from './features.js';
import { linearBackground, type LinearBackground } from './linear-profile.js';
import { seedBackground } from './seed-profile.js';
import { BACKOFF_LEXICAL_WEIGHTS, BACKOFF_WEIGHTS, LEXICAL_WEIGHTS, PRIOR_BACKOFF_SCALE, PRIOR_LEXICAL_SCALE } from './simple-rules.js';
import { createTopK, type TopK } from './top-k.js';

/** Weight vectors of the default profile, indexed like `SIGNALS`. */
export interface FittedWeights {
  /** Next tool, with an intent. */
  readonly next: readonly number[];
  /** Next tool, without an intent. */
  readonly nextNoIntent: readonly number[];
  /** Tools for an intent, without context. */
  readonly search: readonly number[];
  /**
   * The no-match rule fitted on held-out in-domain requests (no-match.ts). Absent: a search
   * matches when a word of it matched.
   */
  readonly noMatch?: NoMatchCalibration;
  /**
   * Isotonic calibration of a workflow step's confidence (dag/calibration.ts), fitted on held-out
   * suggestions of the fit's folds: suggestDag's node confidences are then probabilities that
   * the step belongs to the workflow. Absent: the raw confidences.
   */
  readonly stepCalibration?: StepCalibration;
  /**
   * The least DAG confidence for `status: 'ok'` (dag/status-threshold.ts), fitted on held-out
   * suggestions so that those at or above it reach a stated node-F1. Absent: spec 003's warn
   * threshold.
   */
  readonly dagStatus?: DagStatusCalibration;
  /** How they were obtained: 'prior' until a fit replaces them. */
  readonly source: 'prior' | 'fitted';
  /** The fit that gave them, when one did and said so (a service's fits do). */
  readonly fit?: FitRecord;
}

/** What each task kept: its fitted ranker, its simple rule (`backoff`), or the prior for want of queries. */
export type KeptRule = 'fitted' | 'backoff' | 'prior';

/** A fit's account of itself, stored with the weights it gave. */
export interface FitRecord {
  /** Stored traces the fit read. */
  readonly traces: number;
  /** When it finished, ms since the epoch. */
  readonly fittedAt: number;
  /** How long it took, ms. */
  readonly ms: number;
  /** Which rule each task kept (fit-weights.ts: the one-standard-error rule). */
  readonly kept: { readonly next: KeptRule; readonly nextNoIntent: KeptRule; readonly search: KeptRule };
}

function vector(values: Partial<Record<SignalName, number>>): number[] {
  return SIGNALS.map((s) => values[s] ?? 0);
}

/**
 * The plain product of experts: every probability-like signal counts once and the rest not at
 * all. The fit starts from it, and its fold models rank with it (fit-weights.ts) until the
 * weights are fitted; the no-match calibration then searches the held-out requests again with
 * the fitted weights, the ranker queries will meet (no-match.ts).
 */
export const EXPERT_WEIGHTS: FittedWeights = {
  next: vector({ transition: 1, secondOrder: 1, intent: 1, popularity: 0.1 }),
  nextNoIntent: vector({ transition: 1, secondOrder: 1, popularity: 0.1 }),
  search: vector({ intent: 1, lexical: 1, embedding: 1, popularity: 0.1 }),
  source: 'prior',
};

/**
 * Weights before any fit, which a fit on recorded traces replaces: the simple rules
 * (simple-rules.ts), next tool by the back-off Markov rule and search by BM25 with popularity
 * breaking ties, each scaled so that its scores read as probabilities. The product of
 * experts above ranks better once it is fitted, and a fit keeps it only where it beats these
 * rules on held-out traces; unfitted, it fell far below BM25 on large catalogues (Seal-Tools'
 * search Hit@1 0.622 against 0.961; docs/decisions/prior.md).
 */
export const PRIOR_WEIGHTS: FittedWeights = {
  next: BACKOFF_LEXICAL_WEIGHTS.map((w) => w * PRIOR_BACKOFF_SCALE),
  nextNoIntent: BACKOFF_WEIGHTS.map((w) => w * PRIOR_BACKOFF_SCALE),
  search: LEXICAL_WEIGHTS.map((w) => w * PRIOR_LEXICAL_SCALE),
  source: 'prior',
};

export interface RecommenderModel {
  readonly graph: GraphSnapshot;
  readonly text: TextModel;
  readonly catalog: ReadonlyMap<string, ToolInfo>;
  readonly weights: FittedWeights;
  readonly backgrounds: {
    readonly next: LinearBackground;
    readonly nextNoIntent: LinearBackground;
    readonly search: LinearBackground;
    /** search's, with each tool's reliability factor (tool-reliability.ts): what searchTools ranks by without context. */
    readonly searchReliable: LinearBackground;
    readonly seed: LinearBackground;
  };
  /** Human feedback on patterns, aligned with the snapshot (edge-adjustment.ts). */
  readonly feedback: EdgeFeedback;
  /** Each tool's outcomes, applied where no context names an edge: search without context (tool-reliability.ts). */
  readonly toolReliability: ToolReliability;
  readonly scratch: FeatureScratch;
  readonly rowScore: Float64Array;
  readonly top: { k: number; buffer: TopK };
  /** Capabilities (co-clustered with the tools), or null when there are none. */
  readonly capabilities?: CapabilityModel | null;
}

export interface ModelOptions {
  readonly seed?: number;
  /** Embedding behind the `embedding` signal; absent or null: the signal is 0 everywhere. */
  readonly embedding?: TextEmbedding | null;
  /** Registered and learned capabilities, and the traces that give their outcomes. */
  readonly capabilities?: CapabilityModelInput;
  /** Human scores of reviewed patterns (the facade's pattern registry). */
  readonly feedback?: readonly HumanPatternScore[];
  /** Tool vectors from a stored snapshot (restoreToolVectors), for the text model to reuse (text-model.ts). */
  readonly previousVectors?: PreviousToolVectors | null;
  /** Communities restored from a stored snapshot instead of running Louvain (see SnapshotOptions). */
  readonly communities?: { readonly communities: Int32Array; readonly count: number };
  /**
   * The graph snapshot and text model, built elsewhere from this graph with these options
   * (modelSnapshotOptions, buildModelText): Toolgraph.rebuildOffThread builds the snapshot on
   * another thread while this one builds the text.
   */
  readonly parts?: { readonly snapshot: GraphSnapshot; readonly text: TextModel; readonly capabilities?: CapabilityModel | null };
}

/** The options of a model's graph snapshot. */
export function modelSnapshotOptions(options: ModelOptions): SnapshotOptions {
  return { seed: options.seed, ...(options.communities === undefined ? {} : { communities: options.communities }) };
}

/** A model's text side, for the graph's tools `names` and its intent records. */
export function buildModelText(names: readonly string[], catalog: ReadonlyMap<string, ToolInfo>, intents: readonly IntentRecord[], options: ModelOptions): TextModel {
  return buildTextModel(names, catalog, intents, options.embedding ?? null, options.previousVectors ?? null);
}

export function buildModel(
  graph: TransitionGraph,
  catalog: ReadonlyMap<string, ToolInfo>,
  weights: FittedWeights = PRIOR_WEIGHTS,
  options: ModelOptions = {},
): RecommenderModel {
  for (const w of [weights.next, weights.nextNoIntent, weights.search]) {
    if (w.length !== F) throw new RangeError(`buildModel: weight vectors need ${F} entries, got ${w.length}`);
  }
  const snapshot = options.parts?.snapshot ?? buildSnapshot(graph, modelSnapshotOptions(options));
  const text = options.parts?.text ?? buildModelText(snapshot.names, catalog, graph.intents(), options);
  if (text.nameTokens.length !== snapshot.n) throw new RangeError(`buildModel: a text model of ${text.nameTokens.length} tools for a snapshot of ${snapshot.n}`);
  const reliability = toolReliability(snapshot.out, snapshot.reliability);
  const search = linearBackground(snapshot, weights.search);
  return {
    graph: snapshot,
    text,
    catalog,
    weights,
    backgrounds: {
      next: linearBackground(snapshot, weights.next),
      nextNoIntent: linearBackground(snapshot, weights.nextNoIntent),
      search,
      // Without context, search ranks by relevance x reliability: a tool whose calls keep failing
      // drops, or is left out. Only searchTools reads it; with no tool penalised it is search's.
      searchReliable: reliability.anyPenalty ? linearBackground(snapshot, weights.search, reliability.logFactor) : search,
      seed: seedBackground(snapshot),
    },
    feedback: buildEdgeFeedback(snapshot, options.feedback ?? []),
    toolReliability: reliability,
    scratch: new FeatureScratch(snapshot.n, text.intent.examples.nDocs),
    rowScore: new Float64Array(snapshot.n),
    top: { k: 0, buffer: createTopK(0) },
    capabilities: options.parts?.capabilities !== undefined ? options.parts.capabilities : modelCapabilities(snapshot, catalog, options),
  };
}

/** The capabilities of a model with this snapshot, or null when there are none. */
function modelCapabilities(snapshot: GraphSnapshot, catalog: ReadonlyMap<string, ToolInfo>, options: ModelOptions): CapabilityModel | null {
  return options.capabilities === undefined || options.capabilities.capabilities.length === 0
    ? null
    : buildCapabilityModel(snapshot, catalog, { seed: options.seed, ...options.capabilities });
}

/**
 * buildModel as stages (runStages, stages.ts): the graph snapshot's, the text model's, the
 * capabilities', then the rest. Everything read from `graph` and `catalog` is read before the first
 * yield, so the graph may go on learning between the stages (Toolgraph.rebuildInSlices) and the
 * model is buildModel's for the graph as it was then. The capabilities, built last, see their
 * traces as they are by then, as in a build with its snapshot on a worker.
 */
export function* modelStages(
  graph: TransitionGraph,
  catalog: ReadonlyMap<string, ToolInfo>,
  weights: FittedWeights = PRIOR_WEIGHTS,
  options: ModelOptions = {},
): Generator<void, RecommenderModel> {
  const ordered = orderDetached(snapshotInput(graph));
  const textStages = textModelStages(ordered.names, catalog, graph.intents(), options.embedding ?? null, options.previousVectors ?? null);
  textStages.next(); // its first step reads the catalogue and the intents
  yield;
  const snapshot = yield* snapshotStages(ordered, modelSnapshotOptions(options));
  yield;
  const text = yield* textStages;
  yield;
  const capabilities = modelCapabilities(snapshot, catalog, options);
  yield;
  return buildModel(graph, catalog, weights, { ...options, parts: { snapshot, text, capabilities } });
}

/** The model's top-k buffer, reallocated only when k changes. */
export function topBuffer(model: RecommenderModel, k: number): TopK {
  if (model.top.k !== k) {
    model.top.k = k;
    model.top.buffer = createTopK(k);
  }
  return model.top.buffer;
}
