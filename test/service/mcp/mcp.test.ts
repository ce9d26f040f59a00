/**
 * The MCP server through the SDK's real Client, over both transports: Streamable HTTP (mounted
 * at /mcp on a live server on loopback) and stdio (the built CLI, `toolgraph mcp`, as a child
 * process). Every tool is listed and called; bad arguments come back as tool errors and the
 * session goes on.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasoningTrace } from '../../scoring/_helpers.js';
import { call, eventually, startTestServer } from '../http/_server.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

const TOOL_NAMES = ['expand_capability', 'predict_next_tool', 'rank_capabilities', 'record_trace', 'report_step', 'score_trace', 'search_tools', 'start_session', 'suggest_dag'];

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

function errorOf(result: ToolResult): { code: string; message: string } {
  expect(result.isError).toBe(true);
  const content = result.content as { type: string; text: string }[];
  return (JSON.parse(content[0]!.text) as { error: { code: string; message: string } }).error;
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: 'toolgraph-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** The checks both transports must pass. `context` -> `next` is a transition the data holds. */
async function exercise(client: Client, data: { context: string; next: string; query: string; found: string }): Promise<void> {
  const listed = await client.listTools();
  expect(listed.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  const predictTool = listed.tools.find((t) => t.name === 'predict_next_tool')!;
  expect(predictTool.inputSchema.properties).toHaveProperty('context');
  expect(predictTool.outputSchema?.properties).toHaveProperty('items');
  expect(predictTool.annotations?.readOnlyHint).toBe(true);
  expect(listed.tools.find((t) => t.name === 'record_trace')!.annotations?.readOnlyHint).toBe(false);

  const predicted = await client.callTool({ name: 'predict_next_tool', arguments: { context: [data.context], k: 3 } });
  expect(predicted.isError).toBeFalsy();
  const prediction = predicted.structuredContent as { kind: string; items: { tool: string }[] };
  expect(prediction.kind).toBe('prediction');
  expect(prediction.items[0]!.tool).toBe(data.next);
  // The same JSON as text, for clients that read only text.
  expect(JSON.parse((predicted.content as { text: string }[])[0]!.text)).toEqual(prediction);

  const searched = await client.callTool({ name: 'search_tools', arguments: { query: data.query, k: 3 } });
  expect((searched.structuredContent as { items: { tool: string }[] }).items.map((i) => i.tool)).toContain(data.found);
  const seed = await client.callTool({ name: 'search_tools', arguments: { query: data.query, k: 3, profile: 'seed' } });
  expect(seed.isError).toBeFalsy();
  expect((seed.structuredContent as { profile: string }).profile).toBe('seed');

  const dag = await client.callTool({ name: 'suggest_dag', arguments: { intent: data.query, maxNodes: 3, expandCapabilities: true } });
  expect(dag.isError).toBeFalsy();
  const suggestion = dag.structuredContent as { kind: string; nodes: { tool: string }[]; layers: string[][]; status: string };
  expect(suggestion.nodes.map((n) => n.tool)).toContain(data.found);
  expect(['ok', 'warn', 'reject']).toContain(suggestion.status);
  expect(suggestion.kind).toBe('workflow');
  expect(errorOf(await client.callTool({ name: 'suggest_dag', arguments: { intent: 'x', maxNodes: 0 } })).code).toBe('INVALID_INPUT');

  const ranked = await client.callTool({ name: 'rank_capabilities', arguments: { intent: data.query, k: 3 } });
  expect(ranked.isError).toBeFalsy();
  expect(ranked.structuredContent).toMatchObject({ mode: 'active-search', unknownContext: [] });
  expect(errorOf(await client.callTool({ name: 'rank_capabilities', arguments: { k: 0 } })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'expand_capability', arguments: { id: '__proto__' } })).code).toBe('NOT_FOUND');
  expect(errorOf(await client.callTool({ name: 'expand_capability', arguments: {} })).code).toBe('INVALID_INPUT');

  const recorded = await client.callTool({ name: 'record_trace', arguments: { trace: { id: 'mcp-1', intent: 'learn a new pair', tools: ['mcp_alpha', 'mcp_beta'] } } });
  expect(recorded.structuredContent).toMatchObject({ ingested: 1 });
  const retried = await client.callTool({ name: 'record_trace', arguments: { trace: { id: 'mcp-1', tools: ['mcp_alpha', 'mcp_beta'] } } });
  expect(retried.structuredContent).toMatchObject({ ingested: 0 });
  // What was recorded is learned: the new pair is predicted (after the debounced rebuild).
  const learned = await eventually(
    () => client.callTool({ name: 'predict_next_tool', arguments: { context: ['mcp_alpha'], k: 1 } }),
    (answer) => (answer.structuredContent as { items: { tool: string }[] }).items[0]?.tool === 'mcp_beta',
  );
  expect((learned.structuredContent as { items: { tool: string }[] }).items[0]!.tool).toBe('mcp_beta');

  const trace = reasoningTrace({ id: 'mcp-r', objective: 'convert currency', steps: ['thought', 'tool_call', 'observation'] });
  const scored = await client.callTool({ name: 'score_trace', arguments: { trace, contribute: false, threshold: 1 } });
  const contribution = scored.structuredContent as { breakdown: { score: number }; contributed: boolean; reason: string };
  expect(contribution.breakdown.score).toBeGreaterThan(0);
  expect(contribution.breakdown.score).toBeLessThanOrEqual(1);
  expect(contribution.contributed).toBe(false);
  expect(contribution.reason).toBe('below-threshold');

  // Bad arguments: tool errors with the HTTP API's stable codes, not crashes.
  const wrongType = errorOf(await client.callTool({ name: 'predict_next_tool', arguments: { context: 'a' } }));
  expect(wrongType).toEqual({ code: 'INVALID_INPUT', message: 'predict_next_tool: context: expected array, received string' });
  expect(errorOf(await client.callTool({ name: 'predict_next_tool', arguments: { k: 0 } })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'predict_next_tool', arguments: { context: [], unknown: 1 } })).message).toContain('unknown: unknown key');
  expect(errorOf(await client.callTool({ name: 'search_tools', arguments: {} })).message).toContain('query: missing');
  expect(errorOf(await client.callTool({ name: 'search_tools', arguments: { query: '' } })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'search_tools', arguments: { query: 'x', profile: 'spec' } })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'record_trace', arguments: { trace: 'not an object' } })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'record_trace', arguments: {} })).code).toBe('INVALID_INPUT');
  expect(errorOf(await client.callTool({ name: 'score_trace', arguments: { trace, threshold: 7 } })).code).toBe('INVALID_INPUT');
  const badTrace = errorOf(await client.callTool({ name: 'record_trace', arguments: { trace: { tools: 5 } } }));
  expect(badTrace.code).toBe('INVALID_INPUT');
  expect(badTrace.message).toContain('tools');
  expect(errorOf(await client.callTool({ name: 'record_trace', arguments: { trace: { tools: ['x'.repeat(2_000)] } } })).code).toBe('PAYLOAD_TOO_LARGE');
  expect(errorOf(await client.callTool({ name: 'score_trace', arguments: { trace: { tools: ['a'] } } })).code).toBe('INVALID_INPUT');
  const proto = JSON.parse('{"__proto__": {"polluted": true}, "tools": ["a", "b"]}') as Record<string, unknown>;
  expect(errorOf(await client.callTool({ name: 'record_trace', arguments: { trace: proto } })).message).toContain('__proto__: unknown key');
  expect(errorOf(await client.callTool({ name: 'no_such_tool', arguments: {} })).code).toBe('NOT_FOUND');

  // A tools/call whose params are not a call at all (no name, a name that is not a string,
  // arguments that are not an object): JSON-RPC invalid params with a message that says which.
  const invalid: [Record<string, unknown>, RegExp][] = [
    [{ arguments: {} }, /^tools\/call: params\.name: missing/],
    [{ name: 5, arguments: {} }, /^tools\/call: params\.name: expected string, received number/],
    [{ name: null }, /^tools\/call: params\.name: expected string, received null/],
    [{ name: 'predict_next_tool', arguments: ['a'] }, /^tools\/call: params\.arguments: expected object, received array/],
    [{ name: 'predict_next_tool', arguments: 'context' }, /^tools\/call: params\.arguments: expected object, received string/],
  ];
  for (const [params, message] of invalid) {
    const failure = await client.request({ method: 'tools/call', params }, CallToolResultSchema).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure, JSON.stringify(params)).toBeInstanceOf(McpError);
    expect((failure as McpError).code, JSON.stringify(params)).toBe(ErrorCode.InvalidParams);
    // The SDK's client prefixes "MCP error -32602: ".
    expect((failure as McpError).message.replace(/^MCP error -?\d+: /, ''), JSON.stringify(params)).toMatch(message);
    expect((failure as McpError).message).not.toMatch(/"code":|invalid_type/);
  }

  // The session survived all of it, and the bad calls wrote nothing.
  const after = await client.callTool({ name: 'predict_next_tool', arguments: { context: ['mcp_alpha'], k: 5 } });
  expect((after.structuredContent as { items: { tool: string }[] }).items.map((i) => i.tool)).not.toContain('x'.repeat(2_000));
}

describe('MCP over Streamable HTTP (/mcp)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('lists and calls every tool; bad arguments are tool errors', async () => {
    const client = await connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    await exercise(client, { context: 'search_hotels', next: 'book_hotel', query: 'book a hotel room', found: 'book_hotel' });
    const traces = (await call(server.url, '/v1/stats')).json.traces;
    expect(traces).toBe(5); // four seeded, one recorded over MCP
    // A capability registered over HTTP is ranked and expanded over MCP.
    const put = await call(server.url, '/v1/capabilities', { method: 'PUT', body: [{ id: 'stay', description: 'find and book a hotel room', tools: ['search_hotels', 'book_hotel'] }] });
    expect(put.status).toBe(200);
    const ranked = await eventually(
      () => client.callTool({ name: 'rank_capabilities', arguments: { intent: 'book a hotel room', k: 1 } }),
      (answer) => (answer.structuredContent as { items: { capability: string }[] }).items[0]?.capability === 'stay',
    );
    expect((ranked.structuredContent as { items: { capability: string }[] }).items.map((i) => i.capability)).toEqual(['stay']);
    const expanded = await client.callTool({ name: 'expand_capability', arguments: { id: 'stay' } });
    expect(expanded.structuredContent).toEqual({ id: 'stay', tools: ['search_hotels', 'book_hotel'], ordered: true, description: 'find and book a hotel room', source: 'registered' });
    await client.close();
  });

  it('counts each MCP request once in the metrics', async () => {
    const fresh = await startTestServer();
    const client = await connect(new StreamableHTTPClientTransport(new URL(`${fresh.url}/mcp`)));
    await client.listTools();
    await client.callTool({ name: 'search_tools', arguments: { query: 'hotel' } });
    await client.close();
    const text = (await call(fresh.url, '/metrics')).text;
    // initialize, tools/list, tools/call: 200; notifications/initialized: 202.
    expect(text).toContain('toolgraph_http_requests_total{method="POST",route="/mcp",status="200"} 3\n');
    expect(text).toContain('toolgraph_http_requests_total{method="POST",route="/mcp",status="202"} 1\n');
    await fresh.close();
  });

  it('answers GET (no SSE stream in stateless mode) with 405', async () => {
    const r = await call(server.url, '/mcp', { headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
  });
});

describe('MCP over Streamable HTTP with a token', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ token: 'mcp-token' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('lets anyone read but only the token holder record', async () => {
    const anonymous = await connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const read = await anonymous.callTool({ name: 'predict_next_tool', arguments: { context: ['search_flights'] } });
    expect(read.isError).toBeFalsy();
    const write = await anonymous.callTool({ name: 'record_trace', arguments: { trace: { tools: ['a', 'b'] } } });
    expect(errorOf(write).code).toBe('UNAUTHORIZED');
    expect(errorOf(await anonymous.callTool({ name: 'score_trace', arguments: { trace: {} } })).code).toBe('UNAUTHORIZED');
    await anonymous.close();

    const wrong = await connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer nope' } } }));
    expect(errorOf(await wrong.callTool({ name: 'record_trace', arguments: { trace: { tools: ['a', 'b'] } } })).code).toBe('UNAUTHORIZED');
    await wrong.close();
    expect((await call(server.url, '/v1/stats')).json.traces).toBe(4);

    const holder = await connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer mcp-token' } } }));
    const ok = await holder.callTool({ name: 'record_trace', arguments: { trace: { tools: ['a', 'b'] } } });
    expect(ok.structuredContent).toMatchObject({ ingested: 1 });
    await holder.close();
    expect((await call(server.url, '/v1/stats')).json.traces).toBe(5);
  });
});

describe.runIf(existsSync(BIN))('MCP over stdio (toolgraph mcp)', () => {
  it('lists and calls every tool; bad arguments are tool errors', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--data', FIXTURE, '--rebuild-delay', '10'], cwd: ROOT, stderr: 'pipe' });
    const client = await connect(transport);
    await exercise(client, { context: 'search_airport', next: 'search_flights', query: 'find an airport by city', found: 'search_airport' });
    await client.close();
  });
});
