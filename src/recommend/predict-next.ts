/**
 * Next-tool prediction: given the tools called so far (and the task's intent, if any), one
 * ranked list of tools, every item with its score and per-signal breakdown.
 *
 * Every tool is scored before the top-k cut (see `features.ts` for how untouched tools are
 * scored exactly without visiting them). Profiles:
 *  - `default`: the fitted log-linear ranker; `score` is P(tool | context, intent) in [0, 1];
 *  - `seed`: spec 003 section 3 as written; `score` is its raw additive score.
 * With no recorded traces at all the answer is intent and popularity only, `kind: 'cold-start'`;
 * with no tool known at all (no trace, no catalogue), `kind: 'empty'` (empty-store.ts).
 * Context tools the model has never seen are skipped and listed in `unknownContext`, but for a
 * last tool the live graph has learned since (with `recent`): its transitions are read live.
 * Likewise a tool the model lacks that live transitions reach is ranked (newer-tools.ts).
 */
import type { RecentTransitions } from '../graph/recent-transitions.js';
import type { RecentIntents } from '../text/recent-intents.js';
import { splitClauses } from '../text/clauses.js';
import { tokenize } from '../text/tokenize.js';
import { withCapabilities, type PredictionItem, type RankedTool } from './capability-items.js';
import { EMPTY_HINT, isEmptyStore } from './empty-store.js';
import { readContext } from './context-tools.js';
import { breakdown, collectFeatures } from './features.js';
import { logNormaliser } from './linear-profile.js';
import { topBuffer, type RecommenderModel } from './model.js';
import { mergeNewer, newerSignals, scoreNewer, withNewer } from './newer-scores.js';
import { modeWeights, scoreTouchedRows } from './score-rows.js';
import { selectTopK } from './top-k.js';

export type Profile = 'default' | 'seed';

export interface PredictRequest {
  readonly context: readonly string[];
  readonly intent?: string;
  readonly k?: number;
  readonly profile?: Profile;
}

export type { RankedTool } from './capability-items.js';

export interface Prediction {
  /** `empty`: the store knows no tool at all (empty-store.ts); no items, and `hint` says how to fill it. */
  readonly kind: 'prediction' | 'cold-start' | 'empty';
  readonly profile: Profile;
  /** Graph version of the snapshot that answered. */
  readonly version: number;
  /** At most k items, by score, one per tool: a tool, or the capability it starts (capability-items.ts). */
  readonly items: readonly PredictionItem[];
  readonly unknownContext: readonly string[];
  /** With `empty`: what the store lacks and how to fill it (EMPTY_HINT). */
  readonly hint?: string;
}

export const DEFAULT_K = 5;

/**
 * `recent`: the live graph's successes since the model's snapshot (recent-transitions.ts), for
 * the transition signals; omitted, the snapshot's counts alone.
 */
export function predictNext(model: RecommenderModel, request: PredictRequest, recent?: RecentTransitions, recentIntents?: RecentIntents): Prediction {
  const { graph, scratch, rowScore } = model;
  const profile = request.profile ?? 'default';
  if (isEmptyStore(model, recent)) return { kind: 'empty', profile, version: graph.version, items: [], unknownContext: [...request.context], hint: EMPTY_HINT };
  const k = Math.min(request.k ?? DEFAULT_K, graph.n);
  const { context, unknownContext, live } = readContext(model, request.context, recent);
  // An intent with no content words (only stop words, punctuation) is no intent at all.
  const tokens = request.intent !== undefined ? tokenize(request.intent) : [];
  const intentTokens = tokens.length > 0 ? tokens : null;
  // Cold only while no trace is known at all: a model built before the first traces (a store
  // opened empty) predicts from the live ones, as its rebuild will.
  const coldStart = (recent?.traces ?? graph.traces) === 0;

  const clauses = intentTokens !== null ? splitClauses(request.intent!) : undefined;
  const mode = coldStart ? 'search' : profile === 'seed' ? 'seed' : 'next';
  const weights = modeWeights(model, mode, intentTokens !== null);
  collectFeatures(graph, model.text, { context, intent: intentTokens, ...(clauses ? { clauses } : {}), ...(weights ? { weights } : {}), ...(recent ? { recent } : {}), ...(recent && recentIntents ? { recentIntents } : {}), ...live }, scratch);
  try {
    const bg = scoreTouchedRows(model, mode, intentTokens !== null);
    const probabilities = mode !== 'seed';
    const top = topBuffer(model, k);
    selectTopK(scratch, rowScore, bg, top);
    const newer = scratch.newer.size > 0 ? scoreNewer(scratch.newer, recent!, graph.maxCalls, weights) : null;
    const logZ = probabilities ? withNewer(logNormaliser(scratch, rowScore, bg), newer ?? []) : 0;
    const items: RankedTool[] = [];
    for (let i = 0; i < top.size; i++) {
      const c = top.tools[i]!;
      const s = top.scores[i]!;
      // Excluded by the feedback loop: the transition credibly fails (edge-adjustment.ts).
      if (s === -Infinity) continue;
      items.push({
        tool: graph.names[c]!,
        kind: 'tool',
        score: probabilities ? Math.exp(s - logZ) : s,
        signals: breakdown(graph, scratch, c),
      });
    }
    if (newer !== null) {
      const item = (i: number, score: number): RankedTool => ({ tool: recent!.nameOf(scratch.newer.tools[i]!), kind: 'tool', score, signals: newerSignals(scratch.newer, i) });
      mergeNewer(items, newer, scratch.newer.size, item, request.k ?? DEFAULT_K, probabilities ? logZ : null);
    }
    return {
      kind: coldStart ? 'cold-start' : 'prediction',
      profile,
      version: graph.version,
      items: probabilities ? withCapabilities(model.capabilities, graph.names, graph.indexByName, context, items) : items,
      unknownContext,
    };
  } finally {
    scratch.reset();
  }
}
