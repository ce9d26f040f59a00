/**
 * Does anything fit this request? The share of the request's information that a tool accounts
 * for: its informative words that the tool's catalogue document contains or that intents of
 * traces calling the tool contained,
 *
 *   coverage(q, c) = sum_{w in q explained by c} idf(w) / sum_{w in q} idf(w)
 *
 * over the distinct query words, with idf from the catalogue's BM25 index, else from the
 * recorded intents, else (a word neither has ever seen) the largest idf there is: a word
 * nothing knows is the strongest sign the request is about something else.
 *
 * The best coverage among a search's top tools is one of the readings of the no-match rule
 * (no-match.ts), beside the request's similarity to the nearest recorded request
 * (intentSimilarity, at the end of this file); before any fit, a request fits when one word
 * matched. The words no top tool explains are the hint returned with a no-match.
 *
 * O(|q| (log V + log postings)) per tool checked.
 */
import type { Bm25Index } from '../text/bm25.js';
import type { IntentModel } from '../text/intent-association.js';
import type { RecentIntents } from '../text/recent-intents.js';
import type { TextModel } from '../text/text-model.js';
import { termId } from '../text/vocabulary.js';

export interface QueryWord {
  readonly word: string;
  readonly weight: number;
  /** Term ids in the catalogue index and in the intent model, or -1. */
  readonly docTerm: number;
  readonly intentTerm: number;
}

function maxIdf(index: Bm25Index): number {
  let max = 0;
  for (let i = 0; i < index.idf.length; i++) if (index.idf[i]! > max) max = index.idf[i]!;
  return max;
}

/** The weight of a word nothing has seen, per text model: computed once, not per query. */
const ceilings = new WeakMap<TextModel, number>();

/**
 * The distinct tokens of a query with their weights, from its tokens grouped by the word they
 * came from (tokenizeByWord). A word the tokenizer splits into parts weighs as one word, its
 * rarest part's weight, shared among the parts in proportion to theirs: an identifier such as
 * `CyJ9LBI7y` gives four tokens nothing has seen, and counted as four unknown words it made an
 * in-domain request that passes one look like a foreign one (docs/decisions/results/no-match.md). A token already
 * in an earlier word counts there only.
 */
export function queryWords(text: TextModel, words: readonly (readonly string[])[]): QueryWord[] {
  let ceiling = ceilings.get(text);
  if (ceiling === undefined) ceilings.set(text, (ceiling = Math.max(maxIdf(text.bm25), maxIdf(text.intent.examples), 1)));
  const out: QueryWord[] = [];
  const seen = new Set<string>();
  for (const tokens of words) {
    const first = out.length;
    let total = 0;
    let rarest = 0;
    for (const word of tokens) {
      if (seen.has(word)) continue;
      seen.add(word);
      const docTerm = termId(text.bm25, word);
      const intentTerm = termId(text.intent, word);
      const exampleTerm = termId(text.intent.examples, word);
      const idf = docTerm >= 0 ? text.bm25.idf[docTerm]! : exampleTerm >= 0 ? text.intent.examples.idf[exampleTerm]! : ceiling;
      const weight = Math.max(idf, 1e-6);
      total += weight;
      rarest = Math.max(rarest, weight);
      out.push({ word, weight, docTerm, intentTerm });
    }
    if (out.length - first < 2) continue;
    for (let i = first; i < out.length; i++) out[i] = { ...out[i]!, weight: (out[i]!.weight * rarest) / total };
  }
  return out;
}

/** Binary search: both indexes keep each term's postings sorted by document / tool. */
function inPostings(start: Int32Array, items: Int32Array, term: number, item: number): boolean {
  if (term < 0) return false;
  let lo = start[term]!;
  let hi = start[term + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = items[mid]!;
    if (v < item) lo = mid + 1;
    else if (v > item) hi = mid - 1;
    else return true;
  }
  return false;
}

/**
 * Whether `tool` explains `word`: its catalogue document or the model's intents calling it hold
 * the word, or (with `recent`) intents recorded since the model do. A tool newer than the model
 * (an index past its tools) has only the latter.
 */
export function explains(text: TextModel, word: QueryWord, tool: number, recent?: RecentIntents): boolean {
  const intent: IntentModel = text.intent;
  return (
    inPostings(text.bm25.postingStart, text.bm25.postingDoc, word.docTerm, tool) ||
    inPostings(intent.postingStart, intent.postingTool, word.intentTerm, tool) ||
    (recent?.counts.get(word.word)?.has(tool) ?? false)
  );
}

/** The best coverage among `tools`, each tool's (`shares`, by position), and the words none of them explains. */
export function coverage(
  text: TextModel,
  words: readonly QueryWord[],
  tools: ArrayLike<number>,
  count: number,
  recent?: RecentIntents,
): { best: number; shares: number[]; unmatched: string[] } {
  let total = 0;
  for (const w of words) total += w.weight;
  const matchedByAny = new Uint8Array(words.length);
  const shares: number[] = [];
  let best = 0;
  for (let i = 0; i < count; i++) {
    let covered = 0;
    words.forEach((w, k) => {
      if (explains(text, w, tools[i]!, recent)) {
        covered += w.weight;
        matchedByAny[k] = 1;
      }
    });
    shares.push(total > 0 ? covered / total : 0);
    best = Math.max(best, shares[i]!);
  }
  return { best, shares, unmatched: words.filter((_, k) => matchedByAny[k] === 0).map((w) => w.word) };
}

/** Per intent index, each recorded intent's tf-idf norm, and scratch for the per-intent dot products. */
interface IntentNorms {
  readonly norm: Float64Array;
  readonly dot: Float64Array;
  readonly touched: Int32Array;
}

const intentNorms = new WeakMap<Bm25Index, IntentNorms>();

function normsOf(index: Bm25Index): IntentNorms {
  let norms = intentNorms.get(index);
  if (norms === undefined) {
    const sum = new Float64Array(index.nDocs);
    for (let t = 0; t < index.terms.length; t++) {
      const idf = index.idf[t]!;
      for (let p = index.postingStart[t]!; p < index.postingStart[t + 1]!; p++) sum[index.postingDoc[p]!]! += (idf * index.postingTf[p]!) ** 2;
    }
    for (let d = 0; d < sum.length; d++) sum[d] = Math.sqrt(sum[d]!);
    intentNorms.set(index, (norms = { norm: sum, dot: new Float64Array(index.nDocs), touched: new Int32Array(index.nDocs) }));
  }
  return norms;
}

/**
 * How much a request resembles the nearest recorded request: the largest cosine between the
 * request's words and one recorded intent's, over the model's intents,
 *
 *   similarity(q) = max_d  sum_{w in q and d} weight(w) idf(w) tf(w, d) / (|q| |d|)
 *
 * with the query's words weighed as in the coverage (queryWords: a word nothing has seen weighs
 * the largest idf there is, an identifier weighs as one word) and each intent's as tf-idf over
 * the intents. The coverage asks whether some tool's words explain the request's; this asks
 * whether anyone has asked anything like it, which a request from another domain that shares
 * words with the catalogue has not (docs/decisions/results/no-match.md). 0 with no recorded intent; the intents
 * recorded since the model join at the next rebuild.
 *
 * O(postings of the query's words) in the intents' index, as the similar-task search.
 */
export function intentSimilarity(text: TextModel, words: readonly QueryWord[]): number {
  const index = text.intent.examples;
  if (index.nDocs === 0 || words.length === 0) return 0;
  const { norm, dot, touched } = normsOf(index);
  let queryNorm = 0;
  for (const w of words) queryNorm += w.weight * w.weight;
  queryNorm = Math.sqrt(queryNorm);
  let count = 0;
  for (const w of words) {
    // intentTerm is the term's id in `examples` too (intent-association.ts: one vocabulary).
    const t = w.intentTerm;
    if (t < 0) continue;
    const factor = w.weight * index.idf[t]!;
    if (!(factor > 0)) continue;
    for (let p = index.postingStart[t]!; p < index.postingStart[t + 1]!; p++) {
      const d = index.postingDoc[p]!;
      if (dot[d] === 0) touched[count++] = d;
      dot[d]! += factor * index.postingTf[p]!;
    }
  }
  let best = 0;
  for (let i = 0; i < count; i++) {
    const d = touched[i]!;
    if (norm[d]! > 0) best = Math.max(best, dot[d]! / (queryNorm * norm[d]!));
    dot[d] = 0;
  }
  return Math.min(1, best);
}
