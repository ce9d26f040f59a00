/**
 * Graceful shutdown: requests in flight when close() is called finish with their answers, the
 * service is closed only after them, and new connections are refused.
 *
 * The service is the real in-memory one behind a decorator that makes each ingestion take 150 ms
 * before it commits, standing in for a durable store's commit (the store itself is another
 * module's; only its latency matters here).
 */
import { describe, expect, it } from 'vitest';
import type { ToolgraphService } from '../../../src/service/service.js';
import { call, seededService, startTestServer } from './_server.js';

function slowCommits(inner: ToolgraphService, ms: number) {
  const log = { started: 0, committed: 0, committedAtClose: -1, closed: false };
  const service: ToolgraphService = {
    ...inner,
    ingest: async (input) => {
      log.started++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      const result = await inner.ingest(input);
      log.committed += result.ingested;
      return result;
    },
    close: async () => {
      log.committedAtClose = log.committed;
      log.closed = true;
      await inner.close();
    },
  };
  return { service, log };
}

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then closes the service', async () => {
    const inner = await seededService();
    const tracesBefore = (await inner.stats()).traces;
    const { service, log } = slowCommits(inner, 150);
    const server = await startTestServer({}, service);
    const n = 20;
    const inFlight = Array.from({ length: n }, (_, i) => call(server.url, '/v1/traces', { body: { id: `shutdown-${i}`, tools: ['search_flights', 'book_flight'] } }));
    // Close once every request has reached its handler (each then waits 150 ms to commit).
    while (log.started < n) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(log.committed).toBe(0);
    const closing = server.close();
    const replies = await Promise.all(inFlight);
    await closing;
    expect(replies.map((r) => r.status)).toEqual(Array(n).fill(200));
    expect(replies.every((r) => r.json.ingested === 1)).toBe(true);
    expect(log.closed).toBe(true);
    expect(log.committedAtClose).toBe(n);
    expect((await inner.stats()).traces).toBe(tracesBefore + n);
    await expect(call(server.url, '/healthz')).rejects.toThrow();
    // close() is idempotent.
    await server.close();
  });
});
