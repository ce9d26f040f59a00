/**
 * Okapi BM25 over token documents, with an inverted index in typed arrays.
 *
 *   score(d, q) = sum over query tokens t of  idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + K(d))
 *   K(d)        = k1 * (1 - b + b * |d| / avgdl)
 *   idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 *
 * The idf is Lucene's non-negative variant, so a term in most documents still scores >= 0. The
 * sum runs over query tokens, repeats included (Robertson's k3 -> infinity): an intent that says
 * "weather" twice is about weather twice as much. Query terms the index lacks contribute 0.
 *
 * Layout (CSR): the postings of term id v are positions postingStart[v] .. postingStart[v+1]-1 of
 * postingDoc / postingTf, documents ascending. K(d) is precomputed per document, idf per term.
 *
 * Complexity: build O(T + V log V) for T tokens and V terms; score O(N + sum of the query terms'
 * document frequencies), plus O(log V) per query token for the term lookup.
 *
 * Reference: S. Robertson, H. Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", Foundations and Trends in IR 3(4), 2009.
 */
import { ToolgraphError } from '../schema/errors.js';
import { internCorpus, termId, type InternedCorpus } from './vocabulary.js';

export interface Bm25Options {
  /** Term-frequency saturation, >= 0; 0 makes the score binary in tf. Default 1.2. */
  readonly k1?: number;
  /** Length normalisation in [0, 1]; 0 ignores document length. Default 0.75. */
  readonly b?: number;
}

/** Plain data: typed arrays, a string array and numbers, so a snapshot can serialise it. */
export interface Bm25Index {
  readonly k1: number;
  readonly b: number;
  readonly nDocs: number;
  readonly avgDocLength: number;
  /** Sorted distinct terms; a term's id is its position (see vocabulary.ts). */
  readonly terms: readonly string[];
  /** idf per term id. */
  readonly idf: Float64Array;
  /** CSR offsets, length terms.length + 1. */
  readonly postingStart: Int32Array;
  readonly postingDoc: Int32Array;
  readonly postingTf: Float64Array;
  /** Token count per document. */
  readonly docLength: Float64Array;
  /** K(d) = k1 * (1 - b + b * |d| / avgdl), per document. */
  readonly docNorm: Float64Array;
}

export const BM25_DEFAULTS = { k1: 1.2, b: 0.75 } as const;

/** Builds the BM25 index of `docs`; document i is the i-th token array. */
export function buildBm25(
  docs: readonly (readonly string[])[],
  options: Bm25Options = {},
): Bm25Index {
  return bm25FromCorpus(internCorpus(docs), options);
}

/** buildBm25 over documents already interned (vocabulary.ts): one document per corpus row. */
export function bm25FromCorpus(corpus: InternedCorpus, options: Bm25Options = {}): Bm25Index {
  const k1 = options.k1 ?? BM25_DEFAULTS.k1;
  const b = options.b ?? BM25_DEFAULTS.b;
  if (!Number.isFinite(k1) || k1 < 0) {
    throw new ToolgraphError('INVALID_INPUT', `buildBm25: k1 must be a finite number >= 0, got ${k1}`);
  }
  if (!Number.isFinite(b) || b < 0 || b > 1) {
    throw new ToolgraphError('INVALID_INPUT', `buildBm25: b must be in [0, 1], got ${b}`);
  }
  const { vocabulary, docs: encoded } = corpus;
  const nDocs = encoded.length;
  const nTerms = vocabulary.terms.length;

  const docLength = new Float64Array(nDocs);
  let totalLength = 0;
  for (let d = 0; d < nDocs; d++) {
    docLength[d] = encoded[d]!.length;
    totalLength += encoded[d]!.length;
  }
  const avgDocLength = nDocs > 0 ? totalLength / nDocs : 0;
  const docNorm = new Float64Array(nDocs);
  for (let d = 0; d < nDocs; d++) {
    // All documents empty: no term can match, and the ratio is taken as 1 to avoid 0/0.
    const ratio = avgDocLength > 0 ? docLength[d]! / avgDocLength : 1;
    docNorm[d] = k1 * (1 - b + b * ratio);
  }

  // Pass 1: document frequency per term (each document counted once per term).
  const df = new Int32Array(nTerms);
  const lastDoc = new Int32Array(nTerms).fill(-1);
  for (let d = 0; d < nDocs; d++) {
    const ids = encoded[d]!;
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      if (lastDoc[v] !== d) {
        lastDoc[v] = d;
        df[v]!++;
      }
    }
  }
  const postingStart = new Int32Array(nTerms + 1);
  for (let v = 0; v < nTerms; v++) postingStart[v + 1] = postingStart[v]! + df[v]!;

  // Pass 2: fill postings in document order, so each term's list is sorted by document.
  const nPostings = postingStart[nTerms]!;
  const postingDoc = new Int32Array(nPostings);
  const postingTf = new Float64Array(nPostings);
  const cursor = postingStart.slice(0, nTerms);
  lastDoc.fill(-1);
  const slotOf = new Int32Array(nTerms);
  for (let d = 0; d < nDocs; d++) {
    const ids = encoded[d]!;
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      if (lastDoc[v] !== d) {
        lastDoc[v] = d;
        const slot = cursor[v]!++;
        slotOf[v] = slot;
        postingDoc[slot] = d;
      }
      postingTf[slotOf[v]!]!++;
    }
  }

  const idf = new Float64Array(nTerms);
  for (let v = 0; v < nTerms; v++) {
    idf[v] = Math.log(1 + (nDocs - df[v]! + 0.5) / (df[v]! + 0.5));
  }

  return {
    k1,
    b,
    nDocs,
    avgDocLength,
    terms: vocabulary.terms,
    idf,
    postingStart,
    postingDoc,
    postingTf,
    docLength,
    docNorm,
  };
}

/** Writes the BM25 score of every document for `query` into `out[0..nDocs)`. */
export function scoreBm25(index: Bm25Index, query: readonly string[], out: Float64Array): void {
  const nDocs = index.nDocs;
  if (out.length < nDocs) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `scoreBm25: out has length ${out.length}, expected at least ${nDocs} (one slot per document)`,
    );
  }
  out.fill(0, 0, nDocs);
  const { idf, postingStart, postingDoc, postingTf, docNorm } = index;
  const k1p1 = index.k1 + 1;
  const vocabulary = { terms: index.terms };
  for (const token of query) {
    const v = termId(vocabulary, token);
    if (v < 0) continue;
    const w = idf[v]!;
    const end = postingStart[v + 1]!;
    for (let p = postingStart[v]!; p < end; p++) {
      const d = postingDoc[p]!;
      const tf = postingTf[p]!;
      out[d]! += (w * tf * k1p1) / (tf + docNorm[d]!);
    }
  }
}

/** Distinct query terms the index knows, in query order: empty means nothing can match. */
export function bm25MatchedTerms(index: Bm25Index, query: readonly string[]): string[] {
  const vocabulary = { terms: index.terms };
  const seen = new Set<string>();
  const matched: string[] = [];
  for (const token of query) {
    if (seen.has(token)) continue;
    seen.add(token);
    if (termId(vocabulary, token) >= 0) matched.push(token);
  }
  return matched;
}
