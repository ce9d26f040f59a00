/**
 * Term interning for the text indexes: each distinct term gets an integer id, so postings and
 * counts live in typed arrays and hot loops never touch a string.
 *
 *   intern: Map<term, provisional id> over all tokens, then ids renumbered in ascending
 *   code-unit order of the terms, so id(t) = rank of t in the sorted term list (internIds does
 *   the renumbering alone, for documents a log already holds as provisional ids).
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
  const ids: Int32Array[] = [];
  for (const doc of docs) {
    const row = new Int32Array(doc.length);
    for (let i = 0; i < doc.length; i++) {
      const token = doc[i]!;
      let id = provisional.get(token);
      if (id === undefined) {
        id = firstSeen.length;
        provisional.set(token, id);
        firstSeen.push(token);
      }
      row[i] = id;
    }
    ids.push(row);
  }
  return internIds(firstSeen, ids);
}

/**
 * internCorpus for documents already written as ids into a term list in any order (a log that
 * numbers terms as it meets them, intent-tokens.ts): the vocabulary is the terms the documents
 * use, sorted, and the documents are renumbered into it, with no string lookup per token.
 * Identical to internCorpus on the same tokens. O(T + V log V); O(T + V) with `order`, every id
 * of `terms` in code-unit order of its term (a log that keeps its terms sorted, TermLog).
 */
export function internIds(terms: readonly string[], docs: readonly Int32Array[], order?: Int32Array): InternedCorpus {
  const used = new Uint8Array(terms.length);
  for (const doc of docs) for (let i = 0; i < doc.length; i++) used[doc[i]!] = 1;
  const present: number[] = [];
  if (order === undefined) {
    for (let id = 0; id < terms.length; id++) if (used[id] === 1) present.push(id);
    present.sort((x, y) => compareCodeUnits(terms[x]!, terms[y]!));
  } else {
    if (order.length !== terms.length) throw new Error(`internIds: the order has ${order.length} ids for ${terms.length} terms`);
    for (let r = 0; r < order.length; r++) if (used[order[r]!] === 1) present.push(order[r]!);
  }
  const remap = new Int32Array(terms.length);
  for (let rank = 0; rank < present.length; rank++) remap[present[rank]!] = rank;
  const encoded: Int32Array[] = [];
  for (const doc of docs) {
    const ids = new Int32Array(doc.length);
    for (let i = 0; i < doc.length; i++) ids[i] = remap[doc[i]!]!;
    encoded.push(ids);
  }
  return { vocabulary: { terms: present.map((id) => terms[id]!) }, docs: encoded };
}

/**
 * The ids of `terms` in code-unit order of their terms, given that order for the first
 * `order.length` of them (a term list only appended to, such as a log's): the new terms are
 * sorted and each is placed by a binary search, so O(V + A log V) for A new terms instead of
 * O(V log V) string comparisons. Terms must be distinct. Returns `order` itself when nothing is new.
 */
export function extendOrder(terms: readonly string[], order: Int32Array): Int32Array {
  const known = order.length;
  if (known === terms.length) return order;
  const added: number[] = [];
  for (let id = known; id < terms.length; id++) added.push(id);
  added.sort((x, y) => compareCodeUnits(terms[x]!, terms[y]!));
  const out = new Int32Array(terms.length);
  let from = 0;
  let at = 0;
  for (const id of added) {
    const term = terms[id]!;
    let lo = from;
    let hi = known;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (terms[order[mid]!]! < term) lo = mid + 1;
      else hi = mid;
    }
    out.set(order.subarray(from, lo), at);
    at += lo - from;
    from = lo;
    out[at++] = id;
  }
  out.set(order.subarray(from), at);
  return out;
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
