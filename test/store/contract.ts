/**
 * The contract every Store implementation passes (hono-style: one suite, run against each).
 * `harness.fresh()` gives an empty, migrated store no other test sees; `harness.reopen(store)`
 * closes it and opens the same data again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNALS } from '../../src/recommend/features.js';
import { PRIOR_WEIGHTS, type FittedWeights } from '../../src/recommend/model.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import { applyConfidenceEvent, createPatternConfidence } from '../../src/scoring/pattern-confidence.js';
import { iterateTraces, type Store } from '../../src/store/store.js';
import { rejectionOf } from '../helpers/expect-code.js';

export interface StoreHarness {
  fresh(): Promise<Store>;
  reopen(store: Store): Promise<Store>;
}

export function trace(id: string, tools: readonly string[], extra: Partial<Omit<Trace, 'id' | 'steps'>> = {}): Trace {
  return {
    id,
    intent: extra.intent ?? '',
    domain: extra.domain ?? '',
    steps: tools.map((tool) => ({ tool, ok: true })),
    success: extra.success ?? true,
    timestamp: extra.timestamp ?? 1_000,
    ...(extra.idSource === undefined ? {} : { idSource: extra.idSource }),
  };
}


async function allTraces(store: Store): Promise<Trace[]> {
  const out: Trace[] = [];
  for await (const item of iterateTraces(store, 0, 7)) out.push(item.trace);
  return out;
}

// Names that break naive code: prototype keys, astral emoji, right-to-left text, a backslash,
// SQL quoting, and the longest allowed name.
export const HOSTILE_NAMES = ['__proto__', 'constructor', '🛠️ tool 🚀', 'أداة', 'a\\b', "o'brien\"; DROP TABLE tools; --", 'x'.repeat(1_024)];

export function storeContract(name: string, harness: StoreHarness): void {
  describe(`${name}: Store contract`, () => {
    const open: Store[] = [];
    const fresh = async (): Promise<Store> => {
      const store = await harness.fresh();
      open.push(store);
      return store;
    };
    const reopen = async (store: Store): Promise<Store> => {
      const again = await harness.reopen(store);
      open.push(again);
      return again;
    };
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    it('starts empty at the latest schema version; migrate is idempotent', async () => {
      const store = await fresh();
      expect(await store.migrate()).toEqual({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
      expect(await store.stats()).toEqual({
        kind: store.kind,
        schemaVersion: LATEST_SCHEMA_VERSION,
        tools: 0,
        capabilities: 0,
        traces: 0,
        transitions: 0,
        lastSeq: 0,
        patterns: 0,
        snapshotSeq: null,
      });
      expect(await store.listTools()).toEqual([]);
      expect(await store.getWeights()).toBeNull();
      expect(await store.tracesSince(0)).toEqual({ traces: [], lastSeq: 0 });
      expect(await store.appendTraces([])).toEqual({ inserted: 0, duplicates: 0, lastSeq: 0, previousSeq: 0, stored: [] });
      expect(await store.listPatterns()).toEqual([]);
      expect(await store.getSnapshot()).toBeNull();
    });

    it('appends traces in order and pages them back by seq', async () => {
      const store = await fresh();
      const batch = [trace('a', ['x', 'y']), trace('b', ['y', 'z'], { intent: 'find', domain: 'd', success: false, timestamp: 5.5 }), trace('c', ['z'])];
      const result = await store.appendTraces(batch);
      expect(result).toMatchObject({ inserted: 3, duplicates: 0, previousSeq: 0 });
      // What was stored comes back in seq order, as tracesSince would read it.
      expect(result.stored.map((s) => s.trace)).toEqual(batch);
      expect(result.stored[2]!.seq).toBe(result.lastSeq);
      const page1 = await store.tracesSince(0, 2);
      expect(page1.traces.map((t) => t.trace)).toEqual(batch.slice(0, 2));
      const page2 = await store.tracesSince(page1.lastSeq, 2);
      expect(page2.traces.map((t) => t.trace)).toEqual(batch.slice(2));
      expect(page2.lastSeq).toBe(result.lastSeq);
      expect(await store.tracesSince(result.lastSeq)).toEqual({ traces: [], lastSeq: result.lastSeq });
      const seqs = [...page1.traces, ...page2.traces].map((t) => t.seq);
      expect(seqs).toEqual([...seqs].sort((p, q) => p - q));
      expect(new Set(seqs).size).toBe(3);

      const next = await store.appendTraces([trace('d', ['x'])]);
      expect(next.lastSeq).toBeGreaterThan(result.lastSeq);
      expect((await store.tracesSince(result.lastSeq)).traces.map((t) => t.trace.id)).toEqual(['d']);

      // Past ten rows, seq order is numeric order (9 before 10), page after page.
      const more = Array.from({ length: 30 }, (_, i) => trace(`m${i}`, ['x']));
      await store.appendTraces(more);
      const all = [];
      for await (const item of iterateTraces(store, 0, 4)) all.push(item);
      expect(all.map((t) => t.trace.id)).toEqual(['a', 'b', 'c', 'd', ...more.map((t) => t.id)]);
      expect(all.map((t) => t.seq)).toEqual(all.map((t) => t.seq).sort((p, q) => p - q));
    });

    it('re-sending a caller id is idempotent, within a batch and across batches', async () => {
      const store = await fresh();
      const first = await store.appendTraces([trace('r1', ['a', 'b']), trace('r2', ['b', 'c']), trace('r1', ['a', 'b'])]);
      expect(first).toMatchObject({ inserted: 2, duplicates: 1 });
      const transitions = await store.listTransitions();
      const retry = await store.appendTraces([trace('r2', ['b', 'c']), trace('r1', ['a', 'b']), trace('r3', ['c'], { idSource: 'caller' })]);
      expect(retry).toMatchObject({ inserted: 1, duplicates: 2 });
      expect(retry.lastSeq).toBeGreaterThan(first.lastSeq);
      expect((await allTraces(store)).map((t) => t.id)).toEqual(['r1', 'r2', 'r3']);
      expect(await store.listTransitions()).toEqual(transitions);
      // Nothing new: the same lastSeq comes back.
      expect(await store.appendTraces([trace('r3', ['c'])])).toEqual({
        inserted: 0,
        duplicates: 1,
        lastSeq: retry.lastSeq,
        previousSeq: retry.lastSeq,
        stored: [],
      });
    });

    it('a repeated content-hash id is a second observation, stored as id#2, id#3 like the facade', async () => {
      const store = await fresh();
      const t = trace('trace:abc', ['a', 'b'], { idSource: 'content' });
      expect(await store.appendTraces([t, t])).toMatchObject({ inserted: 2, duplicates: 0 });
      expect(await store.appendTraces([t])).toMatchObject({ inserted: 1, duplicates: 0 });
      const ids = (await allTraces(store)).map((x) => x.id);
      expect(ids).toEqual(['trace:abc', 'trace:abc#2', 'trace:abc#3']);
      const again = await store.appendTraces([t]);
      expect(again.stored.map((s) => [s.seq, s.trace.id])).toEqual([[again.lastSeq, 'trace:abc#4']]);
      expect(again.previousSeq).toBeLessThan(again.lastSeq);
      expect(await store.listTransitions()).toEqual([{ from: 'a', to: 'b', count: 4, successes: 4, failures: 0, lastSeen: 1_000 }]);
    });

    it('keeps transition statistics consistent with the traces (hand-computed)', async () => {
      const store = await fresh();
      await store.appendTraces([
        trace('1', ['a', 'b', 'c'], { timestamp: 10 }),
        trace('2', ['a', 'b'], { success: false, timestamp: 30 }),
        { ...trace('3', ['a', 'b', 'a'], { timestamp: 20 }), steps: [{ tool: 'a', ok: true }, { tool: 'b', ok: false }, { tool: 'a', ok: true }] },
      ]);
      // a->b: traces 1 (ok), 2 (failed trace), 3 (step b failed) => 3 uses, 1 success, 2 failures.
      expect(await store.listTransitions()).toEqual([
        { from: 'a', to: 'b', count: 3, successes: 1, failures: 2, lastSeen: 30 },
        { from: 'b', to: 'a', count: 1, successes: 1, failures: 0, lastSeen: 20 },
        { from: 'b', to: 'c', count: 1, successes: 1, failures: 0, lastSeen: 10 },
      ]);
      expect((await store.stats()).transitions).toBe(3);
    });

    it('folds transitions after the appends: each trace exactly once, however reads and folds interleave', async () => {
      const store = await fresh();
      const batches = Array.from({ length: 5 }, (_, b) =>
        Array.from({ length: 40 }, (_, i) => trace(`f${b}-${i}`, ['a', i % 2 === 0 ? 'b' : 'c', 'd'], { success: i % 5 !== 0, timestamp: b * 100 + i })),
      );
      await store.appendTraces(batches[0]!);
      expect(await store.foldTransitions()).toBe(40);
      expect(await store.foldTransitions()).toBe(0);
      await store.appendTraces(batches[1]!);
      await store.appendTraces(batches[2]!);
      expect((await store.stats()).transitions).toBe(4); // stats folds first: a->b, a->c, b->d, c->d
      // Folds beside appends (on PostgreSQL, on other connections) never count a trace twice.
      await Promise.all([store.appendTraces(batches[3]!), store.foldTransitions(), store.appendTraces(batches[4]!), store.foldTransitions()]);
      expect(await store.listTransitions()).toEqual([
        { from: 'a', to: 'b', count: 100, successes: 80, failures: 20, lastSeen: 438 },
        { from: 'a', to: 'c', count: 100, successes: 80, failures: 20, lastSeen: 439 },
        { from: 'b', to: 'd', count: 100, successes: 80, failures: 20, lastSeen: 438 },
        { from: 'c', to: 'd', count: 100, successes: 80, failures: 20, lastSeen: 439 },
      ]);
      expect(await store.foldTransitions()).toBe(0);
    });

    it('a batch is all or nothing: a value the database rejects mid-batch leaves nothing behind', async () => {
      const store = await fresh();
      await store.appendTraces([trace('before', ['p', 'q'])]);
      const batch = Array.from({ length: 6_000 }, (_, i) => trace(`bad-${i}`, ['p', 'q']));
      // Past the first statement's 5,000 rows, so rows were already inserted when the server
      // rejects this one (a CHECK on the timestamp range).
      batch[5_500] = { ...batch[5_500]!, timestamp: -1 };
      const error = await rejectionOf(store.appendTraces(batch));
      expect(error.code, error.message).toBe('INVALID_INPUT');
      expect(error.message).toMatch(/^appendTraces: /);
      const stats = await store.stats();
      expect(stats.traces).toBe(1);
      expect(await store.listTransitions()).toEqual([{ from: 'p', to: 'q', count: 1, successes: 1, failures: 0, lastSeen: 1_000 }]);
      // The store is still usable and the failed ids are free.
      expect(await store.appendTraces([trace('bad-0', ['p'])])).toMatchObject({ inserted: 1 });
    });

    it('round-trips hostile names and text: prototype keys, emoji, 1,024 characters, NUL, lone surrogates', async () => {
      const store = await fresh();
      const tools: ToolInfo[] = HOSTILE_NAMES.map((n, i) => ({
        name: n,
        description: i === 0 ? 'nul \u0000 inside, lone \ud800 surrogate, quote \'"' : `tool ${i}`,
        params: [{ name: '__proto__', type: 'object', description: '\\u0000 literal', required: true }],
        // Declared outputs (data flow for DAG suggestion) are kept too, hostile names included.
        ...(i % 2 === 0 ? { outputs: ['__proto__', `out ${i}`] } : {}),
        // And the named types a tool returns.
        ...(i % 3 === 0 ? { outputTypes: ['Airport', '__proto__'] } : {}),
      }));
      await store.putTools(tools);
      expect(await store.listTools()).toEqual(tools);

      const odd = [
        trace('id \u0000 nul', HOSTILE_NAMES, { intent: 'intent \u0000 \udc00 🛠️', domain: 'dom\u0000ain' }),
        trace('id \\0 nul', ['__proto__', '__proto__']),
        trace('id \ud800', ['a\\b', 'a\\\\b']),
        trace('id \udc00', ['🛠️ tool 🚀']),
      ];
      expect(await store.appendTraces(odd)).toMatchObject({ inserted: 4, duplicates: 0 });
      expect(await allTraces(store)).toEqual(odd);
      // Distinct ids stay distinct (no collision through escaping or U+FFFD), and stay idempotent.
      expect(await store.appendTraces(odd)).toMatchObject({ inserted: 0, duplicates: 4 });
      const edges = await store.listTransitions();
      const names = new Set(edges.flatMap((e) => [e.from, e.to]));
      for (const n of [...HOSTILE_NAMES, 'a\\\\b']) expect(names.has(n)).toBe(true);
      expect(edges.find((e) => e.from === '__proto__' && e.to === '__proto__')?.count).toBe(1);
    });

    it('refuses a catalogue write past maxTotal whole, counting what is already stored', async () => {
      const store = await fresh();
      const tool = (name: string) => ({ name, description: '', params: [] });
      await store.putTools([tool('a'), tool('b')], { maxTotal: 3 });
      // A replaced entry does not count twice; one new entry fits, two do not.
      await store.putTools([tool('b'), tool('c')], { maxTotal: 3 });
      const error = await rejectionOf(store.putTools([tool('a'), tool('d'), tool('e')], { maxTotal: 3 }));
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.message).toContain('would hold 5 tools, the limit is 3');
      expect((await store.listTools()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
      // Without the option nothing is counted: what a store holds is never refused on read.
      await store.putTools([tool('d'), tool('e')]);
      expect(await store.stats()).toMatchObject({ tools: 5 });
    });

    it('replaces tools and capabilities by key', async () => {
      const store = await fresh();
      await store.putTools([{ name: 'b', description: 'old', params: [] }, { name: 'a', description: 'A', params: [] }]);
      await store.putTools([{ name: 'b', description: 'new', params: [] }, { name: 'b', description: 'newest', params: [] }, { name: 'c', description: 'C', params: [] }]);
      // In the order each name was first stored (a replaced one keeps its place): the order
      // tools get their graph indices in, as in memory.
      expect(await store.listTools()).toEqual([
        { name: 'b', description: 'newest', params: [] },
        { name: 'a', description: 'A', params: [] },
        { name: 'c', description: 'C', params: [] },
      ]);
      const cap = (id: string, description: string, tools: string[], extra: object = {}) => ({ id, description, tools, ordered: true, successes: 0, failures: 0, ...extra });
      await store.putCapabilities([cap('cap:search', 'find things', ['a', 'b', 'a']), cap('__proto__', '', [], { ordered: false, code: 'f()\u0000', failures: 3 })]);
      await store.putCapabilities([cap('cap:search', 'find', ['b']), cap('a-new', 'new', ['a'])]);
      // In the order each id was first stored (a replaced one keeps its place), every field kept.
      expect(await store.listCapabilities()).toEqual([
        cap('cap:search', 'find', ['b']),
        cap('__proto__', '', [], { ordered: false, code: 'f()\u0000', failures: 3 }),
        cap('a-new', 'new', ['a']),
      ]);
      expect(await store.stats()).toMatchObject({ tools: 3, capabilities: 3 });
    });

    it('stores weights; the latest wins', async () => {
      const store = await fresh();
      await store.putWeights(PRIOR_WEIGHTS);
      expect(await store.getWeights()).toEqual(PRIOR_WEIGHTS);
      const noMatch = { coverage: [0.1, 0.35, 1], similarity: [0, 0.2, 0.9], confidence: [0.05, 0.6], threshold: -7.25, wordsThreshold: -5.5 };
      const vector = (k: number) => SIGNALS.map((_, f) => (f * k) / 7 - 1.25);
      const fitted: FittedWeights = {
        next: vector(1),
        nextNoIntent: vector(2).map((w, f) => (f === 1 ? 1e-9 : w)),
        search: vector(3),
        noMatch,
        stepCalibration: { upper: [0.01, 0.4, 1], value: [0.31, 0.62, 0.9] },
        dagStatus: { threshold: 0.71, target: 0.8, nodeF1: 0.83, share: 0.64 },
        source: 'fitted',
        fit: { traces: 120, fittedAt: 1_765_000_000_000, ms: 812, kept: { next: 'fitted', nextNoIntent: 'backoff', search: 'fitted' } },
      };
      await store.putWeights(fitted);
      // The no-match rule, the steps' calibration, the DAG status threshold and the fit's account are part of the fit: they survive with the weights.
      expect(await store.getWeights()).toEqual(fitted);
      // Stored by signal name: a list of the wrong length is refused before it is written.
      expect((await rejectionOf(store.putWeights({ ...fitted, next: [0.5, -1.25] }))).message).toBe(`putWeights: next holds 2 weights, there are ${SIGNALS.length} signals`);
      for (const stepCalibration of [{ upper: [], value: [] }, { upper: [0.5, 1], value: [0.5] }, { upper: [1, 0.5], value: [0.2, 0.4] }, { upper: [0.5, 1], value: [0.4, 0.2] }, { upper: [1], value: [1.5] }, { upper: [Number.NaN], value: [0.5] }]) {
        expect((await rejectionOf(store.putWeights({ ...fitted, stepCalibration }))).code, JSON.stringify(stepCalibration)).toBe('INVALID_INPUT');
      }
      for (const dagStatus of [{ ...fitted.dagStatus!, threshold: 1.5 }, { ...fitted.dagStatus!, nodeF1: Number.NaN }, { threshold: 0.7 } as never]) {
        expect((await rejectionOf(store.putWeights({ ...fitted, dagStatus }))).code, JSON.stringify(dagStatus)).toBe('INVALID_INPUT');
      }
      const error = await rejectionOf(store.putWeights({ ...fitted, next: fitted.next.map((w, f) => (f === 3 ? Number.NaN : w)) }));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toContain('next.lexical');
      for (const broken of [{ ...noMatch, coverage: [0.4, 0.1] }, { ...noMatch, similarity: [] }, { ...noMatch, confidence: [1.2] }, { ...noMatch, threshold: Number.NaN }, { ...noMatch, wordsThreshold: 1 }, { ...noMatch, coverage: 'low' as unknown as number[] }]) {
        const rejected = await rejectionOf(store.putWeights({ ...fitted, noMatch: broken }));
        expect(rejected.code, JSON.stringify(broken)).toBe('INVALID_INPUT');
        expect(rejected.message).toMatch(/noMatch/);
      }
      expect(await store.getWeights()).toEqual(fitted);
    });

    it('rejects bad tracesSince arguments with INVALID_INPUT', async () => {
      const store = await fresh();
      for (const [seq, limit] of [[-1, 10], [1.5, 10], [0, 0], [0, 1e9], [Number.NaN, 1]] as const) {
        expect((await rejectionOf(store.tracesSince(seq, limit))).code).toBe('INVALID_INPUT');
      }
    });

    it('keeps everything across a reopen, and a closed store says so', async () => {
      const store = await fresh();
      await store.putTools([{ name: 't', description: 'd', params: [] }]);
      const appended = await store.appendTraces([trace('k1', ['t', 'u']), trace('k2', ['u', 't'])]);
      await store.putWeights(PRIOR_WEIGHTS);
      await store.putCapabilities([{ id: 'c', description: '', tools: ['t'], ordered: true, successes: 1, failures: 0 }]);
      const before = await store.stats();
      const again = await reopen(store);
      const closed = await rejectionOf(store.listTools());
      expect(closed.code).toBe('INTERNAL');
      expect(closed.message).toMatch(/closed/);
      // A store we closed is not an outage: ping says closed too, not STORE_UNAVAILABLE.
      expect((await rejectionOf(store.ping())).code).toBe('INTERNAL');
      await expect(again.ping()).resolves.toBeUndefined();
      expect(await again.stats()).toEqual(before);
      expect((await allTraces(again)).map((t) => t.id)).toEqual(['k1', 'k2']);
      expect(await again.getWeights()).toEqual(PRIOR_WEIGHTS);
      expect(await again.appendTraces([trace('k1', ['t', 'u']), trace('k3', ['t'])])).toMatchObject({
        inserted: 1,
        duplicates: 1,
        previousSeq: appended.lastSeq,
      });
      expect((await again.stats()).lastSeq).toBeGreaterThan(appended.lastSeq);
      await again.close(); // idempotent with the afterEach close
    });

    it('serialises concurrent appends on one handle without losing or duplicating', async () => {
      const store = await fresh();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, b) => store.appendTraces(Array.from({ length: 25 }, (_, i) => trace(`c${(b * 25 + i) % 150}`, ['a', 'b'])))),
      );
      expect(results.reduce((s, r) => s + r.inserted, 0)).toBe(150);
      expect(results.reduce((s, r) => s + r.duplicates, 0)).toBe(50);
      expect((await store.stats()).traces).toBe(150);
      expect(await store.listTransitions()).toEqual([{ from: 'a', to: 'b', count: 150, successes: 150, failures: 0, lastSeen: 1_000 }]);
    });
    it('logs human verdicts with the pattern state, both or neither; hostile names survive', async () => {
      const store = await fresh();
      const id = 'transition:\u0000x';
      const state = applyConfidenceEvent(createPatternConfidence({ id, kind: 'transition', now: 1_000 }), 'user_accepted', 2_000);
      const first = await store.appendPatternFeedback({ patternId: id, tools: ['__proto__', 'a\\b 🛠️'], decision: 'approve', at: 2_000 }, state);
      const rejected = applyConfidenceEvent(state, 'user_corrected', 3_000);
      const second = await store.appendPatternFeedback({ patternId: id, tools: ['__proto__', 'a\\b 🛠️'], decision: 'reject', at: 3_000 }, rejected);
      expect(second).toBeGreaterThan(first);
      expect(await store.listPatternFeedback()).toEqual([
        { seq: first, patternId: id, tools: ['__proto__', 'a\\b 🛠️'], decision: 'approve', at: 2_000 },
        { seq: second, patternId: id, tools: ['__proto__', 'a\\b 🛠️'], decision: 'reject', at: 3_000 },
      ]);
      // Read past a seq: only the later verdicts.
      expect((await store.listPatternFeedback(first)).map((row) => row.seq)).toEqual([second]);
      expect(await store.listPatternFeedback(second)).toEqual([]);
      expect((await rejectionOf(store.listPatternFeedback(-1))).code).toBe('INVALID_INPUT');
      expect(await store.listPatterns()).toEqual([rejected]);
      // Refused whole: a bad verdict, or a state of another pattern; nothing of either is written.
      for (const bad of [
        { patternId: id, tools: ['a'], decision: 'approve', at: 4_000 },
        { patternId: id, tools: ['a', 'b'], decision: 'maybe', at: 4_000 },
        { patternId: id, tools: ['a', 'b'], decision: 'approve', at: -1 },
        { patternId: 'other', tools: ['a', 'b'], decision: 'approve', at: 4_000 },
      ]) {
        const error = await rejectionOf(store.appendPatternFeedback(bad as never, applyConfidenceEvent(rejected, 'user_accepted', 4_000)));
        expect(error.code, JSON.stringify(bad)).toBe('INVALID_INPUT');
      }
      expect((await store.listPatternFeedback()).length).toBe(2);
      expect(await store.listPatterns()).toEqual([rejected]);
    });

    it("moves a kind's revision with each write of it, and only its; a refused write moves none", async () => {
      const store = await fresh();
      const zero = { tools: 0, capabilities: 0, weights: 0, feedback: 0 };
      expect(await store.revisions()).toEqual(zero);
      await store.putTools([{ name: 'a', description: 'A', params: [] }]);
      await store.putTools([{ name: 'b', description: 'B', params: [] }]);
      await store.putTools([]);
      expect(await store.revisions()).toEqual({ ...zero, tools: 2 });
      await store.putCapabilities([{ id: 'c', description: '', tools: ['a'], ordered: false, successes: 0, failures: 0 }]);
      await store.putWeights(PRIOR_WEIGHTS);
      const state = applyConfidenceEvent(createPatternConfidence({ id: 'transition:a', kind: 'transition', now: 1_000 }), 'user_accepted', 2_000);
      await store.appendPatternFeedback({ patternId: 'transition:a', tools: ['a', 'b'], decision: 'approve', at: 2_000 }, state);
      const after = { tools: 2, capabilities: 1, weights: 1, feedback: 1 };
      expect(await store.revisions()).toEqual(after);
      await rejectionOf(store.putWeights({ ...PRIOR_WEIGHTS, next: [Number.NaN] }));
      await rejectionOf(store.appendPatternFeedback({ patternId: 'other', tools: ['a', 'b'], decision: 'approve', at: 2_000 }, state));
      // Traces and patterns are not shared state of this kind: they have their own cursors.
      await store.appendTraces([trace('r1', ['a', 'b'])]);
      await store.putPatterns([state]);
      expect(await store.revisions()).toEqual(after);
      expect(await (await reopen(store)).revisions()).toEqual(after);
    });

    it('stores learned patterns by id and keeps every history entry ever put', async () => {
      const store = await fresh();
      const a0 = createPatternConfidence({ id: 'a->b', kind: 'transition', now: 1_000 });
      const c0 = createPatternConfidence({ id: '__proto__', kind: 'capability', now: 2_000, evidence: { observations: 9 } });
      await store.putPatterns([a0, c0]);
      expect(await store.listPatterns()).toEqual([c0, a0]);
      // Two identical events at the same time add two identical history entries: both are kept.
      const a1 = applyConfidenceEvent(a0, 'pattern_observed_again', 5_000);
      const a2 = applyConfidenceEvent(a1, 'applied_successfully', 6_000);
      await store.putPatterns([a1]);
      await store.putPatterns([a2]);
      await store.putPatterns([a2]); // unchanged: nothing new to log
      const history = await store.patternHistory('a->b');
      expect(history.map(({ seq: _seq, ...h }) => h)).toEqual(a2.history);
      expect(history.map((h) => h.reason)).toEqual(['created', 'pattern_observed_again', 'applied_successfully']);
      expect(await store.patternHistory('nope')).toEqual([]);
      expect((await store.listPatterns({ kind: 'transition' })).map((p) => p.id)).toEqual(['a->b']);
      expect((await store.listPatterns({ limit: 1 }))[0]!.composite).toBe(Math.max(a2.composite, c0.composite));
      expect(await store.listPatterns({ minComposite: 2 })).toEqual([]);
      expect((await store.stats()).patterns).toBe(2);

      // Past the in-memory history bound, the store still has every entry.
      let s = a2;
      for (let i = 0; i < 5; i++) {
        s = applyConfidenceEvent(s, 'pattern_observed_again', 7_000 + i, { historyLimit: 3 });
        await store.putPatterns([s]);
      }
      expect(s.history).toHaveLength(3);
      expect((await store.patternHistory('a->b')).length).toBe(3 + 5);
      expect((await store.listPatterns({ kind: 'transition' }))[0]).toEqual(s);
      const again = await reopen(store);
      expect((await again.patternHistory('a->b')).length).toBe(8);

      const bad = await rejectionOf(again.putPatterns([{ ...s, kind: 'edge' as never }]));
      expect(bad.code).toBe('INVALID_INPUT');
      expect(bad.message).toMatch(/^putPatterns: patterns\[0\]: kind/);
    });

    it('keeps graph snapshots as bytes, the newest by trace seq first, two at most', async () => {
      const store = await fresh();
      const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);
      await store.putSnapshot({ traceSeq: 10, format: 1, data: bytes(3, 1) });
      await store.putSnapshot({ traceSeq: 30, format: 1, data: bytes(100_000, 3) });
      await store.putSnapshot({ traceSeq: 20, format: 1, data: bytes(5, 2) });
      const latest = await store.getSnapshot();
      expect(latest).toMatchObject({ traceSeq: 30, format: 1 });
      expect(latest!.data).toEqual(bytes(100_000, 3));
      expect((await store.stats()).snapshotSeq).toBe(30);
      // Every byte value survives (bytea, not text).
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      await store.putSnapshot({ traceSeq: 40, format: 2, data: all });
      expect((await store.getSnapshot())!.data).toEqual(all);
      expect((await rejectionOf(store.putSnapshot({ traceSeq: -1, format: 1, data: all }))).code).toBe('INVALID_INPUT');
    });
  });
}
