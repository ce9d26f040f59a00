import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import type { IntentRecord } from '../../src/graph/transition-graph.js';
import { exportIntentTokens, intentTokenIds, restoreIntentTokens, tokenizeIntentsInSlices } from '../../src/text/intent-tokens.js';
import * as tokenizer from '../../src/text/tokenize.js';
import { tokenize } from '../../src/text/tokenize.js';
import { vi } from 'vitest';

const WORDS = ['book', 'a', 'hotel', 'in', 'Rome', '__proto__', 'constructor', 'getWeatherForecast', 'flights', 'to', 'Zürich', 'running', 'ran'];

function record(rng: () => number): IntentRecord {
  const words = Array.from({ length: Math.floor(rng() * 9) }, () => WORDS[Math.floor(rng() * WORDS.length)]!);
  return { intent: words.join(' '), tools: [0], sequence: [0] };
}

/** The logged tokens read back as strings. */
function intentTokens(records: readonly IntentRecord[]): string[][] {
  const { terms, docs } = intentTokenIds(records);
  return docs.map((ids) => Array.from(ids, (id) => terms[id]!));
}

describe('intentTokenIds', () => {
  it('is tokenize of every record as records are appended, past every growth of the log', () => {
    const rng = createRng(3);
    const records: IntentRecord[] = [];
    for (const batch of [1, 700, 1_500, 3_000]) {
      for (let i = 0; i < batch; i++) records.push(record(rng));
      expect(intentTokens(records)).toEqual(records.map((r) => tokenize(r.intent)));
    }
  });

  it('starts afresh for another array, and for one that shrank', () => {
    const a: IntentRecord[] = [{ intent: 'book a hotel', tools: [0], sequence: [0] }];
    expect(intentTokens(a)).toEqual([tokenize('book a hotel')]);
    const b: IntentRecord[] = [{ intent: 'weather in Oslo', tools: [0], sequence: [0] }];
    expect(intentTokens(b)).toEqual([tokenize('weather in Oslo')]);
    a.length = 0;
    a.push({ intent: 'flights to Rome', tools: [0], sequence: [0] });
    a.push({ intent: 'constructor __proto__', tools: [0], sequence: [0] });
    // Longer than before, but not by appending: the first record changed, so nothing logged is trusted.
    expect(intentTokens(a)).toEqual([tokenize('flights to Rome'), tokenize('constructor __proto__')]);
  });

  it('tokenises in slices between which the event loop runs, then leaves exactly what a one-shot log holds', async () => {
    const rng = createRng(5);
    const records: IntentRecord[] = Array.from({ length: 20_000 }, () => record(rng));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await tokenizeIntentsInSlices(records, 1);
    clearInterval(ticker);
    // 20,000 records take more than a few 1 ms slices: timers ran in between.
    expect(turns).toBeGreaterThan(1);
    // Records appended afterwards are tokenised by the next read, as always.
    for (let i = 0; i < 500; i++) records.push(record(rng));
    expect(intentTokens(records)).toEqual(records.map((r) => tokenize(r.intent)));
  });

  it('lets a read complete a sliced tokenisation still under way, and the slices then stop', async () => {
    const rng = createRng(6);
    const records: IntentRecord[] = Array.from({ length: 20_000 }, () => record(rng));
    const sliced = tokenizeIntentsInSlices(records, 1);
    expect(intentTokens(records)).toEqual(records.map((r) => tokenize(r.intent)));
    await sliced;
    expect(intentTokens(records)).toEqual(records.map((r) => tokenize(r.intent)));
  });
});

describe('stored intent tokens', () => {
  /** `records` copied as a restored graph has them: another array, the same intents. */
  const copy = (records: readonly IntentRecord[]): IntentRecord[] => records.map((r) => ({ ...r }));

  it('restores the log of a copy of the records: the same tokens, no record tokenised past the check, and appends go on', () => {
    const rng = createRng(21);
    const records = Array.from({ length: 2_000 }, () => record(rng));
    const stored = exportIntentTokens(records);
    expect(stored.tokenizer).toBe(tokenizer.TOKENIZER_VERSION);
    const restored = copy(records);
    const spy = vi.spyOn(tokenizer, 'tokenize');
    try {
      expect(restoreIntentTokens(restored, stored)).toBe(true);
      // The check tokenises 64 records spread over the log; reading them back tokenises none.
      expect(spy.mock.calls.length).toBe(64);
      spy.mockClear();
      expect(intentTokens(restored)).toEqual(records.map((r) => tokenize(r.intent)));
      spy.mockClear();
      intentTokenIds(restored);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    restored.push({ intent: 'getWeatherForecast in Zürich', tools: [0], sequence: [0] }, ...Array.from({ length: 3_000 }, () => record(rng)));
    expect(intentTokens(restored)).toEqual(restored.map((r) => tokenize(r.intent)));
  });

  it('refuses a log of another tokenizer, of other records, or whose tokens the check finds wrong', () => {
    const rng = createRng(22);
    const records = Array.from({ length: 500 }, () => record(rng));
    const stored = exportIntentTokens(records);
    expect(restoreIntentTokens(copy(records), { ...stored, tokenizer: 'tokenize-0' })).toBe(false);
    expect(restoreIntentTokens(copy(records).slice(1), stored)).toBe(false);
    expect(restoreIntentTokens(copy(records), { ...stored, terms: [...stored.terms.slice(0, -1), stored.terms[0]!] })).toBe(false);
    // The last record is always checked: its intent changed, its stored tokens no longer fit.
    const changed = copy(records);
    changed[changed.length - 1] = { intent: 'flights to Rome constructor', tools: [0], sequence: [0] };
    expect(restoreIntentTokens(changed, stored)).toBe(false);
    // Refused logs leave the records to be tokenised as usual.
    expect(intentTokens(changed)).toEqual(changed.map((r) => tokenize(r.intent)));
  });
});
