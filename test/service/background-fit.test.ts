/**
 * A durable service fits its own weights as traces arrive (background-fit.ts), on a real PGlite
 * store and, when TOOLGRAPH_TEST_DATABASE_URL is set, two instances on a real PostgreSQL: one
 * fits, the other adopts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/schema/dataset.js';
import { workflowToTraceAt } from '../../src/schema/trace.js';
import type { Trace } from '../../src/schema/types.js';
import { openToolgraph, type DurableToolgraph, type OpenToolgraphOptions } from '../../src/service/durable-toolgraph.js';
import { openStore } from '../../src/store/open-store.js';
import { startHttpServer } from '../../src/service/http/server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rejectionOf } from '../helpers/expect-code.js';

const ROOT = join(import.meta.dirname, '..', '..');
let root = '';
let dataDir = '';
let counter = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-autofit-'));
  dataDir = join(root, 'data');
  await (await openStore({ dataDir })).close();
}, 60_000);

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

async function sample(): Promise<{ tools: unknown[]; traces: Trace[] }> {
  const dataset = await loadDataset(join(ROOT, 'samples', 'nestful'));
  return { tools: dataset.tools, traces: dataset.workflows.map((w, i) => workflowToTraceAt(w, 1_700_000_000_000 + i)) };
}

function pglite(schema: string, extra: Partial<OpenToolgraphOptions> = {}): Promise<DurableToolgraph> {
  return openToolgraph({ dataDir, schema, seed: 7, rebuildDelayMs: 10, ...extra });
}

/** Polls `check` every 20 ms until it holds or `ms` pass; returns whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('background fitting on PGlite', () => {
  it('fits once enough traces are stored, answers meanwhile with the weights in force, stores the weights with their account', async () => {
    const { tools, traces } = await sample();
    const schema = `f${++counter}`;
    const tg = await pglite(schema, { autoFit: { firstAt: 40, minIntervalMs: 0 } });
    try {
      await tg.setTools(tools);
      await tg.ingestTraces(traces.slice(0, 39));
      expect((await tg.stats()).fit).toMatchObject({ state: 'prior', traces: 0, running: false, fits: 0 });
      // The 40th trace calls for the first fit: it starts as the trace is applied, before the ingestion is acknowledged.
      await tg.ingestTraces(traces.slice(39, 40));
      expect((await tg.stats()).fit.running).toBe(true);
      // A query while it runs is answered by the prior, at once.
      const during = await tg.searchTools({ query: 'convert 100 USD to EUR and send the result by sms', k: 3 });
      expect(during.items.length).toBe(3);
      expect((await tg.stats()).fit.running).toBe(true);
      expect(await within(60_000, async () => (await tg.stats()).fit.state === 'fitted')).toBe(true);
      const fit = (await tg.stats()).fit;
      expect(fit).toMatchObject({ state: 'fitted', traces: 40, fits: 1, failures: 0 });
      expect(fit.kept).toEqual({ next: expect.stringMatching(/^(fitted|backoff)$/), nextNoIntent: expect.stringMatching(/^(fitted|backoff)$/), search: expect.stringMatching(/^(fitted|backoff)$/) });
      expect(Date.parse(fit.fittedAt!)).toBeGreaterThan(Date.now() - 120_000);
      expect(fit.ms).toBeGreaterThan(0);
      const stored = await tg.store.getWeights();
      expect(stored).toEqual(tg.engine.fittedWeights);
      expect(stored?.fit).toMatchObject({ traces: 40, kept: fit.kept });
    } finally {
      await tg.close();
    }
    // A restart keeps the fit in force, and does not fit again for traces it was fitted on.
    const again = await pglite(schema, { autoFit: { firstAt: 40, minIntervalMs: 0 } });
    try {
      const fit = (await again.stats()).fit;
      expect(fit).toMatchObject({ state: 'fitted', traces: 40, running: false, fits: 0 });
    } finally {
      await again.close();
    }
  }, 120_000);

  it('fits again once the traces grew by the share, not before; and never with autoFit false', async () => {
    const { tools, traces } = await sample();
    const tg = await pglite(`f${++counter}`, { autoFit: { firstAt: 30, growth: 0.5, minIntervalMs: 0 } });
    try {
      await tg.setTools(tools);
      await tg.ingestTraces(traces.slice(0, 30));
      expect(await within(60_000, async () => (await tg.stats()).fit.state === 'fitted')).toBe(true);
      // 45 = 30 x 1.5: not more than the share.
      await tg.ingestTraces(traces.slice(30, 45));
      expect((await tg.stats()).fit).toMatchObject({ running: false, traces: 30, fits: 1 });
      await tg.ingestTraces(traces.slice(45, 46));
      expect((await tg.stats()).fit.running).toBe(true);
      expect(await within(60_000, async () => (await tg.stats()).fit.traces === 46)).toBe(true);
      expect((await tg.stats()).fit.fits).toBe(2);
    } finally {
      await tg.close();
    }
    const off = await pglite(`f${++counter}`, { autoFit: false });
    try {
      await off.setTools(tools);
      await off.ingestTraces(traces.slice(0, 100));
      expect((await off.stats()).fit).toMatchObject({ state: 'prior', running: false, fits: 0 });
      // An explicit fit still fits, on the worker, and is stored.
      const report = await off.fit();
      expect(report.weights.source).toBe('fitted');
      expect((await off.stats()).fit).toMatchObject({ state: 'fitted', traces: 100, fits: 1 });
      expect((await off.store.getWeights())?.fit?.traces).toBe(100);
    } finally {
      await off.close();
    }
  }, 180_000);

  it('refuses an explicit fit with no successful trace, storing nothing', async () => {
    const tg = await pglite(`f${++counter}`, { autoFit: false });
    try {
      await tg.ingest({ id: 'failed', intent: 'cancel then refund', tools: ['cancel', 'refund'], success: false });
      const error = await rejectionOf(tg.fit());
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe('fit: nothing to fit: the store has no successful traces');
      expect(await tg.store.getWeights()).toBeNull();
      expect((await tg.stats()).fit.state).toBe('prior');
    } finally {
      await tg.close();
    }
  });
});

describe('background fitting through the faces', () => {
  it('fits a store fed over HTTP and MCP, and says so in /v1/stats and /metrics', async () => {
    const { tools, traces } = await sample();
    const tg = await pglite(`f${++counter}`, { autoFit: { firstAt: 30, minIntervalMs: 0 } });
    const server = await startHttpServer(tg, { port: 0, host: '127.0.0.1' }, { logger: false });
    const client = new Client({ name: 'toolgraph-test', version: '0.0.0' });
    try {
      const json = async (path: string, init?: RequestInit): Promise<any> => (await fetch(`${server.url}${path}`, init)).json();
      const put = await fetch(`${server.url}/v1/tools`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tools) });
      expect(put.status).toBe(200);
      expect((await json('/v1/stats')).fit).toMatchObject({ state: 'prior', traces: 0, kept: null });
      const compact = (t: Trace) => ({ id: t.id, intent: t.intent, tools: t.steps.map((s) => s.tool), success: t.success });
      const posted = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(traces.slice(0, 20).map(compact)) });
      expect(posted.status).toBe(200);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      for (const t of traces.slice(20, 30)) {
        const recorded = await client.callTool({ name: 'record_trace', arguments: { trace: compact(t) } });
        expect(recorded.isError).toBeFalsy();
      }
      expect(await within(60_000, async () => (await json('/v1/stats')).fit.state === 'fitted')).toBe(true);
      const fit = (await json('/v1/stats')).fit;
      expect(fit).toMatchObject({ state: 'fitted', traces: 30, fits: 1, failures: 0, running: false });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/^toolgraph_fitted 1$/m);
      expect(metrics).toMatch(/^toolgraph_fits_total 1$/m);
      expect(metrics).toMatch(/^toolgraph_fit_traces 30$/m);
      expect(Number(/^toolgraph_fit_seconds_total (\S+)$/m.exec(metrics)![1])).toBeCloseTo(fit.totalMs / 1000, 6);
    } finally {
      await client.close();
      await server.close();
    }
  }, 120_000);
});

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];

describe.runIf(URL_ENV)('background fitting on PostgreSQL: two instances', () => {
  it('one instance fits, the other adopts its weights', async () => {
    const { tools, traces } = await sample();
    const schema = `tg_autofit_${randomBytes(4).toString('hex')}`;
    const open = (): Promise<DurableToolgraph> =>
      openToolgraph({ databaseUrl: URL_ENV!, schema, seed: 7, rebuildDelayMs: 10, pollMs: 200, autoFit: { firstAt: 30, minIntervalMs: 0 } });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      await a.setTools(tools);
      // Both take traces: 34 between them, past firstAt, and under 30 x 1.2 = 36, so one fit is called for.
      await Promise.all([a.ingestTraces(traces.slice(0, 18)), b.ingestTraces(traces.slice(18, 34))]);
      const bothFitted = async (): Promise<boolean> => {
        const [sa, sb] = await Promise.all([a.stats(), b.stats()]);
        return sa.fit.state === 'fitted' && sb.fit.state === 'fitted' && sa.fit.fittedAt === sb.fit.fittedAt && !sa.fit.running && !sb.fit.running;
      };
      expect(await within(90_000, bothFitted)).toBe(true);
      const [sa, sb] = await Promise.all([a.stats(), b.stats()]);
      // One fit in all, on every trace either had stored, and the same weights in force on both.
      expect(sa.fit.fits + sb.fit.fits).toBe(1);
      expect(sa.fit.traces).toBe(34);
      expect(a.engine.fittedWeights).toEqual(b.engine.fittedWeights);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 120_000);
});
