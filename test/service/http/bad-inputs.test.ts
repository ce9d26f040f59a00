/**
 * A corpus of bad inputs against a live server: each gets a 4xx with a stable code, the server
 * keeps serving after each one, and nothing is written (stats and catalogue are unchanged at the
 * end, and so is what a prediction returns).
 */
import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasoningTrace } from '../../scoring/_helpers.js';
import { call, eventually, rawCall, startTestServer, type Reply, type Send } from './_server.js';

interface BadInput extends Send {
  readonly name: string;
  /**
   * Header lines sent as they are, over a raw socket (fetch cannot send them), after the
   * server's own `Host`: repeated headers, hosts of our choosing.
   */
  readonly rawHeaders?: readonly string[];
  readonly path: string;
  readonly status: number;
  readonly code: string;
}

const MB = 1024 * 1024;
const nested = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const nestedObject = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
const goodReasoning = reasoningTrace({ id: 'bad-r', steps: ['thought', 'tool_call', 'observation'] });
const { metadata: _m, ...noMetadata } = goodReasoning;
const invalidUtf8 = Buffer.concat([Buffer.from('{"context":["a'), Buffer.from([0xc3, 0x28]), Buffer.from('"]}')]);

/** 64 MiB of JSON whitespace inside a valid trace, compressed to 64 KiB (gzip) or 12 KiB (br): "bombs". */
const bombText = () => `{"tools":["a","b"]${' '.repeat(64 * MB)}}`;
const gzipBomb = gzipSync(bombText(), { level: 9 });
const brotliBomb = brotliCompressSync(bombText(), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } });
const encoded = (encoding: string) => ({ headers: { 'content-encoding': encoding } });

const P = '/v1/predict';
const S = '/v1/search';
const T = '/v1/traces';
const TOOLS = '/v1/tools';
const SCORE = '/v1/score';
const bad = (status: number, code: string) => ({ status, code });
const INVALID = bad(400, 'INVALID_INPUT');
const TOO_LARGE = bad(413, 'PAYLOAD_TOO_LARGE');
const MEDIA = bad(415, 'UNSUPPORTED_MEDIA_TYPE');
const NOT_FOUND = bad(404, 'NOT_FOUND');

const CORPUS: readonly BadInput[] = [
  // Wrong types.
  { name: 'predict: context is a string', path: P, body: { context: 'search_flights' }, ...INVALID },
  { name: 'predict: context items are numbers', path: P, body: { context: [1, 2] }, ...INVALID },
  { name: 'predict: k is a string', path: P, body: { k: '5' }, ...INVALID },
  { name: 'predict: k is null', path: P, body: { k: null }, ...INVALID },
  { name: 'predict: k is 0', path: P, body: { k: 0 }, ...INVALID },
  { name: 'predict: k is negative', path: P, body: { k: -3 }, ...INVALID },
  { name: 'predict: k is fractional', path: P, body: { k: 1.5 }, ...INVALID },
  { name: 'predict: k is huge', path: P, body: { k: 1e12 }, ...INVALID },
  { name: 'predict: unknown profile', path: P, body: { profile: 'fancy' }, ...INVALID },
  { name: 'predict: intent is an object', path: P, body: { intent: { text: 'x' } }, ...INVALID },
  { name: 'predict: body is an array', path: P, body: [], ...INVALID },
  { name: 'predict: body is a string', path: P, body: '"hello"', ...INVALID },
  { name: 'predict: body is null', path: P, body: 'null', ...INVALID },
  { name: 'predict: body is a number', path: P, body: '42', ...INVALID },
  { name: 'search: query is a number', path: S, body: { query: 7 }, ...INVALID },
  { name: 'search: unknown profile', path: S, body: { query: 'hotel', profile: 'spec' }, ...INVALID },
  { name: 'traces: tools is a string', path: T, body: { tools: 'search_flights' }, ...INVALID },
  { name: 'traces: ok is a string', path: T, body: { tools: [{ name: 'a', ok: 'yes' }] }, ...INVALID },
  { name: 'traces: negative timestamp', path: T, body: { tools: ['a'], timestamp: -1 }, ...INVALID },
  { name: 'traces: a timestamp in the year 2999', path: T, body: { tools: ['a', 'b'], timestamp: '2999-01-01T00:00:00Z' }, ...INVALID },
  { name: 'traces: a ReasoningTrace created in 2999', path: T, body: { ...goodReasoning, id: 'ahead', metadata: { ...(goodReasoning.metadata as Record<string, unknown>), created_at: '2999-01-01T00:00:00Z' } }, ...INVALID },
  { name: 'traces: wrong @type', path: T, body: { ...goodReasoning, '@type': 'Trace' }, ...INVALID },
  { name: 'tools: name is a number', path: TOOLS, method: 'PUT', body: [{ name: 5 }], ...INVALID },
  { name: 'tools: body is a string', path: TOOLS, method: 'PUT', body: '"tools"', ...INVALID },
  { name: 'tools: MCP inputSchema is not an object', path: TOOLS, method: 'PUT', body: [{ name: 'x', inputSchema: 'object' }], ...INVALID },
  { name: 'tools: every name zero-width or bidi', path: TOOLS, method: 'PUT', body: [{ name: '\u200b' }, { name: 'file_\u202eeteled' }], ...INVALID },
  { name: 'tools: a Swagger 2.0 document', path: TOOLS, method: 'PUT', body: { swagger: '2.0', paths: { '/a': { get: {} } } }, ...INVALID },
  { name: 'tools: OpenAPI paths is a list', path: TOOLS, method: 'PUT', body: { openapi: '3.0.0', paths: [] }, ...INVALID },
  { name: 'tools: OpenAPI operation with a blank operationId', path: TOOLS, method: 'PUT', body: { openapi: '3.0.0', paths: { '/a': { get: { operationId: '\u200b' } } } }, ...INVALID },
  { name: 'traces: a tool name with a bidi override', path: T, body: { tools: ['a', 'file_\u202eeteled'] }, ...INVALID },
  { name: 'predict: a zero-width context tool', path: P, body: { context: ['\u200b'] }, ...INVALID },
  { name: 'score: trace is a string', path: SCORE, body: { trace: 'x' }, ...INVALID },
  { name: 'score: threshold out of range', path: SCORE, body: { trace: goodReasoning, threshold: 2 }, ...INVALID },
  { name: 'score: a compact trace is not a ReasoningTrace', path: SCORE, body: { trace: { tools: ['a'] } }, ...INVALID },
  // Missing fields.
  { name: 'search: no query', path: S, body: {}, ...INVALID },
  { name: 'traces: empty object', path: T, body: {}, ...INVALID },
  { name: 'traces: ReasoningTrace without metadata', path: T, body: noMetadata, ...INVALID },
  { name: 'tools: list wrapper without tools', path: TOOLS, method: 'PUT', body: {}, ...INVALID },
  { name: 'tools: entry without a name', path: TOOLS, method: 'PUT', body: [{ description: 'x' }], ...INVALID },
  { name: 'score: no trace', path: SCORE, body: {}, ...INVALID },
  { name: 'score: empty trace', path: SCORE, body: { trace: {} }, ...INVALID },
  // Extra fields, including keys that are special to JavaScript objects.
  { name: 'predict: unknown key', path: P, body: { context: [], contxt: ['a'] }, ...INVALID },
  { name: 'predict: __proto__ key', path: P, body: '{"__proto__":{"polluted":true},"context":[]}', ...INVALID },
  { name: 'predict: constructor key', path: P, body: '{"constructor":{"prototype":{"polluted":true}}}', ...INVALID },
  { name: 'search: unknown key', path: S, body: { query: 'x', limit: 3 }, ...INVALID },
  { name: 'traces: unknown key in a compact trace', path: T, body: { tools: ['a'], agent: 'x' }, ...INVALID },
  { name: 'traces: __proto__ key in a compact trace', path: T, body: '{"tools":["a"],"__proto__":{"polluted":true}}', ...INVALID },
  { name: 'tools: tools is not a list', path: TOOLS, method: 'PUT', body: { tools: { a: {} }, extra: 1 }, ...INVALID },
  { name: 'score: __proto__ key in the trace', path: SCORE, body: `{"trace":{"__proto__":{"x":1},${JSON.stringify(goodReasoning).slice(1)}}`, ...INVALID },
  { name: 'score: unknown key', path: SCORE, body: { trace: goodReasoning, weight: 1 }, ...INVALID },
  // Empty and huge strings, bad names.
  { name: 'search: empty query', path: S, body: { query: '' }, ...INVALID },
  { name: 'predict: empty tool name in context', path: P, body: { context: [''] }, ...INVALID },
  { name: 'predict: blank tool name in context', path: P, body: { context: ['   '] }, ...INVALID },
  { name: 'predict: NUL in a tool name', path: P, body: { context: ['a\u0000b'] }, ...INVALID },
  { name: 'predict: unpaired surrogate in a tool name', path: P, body: '{"context":["\\ud800x"]}', ...INVALID },
  { name: 'traces: empty tool list', path: T, body: { tools: [] }, ...INVALID },
  { name: 'traces: empty tool name', path: T, body: { tools: ['a', ''] }, ...INVALID },
  { name: 'tools: duplicate names', path: TOOLS, method: 'PUT', body: [{ name: '__proto__' }, { name: '__proto__' }], ...INVALID },
  { name: 'predict: 70,000-character intent', path: P, body: { intent: 'x'.repeat(70_000) }, ...TOO_LARGE },
  { name: 'search: 70,000-character query', path: S, body: { query: 'x'.repeat(70_000) }, ...TOO_LARGE },
  { name: 'predict: 2,000-character tool name', path: P, body: { context: ['t'.repeat(2_000)] }, ...TOO_LARGE },
  { name: 'traces: 10,001 tools in one trace', path: T, body: { tools: Array.from({ length: 10_001 }, (_, i) => `t${i % 7}`) }, ...TOO_LARGE },
  { name: 'predict: 2 MB body (query limit 1 MiB)', path: P, body: { intent: 'x'.repeat(2 * MB) }, ...TOO_LARGE },
  { name: 'traces: 10 MB body', path: T, body: { intent: 'x'.repeat(10 * MB), tools: ['a'] }, ...TOO_LARGE },
  { name: 'tools: 10 MB body', path: TOOLS, method: 'PUT', body: [{ name: 'x', description: 'd'.repeat(10 * MB) }], ...TOO_LARGE },
  { name: 'traces: 10 MB NDJSON batch', path: T, body: `${'{"tools":["a","b"]}\n'.repeat(Math.ceil((10 * MB) / 20))}`, type: 'application/x-ndjson', ...TOO_LARGE },
  // Deep nesting.
  { name: 'predict: 100,000-deep array body', path: P, body: nested(100_000), ...INVALID },
  { name: 'traces: 100,000-deep array body', path: T, body: nested(100_000), ...TOO_LARGE },
  { name: 'traces: 200-deep object in a tool input', path: T, body: { ...goodReasoning, id: 'deep', steps: [{ step_id: 0, type: 'tool_call', tool: { name: 'a' }, input: nestedObject(200) }] }, ...TOO_LARGE },
  { name: 'predict: nested arrays as context items', path: P, body: `{"context":${nested(500, '"a"')}}`, ...INVALID },
  // Invalid JSON and UTF-8.
  { name: 'predict: truncated JSON', path: P, body: '{"context": ["a"', ...INVALID },
  { name: 'predict: trailing garbage', path: P, body: '{"context": []} x', ...INVALID },
  { name: 'predict: single quotes', path: P, body: "{'context': []}", ...INVALID },
  { name: 'predict: empty body', path: P, body: Buffer.alloc(0), type: 'application/json', ...INVALID },
  { name: 'predict: whitespace body', path: P, body: ' \n\t ', ...INVALID },
  { name: 'predict: invalid UTF-8', path: P, body: invalidUtf8, type: 'application/json', ...INVALID },
  { name: 'traces: invalid UTF-8 in NDJSON', path: T, body: Buffer.concat([Buffer.from('{"tools":["ok"]}\n'), invalidUtf8]), type: 'application/x-ndjson', ...INVALID },
  { name: 'traces: NDJSON with a broken line', path: T, body: '{"tools":["a","b"]}\n{"tools":["b",\n', type: 'application/x-ndjson', ...INVALID },
  { name: 'traces: NDJSON with one invalid trace', path: T, body: '{"tools":["a","b"]}\n{"tools":["b","c"]}\n{"tools":5}\n', type: 'application/x-ndjson', ...INVALID },
  { name: 'traces: JSON batch with one invalid trace', path: T, body: [{ tools: ['a', 'b'] }, { tools: ['c'] }, { tools: [] }], ...INVALID },
  { name: 'traces: empty NDJSON body', path: T, body: '\n\n', type: 'application/x-ndjson', ...INVALID },
  // Wrong content types.
  { name: 'predict: text/plain', path: P, body: '{"context":[]}', type: 'text/plain', ...MEDIA },
  { name: 'predict: no content type', path: P, body: Buffer.from('{"context":[]}'), type: null, ...MEDIA },
  { name: 'predict: form encoded', path: P, body: 'context=a', type: 'application/x-www-form-urlencoded', ...MEDIA },
  { name: 'predict: NDJSON where only JSON is taken', path: P, body: '{"context":[]}\n', type: 'application/x-ndjson', ...MEDIA },
  { name: 'predict: a look-alike type', path: P, body: '{"context":[]}', type: 'application/jsonp', ...MEDIA },
  { name: 'traces: XML', path: T, body: '<trace/>', type: 'application/xml', ...MEDIA },
  { name: 'tools: multipart', path: TOOLS, method: 'PUT', body: '--x--', type: 'multipart/form-data; boundary=x', ...MEDIA },
  // Compressed bodies: decoded within the limit, or refused.
  { name: 'traces: gzip bomb (64 MiB once decoded)', path: T, body: gzipBomb, ...encoded('gzip'), ...TOO_LARGE },
  { name: 'traces: brotli bomb (64 MiB once decoded)', path: T, body: brotliBomb, ...encoded('br'), ...TOO_LARGE },
  { name: 'predict: gzip body past the 1 MiB query limit once decoded', path: P, body: gzipSync(`{"context":[]${' '.repeat(MB + 10)}}`), ...encoded('gzip'), ...TOO_LARGE },
  { name: 'traces: Content-Encoding gzip on a plain body', path: T, body: { tools: ['a', 'b'] }, ...encoded('gzip'), ...INVALID },
  { name: 'traces: truncated gzip body', path: T, body: gzipSync('{"tools":["a","b"]}').subarray(0, 12), ...encoded('gzip'), ...INVALID },
  { name: 'traces: gzip body that is not UTF-8 once decoded', path: T, body: gzipSync(invalidUtf8), ...encoded('gzip'), ...INVALID },
  { name: 'predict: deflate body that is gzip', path: P, body: gzipSync('{"context":[]}'), ...encoded('deflate'), ...INVALID },
  { name: 'traces: Content-Encoding compress', path: T, body: deflateSync('{"tools":["a","b"]}'), ...encoded('compress'), ...MEDIA },
  { name: 'traces: Content-Encoding zstd', path: T, body: '{"tools":["a","b"]}', ...encoded('zstd'), ...MEDIA },
  { name: 'traces: an unknown Content-Encoding', path: T, body: '{"tools":["a","b"]}', ...encoded('x-unknown'), ...MEDIA },
  { name: 'traces: two codings stacked', path: T, body: gzipSync(gzipSync('{"tools":["a","b"]}')), ...encoded('gzip, gzip'), ...MEDIA },
  { name: 'tools: Content-Encoding __proto__', path: TOOLS, method: 'PUT', body: [{ name: 'x' }], ...encoded('__proto__'), ...MEDIA },
  // Routes and methods that do not exist.
  { name: 'unknown route', path: '/v1/nothing', body: {}, ...NOT_FOUND },
  { name: 'wrong method on a route', path: TOOLS, method: 'DELETE', ...NOT_FOUND },
  { name: 'POST on a GET route', path: '/v1/stats', body: {}, ...NOT_FOUND },
  { name: 'prototype-named route', path: '/v1/__proto__', ...NOT_FOUND },
  { name: 'very long unknown path', path: `/v1/${'x'.repeat(8_000)}`, ...NOT_FOUND },
  // Headers a client may repeat or forge: one Host only (RFC 9112, section 3.2), whatever the second says.
  { name: 'predict: two Host headers', path: P, body: { context: [] }, rawHeaders: ['Host: 127.0.0.1'], ...INVALID },
  { name: 'predict: two Host headers, the second another name', path: P, body: { context: [] }, rawHeaders: ['Host: evil.example'], ...INVALID },
  { name: 'stats: two Host headers on a read', path: '/v1/stats', rawHeaders: ['host: localhost'], ...INVALID },
  { name: 'traces: two Host headers on a write', path: T, body: { tools: ['a', 'b'] }, rawHeaders: ['HOST: 127.0.0.1'], ...INVALID },
];

/** `input` over a raw socket: the server's Host, then its raw header lines, then the body. */
function sendRaw(base: string, input: BadInput): Promise<Reply> {
  const body = input.body === undefined ? undefined : Buffer.isBuffer(input.body) ? input.body : Buffer.from(typeof input.body === 'string' ? input.body : JSON.stringify(input.body));
  const lines = [`${input.method ?? (body === undefined ? 'GET' : 'POST')} ${input.path} HTTP/1.1`, `Host: ${new URL(base).host}`, ...(input.rawHeaders ?? []), 'Connection: close'];
  if (body !== undefined) lines.push(`Content-Type: ${input.type ?? 'application/json'}`, `Content-Length: ${body.length}`);
  for (const [name, value] of Object.entries(input.headers ?? {})) lines.push(`${name}: ${value}`);
  return rawCall(base, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]));
}

describe('bad inputs', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let before: { stats: unknown; tools: unknown; prediction: unknown };

  const snapshot = async () => ({
    stats: (await call(server.url, '/v1/stats')).json,
    tools: (await call(server.url, '/v1/tools')).json,
    prediction: (await call(server.url, '/v1/predict', { body: { context: ['search_flights'], k: 3 } })).json,
  });

  beforeAll(async () => {
    server = await startTestServer();
    // The seeded model built first (its rebuild is debounced): a build landing later would change the stats.
    await eventually(() => call(server.url, '/v1/stats'), (reply) => reply.json.modelVersion === reply.json.version);
    before = await snapshot();
  });
  afterAll(async () => {
    await server.close();
  });

  it('has a corpus of at least 50 distinct cases', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(50);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', async (_name, input) => {
    const r = input.rawHeaders === undefined ? await call(server.url, input.path, input) : await sendRaw(server.url, input);
    expect({ status: r.status, code: r.json?.error?.code }).toEqual({ status: input.status, code: input.code });
    expect(typeof r.json.error.message).toBe('string');
    expect(r.json.error.message.length).toBeGreaterThan(0);
    // The message never echoes a huge input back.
    expect(r.text.length).toBeLessThan(20_000);
    expect((await call(server.url, '/healthz')).status).toBe(200);
  });

  it('serves a raw request with one Host (the raw cases fail on their headers, not on the socket)', async () => {
    const r = await sendRaw(server.url, { name: 'one Host', path: '/v1/stats', status: 200, code: '' });
    expect(r.status).toBe(200);
    expect(r.json.traces).toBe(4);
  });

  it('wrote nothing and still answers as before', async () => {
    expect(await snapshot()).toEqual(before);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
