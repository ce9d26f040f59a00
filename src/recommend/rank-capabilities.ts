/**
 * Ranks capabilities for a request, with spec 003 section 4's multiplicative score
 * (spectral/capability-score.ts):
 *
 *   score(c) = relevance(c) x (1 + structuralBoost(c)) x reliability(c)
 *
 *   intent only        active search:      relevance = semantic(c)  (BM25 of the intent against
 *                                          c's description, example intents and tools, / max)
 *   context only       passive suggestion: relevance = Jaccard(tools(c), context)
 *   intent and context active search:      relevance = semantic(c) x |context in c| / |context|,
 *                                          the share of the work done so far that c explains;
 *                                          a product, so either being 0 filters c out (4.2)
 *   neither            exploration:        the hubs of each spectral cluster by hypergraph PageRank
 *
 * The boost comes from the spectral clusters of the context tools; `boost: 0` turns it off.
 * Capabilities whose failure rate is credibly above 50% get reliability 0, so they never rank.
 *
 * O(C + T + nnz) per request (the score's input checks and the Jaccard pass) plus BM25.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import type { Capability } from '../schema/capability.js';
import { ToolgraphError } from '../schema/errors.js';
import { capabilityScore, type CapabilityMode, type CapabilityScoreResult } from '../spectral/capability-score.js';
import { scoreBm25 } from '../text/bm25.js';
import { tokenize } from '../text/tokenize.js';
import type { CapabilityModel } from './capability-model.js';

/** Spec 003 section 4.2's structural boost for a full cluster match: the low end of its +0.5 to +1.0. */
export const SPEC_BOOST = 0.5;

/**
 * The default boost: off. `toolgraph eval capability` compares SPEC_BOOST with 0 on training
 * folds (cross-fitted, 4 folds): with the context overlap in the relevance, the boost never
 * raised MRR on ultratool, nestful or metatool (metatool: 0.648 with it, 0.664 without), since a
 * capability that overlaps the context is already in its cluster. It does help relevance that
 * ignores the context (semantic only: +0.001 to +0.045), which the overlap beats by far. Pass
 * `boost` to turn it on.
 */
export const CAPABILITY_BOOST = 0;

export interface CapabilityRequest {
  readonly context?: readonly string[];
  readonly intent?: string;
  readonly k?: number;
  /** Structural boost; default CAPABILITY_BOOST; 0 turns it off. */
  readonly boost?: number;
}

export interface RankedCapability {
  readonly kind: 'capability';
  readonly capability: string;
  readonly tools: readonly string[];
  readonly ordered: boolean;
  readonly description: string;
  readonly source: 'registered' | 'learned';
  readonly score: number;
  readonly relevance: number;
  readonly structuralBoost: number;
  readonly reliability: number;
  /** Spec 004 composite confidence, null before the first recorded run. */
  readonly confidence: number | null;
  /** Stable spectral cluster id, -1 for none. */
  readonly cluster: number;
}

export interface CapabilityRanking {
  readonly mode: CapabilityMode;
  readonly items: readonly RankedCapability[];
  readonly unknownContext: readonly string[];
}

/** The capability model's score input for a context (tool indexes), with excluded capabilities at reliability 0. */
function reliabilityOf(model: CapabilityModel): Float64Array {
  const r = Float64Array.from(model.reliability);
  for (let c = 0; c < r.length; c++) if (model.excluded[c] === 1) r[c] = 0;
  return r;
}

/** semantic(c) for an intent's tokens, each in [0, 1] (divided by the best); all 0 when nothing matches. */
export function semanticRelevance(model: CapabilityModel, tokens: readonly string[]): Float64Array {
  const out = new Float64Array(model.capabilities.length);
  if (tokens.length === 0 || out.length === 0) return out;
  scoreBm25(model.text, tokens, out);
  let max = 0;
  for (let c = 0; c < out.length; c++) if (out[c]! > max) max = out[c]!;
  if (max > 0) for (let c = 0; c < out.length; c++) out[c]! /= max;
  return out;
}

export function toRanked(model: CapabilityModel, names: readonly string[], c: number, score: number, relevance: number, structuralBoost: number): RankedCapability {
  const cap = model.capabilities[c]!;
  const confidence = model.confidence[c]!;
  return {
    kind: 'capability',
    capability: cap.id,
    tools: model.members[c]!.map((t) => names[t]!),
    ordered: cap.ordered,
    description: cap.description,
    source: cap.source,
    score,
    relevance,
    structuralBoost,
    reliability: model.reliability[c]!,
    confidence: Number.isNaN(confidence) ? null : confidence,
    cluster: model.capabilityClusters[c]!,
  };
}

/**
 * Scores every capability for context tool indexes and an intent (tokens); the raw ranking of
 * capabilityScore. `semanticOnly` leaves the context out of the relevance (spec 4.4's active
 * search as written: the context only boosts); the evaluation compares it, the product does not use it.
 */
export function scoreCapabilities(
  model: CapabilityModel,
  context: readonly number[],
  tokens: readonly string[] | null,
  boost: number,
  semanticOnly = false,
): CapabilityScoreResult {
  let semantic: Float64Array | undefined;
  if (tokens !== null && tokens.length > 0) {
    semantic = semanticRelevance(model, tokens);
    if (context.length > 0 && !semanticOnly) {
      // Share of the context each capability contains, through the context tools' matrix rows.
      const distinct = [...new Set(context)];
      const contained = new Float64Array(semantic.length);
      const { offsets, columns } = model.matrix.toolsByCapabilities;
      for (const t of distinct) for (let p = offsets[t]!; p < offsets[t + 1]!; p++) contained[columns[p]!]! += 1;
      for (let c = 0; c < semantic.length; c++) semantic[c]! *= contained[c]! / distinct.length;
    }
  }
  return capabilityScore(
    {
      capabilities: model.members.map((tools) => ({ tools })),
      reliability: reliabilityOf(model),
      toolClusters: model.toolClusters,
      capabilityClusters: model.capabilityClusters,
      contextTools: context,
      ...(semantic !== undefined ? { semanticRelevance: semantic } : {}),
      centrality: model.centrality,
    },
    { boost },
  );
}

export function rankCapabilities(model: CapabilityModel | null, graph: Pick<GraphSnapshot, 'names' | 'indexByName'>, request: CapabilityRequest): CapabilityRanking {
  const boost = request.boost ?? CAPABILITY_BOOST;
  const k = request.k ?? 5;
  const context: number[] = [];
  const unknownContext: string[] = [];
  for (const name of request.context ?? []) {
    const t = graph.indexByName.get(name);
    if (t === undefined) unknownContext.push(name);
    else context.push(t);
  }
  const tokens = request.intent !== undefined ? tokenize(request.intent) : [];
  const mode: CapabilityMode = tokens.length > 0 ? 'active-search' : context.length > 0 ? 'passive-suggestion' : 'exploration';
  if (model === null || model.capabilities.length === 0) return { mode, items: [], unknownContext };
  const { ranked } = scoreCapabilities(model, context, tokens.length > 0 ? tokens : null, boost);
  const items = ranked.slice(0, k).map((r) => toRanked(model, graph.names, r.capability, r.score, r.relevance, r.structuralBoost));
  return { mode, items, unknownContext };
}

export interface ExpandedCapability {
  readonly id: string;
  readonly tools: readonly string[];
  readonly ordered: boolean;
  readonly description: string;
  readonly code?: string;
  readonly source: 'registered' | 'learned';
}

/** A capability's tools, in run order when it is ordered (for a DAG node that stands for it). NOT_FOUND for an unknown id. */
export function expandCapability(model: CapabilityModel | null, id: string): ExpandedCapability {
  const c = model?.indexById.get(id);
  if (model == null || c === undefined) throw new ToolgraphError('NOT_FOUND', `expandCapability: no capability with id ${JSON.stringify(id.slice(0, 200))}`);
  return describeCapability(model.capabilities[c]!);
}

/** What a caller sees of a capability: its definition, without the learned examples and counts. */
export function describeCapability(cap: Capability): ExpandedCapability {
  return {
    id: cap.id,
    tools: cap.tools,
    ordered: cap.ordered,
    description: cap.description,
    ...(cap.code !== undefined ? { code: cap.code } : {}),
    source: cap.source,
  };
}
