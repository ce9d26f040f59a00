/**
 * Per-candidate signals for one query (context tools + optional intent), each in [0, 1]:
 *
 *   transition   P1(c | last)           = success(last -> c) / success(last -> *)
 *   secondOrder  P2(c | prev, last)     (0 when the pair context was never seen)
 *   intent       P(c | intent)          learned association posterior
 *   lexical      BM25(intent, doc c) / max over tools
 *   community    1 when c shares last's Louvain community
 *   adamicAdar   AA(last, c) / max over c
 *   pagerank     PageRank percentile      (static)
 *   popularity   calls(c) / max calls     (static)
 *   inContext    1 when c was already called in this context
 *   similarTool  share of the most similar past tasks that used c          (similar-intents.ts)
 *   similarNext  share of those tasks containing `last` where c followed it
 *   mentionAfter 1 when the intent clause c matches best comes after every clause the context
 *                tools match (requests name their steps in order; see clauses.ts)
 *   mentionBefore 1 when it matches a clause the context has already covered
 *   lexicalUnseen the lexical score of a tool no recorded trace has called: where there is no
 *                evidence the description has to carry the tool, so it gets its own weight
 *   embedding    max(0, cos(embed(intent), embed(tool text)))   (text-embedding.ts): matches
 *                words the catalogue spells differently (inflections, identifiers, typos).
 *                Search only (the caller passes `intentText` for search queries): in next-tool
 *                prediction it lowered UltraTool's test Hit@1 from 0.763 to 0.755
 *
 * Only candidates with a dynamic signal are "touched" and get a row; every other tool has the
 * static signals only, which the profiles score exactly from per-snapshot precomputation. So a
 * query costs O(touched), not O(tools), when there is no intent. Buffers live in a scratch owned
 * by the caller and are reset after each query: nothing is allocated per candidate.
 */
import { adamicAdarFrom } from '../graph/adamic-adar.js';
import { sortedRangeWeight } from '../graph/csr.js';
import type { RecentTransitions } from '../graph/recent-transitions.js';
import type { GraphSnapshot } from '../graph/snapshot.js';
import { scoreBm25 } from '../text/bm25.js';
import { scoreIntent } from '../text/intent-association.js';
import { SimilarScratch, similarTasks, similarTasksWithRecent } from '../text/similar-intents.js';
import type { TextModel } from '../text/text-model.js';
import { VectorQuery, type ToolVectors } from '../text/tool-vectors.js';
import { termId } from '../text/vocabulary.js';
import { scoreIntentWithRecent, type NewerIntents, type RecentIntents } from '../text/recent-intents.js';
import { NewerTools } from './newer-tools.js';

export const SIGNALS = [
  'transition',
  'secondOrder',
  'intent',
  'lexical',
  'community',
  'adamicAdar',
  'pagerank',
  'popularity',
  'inContext',
  'similarTool',
  'similarNext',
  'mentionAfter',
  'mentionBefore',
  'lexicalUnseen',
  'embedding',
] as const;

export type SignalName = (typeof SIGNALS)[number];
export type SignalBreakdown = Readonly<Record<SignalName, number>>;

export const F = SIGNALS.length;
export const S_TRANSITION = 0;
export const S_SECOND = 1;
export const S_INTENT = 2;
export const S_LEXICAL = 3;
export const S_COMMUNITY = 4;
export const S_AA = 5;
export const S_PAGERANK = 6;
export const S_POPULARITY = 7;
export const S_IN_CONTEXT = 8;
export const S_SIMILAR_TOOL = 9;
export const S_SIMILAR_NEXT = 10;
export const S_MENTION_AFTER = 11;
export const S_MENTION_BEFORE = 12;
export const S_LEXICAL_UNSEEN = 13;
export const S_EMBEDDING = 14;

/**
 * Intent posteriors and lexical scores below these floors do not touch a candidate (they still
 * count in full for candidates touched by another signal). Below them a signal is
 * indistinguishable from "no evidence" in the fitted model, and touching every tool with a
 * shared stop-word-like term would make each query O(tools).
 */
export const INTENT_FLOOR = 1e-10;
export const LEXICAL_FLOOR = 0.05;
/**
 * The embedding touches only its nearest tools (they still carry their cosine in full when
 * another signal touched them). Character n-grams shared by any two descriptions put most
 * tools of a large catalogue above any fixed cosine floor (2,699 of Seal-Tools' 4,076 at 0.1),
 * so a floor would make every query O(tools) in rows; a rank cut keeps it O(k).
 */
export const EMBEDDING_NEIGHBOURS = 32;

export interface QueryInput {
  /** Known context tool indices in call order. */
  readonly context: readonly number[];
  /** Tokenised intent, or null for none. */
  readonly intent: readonly string[] | null;
  /** The intent as written, for the embedding signal; omitted: no embedding signal. */
  readonly intentText?: string;
  /** The intent's clauses in order, tokenised (clauses.ts); omitted: no mention order. */
  readonly clauses?: readonly (readonly string[])[];
  /** Tools to touch even without signal (the targets, when fitting). */
  readonly extra?: readonly number[];
  /**
   * The weights that will score the rows (score-rows.ts), when known. The two neighbourhood
   * signals (community, Adamic-Adar) touch hundreds of tools per query; weighted 0 they cannot
   * move a score, so they then touch none: an untouched tool's background score is what its row
   * would get (up to rounding). They are still computed, for the breakdown. Omitted: every signal
   * touches.
   */
  readonly weights?: readonly number[];
  /**
   * The successes the live graph learned since the snapshot (recent-transitions.ts): read beside
   * the snapshot's rows, so the transition signals count a trace before the model is rebuilt.
   */
  readonly recent?: RecentTransitions;
  /**
   * With `recent`: the context's last tool when the snapshot does not have it yet but the live
   * graph does (its live index, and the live index of the tool before it, or -1). Its
   * transitions are all recent; `context` then holds the known tools before it.
   */
  readonly liveLast?: { readonly tool: number; readonly prev: number };
  /**
   * When the tool the caller called just before the last known one is not the snapshot's: its
   * live index (with `recent`; all its second-order successes are recent) or -1 (known nowhere:
   * no second-order signal). Omitted: the tool before the last in `context` came just before it.
   */
  readonly livePrev?: number;
  /**
   * The intents the live graph learned since the model's text (recent-intents.ts): the intent
   * signal is then the association fitted on them too, for the model's tools and newer ones.
   */
  readonly recentIntents?: RecentIntents;
}

export class FeatureScratch {
  readonly n: number;
  /** Row-major features of touched candidates: row r at values[r * F .. r * F + F). */
  readonly values: Float64Array;
  /** Tool index of row r. */
  readonly rowTool: Int32Array;
  /** Row of tool c, or -1. */
  readonly rowOf: Int32Array;
  /** Raw Adamic-Adar and transition counts per tool, for the seed profile. */
  readonly aaRaw: Float64Array;
  readonly transitionCount: Float64Array;
  readonly aaTouched: Int32Array;
  /** How many of aaTouched are set, and the largest raw Adamic-Adar among them. */
  aaCount = 0;
  aaMax = 0;
  readonly intentBuf: Float64Array;
  readonly lexicalBuf: Float64Array;
  readonly nearTools = new Int32Array(EMBEDDING_NEIGHBOURS);
  readonly nearScores = new Float64Array(EMBEDDING_NEIGHBOURS);
  /** The query-vector buffers for the model's tool vectors, remade when they change. */
  private vectorQuery: VectorQuery | null = null;
  readonly similar: SimilarScratch;

  /** Per-tool stamps so a tool repeated in one remembered trace counts once. */
  readonly stampTool: Int32Array;
  readonly stampNext: Int32Array;
  stamp = 0;
  rows = 0;
  /** Last known context tool, or -1. */
  last = -1;
  /** The known context tool before `last`, or -1 (second-order feedback, edge-adjustment.ts). */
  prev = -1;
  /** Tools newer than the snapshot that live transition counts reached (newer-tools.ts). */
  readonly newer = new NewerTools();
  /** What scoreIntentWithRecent found for tools newer than the snapshot. */
  readonly newerIntents: NewerIntents = { tools: [], values: [] };

  constructor(n: number, rememberedTasks = 0) {
    this.n = n;
    this.similar = new SimilarScratch(rememberedTasks);

    this.stampTool = new Int32Array(n);
    this.stampNext = new Int32Array(n);
    this.values = new Float64Array(n * F);
    this.rowTool = new Int32Array(n);
    this.rowOf = new Int32Array(n).fill(-1);
    this.aaRaw = new Float64Array(n);
    this.transitionCount = new Float64Array(n);
    this.aaTouched = new Int32Array(n);
    this.intentBuf = new Float64Array(n);
    this.lexicalBuf = new Float64Array(n);
  }

  /** The query-vector buffers for `vectors` (same tool count as this scratch). */
  queryFor(vectors: ToolVectors): VectorQuery {
    if (this.vectorQuery?.index !== vectors) this.vectorQuery = new VectorQuery(vectors, EMBEDDING_NEIGHBOURS);
    return this.vectorQuery;
  }

  touch(c: number): number {
    let r = this.rowOf[c]!;
    if (r < 0) {
      r = this.rows++;
      this.rowOf[c] = r;
      this.rowTool[r] = c;
    }
    return r;
  }

  /** Clears what the last query wrote; O(touched). */
  reset(): void {
    for (let r = 0; r < this.rows; r++) {
      const c = this.rowTool[r]!;
      this.rowOf[c] = -1;
      this.transitionCount[c] = 0;
    }
    // Rows are numbered densely, so their features are one block.
    this.values.fill(0, 0, this.rows * F);
    for (let i = 0; i < this.aaCount; i++) this.aaRaw[this.aaTouched[i]!] = 0;
    this.aaCount = 0;
    this.aaMax = 0;
    this.rows = 0;
    this.last = -1;
    this.prev = -1;
    this.newer.reset();
  }
}

/** Fills `scratch` with the touched candidates' signals. Call `scratch.reset()` after use. */
export function collectFeatures(graph: GraphSnapshot, text: TextModel, query: QueryInput, scratch: FeatureScratch): void {
  const { values } = scratch;
  const ctx = query.context;
  const recent = query.recent;
  const liveLast = recent === undefined ? undefined : query.liveLast;
  const last = liveLast === undefined && ctx.length > 0 ? ctx[ctx.length - 1]! : -1;
  scratch.last = last;
  const prev = last >= 0 ? secondOrderPrev(query) : -1;
  scratch.prev = prev < scratch.n ? prev : -1;

  if (last >= 0) {
    const { offsets, targets, weights } = graph.out;
    const changed = recent === undefined ? 0 : recent.firstOrder(last, graph.version);
    // An edge seen only in failures carries no transition probability, but its candidate is
    // touched so the reliability penalty reaches it (edge-adjustment.ts).
    writeRow(scratch, S_TRANSITION, targets, weights, offsets[last]!, offsets[last + 1]!, graph.outTotal[last]!, recent, changed, graph.reliability.anyPenalty);
    if (prev >= 0) {
      const second = graph.second;
      const r = second.rows.get(prev, last);
      const changedSecond = recent === undefined ? 0 : recent.secondOrder(prev, last, graph.version);
      if (r >= 0) writeRow(scratch, S_SECOND, second.targets, second.weights, second.offsets[r]!, second.offsets[r + 1]!, second.totals[r]!, recent, changedSecond, false);
      else writeRow(scratch, S_SECOND, second.targets, second.weights, 0, 0, 0, recent, changedSecond, false);
    }
    const touchedAa = adamicAdarFrom(graph.undirected, last, scratch.aaRaw, scratch.aaTouched);
    scratch.aaCount = touchedAa;
    let maxAa = 0;
    for (let i = 0; i < touchedAa; i++) maxAa = Math.max(maxAa, scratch.aaRaw[scratch.aaTouched[i]!]!);
    scratch.aaMax = maxAa;
    const profile = query.weights;
    if (maxAa > 0 && (profile === undefined || profile[S_AA] !== 0)) {
      for (let i = 0; i < touchedAa; i++) {
        const c = scratch.aaTouched[i]!;
        values[scratch.touch(c) * F + S_AA] = scratch.aaRaw[c]! / maxAa;
      }
    }
    if (profile === undefined || profile[S_COMMUNITY] !== 0) {
      const community = graph.communities[last]!;
      for (let j = graph.communityOffsets[community]!; j < graph.communityOffsets[community + 1]!; j++) {
        values[scratch.touch(graph.communityMembers[j]!) * F + S_COMMUNITY] = 1;
      }
    }
    for (let i = 0; i < ctx.length; i++) values[scratch.touch(ctx[i]!) * F + S_IN_CONTEXT] = 1;
  } else if (liveLast !== undefined) {
    // The last tool is newer than the snapshot: every success it has is a recent one. Its
    // neighbourhood signals wait for the rebuild, as do its similar-task successors.
    const { targets, weights } = graph.out;
    writeRow(scratch, S_TRANSITION, targets, weights, 0, 0, 0, recent, recent!.firstOrder(liveLast.tool, graph.version), false);
    if (liveLast.prev >= 0) {
      const second = graph.second;
      writeRow(scratch, S_SECOND, second.targets, second.weights, 0, 0, 0, recent, recent!.secondOrder(liveLast.prev, liveLast.tool, graph.version), false);
    }
    for (let i = 0; i < ctx.length; i++) values[scratch.touch(ctx[i]!) * F + S_IN_CONTEXT] = 1;
  }

  if (query.intent !== null && query.intent.length > 0) {
    const n = scratch.n;
    if (query.recentIntents !== undefined) {
      scoreIntentWithRecent(text.intent, query.recentIntents, query.intent, scratch.intentBuf, scratch.newerIntents);
      // A newer tool the intent points to is a candidate; one the transitions reached gets its value.
      const { tools, values } = scratch.newerIntents;
      for (let i = 0; i < tools.length; i++) if (values[i]! > INTENT_FLOOR || scratch.newer.has(tools[i]!)) scratch.newer.setIntent(tools[i]!, values[i]!);
    } else {
      scoreIntent(text.intent, query.intent, scratch.intentBuf);
    }
    scoreBm25(text.bm25, query.intent, scratch.lexicalBuf);
    let maxLex = 0;
    for (let c = 0; c < n; c++) if (scratch.lexicalBuf[c]! > maxLex) maxLex = scratch.lexicalBuf[c]!;
    const lexScale = maxLex > 0 ? 1 / maxLex : 0;
    for (let c = 0; c < n; c++) {
      if (scratch.intentBuf[c]! > INTENT_FLOOR || scratch.lexicalBuf[c]! * lexScale > LEXICAL_FLOOR) scratch.touch(c);
    }
    const vectors = text.vectors;
    const queryVector = vectors !== null && query.intentText !== undefined ? text.embedding!.query(query.intentText) : null;
    const embedded = queryVector !== null ? scratch.queryFor(vectors!) : null;
    // The nearest tools are what the embedding adds to the word indexes: tools whose text
    // resembles a query word that neither the catalogue nor any recorded intent contains (a
    // misspelling, an inflection the stemmer misses, a dense model's synonym). A known word
    // already touches the tools that contain it through the lexical and intent scores, so a
    // query of known words skips the search for neighbours (touching none at all left every
    // validation figure unchanged; docs/decisions/no-match/nearest-tools-for-unknown-words-only.md).
    const neighbours = hasUnknownWord(text, query.intent) ? EMBEDDING_NEIGHBOURS : 0;
    // Rows touched so far stand in for the rows that will need a cosine (similar tasks add a few).
    if (embedded !== null && embedded.load(queryVector!, neighbours, scratch.rows) && neighbours > 0) {
      const near = embedded.nearest(neighbours, scratch.nearTools, scratch.nearScores);
      for (let i = 0; i < near; i++) scratch.touch(scratch.nearTools[i]!);
    }
    collectSimilar(text, query.intent, last, scratch, query.recentIntents);
    if (query.clauses !== undefined && query.clauses.length > 1) collectMentionOrder(text, query.clauses, ctx, scratch);
    if (query.extra !== undefined) for (const c of query.extra) scratch.touch(c);
    for (let r = 0; r < scratch.rows; r++) {
      const c = scratch.rowTool[r]!;
      values[r * F + S_INTENT] = scratch.intentBuf[c]!;
      values[r * F + S_LEXICAL] = scratch.lexicalBuf[c]! * lexScale;
      if (graph.calls[c] === 0) values[r * F + S_LEXICAL_UNSEEN] = values[r * F + S_LEXICAL]!;
      if (embedded !== null) values[r * F + S_EMBEDDING] = Math.max(0, embedded.cosine(c));
    }
  } else if (query.extra !== undefined) {
    for (const c of query.extra) scratch.touch(c);
  }

  const maxCalls = graph.maxCalls;
  for (let r = 0; r < scratch.rows; r++) {
    const c = scratch.rowTool[r]!;
    values[r * F + S_PAGERANK] = graph.pagerankPercentile[c]!;
    values[r * F + S_POPULARITY] = maxCalls > 0 ? graph.calls[c]! / maxCalls : 0;
  }
}

/**
 * The tool before the last known context tool for the second-order signal, or -1: the pair must
 * be the two tools the caller called last, adjacent in its context (query.livePrev); a live
 * index past the snapshot's tools has its counts in `recent` alone.
 */
function secondOrderPrev(query: QueryInput): number {
  if (query.livePrev !== undefined) return query.recent === undefined ? -1 : query.livePrev;
  const ctx = query.context;
  return ctx.length >= 2 ? ctx[ctx.length - 2]! : -1;
}

/**
 * Writes `signal` = w / total for one context's successors: the snapshot's row, targets[lo, hi)
 * with `weights` and their sum `total`, where the `changed` live counts `recent` read replace
 * theirs, in the total too (a tool the snapshot does not have yet has no row: it goes to
 * `scratch.newer`). `touchFailed`: touch the row's failure-only entries even when nothing succeeded.
 */
function writeRow(
  scratch: FeatureScratch,
  signal: number,
  targets: Int32Array,
  weights: Float64Array,
  lo: number,
  hi: number,
  total: number,
  recent: RecentTransitions | undefined,
  changed: number,
  touchFailed: boolean,
): void {
  const { values, n } = scratch;
  for (let i = 0; i < changed; i++) {
    const c = recent!.targets[i]!;
    total += recent!.success[i]! - (c < n ? sortedRangeWeight(targets, weights, lo, hi, c) : 0);
  }
  if (total <= 0 && !touchFailed) return;
  for (let j = lo; j < hi; j++) {
    const c = targets[j]!;
    const r = scratch.touch(c);
    const w = weights[j]!;
    if (w <= 0) continue;
    values[r * F + signal] = w / total;
    if (signal === S_TRANSITION) scratch.transitionCount[c] = w;
  }
  for (let i = 0; i < changed; i++) {
    const c = recent!.targets[i]!;
    const w = recent!.success[i]!;
    if (c >= n) {
      if (w > 0) scratch.newer.set(c, signal === S_SECOND, w / total, w);
      continue;
    }
    values[scratch.touch(c) * F + signal] = w / total;
    if (signal === S_TRANSITION) scratch.transitionCount[c] = w;
  }
}

/** Whether a query word is in neither the catalogue's index nor the recorded intents'. */
export function hasUnknownWord(text: TextModel, tokens: readonly string[]): boolean {
  for (const token of tokens) if (termId(text.bm25, token) < 0 && termId(text.intent, token) < 0) return true;
  return false;
}

/**
 * Marks touched tools whose clause comes after the context's clauses. A tool is placed by the
 * terms of its name that the context tools' names lack (what it would add: `changing` after
 * `home_cleaning_booking`), in the clause that contains most of them, the earliest on a tie;
 * the context reaches the furthest clause any context tool's name terms fall in.
 */
function collectMentionOrder(
  text: TextModel,
  clauses: readonly (readonly string[])[],
  context: readonly number[],
  scratch: FeatureScratch,
): void {
  const { values } = scratch;
  const done = new Set<string>();
  let reached = -1;
  for (const c of context) {
    const terms = text.nameTokens[c]!;
    for (const t of terms) done.add(t);
    reached = Math.max(reached, bestClause(clauses, terms, null));
  }
  for (let r = 0; r < scratch.rows; r++) {
    const clause = bestClause(clauses, text.nameTokens[scratch.rowTool[r]!]!, done);
    values[r * F + S_MENTION_AFTER] = clause > reached ? 1 : 0;
    values[r * F + S_MENTION_BEFORE] = clause >= 0 && clause <= reached ? 1 : 0;
  }
}

/** The clause holding most of `terms` not in `exclude`; -1 when none holds any. */
function bestClause(clauses: readonly (readonly string[])[], terms: readonly string[], exclude: ReadonlySet<string> | null): number {
  let best = -1;
  let bestCount = 0;
  for (let s = 0; s < clauses.length; s++) {
    const clause = clauses[s]!;
    let count = 0;
    for (const t of terms) if ((exclude === null || !exclude.has(t)) && clause.includes(t)) count++;
    if (count > bestCount) {
      bestCount = count;
      best = s;
    }
  }
  return best;
}

/**
 * Accumulates the similar-task signals of the K nearest remembered tasks; with `recent`, the
 * records since the model are remembered tasks too (similarTasksWithRecent), and a tool newer
 * than the model in one of them has no row to receive its share (it is still in the totals).
 */
function collectSimilar(text: TextModel, intent: readonly string[], last: number, scratch: FeatureScratch, recent: RecentIntents | undefined): void {
  const sim = scratch.similar;
  if (recent !== undefined) similarTasksWithRecent(text.intent.examples, recent, intent, sim);
  else similarTasks(text.intent.examples, intent, sim);
  if (sim.count === 0) return;
  const { values, stampTool, stampNext } = scratch;
  const { sequenceStart, sequenceTools } = text.memory;
  const tasks = sequenceStart.length - 1;
  const n = scratch.n;
  if (scratch.stamp > 1 << 30) {
    stampTool.fill(0);
    stampNext.fill(0);
    scratch.stamp = 0;
  }
  let total = 0;
  let withLast = 0;
  for (let i = 0; i < sim.count; i++) {
    const j = sim.neighbours[i]!;
    const w = sim.weights[i]!;
    const stamp = ++scratch.stamp;
    total += w;
    let sawLast = false;
    // A model's task, or a record since the model (its tools in live indexes).
    const tools: ArrayLike<number> = j < tasks ? sequenceTools : recent!.sequenceOf(j - tasks);
    const start = j < tasks ? sequenceStart[j]! : 0;
    const end = j < tasks ? sequenceStart[j + 1]! : tools.length;
    for (let p = start; p < end; p++) {
      const c = tools[p]!;
      if (c < n && stampTool[c] !== stamp) {
        stampTool[c] = stamp;
        values[scratch.touch(c) * F + S_SIMILAR_TOOL]! += w;
      }
      if (c === last && p + 1 < end) {
        sawLast = true;
        const next = tools[p + 1]!;
        if (next < n && stampNext[next] !== stamp) {
          stampNext[next] = stamp;
          values[scratch.touch(next) * F + S_SIMILAR_NEXT]! += w;
        }
      }
    }
    if (sawLast) withLast += w;
  }
  for (let r = 0; r < scratch.rows; r++) {
    values[r * F + S_SIMILAR_TOOL]! /= total;
    values[r * F + S_SIMILAR_NEXT] = withLast > 0 ? values[r * F + S_SIMILAR_NEXT]! / withLast : 0;
  }
}

/**
 * The breakdown of a tool: its row's signals, or the static ones for an untouched tool. The
 * neighbourhood signals are read from their sources, since a query whose weights ignore them
 * leaves them out of the rows (QueryInput.weights).
 */
export function breakdown(graph: GraphSnapshot, scratch: FeatureScratch, tool: number): SignalBreakdown {
  const r = scratch.rowOf[tool]!;
  const at = (s: number): number => (r >= 0 ? scratch.values[r * F + s]! : 0);
  const last = scratch.last;
  return {
    transition: at(S_TRANSITION),
    secondOrder: at(S_SECOND),
    intent: at(S_INTENT),
    lexical: at(S_LEXICAL),
    community: last >= 0 && graph.communities[tool] === graph.communities[last] ? 1 : 0,
    adamicAdar: scratch.aaMax > 0 ? scratch.aaRaw[tool]! / scratch.aaMax : 0,
    pagerank: graph.pagerankPercentile[tool]!,
    popularity: graph.maxCalls > 0 ? graph.calls[tool]! / graph.maxCalls : 0,
    inContext: at(S_IN_CONTEXT),
    similarTool: at(S_SIMILAR_TOOL),
    similarNext: at(S_SIMILAR_NEXT),
    mentionAfter: at(S_MENTION_AFTER),
    mentionBefore: at(S_MENTION_BEFORE),
    lexicalUnseen: at(S_LEXICAL_UNSEEN),
    embedding: at(S_EMBEDDING),
  };
}
