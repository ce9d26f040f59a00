/**
 * Tool search: tools that fit a request in words, ranked by the fitted search weights over the
 * intent association and the lexical index (no context), with context tools adding the graph
 * signals through the next-tool weights. Every item carries its per-signal breakdown; `score`
 * is the ranker's probability over all tools. Profiles, as for predictNext:
 *  - `default`: the fitted rankers above;
 *  - `seed`: spec 003 section 1 as written, the graph joining with adaptive alpha
 *    (seed-search.ts); `score` is its raw score in [0, 1].
 *
 * When the answer is too unusual for the in-domain requests a fit held out, on how much of the
 * query the best results account for, how much it resembles the nearest recorded request and
 * how sure the ranking is of its first tool (no-match.ts; before a fit: when no word matched),
 * it is `kind: 'no-match'`: the nearest tools are still listed, with what fell short, rather
 * than five unrelated tools presented as results. Weights stored before that rule carry two
 * floors instead (the coverage and the similarity), read as they were.
 */
import { edgeIndex } from '../graph/edge-reliability.js';
import type { RecentTransitions } from '../graph/recent-transitions.js';
import { intentEvidence } from '../text/intent-association.js';
import type { RecentIntents } from '../text/recent-intents.js';
import { tokenize, tokenizeByWord } from '../text/tokenize.js';
import { readContext } from './context-tools.js';
import { breakdown, collectFeatures, type SignalBreakdown } from './features.js';
import { logNormaliser } from './linear-profile.js';
import { topBuffer, type RecommenderModel } from './model.js';
import { mergeNewer, newerSignals, scoreNewer, withNewer } from './newer-scores.js';
import { EMPTY_HINT, isEmptyStore } from './empty-store.js';
import { DEFAULT_K, type Profile } from './predict-next.js';
import { fits, lowReadings, MATCH_TOOLS, type MatchEvidence } from './no-match.js';
import { coverage, intentSimilarity, queryWords } from './query-coverage.js';
import { modeWeights, scoreTouchedRows } from './score-rows.js';
import { seedSearchScores } from './seed-search.js';
import { selectTopK, selectTopKDense, type TopK } from './top-k.js';

export interface SearchRequest {
  readonly query: string;
  readonly context?: readonly string[];
  readonly k?: number;
  readonly profile?: Profile;
}

export interface SearchItem {
  readonly tool: string;
  readonly kind: 'tool';
  readonly score: number;
  readonly signals: SignalBreakdown;
  /**
   * The factor the tool's outcomes put on its probability, in (0, 1]: without context (and in the
   * seed profile, whose semantic side is the context-free search) the tool's own
   * (tool-reliability.ts), with context the transition's from the last context tool
   * (edge-reliability.ts); 1 where successes hold their own or nothing is known.
   */
  readonly reliability: number;
}

export interface SearchResult {
  /**
   * `no-match`: nothing in the catalogue fits; `items` are then only the nearest tools. `empty`:
   * the store knows no tool at all (empty-store.ts); no items, and `hint` says how to fill it.
   */
  readonly kind: 'results' | 'no-match' | 'empty';
  readonly profile: Profile;
  readonly version: number;
  readonly items: readonly SearchItem[];
  /**
   * Best share of the query's information one of the ranking's first MATCH_TOOLS (5) tools
   * accounts for, whatever k (query-coverage.ts).
   */
  readonly coverage: number;
  /**
   * How much the query resembles the nearest recorded request (query-coverage.ts,
   * intentSimilarity), where a fitted no-match rule reads it.
   */
  readonly similarity?: number;
  /** With `no-match`: the query words none of those tools explains, and a sentence saying so (with `empty`: EMPTY_HINT). */
  readonly unmatched?: readonly string[];
  readonly hint?: string;
  /** Context tools neither the model nor the live graph has, ignored (as predictNext's). */
  readonly unknownContext: readonly string[];
}

/**
 * `recent`: the live graph's successes since the model's snapshot (recent-transitions.ts), which
 * a search with context reads for its transition signals in the default profile. `recentIntents`
 * (with `recent`): the intents recorded since the model (recent-intents.ts), which the intent
 * association and the coverage read, so that a trace's intent counts in search before the next
 * rebuild, as in next-tool prediction; in the default profile a tool newer than the model that
 * they (or, with context, the live transitions) reach is ranked too (newer-scores.ts).
 */
export function searchTools(model: RecommenderModel, request: SearchRequest, recent?: RecentTransitions, recentIntents?: RecentIntents): SearchResult {
  if (isEmptyStore(model, recent)) {
    return { kind: 'empty', profile: request.profile ?? 'default', version: model.graph.version, items: [], coverage: 0, hint: EMPTY_HINT, unknownContext: [...(request.context ?? [])] };
  }
  return search(model, request, recent, recentIntents).result;
}

/**
 * What a context-free search for `query` says about whether it fits, the readings the no-match
 * rule takes (no-match.ts): the fit reads them for held-out requests.
 */
export function searchEvidence(model: RecommenderModel, query: string): MatchEvidence {
  return search(model, { query, k: MATCH_TOOLS }, undefined, undefined, true).evidence;
}

function search(
  model: RecommenderModel,
  request: SearchRequest,
  recent: RecentTransitions | undefined,
  recentIntents: RecentIntents | undefined,
  measureAll = false,
): { result: SearchResult; evidence: MatchEvidence } {
  const { graph, scratch } = model;
  const profile = request.profile ?? 'default';
  const { context, unknownContext, live: liveContext } = readContext(model, request.context ?? [], recent);
  // A last tool newer than the model is context too: its transitions are read live.
  // With traces known, live ones included (a model built before the first traces, predict-next.ts).
  const withContext = (context.length > 0 || liveContext.liveLast !== undefined) && (recent?.traces ?? graph.traces) > 0;
  // The seed profile scores the context-free search and adds the graph itself (seed-search.ts).
  const fitted = withContext && profile === 'default';
  // By word for the coverage (an identifier weighs as one word), flat for the signals: tokenize's.
  const byWord = tokenizeByWord(request.query);
  const tokens = byWord.flat();
  const mode = fitted ? 'next' : 'search';
  const weights = modeWeights(model, mode, true)!;
  const live = fitted ? { ...(recent !== undefined ? { recent } : {}), ...liveContext } : {};
  const intents = recent !== undefined && recentIntents !== undefined ? recentIntents : undefined;
  collectFeatures(graph, model.text, { context: fitted ? context : [], intent: tokens, intentText: request.query, weights, ...live, ...(intents ? { recentIntents: intents } : {}) }, scratch);
  try {
    const k = request.k ?? DEFAULT_K;
    // Ranked as far as the no-match readings reach, so the verdict is the same for every k.
    const reach = Math.max(k, MATCH_TOOLS);
    const top = topBuffer(model, Math.min(reach, graph.n));
    const logZ = profile === 'seed' ? seedTop(model, withContext ? context : [], top) : fittedTop(model, mode, top);
    // The seed profile's scores are its formula's own: a newer tool has no place on that scale.
    const newer = profile === 'default' && recent !== undefined && scratch.newer.size > 0 ? scoreNewer(scratch.newer, recent, graph.maxCalls, weights) : null;
    const normaliser = logZ === null ? null : withNewer(logZ, newer ?? []);
    const items: SearchItem[] = [];
    const kept: number[] = [];
    for (let i = 0; i < top.size; i++) {
      const c = top.tools[i]!;
      // A tool (or, with context, a transition) whose failure rate is credibly above 1/2 is left out.
      if (top.scores[i] === -Infinity) continue;
      kept.push(c);
      // Tools past k are read for the verdict only; the newer tools' merge ranks among them all.
      if (items.length >= k && newer === null) continue;
      const score = normaliser === null ? top.scores[i]! : Math.exp(top.scores[i]! - normaliser);
      items.push({ tool: graph.names[c]!, kind: 'tool', score, signals: breakdown(graph, scratch, c), reliability: reliabilityOf(model, fitted ? scratch.last : -1, c) });
    }
    if (newer !== null) {
      // Nothing is known yet of a newer tool's outcomes but its successes: reliability 1.
      const item = (i: number, score: number): SearchItem => ({ tool: recent!.nameOf(scratch.newer.tools[i]!), kind: 'tool', score, signals: newerSignals(scratch.newer, i), reliability: 1 });
      mergeNewer(items, newer, scratch.newer.size, item, reach, normaliser);
      // Live indexes are the model's for the tools it has (recent-transitions.ts).
      kept.length = 0;
      for (const item of items) kept.push(recent!.liveIndex(item.tool)!);
    }
    const words = queryWords(model.text, byWord);
    const fit = coverage(model.text, words, kept, Math.min(kept.length, MATCH_TOOLS), intents);
    if (items.length > k) items.length = k;
    // Measured where a fitted rule reads it (or the fit asks for every reading).
    const read = model.weights.noMatch !== undefined || measureAll;
    const similarity = read ? intentSimilarity(model.text, words) : undefined;
    const evidence: MatchEvidence = {
      coverage: fit.best,
      similarity: similarity ?? 0,
      confidence: items[0]?.score ?? 0,
      unaskedCoverage: unaskedCoverage(model, fit.shares, kept),
    };
    const measured = { coverage: fit.best, ...(similarity !== undefined ? { similarity } : {}) };
    const unmatched = surfaceWords(request.query, fit.unmatched);
    // The confidence is the context-free fitted search's, the one calibrated (no-match.ts).
    const wordsOnly = fitted || profile === 'seed';
    const hint =
      tokens.length === 0
        ? 'the query has no content words to match'
        : items.length === 0 && top.size > 0
          ? 'no tool fits: every candidate has been failing (failure rate credibly above 1/2)'
          : items.length === 0
            ? wordsHint(unmatched)
            : verdict(model, evidence, wordsOnly, unmatched);
    if (hint === null) return { result: { kind: 'results', profile, version: graph.version, items, ...measured, unknownContext }, evidence };
    return { result: { kind: 'no-match', profile, version: graph.version, items, ...measured, unmatched, hint, unknownContext }, evidence };
  } finally {
    scratch.reset();
  }
}

/**
 * Whether an answer with these readings fits: null when it does, else the hint saying what fell
 * short. A fitted calibration decides where there is one (no-match.ts); without one (before a
 * fit), an answer fits when a word of the request matched.
 */
function verdict(model: RecommenderModel, e: MatchEvidence, wordsOnly: boolean, unmatched: readonly string[]): string | null {
  const calibration = model.weights.noMatch;
  if (calibration !== undefined) return fits(calibration, e, wordsOnly) ? null : calibratedHint(lowReadings(calibration, e, wordsOnly), e, unmatched);
  return e.coverage > 0 ? null : wordsHint(unmatched);
}

function wordsHint(unmatched: readonly string[]): string {
  return `no tool fits: ${unmatched.length > 0 ? `${quoted(unmatched)} matched nothing in the best tools` : 'the best tools match too little of the query'}`;
}

/** The best coverage among the returned tools that no recorded request called, 0 with none. */
function unaskedCoverage(model: RecommenderModel, shares: readonly number[], kept: readonly number[]): number {
  let best = 0;
  for (let i = 0; i < shares.length; i++) if (!askedFor(model, kept[i]!)) best = Math.max(best, shares[i]!);
  return best;
}

/** The calibrated rule's hint: the readings that fell short, least typical first. */
function calibratedHint(low: readonly ('coverage' | 'similarity' | 'confidence')[], e: MatchEvidence, unmatched: readonly string[]): string {
  const parts = low.map((reading) =>
    reading === 'coverage'
      ? unmatched.length > 0
        ? `${quoted(unmatched)} matched nothing in the best tools (coverage ${e.coverage.toFixed(2)})`
        : `the best tools match little of the query (coverage ${e.coverage.toFixed(2)})`
      : reading === 'similarity'
        ? `no recorded request resembles this one (similarity ${e.similarity.toFixed(2)})`
        : `the ranking is unsure of its first tool (probability ${e.confidence.toFixed(2)})`,
  );
  return `no tool fits: ${parts.length > 0 ? parts.join('; ') : 'the best tools match too little of the query'}`;
}

function quoted(words: readonly string[]): string {
  return words.map((w) => JSON.stringify(w)).join(', ');
}

/** Whether a recorded request of the model's called `tool` (a tool newer than the model: not yet). */
function askedFor(model: RecommenderModel, tool: number): boolean {
  return tool < model.text.intent.nTools && intentEvidence(model.text.intent, tool) > 0;
}

/** The fitted ranker's top k into `top`; returns the log normaliser of its softmax over every tool. */
function fittedTop(model: RecommenderModel, mode: 'next' | 'search', top: TopK): number {
  const bg = scoreTouchedRows(model, mode, true, true);
  selectTopK(model.scratch, model.rowScore, bg, top);
  return logNormaliser(model.scratch, model.rowScore, bg);
}

/** The seed profile's top k into `top`; null: its scores are reported as they are. */
function seedTop(model: RecommenderModel, context: readonly number[], top: TopK): null {
  selectTopKDense(seedSearchScores(model, context), model.graph.n, top);
  return null;
}

/**
 * The query's own words for the given index terms (tokenize stems and lower-cases them), each
 * once: an identifier gives several terms (`Xq7ZpK9w`: xq7, zp, k9w, xq7zpk9w) and is one word.
 */
function surfaceWords(query: string, terms: readonly string[]): string[] {
  const wanted = new Set(terms);
  const words: string[] = [];
  for (const match of query.matchAll(/[\p{L}\p{M}\p{N}_'-]+/gu)) {
    let named = false;
    for (const term of tokenize(match[0])) if (wanted.delete(term)) named = true;
    if (named) words.push(match[0]);
  }
  return [...words, ...wanted];
}

/** The reliability factor applied to tool c: the transition's from `last`, or the tool's own when last < 0. */
function reliabilityOf(model: RecommenderModel, last: number, c: number): number {
  if (last < 0) return Math.exp(model.toolReliability.logFactor[c]!);
  const j = edgeIndex(model.graph.out, last, c);
  return j < 0 ? 1 : Math.exp(model.graph.reliability.logFactor[j]!);
}
