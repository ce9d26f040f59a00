/**
 * The graph reads the dashboard draws from: GET /v1/graph, GET /v1/graph/tools/:name and
 * GET /v1/patterns/:id, on a real server over the four traces of _server.ts. Their transitions,
 * by hand: search_flights -> book_flight 3 times; book_flight -> send_email, book_flight ->
 * search_hotels, book_hotel -> send_email once each; search_hotels -> book_hotel twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, startTestServer } from './_server.js';

let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  server = await startTestServer();
  // The graph reads show the model that answers queries: wait for the one built with the traces.
  await eventually(() => server.service.stats(), (s) => s.modelVersion === s.version);
});
afterAll(async () => {
  await server.close();
});

const pairs = (edges: readonly { from: string; to: string }[]) => edges.map((e) => `${e.from}>${e.to}`);

describe('GET /v1/graph', () => {
  it('sends every transition and tool when they fit, most observed first, with P(to | from) and reliability', async () => {
    const r = await call(server.url, '/v1/graph');
    expect(r.status).toBe(200);
    expect(r.json.tools).toBe(5);
    expect(r.json.transitions).toBe(5);
    expect(r.json.nodes.map((n: { name: string }) => n.name).sort()).toEqual(['book_flight', 'book_hotel', 'search_flights', 'search_hotels', 'send_email']);
    // Ties (one observation each) in source, then target order: tools are indexed in catalogue order.
    expect(pairs(r.json.edges)).toEqual(['search_flights>book_flight', 'search_hotels>book_hotel', 'book_flight>search_hotels', 'book_flight>send_email', 'book_hotel>send_email']);
    expect(r.json.edges.map((e: { count: number }) => e.count)).toEqual([3, 2, 1, 1, 1]);
    const p = Object.fromEntries(r.json.edges.map((e: { from: string; to: string; probability: number }) => [`${e.from}>${e.to}`, e.probability]));
    expect(p['search_flights>book_flight']).toBe(1);
    expect(p['book_flight>send_email']).toBe(0.5);
    expect(p['book_flight>search_hotels']).toBe(0.5);
    for (const e of r.json.edges) expect(e.reliability).toBeGreaterThan(0.5);
    const pagerank = r.json.nodes.reduce((s: number, n: { pagerank: number }) => s + n.pagerank, 0);
    expect(pagerank).toBeCloseTo(1, 9);
    // A tool in some capability has a spectral cluster; one in none has -1.
    const inCapability = new Set((await call(server.url, '/v1/capabilities')).json.capabilities.flatMap((c: { tools: string[] }) => c.tools));
    for (const n of r.json.nodes) {
      expect(n.community).toBeGreaterThanOrEqual(0);
      expect(n.community).toBeLessThan(r.json.communities);
      if (inCapability.has(n.name)) expect(n.cluster).toBeGreaterThanOrEqual(0);
      else expect(n.cluster).toBe(-1);
    }
  });

  it('sends the top transitions and only the tools they join', async () => {
    const r = await call(server.url, '/v1/graph?top=2');
    expect(r.status).toBe(200);
    expect(pairs(r.json.edges)).toEqual(['search_flights>book_flight', 'search_hotels>book_hotel']);
    expect(r.json.nodes.map((n: { name: string }) => n.name).sort()).toEqual(['book_flight', 'book_hotel', 'search_flights', 'search_hotels']);
    expect(r.json.transitions).toBe(5);
  });

  it('refuses a top that is not a count in range, and unknown parameters', async () => {
    for (const q of ['top=0', 'top=abc', 'top=', 'top=1.5', 'top=50001', 'top=1&top=2', 'limit=3']) {
      const r = await call(server.url, `/v1/graph?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.error.code, q).toBe('INVALID_INPUT');
    }
  });
});

describe('GET /v1/graph/tools/:name', () => {
  it("lists a tool's successors and predecessors with probabilities, reliability and pattern confidence", async () => {
    const r = await call(server.url, '/v1/graph/tools/book_flight');
    expect(r.status).toBe(200);
    expect(r.json.tool.name).toBe('book_flight');
    expect(r.json.successors.map((s: { to: string }) => s.to)).toEqual(['search_hotels', 'send_email']);
    expect(r.json.successors.map((s: { probability: number }) => s.probability)).toEqual([0.5, 0.5]);
    expect(r.json.predecessors.map((s: { from: string; count: number }) => [s.from, s.count])).toEqual([['search_flights', 3]]);
    expect([r.json.successorCount, r.json.predecessorCount]).toEqual([2, 1]);
    // The pattern confidence is the one the patterns listing reports for the same transition.
    const listed = (await call(server.url, '/v1/patterns', { body: { from: 'search_flights' } })).json.patterns[0];
    expect(r.json.predecessors[0].pattern).toEqual({ id: listed.id, composite: listed.confidence.composite, tier: listed.confidence.tier });
  });

  it('takes a limit, and names an unknown tool', async () => {
    const r = await call(server.url, '/v1/graph/tools/book_flight?limit=1');
    expect(r.json.successors).toHaveLength(1);
    expect(r.json.successorCount).toBe(2);
    const unknown = await call(server.url, '/v1/graph/tools/no_such_tool');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('UNKNOWN_TOOL');
    expect(unknown.json.error.message).toContain('no_such_tool');
    const bad = await call(server.url, '/v1/graph/tools/book_flight?limit=-2');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_INPUT');
  });
});

describe('GET /v1/patterns/:id', () => {
  it("answers the pattern with people's verdicts, oldest first", async () => {
    const listed = (await call(server.url, '/v1/patterns', { body: { from: 'search_hotels' } })).json.patterns[0];
    const before = await call(server.url, `/v1/patterns/${encodeURIComponent(listed.id)}`);
    expect(before.status).toBe(200);
    expect(before.json.tools).toEqual(['search_hotels', 'book_hotel']);
    expect(before.json.feedback).toEqual([]);
    await call(server.url, `/v1/patterns/${encodeURIComponent(listed.id)}/feedback`, { body: { decision: 'approve', at: 1_000 } });
    await call(server.url, `/v1/patterns/${encodeURIComponent(listed.id)}/feedback`, { body: { decision: 'reject', at: 2_000 } });
    const after = await call(server.url, `/v1/patterns/${encodeURIComponent(listed.id)}`);
    expect(after.json.feedback).toEqual([{ at: 1_000, decision: 'approve' }, { at: 2_000, decision: 'reject' }]);
    expect([after.json.approvals, after.json.rejections]).toEqual([1, 1]);
  });

  it('is NOT_FOUND for an unknown id', async () => {
    const r = await call(server.url, '/v1/patterns/transition:00000000000000000000000000000000');
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('NOT_FOUND');
  });
});

describe('the OpenAPI document', () => {
  it('names the query parameters of the graph reads', async () => {
    const doc = (await call(server.url, '/v1/openapi.json')).json;
    const graph = doc.paths['/v1/graph'].get;
    expect(graph.parameters).toEqual([{ name: 'top', in: 'query', required: false, schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 50_000, default: 2_000 }) }]);
    const tool = doc.paths['/v1/graph/tools/{name}'].get;
    expect(tool.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['path:name', 'query:limit']);
  });
});
