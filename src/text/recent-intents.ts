/**
 * The intents a TransitionGraph learned after a model's text was built, read at query time beside the
 * model's naive Bayes association (intent-association.ts), as RecentTransitions does for the
 * transition counts: a trace's intent counts in next-tool predictions, search (its coverage
 * too) and DAG suggestion from the moment it is applied, not from the next rebuild.
 *
 * Kept: the counts the association is fitted from, for the records of the graph's intent log
 * (TransitionGraph.intents, which only grows) past those the installed model's text was built from,
 * summed: per tool the traces crediting it and their tokens (n(t), C(t)), per term and tool the
 * term's occurrences c(t, w), and the terms themselves (the vocabulary grows with them, and its
 * size is in every tool's denominator). Read from the log itself, the records are exactly the
 * ones a rebuilt text would fit; they are dropped, counts and all, when a model holding them is
 * installed.
 */
import type { IntentRecord, TransitionGraph } from '../graph/transition-graph.js';
import { scoreIntent, type IntentModel } from './intent-association.js';
import { tokenize } from './tokenize.js';
import { termId } from './vocabulary.js';

export class RecentIntents {
  /** Records of the graph's intent log before this index are in the installed model's text. */
  private base = 0;
  /** The tokens of records base.. that are counted, in order. */
  private readonly tokenized: (readonly string[])[] = [];
  /** Per tool: credited traces and their tokens, over the records counted. */
  private readonly evidenceMap = new Map<number, number>();
  private readonly tokensMap = new Map<number, number>();
  /** Per term: occurrences per credited tool, and in all. */
  private readonly countsMap = new Map<string, Map<number, number>>();
  private readonly occurrences = new Map<string, number>();
  /**
   * Per term: the counted records whose intent holds it (log indexes, ascending) and how often,
   * an inverted index for BM25 over them (similar-intents.ts); and the tokens of them all.
   */
  private readonly postingsMap = new Map<string, { readonly records: number[]; readonly tf: number[] }>();
  private tokenCount = 0;
  /** Bumped by every change to the counts, so that what is derived from them can be cached. */
  private revisionValue = 0;

  constructor(private readonly graph: TransitionGraph) {}

  /** Records the installed model's text lacks (for tests and stats). */
  get size(): number {
    return this.graph.intents().length - this.base;
  }

  /**
   * A model whose text was built from the first `records` records of the graph's intent log
   * (TextModel.intents) is installed: the counts drop what it holds.
   */
  forget(records: number): void {
    const log = this.graph.intents();
    const drop = Math.min(Math.max(0, records - this.base), this.tokenized.length);
    for (let i = 0; i < drop; i++) this.apply(this.tokenized[i]!, log[this.base + i]!.tools, this.base + i, -1);
    this.tokenized.splice(0, drop);
    this.base = Math.max(this.base, records);
  }

  /** Per tool: the traces crediting it since the model. */
  get evidence(): ReadonlyMap<number, number> {
    this.sync();
    return this.evidenceMap;
  }

  /** Per tool: the tokens of those traces' intents. */
  get tokens(): ReadonlyMap<number, number> {
    this.sync();
    return this.tokensMap;
  }

  /** Per term: its occurrences per crediting tool. */
  get counts(): ReadonlyMap<string, ReadonlyMap<number, number>> {
    this.sync();
    return this.countsMap;
  }

  /** Per term: its occurrences in all. */
  get termOccurrences(): ReadonlyMap<string, number> {
    this.sync();
    return this.occurrences;
  }

  get revision(): number {
    this.sync();
    return this.revisionValue;
  }

  /** The counted records' tokens, in log order (record i is the log's record `first` + i). */
  get records(): readonly (readonly string[])[] {
    this.sync();
    return this.tokenized;
  }

  /** The log index of the first counted record. */
  get first(): number {
    return this.base;
  }

  /** Counted record i's tool sequence, in live indexes (tools newer than the model past its own). */
  sequenceOf(i: number): readonly number[] {
    return this.recordOf(i).sequence;
  }

  /** Counted record i: its request, distinct tools and sequence. */
  recordOf(i: number): IntentRecord {
    return this.graph.intents()[this.base + i]!;
  }

  /** The name of tool `index` in the live graph, which knows the tools newer than the model too. */
  toolName(index: number): string | undefined {
    return this.graph.names[index];
  }

  /** The counted records whose intent holds `term` (log indexes, ascending), with its frequency in each. */
  postings(term: string): { readonly records: readonly number[]; readonly tf: readonly number[] } | undefined {
    this.sync();
    return this.postingsMap.get(term);
  }

  /** The tokens of all counted records' intents. */
  get tokenTotal(): number {
    this.sync();
    return this.tokenCount;
  }

  /**
   * Counts the records the log gained since the last read: read here, by the query that needs
   * them, not on the write path (counting each trace as it was ingested cost durable ingestion
   * about a tenth of its throughput).
   */
  private sync(): void {
    const log = this.graph.intents();
    for (let r = this.base + this.tokenized.length; r < log.length; r++) {
      const tokens = tokenize(log[r]!.intent);
      this.tokenized.push(tokens);
      this.apply(tokens, log[r]!.tools, r, 1);
    }
  }

  /**
   * Adds (sign 1) or removes (-1) the counts of record `index` of the log: its intent's tokens,
   * credited to its distinct tools. Records are removed oldest first, so a removed record's
   * postings are the first of their lists.
   */
  private apply(tokens: readonly string[], tools: readonly number[], index: number, sign: 1 | -1): void {
    this.revisionValue++;
    for (const t of tools) {
      add(this.evidenceMap, t, sign);
      add(this.tokensMap, t, sign * tokens.length);
    }
    this.tokenCount += sign * tokens.length;
    if (sign > 0) {
      for (const term of tokens) {
        let list = this.postingsMap.get(term);
        if (list === undefined) this.postingsMap.set(term, (list = { records: [], tf: [] }));
        const last = list.records.length - 1;
        if (list.records[last] === index) list.tf[last]!++;
        else {
          list.records.push(index);
          list.tf.push(1);
        }
      }
    } else {
      for (const term of new Set(tokens)) {
        const list = this.postingsMap.get(term)!;
        list.records.shift();
        list.tf.shift();
        if (list.records.length === 0) this.postingsMap.delete(term);
      }
    }
    for (const term of tokens) {
      add(this.occurrences, term, sign);
      let perTool = this.countsMap.get(term);
      if (perTool === undefined) {
        perTool = new Map();
        this.countsMap.set(term, perTool);
      }
      for (const t of tools) add(perTool, t, sign);
      if (perTool.size === 0) this.countsMap.delete(term);
    }
  }
}

/** map[key] += by, the key dropped at zero. */
function add<K>(map: Map<K, number>, key: K, by: number): void {
  const value = (map.get(key) ?? 0) + by;
  if (value === 0) map.delete(key);
  else map.set(key, value);
}

/** The newer tools (live indices past the model's) an intent scored, with their posteriors. */
export interface NewerIntents {
  readonly tools: number[];
  readonly values: number[];
}

/** Per model and revision: the vocabulary's size with the recent terms, and the total evidence. */
const derived = new WeakMap<IntentModel, { revision: number; recent: RecentIntents; terms: number; evidence: number; modelEvidence: number }>();

function derivedOf(model: IntentModel, recent: RecentIntents): { terms: number; evidence: number; modelEvidence: number } {
  const cached = derived.get(model);
  if (cached !== undefined && cached.recent === recent && cached.revision === recent.revision) return cached;
  let terms = model.terms.length;
  for (const term of recent.termOccurrences.keys()) if (termId({ terms: model.terms }, term) < 0) terms++;
  let modelEvidence = 0;
  for (let t = 0; t < model.nTools; t++) modelEvidence += model.evidence[t]!;
  let evidence = modelEvidence;
  for (const n of recent.evidence.values()) evidence += n;
  const value = { revision: recent.revision, recent, terms, evidence, modelEvidence };
  derived.set(model, value);
  return value;
}

/**
 * scoreIntent over the model's counts plus the recent ones: P(tool | intent) as a model fitted
 * on all the records would give it (the same formula, intent-association.ts), into
 * out[0..nTools) for the model's tools and `newer` for tools the model lacks. With nothing
 * recent it is scoreIntent itself.
 */
export function scoreIntentWithRecent(model: IntentModel, recent: RecentIntents, tokens: readonly string[], out: Float64Array, newer: NewerIntents): void {
  newer.tools.length = 0;
  newer.values.length = 0;
  if (recent.size === 0) {
    scoreIntent(model, tokens, out);
    return;
  }
  const n = model.nTools;
  const alpha = model.smoothing;
  const { terms: vocabularySize, evidence: totalEvidence, modelEvidence } = derivedOf(model, recent);
  const vocabulary = { terms: model.terms };
  // Query tokens the fit would know: the model's terms and the recent ones.
  const ids: number[] = [];
  const known: string[] = [];
  for (const token of tokens) {
    const v = termId(vocabulary, token);
    if (v >= 0 || recent.termOccurrences.has(token)) {
      ids.push(v);
      known.push(token);
    }
  }
  const k = known.length;
  const unseen = k * Math.log(alpha);
  const logTotal = Math.log(totalEvidence);
  const evidence = recent.evidence;
  const tokenCounts = recent.tokens;
  // The tools the recent records credit: their counts change, so they are computed in full below.
  const base = (e: number, tokens: number): number => {
    const logPrior = e > 0 ? Math.log(e) - logTotal : -Infinity;
    return k === 0 ? logPrior : logPrior + (unseen - k * Math.log(tokens + alpha * vocabularySize));
  };
  // Every other tool keeps its counts: only the total evidence (a shift of every prior) and the
  // vocabulary's size (in every denominator) moved.
  const shift = Math.log(modelEvidence) - logTotal;
  const sameVocabulary = vocabularySize === model.terms.length;
  for (let t = 0; t < n; t++) {
    const logPrior = model.logPrior[t]! + shift;
    if (k === 0) out[t] = logPrior;
    else out[t] = logPrior + (unseen - k * (sameVocabulary ? model.logDenominator[t]! : Math.log(model.tokenTotal[t]! + alpha * vocabularySize)));
  }
  evidence.forEach((e, t) => {
    const tokens = tokenCounts.get(t) ?? 0;
    if (t < n) out[t] = base(model.evidence[t]! + e, model.tokenTotal[t]! + tokens);
    else {
      newer.tools.push(t);
      newer.values.push(base(e, tokens));
    }
  });
  const { postingStart, postingTool, postingWeight } = model;
  for (let i = 0; i < k; i++) {
    const v = ids[i]!;
    const added = recent.counts.get(known[i]!);
    if (v >= 0) for (let p = postingStart[v]!; p < postingStart[v + 1]!; p++) out[postingTool[p]!]! += postingWeight[p]!;
    if (added === undefined) continue;
    // A pair the recent records add to: its weight from both counts, in place of the model's.
    added.forEach((c, t) => {
      if (t >= n) {
        newer.values[newer.tools.indexOf(t)]! += Math.log1p(c / alpha);
        return;
      }
      const p = v >= 0 ? postingOf(model, v, t) : -1;
      const before = p >= 0 ? Math.round(alpha * Math.expm1(postingWeight[p]!)) : 0;
      out[t]! += Math.log1p((before + c) / alpha) - (p >= 0 ? postingWeight[p]! : 0);
    });
  }
  normaliseJointly(out, n, newer.values);
}

/**
 * The posting of tool t under term v (its tools are ascending), or -1. Its weight is log(1 +
 * c / alpha), so the count c(t, w) comes back exactly once rounded (counts are integers).
 */
function postingOf(model: IntentModel, v: number, t: number): number {
  let lo = model.postingStart[v]!;
  let hi = model.postingStart[v + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = model.postingTool[mid]!;
    if (x === t) return mid;
    if (x < t) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Softmax over out[0..n) and `rest` together, in place (as intent-association.ts normalises). */
function normaliseJointly(out: Float64Array, n: number, rest: number[]): void {
  let max = -Infinity;
  for (let t = 0; t < n; t++) if (out[t]! > max) max = out[t]!;
  for (const x of rest) if (x > max) max = x;
  if (max === -Infinity) {
    out.fill(0, 0, n);
    rest.fill(0);
    return;
  }
  const floor = max - 745;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const e = out[t]! > floor ? Math.exp(out[t]! - max) : 0;
    out[t] = e;
    sum += e;
  }
  for (let i = 0; i < rest.length; i++) {
    const e = rest[i]! > floor ? Math.exp(rest[i]! - max) : 0;
    rest[i] = e;
    sum += e;
  }
  const inv = 1 / sum;
  for (let t = 0; t < n; t++) out[t]! *= inv;
  for (let i = 0; i < rest.length; i++) rest[i]! *= inv;
}
