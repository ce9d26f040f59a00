/**
 * The HTTP API end to end: a real Fastify server on loopback over a real in-memory service.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasoningTrace } from '../../scoring/_helpers.js';
import { clientErrorResponse } from '../../../src/service/http/errors.js';
import { ROUTES } from '../../../src/service/http/routes.js';
import { inMemoryService } from '../../../src/service/service.js';
import { Toolgraph } from '../../../src/service/toolgraph.js';
import { call, CATALOG, eventually, startTestServer, TRACES } from './_server.js';

const CATALOGUES = new URL('../../fixtures/catalogues/', import.meta.url);

/** What a write would change: the graph's counts (a model rebuilt meanwhile in the background changes the rest). */
function graphStats(stats: { tools: number; transitions: number; traces: number; version: number }) {
  return { tools: stats.tools, transitions: stats.transitions, traces: stats.traces, version: stats.version };
}

describe('HTTP API', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('predicts the next tool from the recorded traces', async () => {
    const r = await call(server.url, '/v1/predict', { body: { context: ['search_hotels'], k: 2 } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json.kind).toBe('prediction');
    expect(r.json.items[0].tool).toBe('book_hotel');
    expect(r.json.items).toHaveLength(2);
    expect(typeof r.json.items[0].signals.transition).toBe('number');
  });

  it('searches tools by words', async () => {
    const r = await call(server.url, '/v1/search', { body: { query: 'book a hotel room', k: 3 } });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('results');
    expect(r.json.profile).toBe('default');
    expect(r.json.items[0].tool).toBe('book_hotel');
    expect(r.json.unknownContext).toEqual([]);
    const withUnknown = await call(server.url, '/v1/search', { body: { query: 'book a hotel room', context: ['search_hotels', 'nope'] } });
    expect(withUnknown.json.unknownContext).toEqual(['nope']);
    const seed = await call(server.url, '/v1/search', { body: { query: 'book a hotel room', k: 3, profile: 'seed' } });
    expect(seed.status).toBe(200);
    expect(seed.json.profile).toBe('seed');
    expect(seed.json.items[0]).toMatchObject({ tool: 'book_hotel', score: 1 });
  });

  it('answers no-match for a request nothing fits, with the words that matched nothing', async () => {
    const r = await call(server.url, '/v1/search', { body: { query: 'knit a woollen scarf', k: 2 } });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('no-match');
    expect(r.json.unmatched).toEqual(['knit', 'woollen', 'scarf']);
    expect(r.json.items).toHaveLength(2);
  });

  it('suggests a workflow DAG and validates the request', async () => {
    const r = await call(server.url, '/v1/dag', { body: { intent: 'fly to Rome', maxNodes: 3, expandCapabilities: true } });
    expect(r.status).toBe(200);
    expect(r.json.nodes.map((n: { tool: string }) => n.tool)).toContain('search_flights');
    expect(r.json.nodes.length).toBeLessThanOrEqual(3);
    expect(r.json.layers.flat().sort()).toEqual(r.json.nodes.map((n: { id: string }) => n.id).sort());
    expect(r.json.kind).toBe('workflow');
    // A task nothing fits is said to be one, as search says it, and rejected.
    const none = await call(server.url, '/v1/dag', { body: { intent: 'knit a woollen scarf', thresholds: { reject: 0, warn: 0 } } });
    expect(none.status).toBe(200);
    expect(none.json).toMatchObject({ kind: 'no-match', status: 'reject' });
    expect(none.json.warnings[0]).toContain('"knit", "woollen", "scarf" matched nothing');
    const bad = await call(server.url, '/v1/dag', { body: { intent: 'x', thresholds: { reject: 0.9, warn: 0.1 } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_INPUT');
  });

  it('lists patterns and takes a human verdict on one by id; an unknown id is 404', async () => {
    const listed = await call(server.url, '/v1/patterns', { body: { from: 'search_flights', limit: 5 } });
    expect(listed.status).toBe(200);
    const pair = listed.json.patterns.find((p: { tools: string[] }) => p.tools[1] === 'book_flight');
    expect(pair.approvals).toBe(0);
    const approved = await call(server.url, `/v1/patterns/${encodeURIComponent(pair.id)}/feedback`, { body: { decision: 'approve' } });
    expect(approved.status).toBe(200);
    expect(approved.json.approvals).toBe(1);
    expect(approved.json.confidence.human).toBeGreaterThan(pair.confidence.human);
    const missing = await call(server.url, '/v1/patterns/transition:nope/feedback', { body: { decision: 'reject' } });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
    const bad = await call(server.url, `/v1/patterns/${encodeURIComponent(pair.id)}/feedback`, { body: { decision: 'maybe' } });
    expect(bad.status).toBe(400);
  });

  it('lists and extends the catalogue; tools not named are kept', async () => {
    const before = await call(server.url, '/v1/tools');
    expect(before.status).toBe(200);
    expect(before.json.tools.map((t: { name: string }) => t.name).sort()).toEqual(CATALOG.map((t) => t.name).sort());
    const put = await call(server.url, '/v1/tools', {
      method: 'PUT',
      body: { tools: [{ name: 'get_weather', description: 'Weather forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] },
    });
    expect(put.status).toBe(200);
    expect(put.json.tools).toBe(CATALOG.length + 1);
    const after = await call(server.url, '/v1/tools');
    const weather = after.json.tools.find((t: { name: string }) => t.name === 'get_weather');
    expect(weather).toEqual({ name: 'get_weather', description: 'Weather forecast', params: [{ name: 'city', type: 'string', description: '', required: true }] });
  });

  it('imports the catalogues registries publish: a tools/list result of the MCP reference servers and an OpenAPI document', async () => {
    const own = await startTestServer({}, inMemoryService(new Toolgraph({ learnCapabilities: false })));
    try {
      const mcp = await call(own.url, '/v1/tools', { method: 'PUT', body: readFileSync(new URL('mcp-reference-servers.tools-list.json', CATALOGUES), 'utf8') });
      expect(mcp.status, mcp.text).toBe(200);
      expect(mcp.json).toMatchObject({ tools: 9, added: 9, skipped: [] });
      const openapi = await call(own.url, '/v1/tools', { method: 'PUT', body: readFileSync(new URL('petstore-expanded.openapi.json', CATALOGUES), 'utf8') });
      expect(openapi.status, openapi.text).toBe(200);
      expect(openapi.json).toMatchObject({ tools: 13, added: 4, skipped: [] });
      const listed = new Map((await call(own.url, '/v1/tools')).json.tools.map((t: { name: string }) => [t.name, t]));
      expect(listed.get('git_log')).toMatchObject({ params: [{ name: 'repo_path' }, { name: 'max_count' }, { name: 'start_timestamp', type: 'string | null' }, { name: 'end_timestamp' }] });
      expect(listed.get('addPet')).toMatchObject({ params: [{ name: 'name', required: true }, { name: 'tag', required: false }], outputTypes: ['Pet'] });
      // Searchable as soon as the write is answered.
      const found = await call(own.url, '/v1/search', { body: { query: 'delete a pet', k: 3 } });
      expect(found.json.items.map((i: { tool: string }) => i.tool)).toContain('deletePet');
    } finally {
      await own.close();
    }
  });

  it('writes the readable entries of a catalogue and lists the others in `skipped`; 400 when none is readable', async () => {
    const own = await startTestServer({}, inMemoryService(new Toolgraph({ learnCapabilities: false })));
    try {
      const body = { tools: [{ name: 'ok_one', category: ['a', 'b'] }, { description: 'no name' }, { name: '\u200b' }, { name: 'file_\u202eeteled' }, { name: 'ok_two', params: [{ name: 'p', type: ['string', 'null'], required: 'true' }] }] };
      const put = await call(own.url, '/v1/tools', { method: 'PUT', body });
      expect(put.status, put.text).toBe(200);
      expect(put.json).toEqual({
        tools: 2,
        added: 2,
        version: expect.any(Number),
        skipped: [
          { index: 1, at: 'tools[1]', reason: 'tools[1].name: missing, expected string' },
          { index: 2, at: 'tools[2]', reason: 'tools[2].name: must not be blank (white space, zero-width or format characters only)' },
          { index: 3, at: 'tools[3]', reason: 'tools[3].name: must not contain bidirectional control characters (U+202E at 5)' },
        ],
      });
      expect((await call(own.url, '/v1/tools')).json.tools.map((t: { name: string }) => t.name)).toEqual(['ok_one', 'ok_two']);
      const none = await call(own.url, '/v1/tools', { method: 'PUT', body: [{ description: 'no name' }, { name: '\u200b' }] });
      expect(none.status).toBe(400);
      expect(none.json.error.code).toBe('INVALID_INPUT');
      expect(none.json.error.message).toBe('setTools: no entry could be read (2 skipped), nothing was written; first: [0].name: missing, expected string');
      expect((await call(own.url, '/v1/tools')).json.tools).toHaveLength(2);
      // The answer's shape is documented: the OpenAPI document is generated from the route table.
      const doc = (await call(own.url, '/v1/openapi.json')).json;
      const answer = doc.paths['/v1/tools'].put.responses['200'].content['application/json'].schema;
      expect(answer.required).toContain('skipped');
      expect(Object.keys(answer.properties.skipped.items.properties).sort()).toEqual(['at', 'index', 'line', 'reason']);
    } finally {
      await own.close();
    }
  });

  it('refuses with 413 a catalogue write that would make the catalogue pass its limit, and keeps what it had', async () => {
    const own = await startTestServer({}, inMemoryService(new Toolgraph({ learnCapabilities: false })));
    try {
      const tools = (from: number) => Array.from({ length: 60_000 }, (_, i) => ({ name: `t${from + i}`, description: '', params: [] }));
      const first = await call(own.url, '/v1/tools', { method: 'PUT', body: tools(0) });
      expect(first.status).toBe(200);
      expect(first.json).toMatchObject({ tools: 60_000, added: 60_000 });
      const second = await call(own.url, '/v1/tools', { method: 'PUT', body: tools(60_000) });
      expect(second.status).toBe(413);
      expect(second.json.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'setTools: the catalogue would hold 120000 tools, the limit is 100000; nothing was written' });
      expect((await call(own.url, '/v1/tools')).json.tools).toHaveLength(60_000);
    } finally {
      await own.close();
    }
  }, 60_000);

  it('keeps declared outputs when a listed catalogue is put back as it is', async () => {
    const put = await call(server.url, '/v1/tools', {
      method: 'PUT',
      body: [{ name: 'find_airport', description: 'Airport by city', params: [{ name: 'city', type: 'string' }], output_parameters: ['skyId'] }],
    });
    expect(put.status).toBe(200);
    const listed = (await call(server.url, '/v1/tools')).json.tools;
    expect(listed.find((t: { name: string }) => t.name === 'find_airport').outputs).toEqual(['skyId']);
    expect((await call(server.url, '/v1/tools', { method: 'PUT', body: listed })).status).toBe(200);
    const again = (await call(server.url, '/v1/tools')).json.tools;
    expect(again).toEqual(listed);
  });

  it('registers, lists, ranks and expands capabilities; bad ones are refused and register nothing', async () => {
    const capabilities = [
      { id: 'book-trip', description: 'book a flight and a hotel for a trip', tools: ['search_flights', 'book_flight', 'book_hotel'] },
      { id: 'notify', description: 'tell someone by email', tools: ['send_email'], ordered: false },
    ];
    const unknown = await call(server.url, '/v1/capabilities', { method: 'PUT', body: [{ id: 'x', tools: ['search_flights', 'nope'] }] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('UNKNOWN_TOOL');
    const reserved = await call(server.url, '/v1/capabilities', { method: 'PUT', body: [{ id: 'learned:x', tools: ['send_email'] }] });
    expect(reserved.status).toBe(400);
    expect(reserved.json.error.code).toBe('INVALID_INPUT');
    const put = await call(server.url, '/v1/capabilities', { method: 'PUT', body: { capabilities } });
    expect(put.status).toBe(200);
    expect(put.json.capabilities).toBe(2);
    // Acknowledged once the model holds them: the next request lists them.
    const registeredOf = (reply: { json: any }) => reply.json.capabilities.filter((c: { source: string }) => c.source === 'registered');
    const listed = await call(server.url, '/v1/capabilities');
    expect(listed.status).toBe(200);
    const registered = registeredOf(listed);
    expect(registered.map((c: { id: string; ordered: boolean }) => [c.id, c.ordered])).toEqual([['book-trip', true], ['notify', false]]);
    const ranked = await call(server.url, '/v1/capabilities/rank', { body: { intent: 'book a trip with flight and hotel', k: 3 } });
    expect(ranked.status).toBe(200);
    expect(ranked.json.mode).toBe('active-search');
    expect(ranked.json.items[0].capability).toBe('book-trip');
    const structural = await call(server.url, '/v1/capabilities/rank', { body: { context: ['search_flights', 'nope'] } });
    expect(structural.json.mode).toBe('passive-suggestion');
    expect(structural.json.unknownContext).toEqual(['nope']);
    const shown = await call(server.url, '/v1/capabilities/book-trip');
    expect(shown.json).toEqual({ id: 'book-trip', tools: ['search_flights', 'book_flight', 'book_hotel'], ordered: true, description: capabilities[0]!.description, source: 'registered' });
    const missing = await call(server.url, `/v1/capabilities/${encodeURIComponent('__proto__')}`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
    expect((await call(server.url, '/v1/capabilities/rank', { body: { k: 0 } })).status).toBe(400);
  });

  it('serves ids as long as the schemas allow in the path; router errors come in the API shape and are counted', async () => {
    // MAX_ID_LENGTH characters, some outside ASCII: percent-encoded, the path parameter is longer
    // than Fastify's default limit of 100 many times over (it answered its own 414 before).
    const id = `cap-${'é'.repeat(100)}${'c'.repeat(1_024 - 104)}`;
    expect((await call(server.url, '/v1/capabilities', { method: 'PUT', body: [{ id, tools: ['send_email'] }] })).status).toBe(200);
    const shown = await call(server.url, `/v1/capabilities/${encodeURIComponent(id)}`);
    expect(shown.status).toBe(200);
    expect(shown.json.id).toBe(id);
    const before = (await call(server.url, '/metrics')).text.match(/^toolgraph_http_requests_total\{method="GET",route="unmatched",status="400"\} (\d+)$/m);
    const bad = await call(server.url, '/v1/capabilities/%ZZ');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: { code: 'INVALID_INPUT', message: 'the URL path is not valid percent-encoded UTF-8' } });
    const after = (await call(server.url, '/metrics')).text.match(/^toolgraph_http_requests_total\{method="GET",route="unmatched",status="400"\} (\d+)$/m);
    expect(Number(after?.[1])).toBe(Number(before?.[1] ?? 0) + 1);
    // Past Node's own limit on the request line and headers: refused by its parser, in the same shape.
    const huge = await call(server.url, `/v1/capabilities/${'d'.repeat(17_000)}`);
    expect(huge.status).toBe(431);
    expect(huge.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('takes a bodiless POST where every field of the body is optional, and only there', async () => {
    // Answered as the empty body `{}` is.
    const patterns = await call(server.url, '/v1/patterns', { method: 'POST' });
    expect(patterns.status).toBe(200);
    expect(patterns.json.patterns.length).toBeGreaterThan(0);
    expect(patterns.json).toEqual((await call(server.url, '/v1/patterns', { body: {} })).json);
    // The earlier tests' capabilities join the model at a debounced rebuild that may land
    // between the two calls, so the pair is asked again until both were answered by one model.
    const [bodiless, empty] = await eventually(
      async () => [await call(server.url, '/v1/capabilities/rank', { method: 'POST' }), await call(server.url, '/v1/capabilities/rank', { body: {} })] as const,
      ([a, b]) => isDeepStrictEqual(a.json, b.json),
    );
    expect(bodiless.status).toBe(200);
    expect(bodiless.json).toEqual(empty.json);
    // A body still needs its type; a route whose body has required fields still needs one.
    expect((await call(server.url, '/v1/patterns', { body: '{}', type: 'text/plain' })).status).toBe(415);
    const predict = await call(server.url, '/v1/predict', { method: 'POST' });
    expect(predict.status).toBe(415);
    expect(predict.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const doc = (await call(server.url, '/v1/openapi.json')).json;
    expect(doc.paths['/v1/patterns'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/predict'].post.requestBody.required).toBe(true);
  });

  it('records one trace (JSON) and a batch (NDJSON), and a retry with the same id is skipped', async () => {
    const before = (await call(server.url, '/v1/stats')).json.traces as number;
    const one = await call(server.url, '/v1/traces', { body: { id: 'api-1', intent: 'weather', tools: ['get_weather', 'send_email'] } });
    expect(one.status).toBe(200);
    expect(one.json.ingested).toBe(1);
    const ndjson = ['{"id":"api-2","tools":["search_flights","book_flight"]}', '', '{"id":"api-3","tools":[{"name":"book_flight","ok":false}]}', ''].join('\n');
    const batch = await call(server.url, '/v1/traces', { body: ndjson, type: 'application/x-ndjson' });
    expect(batch.status).toBe(200);
    expect(batch.json.ingested).toBe(2);
    const retry = await call(server.url, '/v1/traces', { body: { id: 'api-1', tools: ['get_weather'] } });
    expect(retry.json.ingested).toBe(0);
    expect((await call(server.url, '/v1/stats')).json.traces).toBe(before + 3);
  });

  it('accepts tool names that are JavaScript object keys as plain data', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const r = await call(server.url, '/v1/traces', { body: { id: 'proto-1', tools: names } });
    expect(r.status).toBe(200);
    const tools = (await call(server.url, '/v1/tools')).json.tools.map((t: { name: string }) => t.name);
    for (const name of names) expect(tools).toContain(name);
    // The graph learned __proto__ -> constructor like any other transition.
    const p = await eventually(
      () => call(server.url, '/v1/predict', { body: { context: ['__proto__'], k: 1 } }),
      (reply) => reply.json.items[0]?.tool === 'constructor',
    );
    expect(p.json.items[0].tool).toBe('constructor');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('scores a ReasoningTrace with its breakdown, contributing it on request', async () => {
    const trace = reasoningTrace({ id: 'r1', objective: 'convert currency', steps: ['thought', 'tool_call', 'observation', 'tool_call', 'observation'] });
    const first = await call(server.url, '/v1/score', { body: { trace, contribute: true } });
    expect(first.status).toBe(200);
    expect(first.json.contributed).toBe(true);
    expect(first.json.reason).toBe('explicit');
    expect(first.json.breakdown.dimensions.novelty).toBe(0.5);
    // The same trace again is no longer novel: the first call really wrote the memory.
    const again = await call(server.url, '/v1/score', { body: { trace, threshold: 1 } });
    expect(again.json.breakdown.dimensions.novelty).toBeLessThan(0.5);
    expect(again.json.contributed).toBe(false);
  });

  it('serves health, an OpenAPI document generated from the schemas, and Prometheus metrics', async () => {
    expect((await call(server.url, '/healthz')).json).toEqual({ status: 'ok' });
    const doc = (await call(server.url, '/v1/openapi.json')).json;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/capabilities',
      '/v1/capabilities/rank',
      '/v1/capabilities/{id}',
      '/v1/dag',
      '/v1/graph',
      '/v1/graph/tools/{name}',
      '/v1/patterns',
      '/v1/patterns/{id}',
      '/v1/patterns/{id}/feedback',
      '/v1/predict',
      '/v1/score',
      '/v1/search',
      '/v1/sessions',
      '/v1/sessions/{id}',
      '/v1/sessions/{id}/steps',
      '/v1/sessions/{id}/telemetry',
      '/v1/stats',
      '/v1/tools',
      '/v1/traces',
    ]);
    expect(doc.paths['/v1/patterns/{id}/feedback'].post.security).toEqual([{ bearer: [] }]);
    const predictBody = doc.paths['/v1/predict'].post.requestBody.content['application/json'].schema;
    expect(predictBody.additionalProperties).toBe(false);
    expect(predictBody.properties.k).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 5 });
    expect(doc.paths['/v1/traces'].post.requestBody.content['application/x-ndjson']).toBeDefined();
    expect(doc.paths['/v1/tools'].put.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/tools'].get.security).toBeUndefined();
    expect(doc.paths['/v1/capabilities'].put.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/capabilities/rank'].post.security).toBeUndefined();

    await call(server.url, '/v1/predict', { body: { context: ['nope'] } });
    await call(server.url, '/v1/predict', { body: { k: 0 } });
    const metrics = await call(server.url, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = metrics.text;
    expect(text).toMatch(/^toolgraph_http_requests_total\{method="POST",route="\/v1\/predict",status="200"\} \d+$/m);
    expect(text).toMatch(/^toolgraph_http_requests_total\{method="POST",route="\/v1\/predict",status="400"\} 1$/m);
    expect(text).toMatch(/^toolgraph_http_request_duration_seconds_bucket\{method="POST",route="\/v1\/predict",le="\+Inf"\} \d+$/m);
    const stats = (await call(server.url, '/v1/stats')).json;
    // Every statistic the service keeps is served and documented (the document once lacked three).
    const kept = Object.keys(await server.service.stats()).sort();
    expect(Object.keys(stats).sort()).toEqual(kept);
    const statsDoc = doc.paths['/v1/stats'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(statsDoc.properties).sort()).toEqual(kept);
    expect(text).toContain(`toolgraph_graph_tools ${stats.tools}\n`);
    expect(text).toContain(`toolgraph_graph_traces ${stats.traces}\n`);
    expect(text).toMatch(/^toolgraph_rebuild_seconds \d/m);
    expect(text).toMatch(/^toolgraph_recent_transitions \d+$/m);
    expect(text).toMatch(/^toolgraph_recent_intents \d+$/m);
    expect(text).toMatch(/^toolgraph_ingestion_lag_seconds \d/m);
    // Every sample line parses as `name{labels} value`.
    for (const line of text.trim().split('\n')) {
      if (!line.startsWith('#')) expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? -?[0-9.e+-]+$/);
    }
  });
});

describe('HTTP auth', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ token: 's3cret' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses writes without the bearer token (401), before reading the body', async () => {
    const before = graphStats((await call(server.url, '/v1/stats')).json);
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong' }, { authorization: 's3cret' }, { authorization: 'Basic czNjcmV0' }]) {
      const r = await call(server.url, '/v1/traces', { body: { tools: ['a', 'b'] }, headers });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
      expect(r.headers.get('www-authenticate')).toContain('Bearer');
    }
    const put = await call(server.url, '/v1/tools', { method: 'PUT', body: [{ name: 'x' }] });
    expect(put.status).toBe(401);
    // Even a body that would be rejected as too large is refused on the headers alone.
    const big = await call(server.url, '/v1/traces', { body: Buffer.alloc(9 * 1024 * 1024, 0x20), type: 'application/json' });
    expect(big.status).toBe(401);
    expect(graphStats((await call(server.url, '/v1/stats')).json)).toEqual(before);
  });

  it('accepts writes with the token, and reads without it', async () => {
    const r = await call(server.url, '/v1/traces', { body: { tools: ['a', 'b'] }, headers: { authorization: 'Bearer s3cret' } });
    expect(r.status).toBe(200);
    expect(r.json.ingested).toBe(1);
    expect((await call(server.url, '/v1/predict', { body: { context: ['a'] } })).status).toBe(200);
    expect((await call(server.url, '/v1/tools')).status).toBe(200);
  });
});

describe('HTTP origin check (DNS rebinding)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ allowedOrigins: ['https://console.example.com'] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses requests from pages at other origins (403) before reading the body, and writes nothing', async () => {
    const before = graphStats((await call(server.url, '/v1/stats')).json);
    for (const origin of ['http://evil.example', 'http://localhost.evil.example:8080', 'null', 'https://console.example.com.evil.example', 'file://']) {
      const r = await call(server.url, '/v1/traces', { body: { tools: ['a', 'b'] }, headers: { origin } });
      expect(r.status, origin).toBe(403);
      expect(r.json.error.code).toBe('FORBIDDEN_ORIGIN');
    }
    const predict = await call(server.url, '/v1/predict', { body: { context: ['search_flights'] }, headers: { origin: 'http://evil.example' } });
    expect(predict.status).toBe(403);
    const mcp = await call(server.url, '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { origin: 'http://evil.example', accept: 'application/json, text/event-stream' } });
    expect(mcp.status).toBe(403);
    expect(mcp.json.error.code).toBe('FORBIDDEN_ORIGIN');
    expect(graphStats((await call(server.url, '/v1/stats')).json)).toEqual(before);
  });

  it('serves loopback origins, listed origins, and clients that send no Origin', async () => {
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:5173', 'HTTPS://Console.Example.com/']) {
      const r = await call(server.url, '/v1/predict', { body: { context: ['search_flights'] }, headers: { origin } });
      expect(r.status, origin).toBe(200);
    }
    expect((await call(server.url, '/v1/predict', { body: { context: ['search_flights'] } })).status).toBe(200);
  });

  it('lets the pages it serves call it from a browser: preflights answered, answers readable (CORS)', async () => {
    const page = 'https://console.example.com';
    // A JSON POST from another origin is preflighted: without an answer the browser never sends it.
    const preflight = await call(server.url, '/v1/predict', {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(page);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const answer = await call(server.url, '/v1/predict', { body: { context: ['search_flights'] }, headers: { origin: page } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(page);
    expect(answer.headers.get('vary')).toContain('Origin');
    // An error is readable by the page too.
    const bad = await call(server.url, '/v1/predict', { body: { k: 0 }, headers: { origin: 'http://localhost:3000' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    // Other origins get neither: their preflight is refused, and so is the request.
    const evil = await call(server.url, '/v1/predict', { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    // Clients that send no Origin are not browsers: no CORS headers.
    expect((await call(server.url, '/v1/predict', { body: { context: ['search_flights'] } })).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('HTTP Host check (DNS rebinding, requests without Origin)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  /** A GET with the Host header given (fetch does not let a caller set it). */
  function getWithHost(path: string, host: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ hostname, port, path, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('refuses, on a loopback server, a request naming another host: a same-origin GET from a rebinding page carries no Origin', async () => {
    const refused = await getWithHost('/v1/tools', 'evil.example:8080');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.code).toBe('FORBIDDEN_HOST');
    expect((await getWithHost('/metrics', 'localhost.evil.example')).status).toBe(403);
    expect((await getWithHost('/v1/tools', `localhost:${new URL(server.url).port}`)).status).toBe(200);
    expect((await call(server.url, '/v1/tools')).status).toBe(200);
  });
});

describe('HTTP request timeout', () => {
  it('gives a request a minute to arrive by default, and answers a late one 408 in the API shape', async () => {
    const server = await startTestServer({ requestTimeoutMs: 1_500 });
    const defaults = await startTestServer();
    try {
      // Node enforces it (server.requestTimeout) on its own clock, every 30 s: the wiring is checked here.
      expect(server.app.server.requestTimeout).toBe(1_500);
      expect(defaults.app.server.requestTimeout).toBe(60_000);
      const [head, body] = clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT').split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(head).toContain('Connection: close');
      expect(JSON.parse(body!)).toEqual({ error: { code: 'INVALID_INPUT', message: 'the request was not received in time' } });
    } finally {
      await server.close();
      await defaults.close();
    }
  });
});

describe('HTTP CORS with a token', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ token: 's3cret' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers a loopback page a readable 401 on a write without the token', async () => {
    const r = await call(server.url, '/v1/traces', { body: { tools: ['a', 'b'] }, headers: { origin: 'http://localhost:3000' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(r.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });
});

describe('HTTP service: a catalogue write is read by the next request', () => {
  it('finds a tool put in the catalogue at once, with rebuilds held off', async () => {
    const service = inMemoryService(new Toolgraph({ seed: 1, rebuildDelayMs: 3_600_000 }));
    await service.setTools(CATALOG);
    await service.ingest(TRACES);
    const server = await startTestServer({}, service);
    try {
      const before = await call(server.url, '/v1/search', { body: { query: 'rent a kayak' } });
      expect(before.json.kind).toBe('no-match');
      const put = await call(server.url, '/v1/tools', { method: 'PUT', body: [{ name: 'kayak_rental', description: 'rent a kayak on the river' }] });
      expect(put.status).toBe(200);
      const after = await call(server.url, '/v1/search', { body: { query: 'rent a kayak' } });
      expect(after.json.kind).toBe('results');
      expect(after.json.items[0].tool).toBe('kayak_rental');
    } finally {
      await server.close();
    }
  });
});

describe('HTTP API on an empty store', () => {
  it('says the store is empty in predict, search and dag, as data', async () => {
    const server = await startTestServer({}, inMemoryService(new Toolgraph({ seed: 1 })));
    try {
      const bodies = { '/v1/predict': { context: ['a'] }, '/v1/search': { query: 'find flights' }, '/v1/dag': { intent: 'find flights' } };
      for (const [path, body] of Object.entries(bodies)) {
        const r = await call(server.url, path, { body });
        expect(r.status, path).toBe(200);
        expect(r.json.kind, path).toBe('empty');
        expect(r.json.hint, path).toContain('toolgraph ingest');
        expect(r.json.items ?? r.json.nodes, path).toEqual([]);
        // The route table's response schema (OpenAPI, MCP outputSchema) describes the answer.
        const route = ROUTES.find((row) => row.url === path)!;
        expect(route.response.safeParse(r.json).success, path).toBe(true);
      }
    } finally {
      await server.close();
    }
  });
});
