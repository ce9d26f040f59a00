/**
 * A store that cannot be reached, behind a live HTTP server: PostgreSQL behind a loopback TCP
 * proxy the test cuts and lets through again (the shared server itself is never touched), and
 * PGlite whose database thread dies. Writes are 503 STORE_UNAVAILABLE with Retry-After, /healthz
 * reports degraded, and once the server is back both are as before.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { openToolgraph } from '../../../src/service/durable-toolgraph.js';
import { startHttpServer } from '../../../src/service/http/server.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { call, type Reply } from './_server.js';

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];
if (URL_ENV === undefined || URL_ENV === '') {
  console.warn('store outage: the PostgreSQL test is skipped; set TOOLGRAPH_TEST_DATABASE_URL to run it');
}

const trace = (id: string) => ({ body: { id, intent: 'book a trip', tools: ['search', 'book'] } });

/** The checks of an answer given while the store is out. */
function expectUnavailable(reply: Reply): void {
  expect(reply.status, reply.text).toBe(503);
  expect(reply.json.error.code).toBe('STORE_UNAVAILABLE');
  expect(reply.json.error.message).toMatch(/store/);
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
}

function expectDegraded(reply: Reply): void {
  expect(reply.status, reply.text).toBe(503);
  expect(reply.json.status).toBe('degraded');
  expect(typeof reply.json.reason).toBe('string');
  expect(reply.json.reason).toMatch(/store/);
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

const mcpCall = (url: string, name: string, args: unknown) =>
  call(url, '/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    headers: { accept: 'application/json, text/event-stream' },
  });

describe.runIf(URL_ENV)('a PostgreSQL outage behind the HTTP server', () => {
  it('answers writes 503 STORE_UNAVAILABLE with Retry-After and /healthz degraded while cut; both recover once it is back', async () => {
    const target = new URL(URL_ENV!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const schema = `tg_outage_${randomBytes(4).toString('hex')}`;
    const warnings: string[] = [];
    const service = await openToolgraph({ databaseUrl: proxy.via(URL_ENV!), schema, seed: 3, rebuildDelayMs: 10, pollMs: 50, onWarning: (m) => warnings.push(m) });
    const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
    try {
      expect((await call(server.url, '/v1/traces', trace('before'))).status).toBe(200);
      const healthy = await call(server.url, '/healthz');
      expect(healthy.status).toBe(200);
      expect(healthy.json).toEqual({ status: 'ok' });

      proxy.cut();
      expectUnavailable(await call(server.url, '/v1/traces', trace('during')));
      expectUnavailable(await call(server.url, '/v1/tools', { method: 'PUT', body: [{ name: 'search', description: 'find' }] }));
      expectDegraded(await call(server.url, '/healthz'));
      // Over MCP too: a tool error with the same code.
      const recorded = await mcpCall(server.url, 'record_trace', { trace: trace('mcp-during').body });
      expect(recorded.json.result.isError).toBe(true);
      expect(JSON.parse(recorded.json.result.content[0].text).error.code).toBe('STORE_UNAVAILABLE');
      // Reads are answered from memory meanwhile.
      expect((await call(server.url, '/v1/predict', { body: { context: ['search'], k: 1 } })).json.items[0].tool).toBe('book');
      // The poll (every 50 ms) fails all along: told once, not at every poll.
      await new Promise((r) => setTimeout(r, 500));
      const pollFailures = warnings.filter((w) => /^(catching up with the store|reading what other instances changed) failed/.test(w));
      expect(pollFailures).toHaveLength(1);
      expect(pollFailures[0]).toContain('quietly until it succeeds');

      proxy.restore();
      const retried = await call(server.url, '/v1/traces', trace('during'));
      expect(retried.status, retried.text).toBe(200);
      expect(retried.json.ingested).toBe(1);
      expect((await call(server.url, '/healthz')).json).toEqual({ status: 'ok' });
      expect((await call(server.url, '/healthz')).status).toBe(200);
      expect((await call(server.url, '/v1/tools', { method: 'PUT', body: [{ name: 'search', description: 'find' }] })).status).toBe(200);
      expect((await service.storeStats()).traces).toBe(2);
    } finally {
      proxy.restore();
      await server.close();
      await proxy.close();
    }
  }, 60_000);
});

describe('a PGlite database thread that dies behind the HTTP server', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgraph-outage-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('answers writes 503 STORE_UNAVAILABLE and /healthz degraded', async () => {
    const service = await openToolgraph({ dataDir: join(root, 'data'), seed: 3, rebuildDelayMs: 10 });
    const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
    try {
      expect((await call(server.url, '/v1/traces', trace('before'))).status).toBe(200);
      expect((await call(server.url, '/healthz')).status).toBe(200);
      // What a WebAssembly abort does to it: the thread is gone (pglite-thread.ts).
      const worker = (service.store as unknown as { driver: { db: { worker: Worker } } }).driver.db.worker;
      await worker.terminate();
      expectUnavailable(await call(server.url, '/v1/traces', trace('after')));
      expectDegraded(await call(server.url, '/healthz'));
    } finally {
      // Closing cannot write its snapshot to a database that is gone.
      await server.close().catch(() => {});
    }
  }, 60_000);
});
