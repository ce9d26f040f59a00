/**
 * The tokens of the recorded intents, kept across model rebuilds. Every rebuild learns from all
 * intents, but the records are only ever appended (TransitionGraph.intents()), so each intent is
 * tokenised once: its tokens are kept as ids of a growing term list in one flat Int32Array
 * (4 bytes per token, plus the distinct terms once), and later rebuilds read them back.
 * Tokenising every intent again was 1.9 s of 15 s of rebuilds at 50,000 traces.
 *
 * Keyed by the records array itself (a WeakMap): a restored or rebuilt graph has a new array
 * and starts afresh, and the memory goes with the graph. An array changed other than by
 * appending (an intent that differs from the one logged, checked in O(records)) starts afresh too.
 *
 * A stored snapshot keeps the log (exportIntentTokens, graph-codec.ts), and a cold start
 * restores it for the restored records (restoreIntentTokens) instead of tokenising them again.
 *
 * The log also keeps the intent association's counts over its records (intent-counts.ts), so
 * that a rebuild counts only the records new since the last one.
 */
import type { StoredIntentTokens } from '../graph/graph-codec.js';
import type { IntentRecord } from '../graph/transition-graph.js';
import { grown } from '../graph/typed-arrays.js';
import { IntentCounts } from './intent-counts.js';
import { TOKENIZER_VERSION, tokenize } from './tokenize.js';
import { extendOrder } from './vocabulary.js';

class IntentTokenLog {
  /** The intent each logged record had, to notice a records array changed other than by appending. */
  readonly intents: string[] = [];
  readonly terms: string[] = [];
  readonly ids = new Map<string, number>();
  /** Tokens of record r: tokens[start[r] .. start[r + 1]). */
  start: Int32Array<ArrayBuffer> = new Int32Array(1025);
  tokens: Int32Array<ArrayBuffer> = new Int32Array(4096);
  count = 0;
  /** Every term id in code-unit order of its term, brought up to date when read (order()). */
  private sorted: Int32Array = new Int32Array(0);

  /** The association's counts over the records logged so far (countsUpTo). */
  private counts: IntentCounts | null = null;

  /**
   * The intent association's counts over records[0 .. upTo), counted once per record across
   * builds; null when a build has already counted past `upTo` (a build planned earlier that
   * finishes later), which then fits from scratch. Records up to `upTo` must be logged.
   */
  countsUpTo(records: readonly IntentRecord[], upTo: number): IntentCounts | null {
    const counts = (this.counts ??= new IntentCounts());
    if (counts.counted > upTo || this.count < upTo) return null;
    counts.addRecords(records, (r) => this.tokens.subarray(this.start[r]!, this.start[r + 1]!), counts.counted, upTo, this.terms.length);
    return counts;
  }

  /** internIds' `order` for the terms logged so far: only the terms new since the last call are sorted. */
  order(): Int32Array {
    this.sorted = extendOrder(this.terms, this.sorted);
    return this.sorted;
  }

  /** The log of `records`, all of them, as `stored` has their tokens (checked by restoreIntentTokens). */
  static of(records: readonly IntentRecord[], stored: StoredIntentTokens): IntentTokenLog {
    const log = new IntentTokenLog();
    for (const record of records) log.intents.push(record.intent);
    for (const term of stored.terms) {
      log.ids.set(term, log.terms.length);
      log.terms.push(term);
    }
    // Copied, with room to append: the stored arrays are views of the snapshot's bytes.
    log.start = new Int32Array(stored.start.length + 1024);
    log.start.set(stored.start);
    log.tokens = new Int32Array(stored.tokens.length + 4096);
    log.tokens.set(stored.tokens);
    log.count = records.length;
    return log;
  }

  /** Logs records[count .. upTo). */
  add(records: readonly IntentRecord[], upTo = records.length): void {
    for (let r = this.count; r < upTo; r++) {
      this.intents.push(records[r]!.intent);
      let end = this.start[r]!;
      for (const token of tokenize(records[r]!.intent)) {
        let id = this.ids.get(token);
        if (id === undefined) {
          id = this.terms.length;
          this.ids.set(token, id);
          this.terms.push(token);
        }
        if (end >= this.tokens.length) this.tokens = grown(this.tokens, this.tokens.length * 2);
        this.tokens[end++] = id;
      }
      if (r + 2 > this.start.length) this.start = grown(this.start, this.start.length * 2);
      this.start[r + 1] = end;
    }
    this.count = Math.max(this.count, upTo);
  }

  /** True when records[0 .. count) are the records logged (same intents, in order). */
  matches(records: readonly IntentRecord[]): boolean {
    if (records.length < this.count) return false;
    for (let r = 0; r < this.count; r++) if (records[r]!.intent !== this.intents[r]) return false;
    return true;
  }
}

const logs = new WeakMap<readonly IntentRecord[], IntentTokenLog>();

/**
 * The log of `records`, brought up to date to record `upTo`: records seen before are not
 * tokenised again.
 */
function logOf(records: readonly IntentRecord[], upTo = records.length): IntentTokenLog {
  let log = logs.get(records);
  if (log === undefined || !log.matches(records)) logs.set(records, (log = new IntentTokenLog()));
  log.add(records, upTo);
  return log;
}

/**
 * tokenize(record.intent) for every record, in order, as ids into `terms` (numbered in the
 * order the log met them: internIds in vocabulary.ts sorts them, in `order()`, which sorts only
 * the terms new since it was last read); records seen before are not tokenised again, and no
 * string array is built per record. `docs[r]` views the log: read it before the next call.
 */
export function intentTokenIds(records: readonly IntentRecord[]): IntentTokenIds {
  const log = logOf(records);
  const docs: Int32Array[] = new Array(records.length);
  for (let r = 0; r < records.length; r++) docs[r] = log.tokens.subarray(log.start[r]!, log.start[r + 1]!);
  return { terms: log.terms, docs, order: () => log.order(), counts: () => log.countsUpTo(records, docs.length) };
}

export interface IntentTokenIds {
  readonly terms: readonly string[];
  readonly docs: readonly Int32Array[];
  /** Every id of `terms` in code-unit order of its term, as the log has them when called. */
  readonly order: () => Int32Array;
  /** The association's counts over these records (IntentTokenLog.countsUpTo), or null. */
  readonly counts: () => IntentCounts | null;
}

/** Records tokenised between two checks of the clock in tokenizeIntentsInSlices. */
const SLICE_RECORDS = 256;

/**
 * Tokenises the records present now, for a later intentTokenIds to read, in slices of about
 * `sliceMs` between which the event loop runs: a cold start does it for the restored graph's
 * intents while its database opens on another thread, whose answers must not wait behind it. A
 * model built meanwhile tokenises the rest itself; this then finds nothing left to do.
 */
export async function tokenizeIntentsInSlices(records: readonly IntentRecord[], sliceMs = 4): Promise<void> {
  const end = records.length;
  const log = logOf(records, 0);
  // Checked once: comparing every logged intent again at each slice (logOf) was quadratic. A
  // read that finds the records changed other than by appending replaces the log; then stop.
  while (log.count < end && logs.get(records) === log) {
    const started = performance.now();
    while (log.count < end && performance.now() - started < sliceMs) log.add(records, Math.min(end, log.count + SLICE_RECORDS));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The tokens of every record in `records`, for a stored snapshot: the log of the last model
 * build, with any record added since tokenised now. Views of the log: encode them before the
 * next build.
 */
export function exportIntentTokens(records: readonly IntentRecord[]): StoredIntentTokens {
  const log = logOf(records);
  return { tokenizer: TOKENIZER_VERSION, terms: log.terms, start: log.start.subarray(0, log.count + 1), tokens: log.tokens.subarray(0, log.start[log.count]!) };
}

/** Records tokenised again to check a stored log (evenly spread, first and last included). */
const CHECKED_RECORDS = 64;

/**
 * Makes `stored` the log of `records` (a snapshot's restored records), so that no restored
 * intent is tokenised again. Only when it fits: the same tokenizer version, one entry per
 * record, distinct terms, and CHECKED_RECORDS records spread over the log tokenise to exactly
 * their stored tokens (a tokenizer changed without a new version is caught here, mostly).
 * Returns whether it was restored; if not, the records are tokenised as usual.
 */
export function restoreIntentTokens(records: readonly IntentRecord[], stored: StoredIntentTokens): boolean {
  const k = records.length;
  if (stored.tokenizer !== TOKENIZER_VERSION || stored.start.length !== k + 1 || new Set(stored.terms).size !== stored.terms.length) return false;
  const checked = Math.min(k, CHECKED_RECORDS);
  for (let i = 0; i < checked; i++) {
    const r = checked === k ? i : Math.round((i * (k - 1)) / (checked - 1));
    const expected = tokenize(records[r]!.intent);
    const from = stored.start[r]!;
    if (stored.start[r + 1]! - from !== expected.length) return false;
    for (let j = 0; j < expected.length; j++) if (stored.terms[stored.tokens[from + j]!] !== expected[j]) return false;
  }
  logs.set(records, IntentTokenLog.of(records, stored));
  return true;
}
