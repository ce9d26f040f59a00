/**
 * The intent association's counts (intent-association.ts) kept across model rebuilds. Every
 * rebuild fits the association to all recorded intents, but the records are only appended, so
 * each record is counted once, when a rebuild first sees it, and a rebuild only lays the counts
 * out: O(postings + tools) instead of O(credited tokens) with a sort of every term's tools. At
 * 45,000 intents over 10,000 tools the fit was 40-70 ms of every rebuild.
 *
 *   per record   evidence n(t) += 1 and C(t) += |intent| for each distinct tool t it called;
 *                its distinct tools appended to the examples' CSR
 *   per token    c(t, w) += 1 for each of those tools, in w's postings: a sorted part, found by
 *                binary search, and a map of the tools new to w since the last layout, merged
 *                into the sorted part when the model is laid out (a term gains few new tools
 *                between two rebuilds)
 *
 * Terms are the token log's ids (intent-tokens.ts, numbered as met), laid out in the code-unit
 * order the log keeps, so the model is exactly the one fitIntentAssociationInterned fits to the
 * same records (tested).
 */
import { grown } from '../graph/typed-arrays.js';
import { toolLogTerms, type IntentModel } from './intent-model.js';

/** One term's postings: tools[0 .. size) ascending with their counts, then the tools new to it. */
class TermPostings {
  tools = new Int32Array(4);
  counts = new Float64Array(4);
  size = 0;
  /** Tools first met since the last settle(), with their counts (all of them at a first build). */
  readonly tail = new Map<number, number>();

  /** Counts one more use of the term by `tool`; true when the tool is new to the tail. */
  add(tool: number): boolean {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const probe = this.tools[mid]!;
      if (probe < tool) lo = mid + 1;
      else if (probe > tool) hi = mid - 1;
      else {
        this.counts[mid]! += 1;
        return false;
      }
    }
    const count = this.tail.get(tool);
    this.tail.set(tool, (count ?? 0) + 1);
    return count === undefined;
  }

  /** Merges the tail into the sorted part. */
  settle(): void {
    if (this.tail.size === 0) return;
    const added = Int32Array.from(this.tail.keys()).sort();
    const counts = new Float64Array(added.length);
    for (let j = 0; j < added.length; j++) counts[j] = this.tail.get(added[j]!)!;
    this.tail.clear();
    this.merge(added, counts);
  }

  /** Adds `counts[j]` uses by `tools[j]`, ascending distinct tools: O(size + k). The tail must be empty. */
  merge(added: Int32Array, addedCounts: Float64Array): void {
    const k = added.length;
    let fresh = 0;
    for (let i = 0, j = 0; j < k; ) {
      if (i < this.size && this.tools[i]! < added[j]!) i++;
      else {
        if (i >= this.size || this.tools[i]! !== added[j]!) fresh++;
        j++;
      }
    }
    const n = this.size + fresh;
    const tools = n <= this.tools.length ? this.tools : new Int32Array(n + (n >> 1));
    const counts = n <= this.tools.length ? this.counts : new Float64Array(tools.length);
    // From the back, so that merging in place (room to spare) never overwrites what is still to be read.
    let i = this.size - 1;
    let j = k - 1;
    for (let out = n - 1; out >= 0; out--) {
      if (j < 0 || (i >= 0 && this.tools[i]! > added[j]!)) {
        tools[out] = this.tools[i]!;
        counts[out] = this.counts[i--]!;
      } else if (i >= 0 && this.tools[i] === added[j]) {
        tools[out] = added[j]!;
        counts[out] = this.counts[i--]! + addedCounts[j--]!;
      } else {
        tools[out] = added[j]!;
        counts[out] = addedCounts[j--]!;
      }
    }
    this.tools = tools;
    this.counts = counts;
    this.size = n;
  }
}

/** Records from which addRecords counts by counting sorts instead of one at a time. */
const BULK_RECORDS = 2_048;

/** The association without its examples' BM25 index, which the caller builds (intent-association.ts). */
export type IntentCountsModel = Omit<IntentModel, 'examples' | 'terms'>;

export class IntentCounts {
  /** Records counted: records[0 .. counted). */
  counted = 0;
  /** A record that credited no tool was met: the fit refuses those, so these counts cannot fit. */
  refused = false;
  /** The largest tool index credited, -1 for none: a model needs more tools than that. */
  maxTool = -1;
  private evidence = new Float64Array(1024);
  private tokenTotal = new Float64Array(1024);
  private exampleToolStart = new Int32Array(1025);
  private exampleTool = new Int32Array(4096);
  private readonly postings: (TermPostings | undefined)[] = [];
  /** Terms whose tail is not empty. */
  private readonly unsettled: TermPostings[] = [];

  /**
   * Counts records[from .. to) given each one's intent as term ids (`tokensOf`): one at a time
   * for a few, as a rebuild after some new traces has them; in one pass of counting sorts for
   * many, as a first build has all of them.
   */
  addRecords(records: readonly { readonly tools: readonly number[] }[], tokensOf: (r: number) => Int32Array, from: number, to: number, nTerms: number): void {
    if (to - from < BULK_RECORDS) {
      for (let r = from; r < to; r++) this.add(records[r]!.tools, tokensOf(r));
      return;
    }
    // Pairs (term occurrence, credited tool) bucketed by term, each bucket folded into its
    // distinct tools, ascending, with a dense counter: as the fit from scratch does.
    const first = this.counted;
    const pairStart = new Int32Array(nTerms + 1);
    for (let r = from; r < to; r++) {
      const ids = tokensOf(r);
      const width = this.credit(records[r]!.tools, ids.length);
      for (let i = 0; i < ids.length; i++) pairStart[ids[i]! + 1]! += width;
    }
    for (let v = 0; v < nTerms; v++) pairStart[v + 1]! += pairStart[v]!;
    const pairTool = new Int32Array(pairStart[nTerms]!);
    const cursor = pairStart.slice(0, nTerms);
    for (let r = from; r < to; r++) {
      const ids = tokensOf(r);
      const start = this.exampleToolStart[first + r - from]!;
      const end = this.exampleToolStart[first + r - from + 1]!;
      for (let i = 0; i < ids.length; i++) {
        let p = cursor[ids[i]!]!;
        for (let t = start; t < end; t++) pairTool[p++] = this.exampleTool[t]!;
        cursor[ids[i]!] = p;
      }
    }
    const count = new Float64Array(this.maxTool + 1);
    const distinct = new Int32Array(this.maxTool + 1);
    for (let v = 0; v < nTerms; v++) {
      if (pairStart[v] === pairStart[v + 1]) continue;
      let k = 0;
      for (let p = pairStart[v]!; p < pairStart[v + 1]!; p++) {
        const tool = pairTool[p]!;
        if (count[tool] === 0) distinct[k++] = tool;
        count[tool]! += 1;
      }
      const tools = distinct.slice(0, k).sort();
      const counts = new Float64Array(k);
      for (let j = 0; j < k; j++) {
        counts[j] = count[tools[j]!]!;
        count[tools[j]!] = 0;
      }
      const postings = this.postingsOf(v);
      postings.settle();
      postings.merge(tools, counts);
    }
  }

  /** Counts the next record: its distinct tools (repeats are skipped) and its intent's term ids. */
  private add(tools: readonly number[], tokens: Int32Array): void {
    const width = this.credit(tools, tokens.length);
    const end = this.exampleToolStart[this.counted]!;
    for (let i = 0; i < tokens.length; i++) {
      const postings = this.postingsOf(tokens[i]!);
      for (let p = end - width; p < end; p++) {
        if (postings.add(this.exampleTool[p]!) && postings.tail.size === 1) this.unsettled.push(postings);
      }
    }
  }

  /** Appends the next record's distinct tools to the examples and credits them; returns how many. */
  private credit(tools: readonly number[], nTokens: number): number {
    const e = this.counted++;
    if (tools.length === 0) this.refused = true;
    const start = this.exampleToolStart[e]!;
    if (start + tools.length > this.exampleTool.length) this.exampleTool = grown(this.exampleTool, 2 * (start + tools.length));
    let end = start;
    for (const tool of tools) {
      let seen = false;
      for (let p = start; p < end && !seen; p++) seen = this.exampleTool[p] === tool;
      if (seen) continue;
      this.exampleTool[end++] = tool;
      if (tool > this.maxTool) this.maxTool = tool;
      if (tool >= this.evidence.length) {
        this.evidence = grown(this.evidence, 2 * (tool + 1));
        this.tokenTotal = grown(this.tokenTotal, this.evidence.length);
      }
      this.evidence[tool]! += 1;
      this.tokenTotal[tool]! += nTokens;
    }
    if (e + 2 > this.exampleToolStart.length) this.exampleToolStart = grown(this.exampleToolStart, 2 * (e + 2));
    this.exampleToolStart[e + 1] = end;
    return end - start;
  }

  private postingsOf(term: number): TermPostings {
    let postings = this.postings[term];
    if (postings === undefined) {
      while (this.postings.length <= term) this.postings.push(undefined);
      this.postings[term] = postings = new TermPostings();
    }
    return postings;
  }

  /**
   * The association over the records counted, for `nTools` tools and smoothing alpha. `order`
   * is every term id of the log in code-unit order of its term (TermLog's order), `nTerms` the
   * number of distinct terms the counted intents use: the vocabulary the caller's examples
   * index has, which this layout must match (checked).
   */
  model(nTools: number, order: Int32Array, nTerms: number, smoothing: number): IntentCountsModel {
    for (const postings of this.unsettled) postings.settle();
    this.unsettled.length = 0;
    const postingStart = new Int32Array(nTerms + 1);
    let rank = 0;
    for (let r = 0; r < order.length; r++) {
      const postings = this.postings[order[r]!];
      if (postings === undefined || postings.size === 0) continue;
      if (rank === nTerms) throw new Error(`IntentCounts: the counted intents use more than the ${nTerms} terms given`);
      postingStart[rank + 1] = postingStart[rank]! + postings.size;
      rank++;
    }
    if (rank !== nTerms) throw new Error(`IntentCounts: the counted intents use ${rank} terms, not ${nTerms}`);
    const postingTool = new Int32Array(postingStart[nTerms]!);
    const postingWeight = new Float64Array(postingTool.length);
    rank = 0;
    for (let r = 0; r < order.length; r++) {
      const postings = this.postings[order[r]!];
      if (postings === undefined || postings.size === 0) continue;
      const at = postingStart[rank++]!;
      postingTool.set(postings.tools.subarray(0, postings.size), at);
      for (let p = 0; p < postings.size; p++) postingWeight[at + p] = Math.log1p(postings.counts[p]! / smoothing);
    }

    const evidence = new Float64Array(nTools);
    const tokenTotal = new Float64Array(nTools);
    evidence.set(this.evidence.subarray(0, Math.min(nTools, this.evidence.length)));
    tokenTotal.set(this.tokenTotal.subarray(0, Math.min(nTools, this.tokenTotal.length)));
    const { logPrior, logDenominator } = toolLogTerms(evidence, tokenTotal, nTerms, smoothing);
    const n = this.counted;
    return {
      nTools,
      smoothing,
      evidence,
      logPrior,
      logDenominator,
      tokenTotal,
      postingStart,
      postingTool,
      postingWeight,
      exampleToolStart: this.exampleToolStart.slice(0, n + 1),
      exampleTool: this.exampleTool.slice(0, this.exampleToolStart[n]!),
    };
  }
}
