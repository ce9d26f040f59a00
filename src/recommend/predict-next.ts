/**
 * Next-tool prediction: given the tools called so far (and the task's intent, if any), one
 * ranked list of tools, every item with its score and per-signal breakdown.
 *
 * Every tool is scored before the top-k cut (see `features.ts` for how untouched tools are
 * scored exactly without visiting them). Profiles:
 *  - `default`: the fitted log-linear ranker; `score` is P(tool | context, intent) in [0, 1];
 *  - `seed`: spec 003 section 3 as written; `score` is its raw additive score.
 * With no recorded traces at all the answer is intent and popularity only, `kind: 'cold-start'`.
 * Context tools the model has never seen are skipped and listed in `unknownContext`, but for a
 * last tool the live graph has learned since (with `recent`): its transitions are read live.
 * Likewise a tool the model lacks that live transitions reach is ranked (newer-tools.ts).
 */
import type { RecentTransitions } from '../graph/recent-transitions.js';
import type { RecentIntents } from '../text/recent-intents.js';
import { splitClauses } from '../text/clauses.js';
import { tokenize } from '../text/tokenize.js';
import { withCapabilities, type PredictionItem } from './capability-items.js';
import { readContext } from './context-tools.js';
import { breakdown, collectFeatures, F, S_INTENT, S_POPULARITY, S_SECOND, S_TRANSITION, SIGNALS, type SignalBreakdown } from './features.js';
import { logNormaliser, transform } from './linear-profile.js';
import { topBuffer, type RecommenderModel } from './model.js';
import type { NewerTools } from './newer-tools.js';
import { seedCooccurrence } from './seed-profile.js';
import { modeWeights, scoreTouchedRows } from './score-rows.js';
import { selectTopK } from './top-k.js';

export type Profile = 'default' | 'seed';

export interface PredictRequest {
  readonly context: readonly string[];
  readonly intent?: string;
  readonly k?: number;
  readonly profile?: Profile;
}

export interface RankedTool {
  readonly tool: string;
  readonly kind: 'tool';
  readonly score: number;
  readonly signals: SignalBreakdown;
}

export interface Prediction {
  readonly kind: 'prediction' | 'cold-start';
  readonly profile: Profile;
  /** Graph version of the snapshot that answered. */
  readonly version: number;
  /** Tools, and capabilities whose next tool is a predicted one (capability-items.ts), by score. */
  readonly items: readonly PredictionItem[];
  readonly unknownContext: readonly string[];
}

export const DEFAULT_K = 5;

/**
 * `recent`: the live graph's successes since the model's snapshot (recent-transitions.ts), for
 * the transition signals; omitted, the snapshot's counts alone.
 */
export function predictNext(model: RecommenderModel, request: PredictRequest, recent?: RecentTransitions, recentIntents?: RecentIntents): Prediction {
  const { graph, scratch, rowScore } = model;
  const profile = request.profile ?? 'default';
  const k = Math.min(request.k ?? DEFAULT_K, graph.n);
  const { context, unknownContext, live } = readContext(model, request.context, recent);
  // An intent with no content words (only stop words, punctuation) is no intent at all.
  const tokens = request.intent !== undefined ? tokenize(request.intent) : [];
  const intentTokens = tokens.length > 0 ? tokens : null;
  const coldStart = graph.traces === 0;

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
    let logZ = probabilities ? logNormaliser(scratch, rowScore, bg) : 0;
    if (probabilities && newer !== null) for (const s of newer) logZ = logAddExp(logZ, s);
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
    if (newer !== null) addNewer(items, newer, scratch.newer, recent!, request.k ?? DEFAULT_K, probabilities ? logZ : null);
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

/**
 * The scores of the newer tools (newer-tools.ts): `weights` for the log-linear profiles, every
 * signal at zero but the two transition signals, the intent and popularity, whose calls are
 * read live against the snapshot's busiest tool (at zero, a tool called a hundred times since
 * the snapshot would rank as one never called); undefined weights for the seed formula, whose
 * co-occurrence term is all such a tool has yet (its PageRank, of the order of 1/N, waits).
 */
function scoreNewer(newer: NewerTools, recent: RecentTransitions, maxCalls: number, weights: readonly number[] | undefined): number[] {
  const scores: number[] = [];
  for (let i = 0; i < newer.size; i++) {
    newer.popularity[i] = maxCalls > 0 ? Math.min(1, recent.callsOf(newer.tools[i]!) / maxCalls) : 0;
    if (weights === undefined) {
      scores.push(0.5 * seedCooccurrence(newer.transition[i]!, newer.count[i]!));
      continue;
    }
    let s = 0;
    for (let f = 0; f < F; f++) {
      const x = f === S_TRANSITION ? newer.transition[i]! : f === S_SECOND ? newer.second[i]! : f === S_INTENT ? newer.intent[i]! : f === S_POPULARITY ? newer.popularity[i]! : 0;
      s += weights[f]! * transform(f, x);
    }
    scores.push(s);
  }
  return scores;
}

const NO_SIGNALS = Object.fromEntries(SIGNALS.map((name) => [name, 0])) as SignalBreakdown;

/** Merges the newer tools into `items` (ranked by score) and keeps the first k; `logZ` null: raw scores. */
function addNewer(items: RankedTool[], scores: readonly number[], newer: NewerTools, recent: RecentTransitions, k: number, logZ: number | null): void {
  for (let i = 0; i < newer.size; i++) {
    const score = logZ === null ? scores[i]! : Math.exp(scores[i]! - logZ);
    const signals: SignalBreakdown = { ...NO_SIGNALS, transition: newer.transition[i]!, secondOrder: newer.second[i]!, intent: newer.intent[i]!, popularity: newer.popularity[i]! };
    // After the model's tools of equal score, as a tie between them goes to the lower index.
    let at = items.length;
    while (at > 0 && items[at - 1]!.score < score) at--;
    if (at < k) items.splice(at, 0, { tool: recent.nameOf(newer.tools[i]!), kind: 'tool', score, signals });
  }
  if (items.length > k) items.length = k;
}

function logAddExp(a: number, b: number): number {
  const max = Math.max(a, b);
  return max === -Infinity ? -Infinity : max + Math.log(Math.exp(a - max) + Math.exp(b - max));
}
