import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SnapshotThread } from '../../src/graph/snapshot-thread.js';
import type { RecommenderModel } from '../../src/recommend/model.js';
import { suggestDag } from '../../src/recommend/dag/suggest-dag.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import { searchTools } from '../../src/recommend/search-tools.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { expectCode } from '../helpers/expect-code.js';


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Toolgraph service', () => {
  it('ingests every accepted trace format and answers from them', () => {
    const tg = new Toolgraph();
    tg.setTools([{ name: 'search_hotels', description: 'Search hotels in a city', params: [] }]);
    tg.ingest({ tools: ['search_hotels', 'book_hotel'], intent: 'book a hotel in Rome' });
    tg.ingest({
      '@type': 'ReasoningTrace',
      id: 'kp:trace:1',
      metadata: { created_at: '2026-01-01T00:00:00Z', task_domain: 'travel', success: true, quality_score: 0, visibility: 'network', privacy_level: 'aggregated' },
      task: { objective: 'book a hotel in Paris' },
      steps: [
        { step_id: 0, type: 'tool_call', tool: { name: 'search_hotels' } },
        { step_id: 1, type: 'tool_call', tool: { name: 'book_hotel' } },
      ],
      outcome: { result_summary: 'booked', confidence: 0.9 },
    });
    const result = tg.predictNext({ context: ['search_hotels'], intent: 'book a hotel in Madrid' });
    expect(result.kind).toBe('prediction');
    expect(result.items[0]!.tool).toBe('book_hotel');
    expect(tg.stats().traces).toBe(2);
  });

  it('validates a batch before applying any of it', () => {
    const tg = new Toolgraph();
    const before = tg.stats();
    expectCode(() => tg.ingest([{ tools: ['a', 'b'] }, { tools: [42] }]), 'INVALID_INPUT', 'traces[1]');
    expect(tg.stats()).toEqual(before);
    // The issues name the trace as the message does (they said `tools[0]` under `traces[1]: ...`).
    let details: unknown;
    try {
      tg.ingest([{ tools: ['a', 'b'] }, { tools: [42], 'odd key': 1 }]);
    } catch (error) {
      details = (error as { details?: unknown }).details;
    }
    expect((details as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(['traces[1].tools[0]', 'traces[1]["odd key"]']);
  });

  it('skips a caller id it has already ingested (a retry)', () => {
    const tg = new Toolgraph();
    expect(tg.ingest({ id: 'x', tools: ['a', 'b'] }).ingested).toBe(1);
    expect(tg.ingest({ id: 'x', tools: ['a', 'b'] }).ingested).toBe(0);
    expect(tg.stats().traces).toBe(1);
  });

  it('keeps two identical runs without ids as two observations', () => {
    const tg = new Toolgraph();
    expect(tg.ingest({ tools: ['a', 'b'] }).ingested).toBe(1);
    expect(tg.ingest([{ tools: ['a', 'b'] }, { tools: ['a', 'b'] }]).ingested).toBe(2);
    expect(tg.stats().traces).toBe(3);
  });

  it('rejects bad requests with stable codes that name the field', () => {
    const tg = new Toolgraph();
    tg.ingest({ tools: ['a', 'b'] });
    // Requests a typed caller cannot write (each line below is a compile error without its
    // directive, which tsc --noEmit checks): what plain JavaScript and JSON callers meet.
    // @ts-expect-error a string is no list of tools
    expectCode(() => tg.predictNext({ context: 'a' }), 'INVALID_INPUT', 'context');
    expectCode(() => tg.predictNext({ context: ['a'], k: 0 }), 'INVALID_INPUT', 'k');
    // @ts-expect-error no such profile
    expectCode(() => tg.predictNext({ context: ['a'], profile: 'magic' }), 'INVALID_INPUT', 'profile');
    // @ts-expect-error a misspelt or unknown field
    expectCode(() => tg.predictNext({ context: ['a'], extra: true }), 'INVALID_INPUT', 'extra');
    // @ts-expect-error a misspelt field and a k of the wrong type
    expectCode(() => tg.predictNext({ contxt: ['a'], k: '5' }), 'INVALID_INPUT', 'k: expected number');
    expectCode(() => tg.predictNext({ context: [''] }), 'INVALID_INPUT', 'context[0]');
    expectCode(() => tg.predictNext({ context: ['x'.repeat(2000)] }), 'PAYLOAD_TOO_LARGE');
    expectCode(() => tg.searchTools({ query: '' }), 'INVALID_INPUT', 'query');
    // @ts-expect-error no request at all
    expectCode(() => tg.predictNext(null), 'INVALID_INPUT');
  });

  it('serves the current snapshot while a rebuild is pending, then the new one', async () => {
    const tg = new Toolgraph({ rebuildDelayMs: 20 });
    tg.ingest({ tools: ['a', 'b'] });
    const first = tg.predictNext({ context: ['a'] });
    tg.ingest({ tools: ['a', 'c'] });
    tg.ingest({ tools: ['a', 'c'] });
    // The query does not wait for the rebuild: it answers from the snapshot it has.
    const stale = tg.predictNext({ context: ['a'] });
    expect(stale.version).toBe(first.version);
    // Only the transitions are read live (recent-transitions.ts): `c`, newer than the snapshot,
    // ranks from them alone.
    expect(stale.items.slice(0, 2).map((i) => [i.tool, i.kind === 'tool' && i.signals.transition])).toEqual([
      ['c', 2 / 3],
      ['b', 1 / 3],
    ]);
    await sleep(80);
    const fresh = tg.predictNext({ context: ['a'] });
    expect(fresh.version).toBeGreaterThan(first.version);
    expect(fresh.items[0]!.tool).toBe('c');
    tg.close();
  });

  it('takes a known tool described anew into its model, after the debounce and on rebuild(), as if described from the start', async () => {
    const traces = [
      ...Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, intent: `plan a trip ${i % 3}`, tools: ['search', 'book', 'pay'] })),
      ...Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, intent: 'cancel my booking', tools: ['search', 'cancel'] })),
    ];
    const catalogue = [{ name: 'search', description: 'find flights and hotels', params: [] }];
    const book = { name: 'book', description: 'reserve a seat or a room', params: [] };
    const query = { query: 'money back for a cancelled booking', k: 4 };
    const described = new Toolgraph({ seed: 3 });
    described.ingest(traces);
    described.setTools([...catalogue, book]);
    const expected = described.searchTools(query);

    const later = new Toolgraph({ seed: 3, rebuildDelayMs: 5 });
    later.ingest(traces);
    later.setTools(catalogue);
    const before = later.searchTools(query);
    // Described anew: no tool and no transition is added, so no graph version moves.
    later.setTools([book]);
    // The debounced rebuild runs on its own, in stages: on a loaded machine it may take longer
    // than the delay (under the whole suite beside two evaluations, 60 ms was once too short).
    await sleep(60);
    for (let i = 0; i < 100 && !isDeepStrictEqual(later.searchTools(query), expected); i++) await sleep(20);
    expect(later.searchTools(query)).toEqual(expected);
    expect(before).not.toEqual(expected);

    const rebuilt = new Toolgraph({ seed: 3, rebuildDelayMs: 60_000 });
    rebuilt.ingest(traces);
    rebuilt.setTools(catalogue);
    rebuilt.searchTools(query);
    rebuilt.setTools([book]);
    rebuilt.rebuild();
    expect(rebuilt.searchTools(query)).toEqual(expected);
    for (const tg of [described, later, rebuilt]) tg.close();
  });

  it('builds the same model with its graph snapshot on a worker thread, here when the thread fails, and keeps a build installed meanwhile', async () => {
    const learn = (tg: Toolgraph): void => {
      for (let i = 0; i < 60; i++) tg.ingest({ id: `t${i}`, tools: i % 3 === 0 ? ['open', 'read', 'close'] : ['open', 'write', 'log', 'close'], intent: i % 3 === 0 ? 'read the file' : 'write the file', timestamp: 1_700_000_000_000 + i });
    };
    const queries = (tg: Toolgraph): unknown[] => [
      tg.predictNext({ context: ['open'], intent: 'write the file' }),
      tg.predictNext({ context: ['open', 'write'] }),
      tg.searchTools({ query: 'read a file' }),
    ];
    const reference = new Toolgraph({ seed: 3 });
    learn(reference);
    reference.rebuild();

    const thread = SnapshotThread.start();
    try {
      const off = new Toolgraph({ seed: 3 });
      learn(off);
      const errors: Error[] = [];
      const model = await off.rebuildOffThread(thread, (error) => errors.push(error));
      expect(errors).toEqual([]);
      expect(model.graph).toEqual(reference.rebuild().graph);
      expect(queries(off)).toEqual(queries(reference));

      // A model built here while the thread's build was under way stays.
      const raced = new Toolgraph({ seed: 3 });
      learn(raced);
      const pending = raced.rebuildOffThread(thread);
      const here = raced.rebuild();
      expect(await pending).toBe(here);
      off.close();
      raced.close();
    } finally {
      await thread.close();
    }
    // A closed thread: the caller hears why, and the model is built here all the same.
    const fallback = new Toolgraph({ seed: 3 });
    learn(fallback);
    const errors: Error[] = [];
    await fallback.rebuildOffThread(thread, (error) => errors.push(error));
    expect(errors.map((e) => e.message)).toEqual(['the snapshot thread was closed']);
    expect(queries(fallback)).toEqual(queries(reference));
    fallback.close();
    reference.close();
  });

  it('rebuilds after ingestion with the graph snapshot on its own worker thread from offThreadFrom transitions, to the same model', async () => {
    // Without learned capabilities, whose cluster ids carry over from one rebuild to the next
    // (capability-model.ts) and so depend on how many rebuilds there were.
    const tg = new Toolgraph({ seed: 5, rebuildDelayMs: 5, offThreadFrom: 0, learnCapabilities: false });
    const reference = new Toolgraph({ seed: 5, offThreadFrom: Number.POSITIVE_INFINITY, learnCapabilities: false });
    const batch = (from: number) => Array.from({ length: 40 }, (_, i) => ({ id: `b${from + i}`, tools: [`t${(from + i) % 7}`, `t${(from + 2 * i) % 11}`, 'end'], timestamp: 1_700_000_000_000 + from + i }));
    for (let round = 0; round < 5; round++) {
      for (const g of [tg, reference]) g.ingest(batch(round * 40));
      // Ingestion goes on while a build is under way; the model catches up once it lands.
      await sleep(round % 2 === 0 ? 1 : 30);
    }
    for (let i = 0; i < 100 && tg.stats().modelVersion !== tg.stats().version; i++) await sleep(20);
    const stats = tg.stats();
    expect(stats.modelVersion).toBe(stats.version);
    expect(stats.offThreadBuilds).toBeGreaterThan(0);
    expect(reference.stats().offThreadBuilds).toBe(0);
    const ask = (g: Toolgraph) => [g.predictNext({ context: ['t1', 't3'] }), g.searchTools({ query: 't5' })];
    expect(ask(tg)).toEqual(ask(reference));
    tg.close();
    reference.close();
  });

  it('closed during a background build, keeps the model it has and warns of nothing', async () => {
    const warnings: string[] = [];
    const tg = new Toolgraph({ offThreadFrom: 0, learnCapabilities: false, onWarning: (message) => warnings.push(message) });
    tg.ingest({ tools: ['a', 'b', 'c'], timestamp: 1 });
    const before = tg.rebuild();
    tg.ingest({ tools: ['a', 'c'], timestamp: 2 });
    const flight = tg.rebuildInBackground();
    tg.close();
    expect(await flight).toBe(before);
    expect(tg.stats().offThreadBuilds).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('rebuilds in stages with the event loop turning between them, to the model of the graph as the build began', async () => {
    const batch = (from: number) =>
      Array.from({ length: 40 }, (_, i) => ({ id: `s${from + i}`, intent: `plan step ${(from + i) % 5}`, tools: [`t${(from + i) % 7}`, `t${(from + 2 * i) % 11}`, 'end'], timestamp: 1_700_000_000_000 + from + i }));
    const catalog = Array.from({ length: 11 }, (_, i) => ({ name: `t${i}`, description: `tool number ${i} for step ${i % 5}` }));
    const sliced = new Toolgraph({ seed: 5, learnCapabilities: false });
    const reference = new Toolgraph({ seed: 5, learnCapabilities: false });
    for (const g of [sliced, reference]) {
      g.setTools(catalog);
      g.ingest(batch(0));
    }
    reference.rebuild();
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const flight = sliced.rebuildInBackground();
    // The graph learns on while the model is built, a new tool and new intents included.
    sliced.ingest(batch(40));
    await new Promise((resolve) => setImmediate(resolve));
    sliced.ingest([{ id: 'late', intent: 'something new', tools: ['t1', 'brand_new'], timestamp: 1_700_000_001_000 }]);
    const model = await flight;
    counting = false;
    expect(turns).toBeGreaterThan(3);
    expect(sliced.stats().slicedBuilds).toBe(1);
    expect(model.graph.version).toBe(reference.stats().version);
    expect(model.graph.n).toBe(11 + 1);
    // The answers of the model just built, before the debounced rebuild takes the newer traces
    // (the service's queries read those traces' transitions and intents beside it: asked of the
    // model alone).
    const ask = (m: RecommenderModel) => [
      searchTools(m, { query: 'tool for step 4' }),
      suggestDag(m, { intent: 'plan step 2' }),
      predictNext(m, { context: ['t1', 't3'], intent: 'plan step 3' }),
      predictNext(m, { context: ['t2'] }),
    ];
    expect(ask(model)).toEqual(ask(reference.rebuild()));
    // The service answers from that model, the newer traces beside it.
    expect(sliced.stats().modelVersion).toBe(model.graph.version);
    sliced.close();
    reference.close();
  });

  it('gives way to a synchronous rebuild during a staged one, and stops when closed', async () => {
    const tg = new Toolgraph({ learnCapabilities: false });
    tg.ingest({ tools: ['a', 'b', 'c'], timestamp: 1 });
    const flight = tg.rebuildInBackground();
    const here = tg.rebuild();
    expect(await flight).toBe(here);
    tg.ingest({ tools: ['a', 'c'], timestamp: 2 });
    const closing = tg.rebuildInBackground();
    tg.close();
    expect(await closing).toBe(here);
    expect(tg.stats().slicedBuilds).toBe(0);
  });

  it('refits its weights on the recorded traces', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 40; i++) {
      tg.ingest({ id: `t${i}`, tools: i % 2 === 0 ? ['open', 'read', 'close'] : ['open', 'write', 'close'], intent: i % 2 === 0 ? 'read the file' : 'write the file' });
    }
    expect(tg.fittedWeights.source).toBe('prior');
    const report = tg.fit();
    expect(tg.fittedWeights.source).toBe('fitted');
    expect(report.next.queries).toBeGreaterThan(0);
    expect(report.next.loss).toBeLessThan(report.next.initialLoss);
    expect(tg.predictNext({ context: ['open'], intent: 'please write the file' }).items[0]!.tool).toBe('write');
    expect(tg.predictNext({ context: ['open'], intent: 'please read the file' }).items[0]!.tool).toBe('read');
  });
});
