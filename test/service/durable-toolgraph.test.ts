/**
 * The durable service over real PGlite (a temporary folder, one schema per test) and, when
 * TOOLGRAPH_TEST_DATABASE_URL is set, two instances on a real PostgreSQL server.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeGraph, encodeGraph } from '../../src/graph/graph-codec.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { loadDataset } from '../../src/schema/dataset.js';
import { workflowToTraceAt } from '../../src/schema/trace.js';
import type { Trace } from '../../src/schema/types.js';
import { openToolgraph, type DurableToolgraph, type OpenToolgraphOptions } from '../../src/service/durable-toolgraph.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { EXPERT_WEIGHTS } from '../../src/recommend/model.js';
import type { PredictRequestInput } from '../../src/schema/requests.js';
import { openStore } from '../../src/store/open-store.js';
import { iterateTraces } from '../../src/store/store.js';
import { rejectionOf } from '../helpers/expect-code.js';
import { crashChild, expectAllOrNothing } from '../store/crash.js';
import { createOpenAIEmbedder } from '../../src/text/openai-embedder.js';
import { toolText } from '../../src/text/tool-vectors.js';
import { startEmbeddingsServer, vectorOf } from '../helpers/embeddings-server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const ROOT = join(import.meta.dirname, '..', '..');
let root = '';
let dataDir = '';
let counter = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-durable-'));
  dataDir = join(root, 'data');
  // initdb in WebAssembly takes seconds: once for the file; tests use their own schemas.
  await (await openStore({ dataDir })).close();
}, 60_000);

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

function pglite(schema: string, extra: Partial<OpenToolgraphOptions> = {}): Promise<DurableToolgraph> {
  return openToolgraph({ dataDir, schema, seed: 7, rebuildDelayMs: 10, ...extra });
}

async function sample(): Promise<{ tools: unknown[]; traces: Trace[] }> {
  const dataset = await loadDataset(join(ROOT, 'samples', 'nestful'));
  return { tools: dataset.tools, traces: dataset.workflows.map((w, i) => workflowToTraceAt(w, 1_700_000_000_000 + i)) };
}

/** A normalised trace in the compact input format. */
function compact(t: Trace): unknown {
  return { id: t.id, intent: t.intent, domain: t.domain, tools: t.steps.map((s) => ({ name: s.tool, ok: s.ok })), success: t.success, timestamp: t.timestamp };
}

const QUERIES: PredictRequestInput[] = [
  { context: ['TripadvisorSearchLocation'], intent: 'Find the best-rated hotels in Rome', k: 5 },
  { context: ['SkyScrapperSearchAirport', 'SkyScrapperSearchAirport'], k: 5 },
  { context: ['SkyScrapperSearchAirport'], intent: 'flights to Paris', k: 3, profile: 'seed' },
];

async function answers(tg: DurableToolgraph | Toolgraph): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) out.push(await tg.predictNext(q));
  out.push(await tg.searchTools({ query: 'find flights from New York to London', k: 5 }));
  return out;
}

/** A new schema's service that learned the sample, closed (so its snapshot is written), with its answers before closing. */
async function closedAfterLearning(): Promise<{ schema: string; before: unknown[]; traces: Trace[] }> {
  const { tools, traces } = await sample();
  const schema = `d${++counter}`;
  const tg = await pglite(schema);
  await tg.setTools(tools);
  await tg.ingest(traces.map(compact));
  tg.engine.rebuild();
  const before = await answers(tg);
  await tg.close();
  return { schema, before, traces };
}

/**
 * `step` on `schema` with the worker from 0 transitions (for these small graphs, always) and on
 * a twin store learned alike with it never (Infinity): the two answer alike.
 */
async function answerAlikeWithAndWithoutWorker(schema: string, step: (schema: string, firstModelOffThreadFrom: number) => Promise<unknown[]>): Promise<void> {
  const twin = (await closedAfterLearning()).schema;
  const withWorker = await step(schema, 0);
  const without = await step(twin, Number.POSITIVE_INFINITY);
  expect(withWorker).toEqual(without);
}

describe('durable toolgraph on PGlite', () => {
  it('acknowledges an ingestion once it is committed: it survives a reopen, and concurrent callers share commits', async () => {
    const schema = `d${++counter}`;
    const tg = await pglite(schema, { batchWindowMs: 20 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => tg.ingest({ id: `c${i}`, intent: 'x', tools: ['a', 'b', `t${i % 4}`] })),
    );
    expect(results.map((r) => r.ingested)).toEqual(Array(40).fill(1));
    // 40 callers within one 20 ms window: far fewer transactions than callers.
    expect(tg.commitStats.traces).toBe(40);
    expect(tg.commitStats.commits).toBeLessThan(10);
    // A retry of a caller id is acknowledged as nothing new; a content-hash repeat is a new run.
    expect((await tg.ingest([{ id: 'c0', tools: ['a', 'b'] }, { tools: ['a', 'b'] }, { tools: ['a', 'b'] }])).ingested).toBe(2);
    expect((await tg.stats()).traces).toBe(42);
    await tg.close();
    await tg.close(); // idempotent

    const again = await pglite(schema);
    try {
      expect((await again.stats()).traces).toBe(42);
      expect((await again.storeStats()).traces).toBe(42);
      expect(again.openReport.snapshotSeq).toBe(again.appliedSeq);
      expect(again.openReport.replayed).toBe(0);
      expect((await again.predictNext({ context: ['a'], k: 1 })).items[0]!.tool).toBe('b');
    } finally {
      await again.close();
    }
  });

  it('refuses a catalogue write that would pass the stored limit, and a store over it still opens', async () => {
    const schema = `d${++counter}`;
    const tools = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${from + i}`, description: `tool ${from + i}`, params: [] }));
    const tg = await pglite(schema);
    try {
      // The probe's case: two writes of 60,000 tools, each under the request limit.
      expect(await tg.setTools(tools(0, 60_000))).toMatchObject({ tools: 60_000, added: 60_000 });
      const error = await rejectionOf(tg.setTools(tools(60_000, 60_000)));
      expect(error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(error.message).toContain('the catalogue would hold 120000 tools, the limit is 100000');
      expect((await tg.storeStats()).tools).toBe(60_000);
      expect(await tg.setTools(tools(59_999, 2))).toMatchObject({ tools: 60_001, added: 1 });
    } finally {
      await tg.close();
    }
    // A store that holds more than a request may carry (written by an older version, or by
    // another instance's race before it was counted) opens, and answers with all of it.
    const store = await openStore({ dataDir, schema });
    await store.putTools(tools(60_001, 50_000));
    await store.close();
    const again = await pglite(schema);
    try {
      expect((await again.tools()).length).toBe(110_001);
      expect((await again.searchTools({ query: 'tool 100000', k: 1 })).items[0]!.tool).toBe('t100000');
    } finally {
      await again.close();
    }
  }, 120_000);

  // How soon (the 100 ms target) is measured by `bench --case ingest-durable` (visibleP50Ms,
  // visibleP99Ms), not timed here: this checks that the debounced rebuild alone makes it visible.
  it('makes an acknowledged trace visible to predictNext by the debounced rebuild, with no call asking for it', async () => {
    const tg = await pglite(`d${++counter}`, { rebuildDelayMs: 50 });
    try {
      await tg.ingest({ id: 'warm', tools: ['p', 'q'] });
      await tg.predictNext({ context: ['p'] });
      const { version } = await tg.ingest({ id: 'new', tools: ['p', 'never-seen-before'] });
      expect(tg.engine.stats().modelVersion).toBeLessThan(version);
      const deadline = performance.now() + 5_000;
      while (tg.engine.stats().modelVersion < version && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      expect(tg.engine.stats().modelVersion).toBeGreaterThanOrEqual(version);
      const items = (await tg.predictNext({ context: ['p'], k: 5 })).items.map((i) => i.tool);
      expect(items).toContain('never-seen-before');
    } finally {
      await tg.close();
    }
  });

  it('counts an acknowledged trace\'s transitions in the next prediction, before any rebuild', async () => {
    // Rebuilds held off: only the live transitions beside the model can carry the trace. Every
    // signal counts (the product of experts), the live intents' too, which the prior's rules leave out.
    const tg = await pglite(`d${++counter}`, { rebuildDelayMs: 3_600_000, autoFit: false });
    tg.engine.setWeights(EXPERT_WEIGHTS);
    try {
      await tg.ingest([
        { id: 'w1', tools: ['p', 'q'] },
        { id: 'w2', tools: ['p', 'q'] },
        { id: 'w3', tools: ['r', 's'] },
      ]);
      tg.engine.rebuild();
      expect((await tg.predictNext({ context: ['p'] })).items[0]!.tool).toBe('q');
      const { version } = await tg.ingest([1, 2, 3].map((i) => ({ id: `n${i}`, tools: ['p', 's'] })));
      const prediction = await tg.predictNext({ context: ['p'] });
      expect(prediction.version).toBeLessThan(version);
      expect(prediction.items[0]!.tool).toBe('s');
      expect(prediction.items[0]!.kind === 'tool' && prediction.items[0]!.signals.transition).toBeCloseTo(3 / 5, 12);
      // A tool the model does not have yet is ranked from the acknowledged trace as well.
      await tg.ingest([1, 2, 3, 4].map((i) => ({ id: `t${i}`, tools: ['p', 'new'] })));
      const withNew = await tg.predictNext({ context: ['p'] });
      expect(withNew.version).toBeLessThan(version);
      expect(withNew.items[0]!.tool).toBe('new');
      expect(withNew.items[0]!.kind === 'tool' && withNew.items[0]!.signals.transition).toBeCloseTo(4 / 9, 12);
      // And an acknowledged trace's intent (recent-intents.ts).
      await tg.ingest([1, 2].map((i) => ({ id: `k${i}`, intent: 'rent a kayak', tools: ['kayak_rental'] })));
      const byIntent = await tg.predictNext({ context: [], intent: 'kayak' });
      expect(byIntent.version).toBeLessThan(version);
      expect(byIntent.items[0]!.tool).toBe('kayak_rental');
      // Search reads it too: the new word finds the new tool, no longer a no-match.
      const search = await tg.searchTools({ query: 'kayak' });
      expect(search.version).toBeLessThan(version);
      expect(search.kind).toBe('results');
      expect(search.items[0]!.tool).toBe('kayak_rental');
    } finally {
      await tg.close();
    }
  });

  it('answers the next query with a catalogue entry or capability once its write is acknowledged, rebuilds held off', async () => {
    const tg = await pglite(`d${++counter}`, { rebuildDelayMs: 3_600_000 });
    try {
      await tg.setTools([{ name: 'email_send', description: 'send an email' }]);
      await tg.ingest([{ id: 'e1', intent: 'email my boss', tools: ['email_send'] }]);
      tg.engine.rebuild();
      expect((await tg.searchTools({ query: 'rent a kayak' })).kind).toBe('no-match');
      await tg.setTools([{ name: 'kayak_rental', description: 'rent a kayak on the river' }]);
      const search = await tg.searchTools({ query: 'rent a kayak' });
      expect(search.kind).toBe('results');
      expect(search.items[0]!.tool).toBe('kayak_rental');
      await tg.setCapabilities([{ id: 'paddle-trip', description: 'a day on the river in a kayak', tools: ['kayak_rental', 'email_send'] }]);
      const ranked = await tg.rankCapabilities({ intent: 'a day on the river' });
      expect(ranked.items.map((c) => c.capability)).toContain('paddle-trip');
    } finally {
      await tg.close();
    }
  });

  it('validates the whole input first: one bad trace and nothing is written', async () => {
    const tg = await pglite(`d${++counter}`);
    try {
      const error = await rejectionOf(tg.ingest([{ tools: ['a', 'b'] }, { tools: 'nope' }]));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(/^traces\[1\]: /);
      expect((await tg.storeStats()).traces).toBe(0);
      expect((await rejectionOf(tg.setTools({ tools: [{ description: 'no name' }] }))).code).toBe('INVALID_INPUT');
    } finally {
      await tg.close();
    }
    expect((await rejectionOf(tg.ingest({ tools: ['a'] }))).code).toBe('INTERNAL');
  });

  it('keeps human verdicts across a restart: durable before they take effect, and written to the patterns table', async () => {
    const schema = `d${++counter}`;
    const tg = await pglite(schema);
    await tg.ingest([
      { id: 'v1', tools: ['a', 'b'], timestamp: 1_000 },
      { id: 'v2', tools: ['a', 'c'], timestamp: 2_000 },
      { id: 'v3', tools: ['a', 'b'], timestamp: 3_000 },
    ]);
    tg.engine.rebuild(); // not wait for the debounced rebuild
    const [ab] = await tg.patterns({ from: 'a', limit: 1 });
    expect(ab!.tools).toEqual(['a', 'b']);
    const predictBefore = await tg.predictNext({ context: ['a'], k: 2 });
    // Concurrent verdicts are taken one at a time: the stored state after the second includes the first.
    const [, rejected] = await Promise.all([
      tg.patternFeedback(ab!.id, { decision: 'reject', at: 5_000 }),
      tg.patternFeedback(ab!.id, { decision: 'reject', at: 6_000 }),
    ]);
    expect(rejected!.rejections).toBe(2);
    // Bad verdicts write nothing: an unknown id, a bad decision.
    expect((await rejectionOf(tg.patternFeedback('transition:nope', { decision: 'approve' }))).code).toBe('NOT_FOUND');
    expect((await rejectionOf(tg.patternFeedback(ab!.id, { decision: 'maybe' }))).code).toBe('INVALID_INPUT');
    const predictAfter = await tg.predictNext({ context: ['a'], k: 2 });
    const scoreOfB = (p: typeof predictBefore) => p.items.find((i) => i.kind === 'tool' && i.tool === 'b')!.score;
    expect(scoreOfB(predictAfter)).toBeLessThan(scoreOfB(predictBefore));
    const patternsBefore = await tg.patterns({});
    await tg.close();

    const store = await openStore({ dataDir, schema });
    try {
      expect(await store.listPatternFeedback()).toEqual([
        { seq: 1, patternId: ab!.id, tools: ['a', 'b'], decision: 'reject', at: 5_000 },
        { seq: 2, patternId: ab!.id, tools: ['a', 'b'], decision: 'reject', at: 6_000 },
      ]);
      const [stored] = await store.listPatterns();
      expect(stored!.id).toBe(ab!.id);
      expect(stored!.evidence.rejections).toBe(2);
      expect(stored!.dimensions.human).toBeCloseTo(rejected!.confidence.human, 12);
      expect(stored!.composite).toBeCloseTo(rejected!.confidence.composite, 12);
    } finally {
      await store.close();
    }

    const restarted = await pglite(schema);
    try {
      expect(await restarted.patterns({})).toEqual(patternsBefore);
      expect(await restarted.predictNext({ context: ['a'], k: 2 })).toEqual(predictAfter);
    } finally {
      await restarted.close();
    }
  });

  it('keeps registered capabilities across a restart: checked, stored, then registered; bad input stores nothing', async () => {
    const schema = `d${++counter}`;
    const tg = await pglite(schema);
    const book = { id: 'book-trip', description: 'book a hotel for a trip', tools: ['search_hotels', 'book_hotel'], code: 'run()', successes: 2 };
    const hostile = { id: '__proto__', description: 'nul \u0000 and a lone \ud800', tools: ['book_hotel', 'search_hotels'], ordered: false };
    let rankedBefore: unknown;
    try {
      await tg.ingest([
        { id: 'c1', intent: 'book a hotel in Rome', tools: ['search_hotels', 'book_hotel'] },
        { id: 'c2', intent: 'weather in Oslo', tools: ['weather'] },
      ]);
      expect((await rejectionOf(tg.setCapabilities([{ id: 'x', tools: ['search_hotels', 'nope'] }]))).code).toBe('UNKNOWN_TOOL');
      expect((await rejectionOf(tg.setCapabilities([{ id: 'y', tools: [] }]))).code).toBe('INVALID_INPUT');
      expect((await tg.storeStats()).capabilities).toBe(0);
      // Concurrent registrations are taken in order: the second replaces the first's 'book-trip'.
      const [, second] = await Promise.all([
        tg.setCapabilities([{ ...book, description: 'old' }]),
        tg.setCapabilities({ capabilities: [book, hostile] }),
      ]);
      expect(second.capabilities).toBe(2);
      expect(await tg.expandCapability('book-trip')).toEqual({ id: 'book-trip', tools: ['search_hotels', 'book_hotel'], ordered: true, description: book.description, code: 'run()', source: 'registered' });
      tg.engine.rebuild();
      rankedBefore = await tg.rankCapabilities({ intent: 'book a hotel', k: 5 });
      const bookTrip = (rankedBefore as { items: { capability: string; reliability: number }[] }).items.find((i) => i.capability === 'book-trip')!;
      // Its 2 registered successes and the stored trace that ran it: Beta(1, 1) posterior mean (1 + 3) / (2 + 3).
      expect(bookTrip.reliability).toBeCloseTo(0.8, 12);
    } finally {
      await tg.close();
    }
    const restarted = await pglite(schema);
    try {
      await restarted.capabilitiesLearned();
      restarted.engine.rebuild();
      expect((await restarted.capabilities()).filter((c) => c.source === 'registered')).toEqual([
        { id: 'book-trip', tools: book.tools, ordered: true, description: book.description, code: 'run()', source: 'registered' },
        { id: '__proto__', tools: hostile.tools, ordered: false, description: hostile.description, source: 'registered' },
      ]);
      expect(await restarted.rankCapabilities({ intent: 'book a hotel', k: 5 })).toEqual(rankedBefore);
    } finally {
      await restarted.close();
    }
  });

  it('leaves out, with a warning, a stored capability that names a tool the graph does not know', async () => {
    const schema = `d${++counter}`;
    const store = await openStore({ dataDir, schema });
    await store.appendTraces([{ id: 'w1', idSource: 'caller', intent: '', domain: '', success: true, timestamp: 1, steps: [{ tool: 'a', ok: true }, { tool: 'b', ok: true }] }]);
    await store.putCapabilities([
      { id: 'good', description: '', tools: ['a', 'b'], ordered: true, successes: 0, failures: 0 },
      { id: 'stale', description: '', tools: ['a', 'gone'], ordered: true, successes: 0, failures: 0 },
    ]);
    await store.close();
    const warnings: string[] = [];
    const tg = await pglite(schema, { onWarning: (m) => warnings.push(m) });
    try {
      expect((await tg.capabilities()).map((c) => c.id)).toEqual(['good']);
      expect(warnings.join('\n')).toMatch(/stored capability "stale" was left out: .*UNKNOWN_TOOL|stored capability "stale" was left out: .*"gone"/);
    } finally {
      await tg.close();
    }
  });

  it('finds a tool registered after the fit by its words, before and after a restart', async () => {
    // Half the tools are described in their requests' words, half not (only the traces say what
    // those are for), so the fitted ranker, not the lexical rule, is kept. The never-called
    // tools' weight is refitted with it (fit-weights.ts) and stored with the other weights.
    const topics = ['weather forecast', 'flight booking', 'hotel room', 'currency exchange', 'news headline', 'stock price', 'movie ticket', 'recipe search', 'train timetable', 'parcel tracking', 'music playlist', 'translate text'];
    const name = (k: number): string => (k % 2 === 0 ? topics[k]!.replace(' ', '_') : `utility_${k}`);
    const schema = `d${++counter}`;
    const tg = await pglite(schema);
    await tg.setTools(topics.map((t, k) => ({ name: name(k), description: k % 2 === 0 ? `${t} service` : `utility number ${k}` })));
    await tg.ingest(topics.flatMap((t, k) => Array.from({ length: 20 }, (_, i) => ({ id: `${k}-${i}`, intent: `please ${t} ${i}`, tools: [name(k)] }))));
    const fit = await tg.fit();
    expect(fit.search.selected).toBe('fitted');
    expect(fit.searchUnseen.refitted).toBe(true);
    await tg.setTools([{ name: 'kangaroo_tracker', description: 'kangaroo sightings tracker' }]);
    tg.engine.rebuild(); // not to wait for the debounced rebuild
    const first = async (service: DurableToolgraph): Promise<string> => (await service.searchTools({ query: 'please kangaroo sightings', k: 3 })).items[0]!.tool;
    expect(await first(tg)).toBe('kangaroo_tracker');
    await tg.close();
    const restarted = await pglite(schema);
    try {
      expect(await first(restarted)).toBe('kangaroo_tracker');
    } finally {
      await restarted.close();
    }
  });

  it('answers exactly as before after a restart (snapshot + fitted weights), and after replaying traces past the snapshot', async () => {
    const { tools, traces } = await sample();
    const schema = `d${++counter}`;
    const learning = { learnCapabilities: true };
    const tg = await pglite(schema, learning);
    await tg.setTools(tools);
    const half = Math.floor(traces.length / 2);
    await tg.ingest(traces.slice(0, half).map(compact));
    await tg.ingest(traces.slice(half).map(compact));
    const fit = await tg.fit();
    expect(fit.weights.source).toBe('fitted');
    const before = await answers(tg);
    const beforeStats = await tg.stats();
    await tg.close();

    const restarted = await pglite(schema, learning);
    // Restored from the prefetched file while the database opened, with the intents' tokens and
    // the tool vectors taken over from it (the answers below are those of the model before).
    expect(restarted.openReport).toMatchObject({ kind: 'pglite', replayed: 0, restoredEarly: true, cachesRestored: { intentTokens: true, toolVectors: true } });
    expect(restarted.openReport.snapshotSeq).toBeGreaterThan(0);
    // The traces before the snapshot reach capability learning in the background; once they have,
    // the model (learned capabilities included) answers as before.
    await restarted.capabilitiesLearned();
    restarted.engine.rebuild();
    expect((await restarted.capabilities()).filter((c) => c.source === 'learned').length).toBeGreaterThan(0);
    expect(await answers(restarted)).toEqual(before);
    expect(await restarted.stats()).toMatchObject({ traces: beforeStats.traces, transitions: beforeStats.transitions, version: beforeStats.version });
    await restarted.close();

    // Traces stored after the newest snapshot (as by a process that died before writing one)
    // are replayed on top of it.
    const extra = traces.slice(0, 25).map((t) => ({ ...t, id: `${t.id}:again` }));
    const store = await openStore({ dataDir, schema });
    await store.appendTraces(extra);
    await store.close();
    const replayed = await pglite(schema, learning);
    try {
      expect(replayed.openReport).toMatchObject({ replayed: 25, restoredEarly: true, cachesRestored: { intentTokens: true, toolVectors: true } });
      // The reference: every stored trace replayed from scratch into a new engine.
      const reference = new Toolgraph({ seed: 7 });
      reference.setTools(tools);
      const all: Trace[] = [];
      for await (const item of iterateTraces(replayed.store)) all.push(item.trace);
      reference.applyStoredTraces(all);
      reference.setWeights(fit.weights);
      // Built now: a debounced rebuild may have run while the traces were read (after setTools),
      // and queries answer from the last model built, not the graph.
      reference.rebuild();
      // Once the deferred full rebuild ran, the answers are those of a full replay.
      await replayed.capabilitiesLearned();
      replayed.engine.rebuild();
      expect(await answers(replayed)).toEqual(await answers(reference));
      // Learned from every stored trace, in store order, as a full replay learns them.
      expect(replayed.engine.capabilities()).toEqual(reference.rebuild().capabilities?.capabilities);
      expect((await replayed.stats()).traces).toBe(traces.length + 25);
    } finally {
      await replayed.close();
    }
  }, 60_000);

  it('fits after a restart the weights memory fits on the same catalogue and traces: the catalogue keeps its order', async () => {
    const { tools, traces } = await sample();
    const schema = `d${++counter}`;
    const tg = await pglite(schema);
    await tg.setTools(tools);
    await tg.ingest(traces.map(compact));
    await tg.close();
    // A new process, as `toolgraph fit --data-dir` is: the catalogue comes back from the store.
    const reopened = await pglite(schema);
    try {
      // The catalogue in the order it was given, then the tools only traces named.
      expect((await reopened.tools()).slice(0, tools.length).map((t) => t.name)).toEqual((tools as { name: string }[]).map((t) => t.name));
      const memory = new Toolgraph({ seed: 7 });
      memory.setTools(tools);
      memory.ingest(traces.map(compact));
      // Listed by name, the store's tools took other graph indices, and the fit's fold models
      // other communities: the community weight came out 0.663 against 0.360 in memory.
      expect((await reopened.fit()).weights).toEqual(memory.fit().weights);
    } finally {
      await reopened.close();
    }
  }, 60_000);

  it('builds the first model\'s graph snapshot on a worker thread for a large graph, with the same answers', async () => {
    const { schema, before, traces } = await closedAfterLearning();
    // 0 takes the worker for this small graph; Infinity never does.
    for (const [firstModelOffThreadFrom, modelOffThread] of [[0, true], [Number.POSITIVE_INFINITY, false]] as const) {
      const restarted = await pglite(schema, { firstModelOffThreadFrom });
      expect(restarted.openReport).toMatchObject({ replayed: 0, modelOffThread });
      expect(await answers(restarted)).toEqual(before);
      await restarted.close();
    }
    // With traces to replay past the snapshot, the two first models answer alike too (two
    // stores alike: a close writes a snapshot of what was replayed).
    await answerAlikeWithAndWithoutWorker(schema, async (at, firstModelOffThreadFrom) => {
      const store = await openStore({ dataDir, schema: at });
      await store.appendTraces(traces.slice(0, 25).map((t) => ({ ...t, id: `${t.id}:again` })));
      await store.close();
      const restarted = await pglite(at, { firstModelOffThreadFrom, rebuildDelayMs: 60_000 });
      expect(restarted.openReport.replayed).toBe(25);
      const got = await answers(restarted);
      await restarted.close();
      return got;
    });
  }, 60_000);

  it("writes a stale large model's snapshot with its graph snapshot built on the worker, and restores to the same answers", async () => {
    const { schema, traces } = await closedAfterLearning();
    await answerAlikeWithAndWithoutWorker(schema, async (at, firstModelOffThreadFrom) => {
      const tg = await pglite(at, { firstModelOffThreadFrom, rebuildDelayMs: 60_000 });
      await tg.ingestTraces(traces.slice(0, 25).map((t) => ({ ...t, id: `${t.id}:more` })));
      const before = tg.engine.stats();
      expect(before.modelVersion).toBeLessThan(before.version);
      await tg.snapshot();
      expect(tg.engine.stats().offThreadBuilds - before.offThreadBuilds).toBe(firstModelOffThreadFrom === 0 ? 1 : 0);
      await tg.close();
      const reopened = await pglite(at, { rebuildDelayMs: 60_000 });
      expect(reopened.openReport.replayed).toBe(0);
      const got = await answers(reopened);
      await reopened.close();
      return got;
    });
  }, 60_000);

  it('restores a snapshot of format 2 (written before the caches) and answers as before', async () => {
    const { schema, before } = await closedAfterLearning();
    // The newest snapshot as the version before the caches wrote it: format 3 minus its caches.
    const store = await openStore({ dataDir, schema });
    const latest = (await store.getSnapshot())!;
    const decoded = decodeGraph(latest.data);
    const bare = encodeGraph(decoded.state, decoded.signals);
    const old = bare.slice(0, bare.byteLength - 8);
    new DataView(old.buffer).setUint32(4, 2, true);
    await store.putSnapshot({ traceSeq: latest.traceSeq, format: 2, data: old });
    await store.close();
    const restarted = await pglite(schema);
    try {
      expect(restarted.openReport).toMatchObject({ replayed: 0, snapshotSeq: latest.traceSeq, cachesRestored: { intentTokens: false, toolVectors: false } });
      expect(await answers(restarted)).toEqual(before);
    } finally {
      await restarted.close();
    }
  }, 60_000);

  it('keeps an OpenAI-compatible embedder\'s tool vectors: a restart embeds the checked few, not the catalogue; a changed model, all again', async () => {
    const server = await startEmbeddingsServer(16);
    const inputs = (): string[] => server.requests.flatMap((r) => r.body.input as string[]);
    try {
      const embedder = () => createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'mini', dimensions: 16 });
      const { tools, traces } = await sample();
      const schema = `d${++counter}`;
      const tg = await pglite(schema, { embedder: embedder() });
      await tg.setTools(tools);
      await tg.ingest(traces.map(compact));
      const query = { query: 'find flights from New York to London', k: 5 };
      const first = await tg.searchTools(query);
      // The vectors fetched for this request are in the model that answers it.
      expect(first.items.some((item) => (item.signals.embedding ?? 0) > 0)).toBe(true);
      const catalogue = new Set((await tg.tools()).map((t) => toolText(t.name, t.description, t.params)));
      expect(new Set(inputs())).toEqual(new Set([...catalogue, query.query]));
      await tg.close();

      server.requests.length = 0;
      const restarted = await pglite(schema, { embedder: embedder() });
      try {
        // Three first requests at once, as a busy gateway sends them after a restart.
        const answers = await Promise.all([restarted.searchTools(query), restarted.searchTools(query), restarted.searchTools(query)]);
        for (const answer of answers) expect(answer).toEqual(first);
        // Eight stored rows embedded again to check them, and the query, each once: not the catalogue.
        expect(inputs().length).toBe(9);
        expect(inputs().filter((t) => catalogue.has(t)).length).toBe(8);
      } finally {
        await restarted.close();
      }

      // The same name, other vectors: the checked rows differ, so the catalogue is embedded again.
      server.requests.length = 0;
      server.behave((request) => {
        const input = request.body.input as string[];
        const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(`changed ${text}`, 16) }));
        return { body: JSON.stringify({ object: 'list', data, model: 'mini', usage: { prompt_tokens: 0, total_tokens: 0 } }) };
      });
      const changed = await pglite(schema, { embedder: embedder() });
      try {
        await Promise.all([changed.searchTools(query), changed.searchTools(query)]);
        // Each text once, though both requests found the whole catalogue missing.
        expect(inputs().length).toBe(catalogue.size + 1);
        expect(new Set(inputs())).toEqual(new Set([...catalogue, query.query]));
      } finally {
        await changed.close();
      }
    } finally {
      server.behave(null);
      await server.close();
    }
  }, 60_000);

  it('restores the snapshot the database names, not a newer valid snapshot file no row names', async () => {
    const { schema, before, traces } = await closedAfterLearning();
    expect((before[0] as { kind: string }).kind).toBe('prediction');
    // A crash between writing a snapshot file and committing its row leaves a newer file. This
    // one is a well-formed snapshot of another graph: restored early, it must then be dropped.
    const other = new TransitionGraph();
    other.ingest(traces[0]!);
    const raw = encodeGraph(other.exportState());
    const folder = join(dataDir, 'toolgraph-blobs', schema);
    writeFileSync(join(folder, `${(Date.now() + 60_000).toString(36)}-abcdef-${raw.byteLength.toString(36)}.bin`), deflateSync(raw));
    const restarted = await pglite(schema);
    try {
      expect(restarted.openReport).toMatchObject({ replayed: 0, restoredEarly: false });
      expect(restarted.openReport.snapshotSeq).toBeGreaterThan(0);
      expect(await answers(restarted)).toEqual(before);
    } finally {
      await restarted.close();
    }
  }, 60_000);

  it('survives SIGKILL mid-ingestion through the group-commit path: acknowledged traces all there, the killed batch all or nothing', async () => {
    const schema = `d${++counter}`;
    const crashDir = join(root, 'crash');
    const args = { dataDir: crashDir, schema, first: 300, second: 20_000, killAfterMs: 300, durable: true };
    const report = await crashChild(args);
    expect(report.signal).toBe('SIGKILL');
    const store = await openStore({ dataDir: crashDir, schema });
    try {
      await expectAllOrNothing(store, args, report);
    } finally {
      await store.close();
    }
    // And the service opens on what is there.
    const tg = await openToolgraph({ dataDir: crashDir, schema });
    try {
      expect((await tg.stats()).traces).toBeGreaterThanOrEqual(300);
    } finally {
      await tg.close();
    }
  }, 120_000);
});

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];
if (URL_ENV === undefined || URL_ENV === '') {
  console.warn('durable toolgraph: the PostgreSQL tests are skipped; set TOOLGRAPH_TEST_DATABASE_URL to run them');
}

describe.runIf(URL_ENV)('durable toolgraph on PostgreSQL: two instances', () => {
  it("instance B sees instance A's trace within a second, and both converge on one graph", async () => {
    const schema = `tg_durable_${randomBytes(4).toString('hex')}`;
    const open = (): Promise<DurableToolgraph> => openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 3, rebuildDelayMs: 10, pollMs: 5_000 });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      await a.ingest({ id: 'a1', intent: 'book', tools: ['search', 'book'] });
      const acked = Date.now();
      let seen = false;
      while (!seen && Date.now() - acked < 1_000) {
        seen = (await b.predictNext({ context: ['search'], k: 3 })).items.some((i) => i.tool === 'book');
        if (!seen) await new Promise((r) => setTimeout(r, 10));
      }
      // The poll runs every 5 s: within a second, only the NOTIFY can have woken B.
      expect(seen).toBe(true);
      expect(Date.now() - acked).toBeLessThan(1_000);

      // Interleaved writes from both, including the same caller id from each: one graph.
      await Promise.all([
        ...Array.from({ length: 30 }, (_, i) => a.ingest({ id: `x${i}`, tools: ['search', `t${i % 5}`, 'book'] })),
        ...Array.from({ length: 30 }, (_, i) => b.ingest({ id: `x${i + 15}`, tools: ['book', `t${i % 7}`] })),
        b.ingest({ tools: ['search', 'pay'] }),
        a.ingest({ tools: ['search', 'pay'] }),
      ]);
      const last = (await a.storeStats()).lastSeq;
      const deadline = Date.now() + 2_000;
      while ((a.appliedSeq < last || b.appliedSeq < last) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(a.appliedSeq).toBe(last);
      expect(b.appliedSeq).toBe(last);
      expect((await a.storeStats()).traces).toBe(1 + 45 + 2);
      expect(a.engine.snapshotState().state).toEqual(b.engine.snapshotState().state);
      a.engine.rebuild();
      b.engine.rebuild();
      expect(await a.predictNext({ context: ['search'], intent: 'pay', k: 5 })).toEqual(await b.predictNext({ context: ['search'], intent: 'pay', k: 5 }));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  /** Polls `check` every 10 ms until it holds or `ms` pass; returns whether it held. */
  async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await check()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("instance B takes A's catalogue, capabilities, fit and verdicts within a second, without a restart, and answers as A does", async () => {
    const schema = `tg_shared_${randomBytes(4).toString('hex')}`;
    const open = (): Promise<DurableToolgraph> => openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 3, rebuildDelayMs: 10, pollMs: 5_000 });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      await a.ingest([
        ...Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, intent: `plan a trip ${i % 3}`, tools: ['search', 'book', 'pay'] })),
        ...Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, intent: 'cancel my booking', tools: ['search', 'cancel'], success: i % 2 === 0 })),
      ]);
      const last = (await a.storeStats()).lastSeq;
      expect(await within(1_000, async () => b.appliedSeq === last)).toBe(true);

      // The poll runs every 5 s: each change below reaches B within a second only by its NOTIFY.
      const catalogue = [
        { name: 'search', description: 'find flights and hotels', params: [{ name: 'city', type: 'string', description: 'where to', required: true }] },
        { name: 'refund', description: 'return the money of a cancelled booking', params: [], output_parameters: ['refundId'] },
      ];
      await a.setTools(catalogue);
      expect(await within(1_000, async () => JSON.stringify(await b.tools()) === JSON.stringify(await a.tools()))).toBe(true);
      expect((await b.tools()).find((t) => t.name === 'refund')?.description).toBe('return the money of a cancelled booking');
      // Declared outputs too (the data flow of B's DAGs), which once did not survive the taking.
      expect((await b.tools()).find((t) => t.name === 'refund')?.outputs).toEqual(['refundId']);

      await a.setCapabilities([{ id: 'cap:trip', description: 'book and pay a trip', tools: ['search', 'book', 'pay'], ordered: true }]);
      expect(await within(1_000, async () => (await b.capabilities()).some((c) => c.id === 'cap:trip'))).toBe(true);
      expect(await b.capabilities()).toEqual(await a.capabilities());

      await a.fit();
      const fitted = (): string => JSON.stringify(a.engine.rebuild().weights);
      expect(a.engine.rebuild().weights.source).toBe('fitted');
      expect(await within(1_000, async () => JSON.stringify(b.engine.rebuild().weights) === fitted())).toBe(true);

      const pattern = (await a.patterns()).find((p) => p.kind === 'transition' && p.tools.join('>') === 'search>cancel');
      expect(pattern).toBeDefined();
      await a.patternFeedback(pattern!.id, { decision: 'reject', at: 1_750_000_000_000 });
      const rejections = async (tg: DurableToolgraph): Promise<number | undefined> => (await tg.patterns()).find((p) => p.id === pattern!.id)?.rejections;
      expect(await rejections(a)).toBe(1);
      expect(await within(1_000, async () => (await rejections(b)) === 1)).toBe(true);

      // B's own writes come back through the same path: applied once, not twice.
      await b.patternFeedback(pattern!.id, { decision: 'approve', at: 1_750_000_001_000 });
      await b.setTools([{ name: 'book', description: 'reserve a seat or a room', params: [] }]);
      expect(await within(1_000, async () => (await rejections(a)) === 1 && (await a.patterns()).find((p) => p.id === pattern!.id)?.approvals === 1)).toBe(true);
      expect(await within(1_000, async () => (await a.tools()).some((t) => t.description === 'reserve a seat or a room'))).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect((await b.patterns()).find((p) => p.id === pattern!.id)).toMatchObject({ approvals: 1, rejections: 1 });

      // Registrations from both at once: each ends with every capability, in the store's order.
      await Promise.all([
        a.setCapabilities([{ id: 'cap:undo', description: 'cancel a trip', tools: ['search', 'cancel'], ordered: true }]),
        b.setCapabilities([{ id: 'cap:pay', description: 'pay for it', tools: ['book', 'pay'], ordered: true }]),
      ]);
      const ids = async (tg: DurableToolgraph): Promise<string> => (await tg.capabilities()).map((c) => c.id).join(',');
      expect(await within(1_000, async () => (await ids(a)).split(',').length === 3 && (await ids(a)) === (await ids(b)))).toBe(true);

      // Both answer alike, and as an instance opened afresh on the same database does.
      const c = await open();
      try {
        // C learns its capabilities' evidence from the traces before the snapshot in the
        // background; asked before that ends, its capability confidence was still null (a race
        // one CI run lost).
        await c.capabilitiesLearned();
        for (const tg of [a, b, c]) tg.engine.rebuild();
        // Up to the capabilities' cluster ids, which a full co-clustering (an open's) may number
        // otherwise than the cadence carried them over (docs/decisions/capabilities/spectral-and-cadence.md).
        const ask = async (tg: DurableToolgraph): Promise<unknown> =>
          JSON.parse(
            JSON.stringify(
              [
                await tg.predictNext({ context: ['search'], intent: 'cancel my booking', k: 5 }),
                await tg.searchTools({ query: 'money back for a cancelled booking', k: 3 }),
                await tg.patterns(),
                await tg.capabilities(),
              ],
              (key, value: unknown) => (key === 'cluster' ? undefined : value),
            ),
          );
        const fromC = await ask(c);
        expect(await ask(a)).toEqual(fromC);
        expect(await ask(b)).toEqual(fromC);
      } finally {
        await c.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('leaves out, with one warning, a stored catalogue entry it refuses, and takes the others', async () => {
    const schema = `tg_badtool_${randomBytes(4).toString('hex')}`;
    const warnings: string[] = [];
    const a = await openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 3, pollMs: 50, onWarning: (m) => warnings.push(m) });
    // As another version might write it: a description that is not a string.
    const client = new pg.Client({ connectionString: URL_ENV });
    await client.connect();
    try {
      await client.query(`INSERT INTO ${schema}.tools (name, body) VALUES ('bad', '{"name": "bad", "description": 5, "params": []}'), ('good', '{"name": "good", "description": "fine", "params": []}')`);
      await client.query(`UPDATE ${schema}.revisions SET revision = revision + 1 WHERE kind = 'tools'`);
    } finally {
      await client.end();
    }
    try {
      expect(await within(1_000, async () => (await a.tools()).some((t) => t.name === 'good'))).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect((await a.tools()).some((t) => t.name === 'bad')).toBe(false);
      expect(warnings.filter((w) => w.includes('stored tool "bad" was left out'))).toHaveLength(1);
    } finally {
      await a.close();
    }
  }, 30_000);

  it('an instance whose LISTEN connection is cut warns, reconnects, catches up what it missed, and hears the next write at once', async () => {
    const schema = `tg_relisten_${randomBytes(4).toString('hex')}`;
    const target = new URL(URL_ENV!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    // The poll is a minute away: within the test, only LISTEN (and the catch-up it schedules
    // once back) can bring A's writes to B.
    const a = await openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 3, rebuildDelayMs: 10, pollMs: 60_000 });
    const warnings: string[] = [];
    const b = await openToolgraph({ databaseUrl: proxy.via(URL_ENV!), schema, seed: 3, rebuildDelayMs: 10, pollMs: 60_000, onWarning: (m) => warnings.push(m) });
    const caughtUp = async (): Promise<boolean> => b.appliedSeq === (await a.storeStats()).lastSeq;
    try {
      await a.ingest({ id: 'before', tools: ['search', 'book'] });
      expect(await within(1_000, caughtUp)).toBe(true);

      // Every connection B has (its pool and its LISTEN) is destroyed, and new ones with them.
      proxy.cut();
      await a.ingest({ id: 'missed', tools: ['search', 'pay'] });
      await new Promise((r) => setTimeout(r, 500));
      proxy.restore();

      // Back within the backoff (100 ms doubling, jittered): what was missed is caught up...
      expect(await within(6_000, caughtUp)).toBe(true);
      expect((await b.predictNext({ context: ['search'], k: 3 })).items.map((i) => i.tool)).toContain('pay');
      // ...and the next write is heard at once, well before the poll.
      await a.ingest({ id: 'after', tools: ['search', 'refund'] });
      const acked = Date.now();
      expect(await within(1_000, caughtUp)).toBe(true);
      expect(Date.now() - acked).toBeLessThan(1_000);

      const lost = warnings.filter((w) => w.includes('lost the connection that listens'));
      expect(lost).toHaveLength(1);
      expect(lost[0]).toContain('polling every 60000 ms while it reconnects');
      const back = warnings.filter((w) => w.includes('listening for other instances\' writes again'));
      expect(back).toHaveLength(1);
    } finally {
      proxy.restore();
      await Promise.all([a.close(), b.close()]);
      await proxy.close();
    }
  }, 60_000);

  it('an instance that cannot LISTEN reads the shared state on its poll', async () => {
    const schema = `tg_poll_${randomBytes(4).toString('hex')}`;
    const a = await openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 3 });
    // B's store is the real one but for LISTEN, which fails as on a connection limit.
    const real = await openStore({ databaseUrl: URL_ENV!, schema });
    const store = new Proxy(real, {
      get: (target, key, receiver) => (key === 'subscribe' ? () => Promise.reject(new Error('too many connections')) : Reflect.get(target, key, receiver)),
    });
    const warnings: string[] = [];
    const b = await openToolgraph({ store, seed: 3, pollMs: 100, onWarning: (m) => warnings.push(m) });
    try {
      expect(warnings.some((w) => w.includes('polling only'))).toBe(true);
      await a.setTools([{ name: 'lookup', description: 'look a word up', params: [] }]);
      expect(await within(2_000, async () => (await b.tools()).some((t) => t.description === 'look a word up'))).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 30_000);
});
