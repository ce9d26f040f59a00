/**
 * Compressed request bodies on a live server: gzip, deflate and br are decoded and stored as if
 * sent plain; the body limit counts decoded bytes (the corpus in bad-inputs.test.ts has the
 * bombs and the refused codings).
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from './_server.js';

const MB = 1024 * 1024;

describe('Content-Encoding', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const traces = async (): Promise<number> => (await call(server.url, '/v1/stats')).json.traces;

  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['GZIP', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['gzip, identity', gzipSync],
    ['identity', (b: Buffer) => b],
  ] as const)('stores a trace sent with Content-Encoding %s', async (encoding, encode) => {
    const before = await traces();
    const body = encode(Buffer.from(JSON.stringify({ id: `enc-${encoding}`, intent: 'compressed', tools: ['search_hotels', 'book_hotel'] })));
    const r = await call(server.url, '/v1/traces', { body, type: 'application/json', headers: { 'content-encoding': encoding } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.ingested).toBe(1);
    expect(await traces()).toBe(before + 1);
  });

  it('decodes a gzip NDJSON batch, a catalogue and an MCP request', async () => {
    const before = await traces();
    const ndjson = gzipSync('{"tools":["search_flights","book_flight"]}\n{"tools":["search_hotels","book_hotel"]}\n');
    const batch = await call(server.url, '/v1/traces', { body: ndjson, type: 'application/x-ndjson', headers: { 'content-encoding': 'gzip' } });
    expect(batch.status, batch.text).toBe(200);
    expect(await traces()).toBe(before + 2);
    const tools = await call(server.url, '/v1/tools', { method: 'PUT', body: gzipSync(JSON.stringify([{ name: 'zipped_tool', description: 'sent compressed' }])), type: 'application/json', headers: { 'content-encoding': 'gzip' } });
    expect(tools.status, tools.text).toBe(200);
    expect((await call(server.url, '/v1/tools')).json.tools.map((t: { name: string }) => t.name)).toContain('zipped_tool');
    const listed = await call(server.url, '/mcp', {
      body: gzipSync(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })),
      type: 'application/json',
      headers: { 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.result.tools.length).toBeGreaterThan(0);
  });

  it('counts the decoded bytes against the limit: 0.9 MiB decoded passes the 1 MiB query limit, 1.1 MiB does not', async () => {
    const padded = (bytes: number) => gzipSync(`{"context":["search_flights"],"k":2${' '.repeat(bytes)}}`);
    const under = await call(server.url, '/v1/predict', { body: padded(0.9 * MB), type: 'application/json', headers: { 'content-encoding': 'gzip' } });
    expect(under.status, under.text).toBe(200);
    expect(under.json.items[0].tool).toBe('book_flight');
    const over = await call(server.url, '/v1/predict', { body: padded(1.1 * MB), type: 'application/json', headers: { 'content-encoding': 'gzip' } });
    expect(over.status).toBe(413);
    expect(over.json.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(over.json.error.message).toContain('once gzip-decoded');
  });
});
