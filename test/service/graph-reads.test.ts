/**
 * The dashboard's reads (graph, toolNeighbours, pattern) on the durable service over real
 * PGlite, and on PostgreSQL when TOOLGRAPH_TEST_DATABASE_URL is set: they answer as the
 * in-memory facade does for the same traces, and a pattern's verdicts are still listed after a
 * restart (they are the store's feedback log, replayed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openToolgraph, type OpenToolgraphOptions } from '../../src/service/durable-toolgraph.js';
import { inMemoryService } from '../../src/service/service.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { eventually } from './http/_server.js';
import { rejectionOf } from '../helpers/expect-code.js';

// Timestamped, so that both services decay the evidence to the same newest trace (a trace
// without one is stamped when it is accepted, which differs between the two by microseconds).
const TRACES = [
  { id: 's1', timestamp: 1700000000000, intent: 'fly to Rome', tools: ['search_flights', 'book_flight', 'send_email'] },
  { id: 's2', timestamp: 1700000001000, intent: 'fly to Paris', tools: ['search_flights', 'book_flight'] },
  { id: 's3', timestamp: 1700000002000, intent: 'hotel in Rome', tools: ['search_hotels', 'book_hotel', 'send_email'] },
  { id: 's4', timestamp: 1700000003000, intent: 'trip to Madrid', tools: ['search_flights', 'book_flight', 'search_hotels', 'book_hotel'] },
];

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];
let root = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-graph-reads-'));
});
afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

const stores: [string, () => Partial<OpenToolgraphOptions>][] = [
  ['PGlite', () => ({ dataDir: join(root, 'data') })],
  ...(URL_ENV === undefined ? [] : [['PostgreSQL', () => ({ databaseUrl: URL_ENV, schema: `graph_reads_${process.pid}_${Date.now()}` })] as [string, () => Partial<OpenToolgraphOptions>]]),
];

describe.each(stores)('the graph reads on the durable service (%s)', (_name, where) => {
  it('answer as the in-memory facade does, and keep the verdicts across a restart', async () => {
    const options = { ...where(), seed: 7, rebuildDelayMs: 10 };
    // The durable service learns no capabilities unless asked (as `serve` without --learn-capabilities).
    const memory = inMemoryService(new Toolgraph({ seed: 7, rebuildDelayMs: 10, learnCapabilities: false }));
    await memory.ingest(TRACES);
    let durable = await openToolgraph(options);
    try {
      await durable.ingest(TRACES);
      const current = async (s: { stats(): Promise<{ version: number; modelVersion: number }> }) => eventually(() => s.stats(), (x) => x.modelVersion === x.version, 5_000);
      await current(durable);
      await current(memory);
      const graph = await durable.graph({ top: '3' });
      expect(graph).toEqual(await memory.graph({ top: 3 }));
      expect(graph.edges.map((e) => `${e.from}>${e.to}`)).toEqual(['search_flights>book_flight', 'search_hotels>book_hotel', 'book_flight>send_email']);
      expect(await durable.toolNeighbours('book_flight')).toEqual(await memory.toolNeighbours('book_flight'));
      expect((await rejectionOf(durable.toolNeighbours('nope'))).code).toBe('UNKNOWN_TOOL');
      expect((await rejectionOf(durable.graph({ top: 0 }))).code).toBe('INVALID_INPUT');

      const id = (await durable.toolNeighbours('search_flights')).successors[0]!.pattern.id;
      await durable.patternFeedback(id, { decision: 'approve', at: 1_000 });
      await durable.patternFeedback(id, { decision: 'reject', at: 2_000 });
      expect((await durable.pattern(id)).feedback).toEqual([{ at: 1_000, decision: 'approve' }, { at: 2_000, decision: 'reject' }]);
      await durable.close();
      durable = await openToolgraph(options);
      const again = await durable.pattern(id);
      expect(again.feedback).toEqual([{ at: 1_000, decision: 'approve' }, { at: 2_000, decision: 'reject' }]);
      expect([again.approvals, again.rejections]).toEqual([1, 1]);
    } finally {
      await durable.close();
      await memory.close();
    }
  }, 60_000);
});
