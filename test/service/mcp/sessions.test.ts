/**
 * The session tools over MCP (start_session, report_step) through the SDK's real Client on
 * Streamable HTTP, with the model tier a chat-completions server on loopback: the same shapes
 * as HTTP, structured results the SDK validates against the listed output schemas, tool errors
 * for bad arguments and unknown sessions, and the token for both (they write).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inMemoryService } from '../../../src/service/service.js';
import type { RunningHttpServer } from '../../../src/service/http/server.js';
import { promptCandidates, startChatServer, type ChatServer } from '../../helpers/chat-server.js';
import { FLIGHT_INTENT, travelToolgraph } from '../../helpers/travel-graph.js';
import { call, startTestServer } from '../http/_server.js';

let chat: ChatServer;
let server: RunningHttpServer;

beforeAll(async () => {
  chat = await startChatServer();
  chat.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), promptTokens: 300, completionTokens: 20 }));
  const service = inMemoryService(travelToolgraph(), { sessions: { options: { defaultThreshold: 1, calibrate: false, model: { url: chat.url } } } });
  server = await startTestServer({ token: 't0k' }, service);
});
afterAll(async () => {
  await server.close();
  await chat.close();
});

async function client(token?: string): Promise<Client> {
  const c = new Client({ name: 'toolgraph-test', version: '0.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  return c;
}

function errorOf(result: Awaited<ReturnType<Client['callTool']>>): { code: string; message: string } {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content as { text: string }[])[0]!.text) as { error: { code: string; message: string } }).error;
}

describe('MCP start_session and report_step', () => {
  it('start a session and report its steps, as over HTTP', async () => {
    const c = await client('t0k');
    const listed = await c.listTools();
    const start = listed.tools.find((t) => t.name === 'start_session')!;
    expect(start.inputSchema.properties).toHaveProperty('intent');
    expect(start.annotations?.readOnlyHint).toBe(false);
    expect(listed.tools.find((t) => t.name === 'report_step')!.inputSchema.required).toEqual(expect.arrayContaining(['id', 'tool']));

    const started = await c.callTool({ name: 'start_session', arguments: { intent: FLIGHT_INTENT, budgetCents: 30 } });
    expect(started.isError).toBeFalsy();
    const view = started.structuredContent as { id: string; plan: { nodes: unknown[] }; budget: { centsLeft: number; mode: string } };
    expect(view.budget).toMatchObject({ centsLeft: 30, mode: 'adaptive' });
    const step = await c.callTool({ name: 'report_step', arguments: { id: view.id, tool: 'search_flights' } });
    expect(step.isError).toBeFalsy();
    expect(step.structuredContent).toMatchObject({ escalated: true, answeredBy: 'thinker', budget: { centsSpent: 0.8, escalations: 1 } });
    expect(JSON.parse((step.content as { text: string }[])[0]!.text)).toEqual(step.structuredContent);
    // The same session over HTTP.
    expect((await call(server.url, `/v1/sessions/${view.id}`)).json.steps).toHaveLength(1);

    expect(errorOf(await c.callTool({ name: 'report_step', arguments: { id: 'nope', tool: 'a' } })).code).toBe('NOT_FOUND');
    expect(errorOf(await c.callTool({ name: 'report_step', arguments: { id: view.id, tool: 7 } })).code).toBe('INVALID_INPUT');
    expect(errorOf(await c.callTool({ name: 'start_session', arguments: { intent: FLIGHT_INTENT, mode: 'fast' } })).code).toBe('INVALID_INPUT');
    await c.close();
  });

  it('need the token', async () => {
    const anonymous = await client();
    expect(errorOf(await anonymous.callTool({ name: 'start_session', arguments: { intent: FLIGHT_INTENT } })).code).toBe('UNAUTHORIZED');
    expect(errorOf(await anonymous.callTool({ name: 'report_step', arguments: { id: 'x', tool: 'a' } })).code).toBe('UNAUTHORIZED');
    await anonymous.close();
  });
});
