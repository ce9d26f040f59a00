/**
 * Workflow sessions over HTTP, on a live server on loopback, with the model tier a
 * chat-completions server on loopback: start (201), steps, read, telemetry (NDJSON), delete, the
 * token for writes, errors, the /metrics counters, and the OpenAPI document's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inMemoryService } from '../../../src/service/service.js';
import type { RunningHttpServer } from '../../../src/service/http/server.js';
import { promptCandidates, startChatServer, type ChatServer } from '../../helpers/chat-server.js';
import { FLIGHT_INTENT, travelToolgraph } from '../../helpers/travel-graph.js';
import { call, startTestServer } from './_server.js';

let chat: ChatServer;
let open: RunningHttpServer;
let guarded: RunningHttpServer;
const AUTH = { authorization: 'Bearer s3cret' };

beforeAll(async () => {
  chat = await startChatServer();
  chat.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), promptTokens: 300, completionTokens: 20 }));
  // Threshold 1, never calibrated: every step the graph is not certain of escalates.
  const sessions = { options: { defaultThreshold: 1, calibrate: false, model: { url: chat.url } } };
  open = await startTestServer({}, inMemoryService(travelToolgraph(), { sessions }));
  guarded = await startTestServer({ token: 's3cret' }, inMemoryService(travelToolgraph(), { sessions }));
});
afterAll(async () => {
  await open.close();
  await guarded.close();
  await chat.close();
});

describe('POST /v1/sessions and its steps', () => {
  it('starts a session (201), takes steps, reads it back, streams its telemetry and deletes it', async () => {
    const started = await call(open.url, '/v1/sessions', { body: { intent: FLIGHT_INTENT, budgetCents: 50 } });
    expect(started.status).toBe(201);
    const { id, plan, budget } = started.json;
    expect(typeof id).toBe('string');
    expect(plan.nodes.length).toBeGreaterThan(0);
    expect(plan.nodes[0]).toEqual({ id: 'n1', tool: expect.any(String), status: 'pending', temporary: false });
    expect(budget).toEqual({ budgetCents: 50, centsLeft: 50, centsSpent: 0, escalations: 0, maxEscalations: 5, mode: 'adaptive', level: 'normal' });

    const step = await call(open.url, `/v1/sessions/${id}/steps`, { body: { tool: 'search_flights', response: 'searched flights from Paris to London' } });
    expect(step.status).toBe(200);
    expect(Object.keys(step.json).sort()).toEqual(['adaptation', 'answeredBy', 'budget', 'confidence', 'deviation', 'escalated', 'evaluation', 'next']);
    expect(step.json.deviation.class).toBe('ON_TOPIC');
    expect(step.json).toMatchObject({ escalated: true, answeredBy: 'thinker' });
    // 320 thinker tokens: 0.8 cents.
    expect(step.json.budget).toMatchObject({ centsSpent: 0.8, centsLeft: 49.2, escalations: 1 });
    expect(step.json.next[0]).toEqual({ tool: expect.any(String), score: expect.any(Number) });

    const read = await call(open.url, `/v1/sessions/${id}`);
    expect(read.status).toBe(200);
    expect(read.json.steps).toEqual([{ tool: 'search_flights', success: true, result: step.json.evaluation.result, step: step.json.evaluation.step }]);
    expect(read.json.budget.centsSpent).toBe(0.8);

    const telemetry = await call(open.url, `/v1/sessions/${id}/telemetry`);
    expect(telemetry.status).toBe(200);
    expect(telemetry.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = telemetry.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(expect.arrayContaining(['session.start', 'engine.turn.start', 'evaluation.result', 'escalation.triggered', 'budget.usage']));
    expect(lines.every((l) => l.sessionId === id)).toBe(true);

    const deleted = await call(open.url, `/v1/sessions/${id}`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, json: { id, deleted: true } });
    expect((await call(open.url, `/v1/sessions/${id}`)).status).toBe(404);
    expect((await call(open.url, `/v1/sessions/${id}/telemetry`)).status).toBe(404);
  });

  it('refuses bad input (400), unknown sessions (404)', async () => {
    const bad = await call(open.url, '/v1/sessions', { body: { intent: '' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_INPUT');
    expect((await call(open.url, '/v1/sessions', { body: { intent: 'x', mode: 'turbo' } })).status).toBe(400);
    const id = (await call(open.url, '/v1/sessions', { body: { intent: FLIGHT_INTENT } })).json.id;
    const step = await call(open.url, `/v1/sessions/${id}/steps`, { body: { tool: 'search_flights', success: 'yes' } });
    expect(step.status).toBe(400);
    expect(step.json.error.message).toContain('success');
    const missing = await call(open.url, '/v1/sessions/does-not-exist/steps', { body: { tool: 'a' } });
    expect(missing).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
    expect((await call(open.url, '/v1/sessions/does-not-exist', { method: 'DELETE' })).status).toBe(404);
  });

  it('needs the token for writes (start, steps, delete), not for reads', async () => {
    expect((await call(guarded.url, '/v1/sessions', { body: { intent: FLIGHT_INTENT } })).status).toBe(401);
    const started = await call(guarded.url, '/v1/sessions', { body: { intent: FLIGHT_INTENT }, headers: AUTH });
    expect(started.status).toBe(201);
    const id = started.json.id;
    expect((await call(guarded.url, `/v1/sessions/${id}/steps`, { body: { tool: 'search_flights' } })).status).toBe(401);
    expect((await call(guarded.url, `/v1/sessions/${id}/steps`, { body: { tool: 'search_flights' }, headers: AUTH })).status).toBe(200);
    expect((await call(guarded.url, `/v1/sessions/${id}`)).status).toBe(200);
    expect((await call(guarded.url, `/v1/sessions/${id}/telemetry`)).status).toBe(200);
    expect((await call(guarded.url, `/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await call(guarded.url, `/v1/sessions/${id}`, { method: 'DELETE', headers: AUTH })).status).toBe(200);
  });
});

describe('/metrics and the OpenAPI document', () => {
  it('counts escalations, tokens and cents per tier, and graph answers', async () => {
    const m0 = (await call(guarded.url, '/metrics')).text;
    const count = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const id = (await call(guarded.url, '/v1/sessions', { body: { intent: FLIGHT_INTENT }, headers: AUTH })).json.id;
    await call(guarded.url, `/v1/sessions/${id}/steps`, { body: { tool: 'search_flights' }, headers: AUTH });
    const m1 = (await call(guarded.url, '/metrics')).text;
    expect(count(m1, 'toolgraph_session_escalations_total{tier="thinker"}') - count(m0, 'toolgraph_session_escalations_total{tier="thinker"}')).toBe(1);
    expect(count(m1, 'toolgraph_session_tokens_total{tier="thinker",kind="prompt"}') - count(m0, 'toolgraph_session_tokens_total{tier="thinker",kind="prompt"}')).toBe(300);
    expect(count(m1, 'toolgraph_session_cents_total{tier="thinker"}') - count(m0, 'toolgraph_session_cents_total{tier="thinker"}')).toBeCloseTo(0.8, 9);
    expect(count(m1, 'toolgraph_sessions_started_total') - count(m0, 'toolgraph_sessions_started_total')).toBe(1);
    expect(count(m1, 'toolgraph_session_escalations_total{tier="cheap"}')).toBeGreaterThanOrEqual(0);
    expect(m1).toContain('toolgraph_session_answers_total{tier="graph"}');
  });

  it('documents the session routes: 201 on start, NDJSON telemetry, DELETE', async () => {
    const doc = (await call(open.url, '/v1/openapi.json')).json;
    expect(doc.paths['/v1/sessions'].post.responses['201']).toBeDefined();
    expect(doc.paths['/v1/sessions'].post.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths['/v1/sessions/{id}/telemetry'].get.responses['200'].content)).toEqual(['application/x-ndjson']);
    expect(doc.paths['/v1/sessions/{id}'].delete.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/sessions/{id}/steps'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('tool');
  });
});
