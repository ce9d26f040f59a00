/**
 * Term interning for the text indexes: each distinct term gets an integer id, so postings and
 * counts live in typed arrays and hot loops never touch a string.
 *
 *   intern: Map<term, provisional id> over all tokens, then ids renumbered in ascending
 *   code-unit order of the terms, so id(t) = rank of t in the sorted term list.
 *   lookup: binary search in the sorted term list.
 *
 * Why sorted ids: the vocabulary is then one plain `string[]` (JSON-serialisable with the index
 * that holds it, no Map to rebuild on load), lookups need no cache, and ids do not depend on the
 * order the documents arrived in. Terms are untrusted ('__proto__', any Unicode), hence a Map
 * while interning and never a plain object.
 *
 * Complexity: interning O(T + V log V) for T tokens and V distinct terms; lookup O(log V)
 * string comparisons.
 *
 * Reference: Manning, Raghavan, Schuetze, "Introduction to Information Retrieval", 2008, ch. 1
 * (dictionary and postings) and ch. 3.1 (search structures for dictionaries).
 */

/** Distinct terms in ascending code-unit order; a term's id is its position. */
export interface Vocabulary {
  readonly terms: readonly string[];
}

/** A corpus with every document rewritten as term ids of its vocabulary. */
export interface InternedCorpus {
  readonly vocabulary: Vocabulary;
  readonly docs: readonly Int32Array[];
}

/** Code-unit order, the same order `termId` searches in (not locale order, which varies). */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Interns every token of every document; returns the vocabulary and the documents as ids. */
export function internCorpus(docs: readonly (readonly string[])[]): InternedCorpus {
  const provisional = new Map<string, number>();
  const firstSeen: string[] = [];
  for (const doc of docs) {
    for (const token of doc) {
      if (!provisional.has(token)) {
        provisional.set(token, firstSeen.length);
        firstSeen.push(token);
      }
    }
  }
  const terms = firstSeen.slice().sort(compareCodeUnits);
  const remap = new Int32Array(terms.length);
  for (let id = 0; id < terms.length; id++) remap[provisional.get(terms[id]!)!] = id;

  const encoded: Int32Array[] = [];
  for (const doc of docs) {
    const ids = new Int32Array(doc.length);
    for (let i = 0; i < doc.length; i++) ids[i] = remap[provisional.get(doc[i]!)!]!;
    encoded.push(ids);
  }
  return { vocabulary: { terms }, docs: encoded };
}

/** Id of `term` in `vocabulary`, or -1 when the term is unknown. */
export function termId(vocabulary: Vocabulary, term: string): number {
  const terms = vocabulary.terms;
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const probe = terms[mid]!;
    if (probe < term) lo = mid + 1;
    else if (probe > term) hi = mid - 1;
    else return mid;
  }
  return -1;
}
