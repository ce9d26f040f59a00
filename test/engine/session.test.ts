/**
 * The session engine end to end: a real recommender (an in-memory toolgraph that learned a small
 * travel domain) and the model tiers reached through the real chat client, against a
 * chat-completions server on loopback started here, which also answers malformed JSON, 429,
 * 500 and too late.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient } from '../../src/engine/chat-client.js';
import type { ModelPort } from '../../src/engine/escalation.js';
import { parseSessionOptions, type SessionOptionsInput } from '../../src/engine/options.js';
import { currentStep } from '../../src/engine/plan.js';
import type { SessionState } from '../../src/engine/session-state.js';
import { startSession, stepSession, type EngineDeps, type StepResult } from '../../src/engine/session.js';
import { SPEC_EVENTS, type TelemetryEvent } from '../../src/engine/telemetry.js';
import { parseStartSessionRequest, parseStepRequest } from '../../src/schema/session-requests.js';
import { inMemoryService, type ToolgraphService } from '../../src/service/service.js';
import { promptCandidates, startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { FLIGHT_INTENT, TRAVEL_TOOLS, travelToolgraph } from '../helpers/travel-graph.js';

let server: ChatServer;
let service: ToolgraphService;

beforeAll(async () => {
  server = await startChatServer();
  service = inMemoryService(travelToolgraph());
});
afterAll(async () => {
  await service.close();
  await server.close();
});

/** Engine deps over the loopback endpoint (or none), with `options` over the defaults. */
function deps(options: SessionOptionsInput = {}, withModel = true): EngineDeps {
  const parsed = parseSessionOptions({ ...options, model: { url: server.url, timeoutMs: 300, ...options.model } });
  const client = createChatClient(parsed.model);
  const model: ModelPort = { ask: ({ model: name, messages }) => client.complete(name, messages) };
  return {
    recommender: service,
    model: withModel ? model : null,
    options: parsed,
    now: () => 1_700_000_000_000,
    describe: async (tools) => new Map(TRAVEL_TOOLS.filter((t) => tools.includes(t.name)).map((t) => [t.name, t.description])),
  };
}

/** Threshold 1: the graph is never sure, so every successful step wants the model. */
const UNSURE = { value: 1, source: 'default' as const };
const SURE = { value: 0, source: 'default' as const };

interface Run {
  state: SessionState;
  results: StepResult[];
  events: TelemetryEvent[];
}

async function run(d: EngineDeps, tools: readonly (string | { tool: string; success?: boolean; response?: string })[], start: { budgetCents?: number; mode?: 'adaptive' | 'deterministic'; threshold?: typeof UNSURE; intent?: string } = {}): Promise<Run> {
  const request = parseStartSessionRequest({ intent: start.intent ?? FLIGHT_INTENT, ...(start.mode ? { mode: start.mode } : {}), ...(start.budgetCents !== undefined ? { budgetCents: start.budgetCents } : {}) });
  const started = await startSession('s1', request, start.threshold ?? UNSURE, d);
  let state = started.state;
  const results: StepResult[] = [];
  const events = [...started.events];
  for (const t of tools) {
    const stepped = await stepSession(state, parseStepRequest(typeof t === 'string' ? { tool: t } : t), d);
    state = stepped.state;
    results.push(stepped.result);
    events.push(...stepped.events);
    expect(state.budget.centsSpent).toBeLessThanOrEqual(state.budget.budgetCents);
  }
  return { state, results, events };
}

const FLIGHT = ['search_flights', 'book_flight', 'pay'];

describe('answers and escalation', () => {
  it('answers from the graph at no cost when it is sure, and never calls the model', async () => {
    const before = server.requests.length;
    const r = await run(deps(), FLIGHT, { threshold: SURE });
    expect(server.requests.length).toBe(before);
    expect(r.results.every((x) => !x.escalated && x.answeredBy === 'graph')).toBe(true);
    expect(r.results[0]!.next[0]!.tool).toBe('book_flight');
    expect(r.state.budget.centsSpent).toBe(0);
  });

  it('asks the thinker below the threshold with the intent, the steps and the candidates, and takes its valid answer', async () => {
    server.answer(() => ({ content: JSON.stringify({ tool: 'pay' }), promptTokens: 400, completionTokens: 20 }));
    const before = server.requests.length;
    const r = await run(deps(), ['search_flights']);
    expect(server.requests.length).toBe(before + 1);
    const request = server.requests.at(-1)!;
    expect(request.body.model).toBe('o3-mini');
    const prompt = request.body.messages!.map((m) => m.content).join('\n');
    expect(prompt).toContain(FLIGHT_INTENT);
    expect(prompt).toContain('1. search_flights (ok)');
    expect(promptCandidates(request)).toContain('book_flight');
    expect(r.results[0]).toMatchObject({ escalated: true, answeredBy: 'thinker' });
    expect(r.results[0]!.next[0]!.tool).toBe('pay');
    // 420 tokens at $0.025 per 1K: 1.05 cents.
    expect(r.state.budget.centsSpent).toBeCloseTo(1.05, 9);
    expect(r.state.budget.escalations).toBe(1);
    const usage = r.events.find((e) => e.event === 'budget.usage')!;
    expect(usage.data).toMatchObject({ tier: 'thinker', model: 'o3-mini', promptTokens: 400, completionTokens: 20, cents: 1.05, escalations: 1 });
  });

  it('never calls the model in a deterministic session, and hints the graph instead', async () => {
    const before = server.requests.length;
    const r = await run(deps(), [...FLIGHT, ...FLIGHT, ...FLIGHT], { mode: 'deterministic' });
    expect(server.requests.length).toBe(before);
    expect(r.results.every((x) => !x.escalated)).toBe(true);
    expect(r.results.filter((x) => x.adaptation?.op === 'hint').length).toBeGreaterThan(0);
    expect(r.results.some((x) => x.adaptation?.reason === 'BUDGET_LIMIT')).toBe(false);
  });

  it('stops at the escalation cap (MAX_ESCALATIONS_PER_SESSION 5) and hints with BUDGET_LIMIT after', async () => {
    server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }) }));
    const before = server.requests.length;
    const r = await run(deps(), [...FLIGHT, ...FLIGHT, ...FLIGHT]);
    expect(server.requests.length - before).toBe(5);
    expect(r.state.budget.escalations).toBe(5);
    const fifth = r.results.findIndex((x, i) => r.results.slice(0, i + 1).filter((y) => y.escalated).length === 5);
    const after = r.results.slice(fifth + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((x) => !x.escalated)).toBe(true);
    expect(after.some((x) => x.adaptation?.op === 'hint' && x.adaptation.reason === 'BUDGET_LIMIT')).toBe(true);
  });
});

describe('tiers and the budget', () => {
  it('switches thinker -> cheap in economy mode, then degrades at the threshold and calls nothing more', async () => {
    // Each call reports 1,200 tokens: 3 cents at the thinker's price, 0.6 at the cheap tier's.
    server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), promptTokens: 1_000, completionTokens: 200 }));
    const before = server.requests.length;
    const r = await run(deps({ maxEscalations: 100 }), Array.from({ length: 17 }, (_, i) => FLIGHT[i % 3]!), { budgetCents: 20 });
    const models = server.requests.slice(before).map((q) => q.body.model);
    // 20 left: thinker -> 17 -> thinker -> 14 (4 above the threshold: economy) -> cheap x 7 -> 9.8 (degraded).
    expect(models).toEqual(['o3-mini', 'o3-mini', ...Array.from({ length: 7 }, () => 'gpt-4o-mini')]);
    expect(r.state.budget.centsSpent).toBeCloseTo(10.2, 9);
    expect(r.results.at(-1)!.budget.level).toBe('degraded');
    expect(r.results.some((x) => x.budget.level === 'degraded' && x.adaptation?.op === 'hint' && x.adaptation.reason === 'BUDGET_LIMIT')).toBe(true);
  });

  it('takes the cheap tier when the thinker reservation does not fit what is left', async () => {
    server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }) }));
    const before = server.requests.length;
    // A 30,000-token bound: thinker about 76 cents, more than 60; cheap about 15.
    await run(deps({ model: { maxCompletionTokens: 30_000 } }), ['search_flights'], { budgetCents: 60 });
    expect(server.requests.slice(before).map((q) => q.body.model)).toEqual(['gpt-4o-mini']);
  });

  it('makes no call at a budget at the threshold (10 cents)', async () => {
    const before = server.requests.length;
    const r = await run(deps(), FLIGHT, { budgetCents: 10 });
    expect(server.requests.length).toBe(before);
    expect(r.results[0]!.budget.level).toBe('degraded');
  });

  it('never spends past the budget over long seeded sessions, whatever the endpoint answers', async () => {
    let seed = 11;
    const rand = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    server.answer((req) => {
      const u = rand();
      const content = JSON.stringify({ tool: promptCandidates(req)[0] });
      if (u < 0.1) return { status: 429, raw: '{}' };
      if (u < 0.2) return { status: 200, raw: 'not json' };
      if (u < 0.25) return { content, delayMs: 400 };
      // Sometimes far more tokens than the request's bound allows: the charge stops at the reservation.
      return { content, promptTokens: Math.floor(rand() * (u < 0.35 ? 200_000 : 3_000)), completionTokens: Math.floor(rand() * 600) };
    });
    for (let s = 0; s < 6; s++) {
      const budgetCents = Math.round(rand() * 60);
      const tools = Array.from({ length: 25 }, () => TRAVEL_TOOLS[Math.floor(rand() * TRAVEL_TOOLS.length)]!.name);
      const r = await run(deps({ maxEscalations: 1_000, model: { timeoutMs: 200 } }), tools, { budgetCents });
      const charged = r.events.filter((e) => e.event === 'budget.usage').reduce((sum, e) => sum + (e.data['cents'] as number), 0);
      expect(r.state.budget.centsSpent).toBeLessThanOrEqual(budgetCents);
      expect(r.state.budget.centsSpent).toBeCloseTo(charged, 6);
    }
  });
});

describe('a failed, malformed or late answer falls back to the graph', () => {
  const cases: [string, Parameters<ChatServer['answer']>[0], 'usage' | 'reservation' | 'nothing'][] = [
    ['malformed JSON content', () => ({ content: 'I think book_flight' }), 'usage'],
    ['a body that is no JSON', () => ({ status: 200, raw: '{"choices": [' }), 'reservation'],
    ['429', () => ({ status: 429, raw: '{"error":{"message":"slow down"}}' }), 'nothing'],
    ['500', () => ({ status: 500, raw: 'internal' }), 'nothing'],
    ['a reply past the timeout', (req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), delayMs: 800 }), 'reservation'],
    ['a tool that is no candidate', () => ({ content: JSON.stringify({ tool: 'launch_rocket' }) }), 'usage'],
    ['a command the schema refuses', (req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0], command: { op: 'delete' } }) }), 'usage'],
  ];
  for (const [what, answer, cents] of cases) {
    it(what, async () => {
      server.answer(answer);
      const r = await run(deps(), ['search_flights']);
      const result = r.results[0]!;
      expect(result).toMatchObject({ escalated: true, answeredBy: 'graph' });
      expect(result.next[0]!.tool).toBe('book_flight');
      expect(r.events.some((e) => e.event === 'escalation.fallback' && e.level === 'warn')).toBe(true);
      const reservation = r.events.find((e) => e.event === 'escalation.triggered')!.data['reservationCents'] as number;
      // The usage reported with an answer of the wrong content, 100 + 10 tokens: 0.275 cents.
      expect(r.state.budget.centsSpent).toBeCloseTo({ reservation, nothing: 0, usage: 0.275 }[cents], 6);
    });
  }
});

describe('every op changes the session', () => {
  it('repeat: a failed call keeps the current step and puts the retry first', async () => {
    const r = await run(deps(), [{ tool: 'search_flights', success: false }], { threshold: SURE });
    const result = r.results[0]!;
    expect(result.evaluation.result).toBe('reject');
    expect(result.adaptation).toMatchObject({ op: 'repeat' });
    expect(result.next[0]!.tool).toBe('search_flights');
    expect(r.state.repeats).toBe(1);
    expect(r.state.steps).toEqual([{ tool: 'search_flights', success: false, result: 'reject', step: null }]);
  });

  it("goto: a model's valid command moves the session to that plan step", async () => {
    const d = deps();
    const started = await startSession('s2', parseStartSessionRequest({ intent: FLIGHT_INTENT }), UNSURE, d);
    const target = started.state.plan.steps.at(-1)!;
    server.answer(() => ({ content: JSON.stringify({ tool: target.tool, command: { op: 'goto', targetAskCode: target.id } }) }));
    const stepped = await stepSession(started.state, parseStepRequest({ tool: 'search_flights' }), d);
    expect(stepped.result.adaptation).toEqual({ op: 'goto', targetAskCode: target.id, reason: 'THINKER_ESCALATION' });
    expect(stepped.state.plan.current).toBe(target.id);
  });

  it("a model's goto to a step the plan lacks is refused; its tool still answers", async () => {
    server.answer(() => ({ content: JSON.stringify({ tool: 'book_flight', command: { op: 'goto', targetAskCode: 'n99' } }) }));
    const r = await run(deps(), ['search_flights']);
    expect(r.results[0]!.answeredBy).toBe('thinker');
    expect(r.results[0]!.adaptation?.targetAskCode).not.toBe('n99');
    expect(r.events.some((e) => e.event === 'adaptation.refused' && e.data['source'] === 'model')).toBe(true);
  });

  it('insert_micro: a tool the plan lacks, answered by the model, becomes a temporary step; taking it accepts it', async () => {
    server.answer(() => ({ content: JSON.stringify({ tool: 'send_email' }) }));
    const d = deps();
    const started = await startSession('s3', parseStartSessionRequest({ intent: FLIGHT_INTENT }), UNSURE, d);
    expect(started.state.plan.steps.some((s) => s.tool === 'send_email')).toBe(false);
    // The model may only name candidates: send_email is one when the graph ranks it in its top 5.
    const a = await stepSession(started.state, parseStepRequest({ tool: 'search_flights' }), { ...d, options: { ...d.options, candidates: 7 } });
    expect(a.result.adaptation).toMatchObject({ op: 'insert_micro', note: 'send_email', reason: 'THINKER_ESCALATION' });
    expect(currentStep(a.state.plan)).toMatchObject({ tool: 'send_email', temporary: true });
    expect(a.state.microUsed).toBe(1);
    const b = await stepSession(a.state, parseStepRequest({ tool: 'send_email' }), d);
    expect(b.result.evaluation).toMatchObject({ result: 'accept', reason: 'follows the temporary step' });
  });

  it('reask: a vague text is rejected and the session records the words to address', async () => {
    const r = await run(deps(), [{ tool: 'search_flights', response: 'looking at flights now' }], { threshold: SURE });
    expect(r.results[0]!.deviation).toMatchObject({ class: 'VAGUE', graph: 'covered' });
    expect(r.results[0]!.evaluation.result).toBe('reject');
    expect(r.results[0]!.adaptation).toMatchObject({ op: 'reask', reason: 'SEM_LOW' });
    expect(r.state.reask).toEqual(expect.arrayContaining(['paris', 'london']));
  });

  it('goto OFF_TOPIC: a tool nothing ties to the task sends the session back to the plan', async () => {
    // A search of the intent counts its first two tools only; the graph predicts two.
    const r = await run(deps({ intentTools: 2, candidates: 2 }), ['get_weather'], { threshold: SURE, intent: 'book a flight to London and pay' });
    const result = r.results[0]!;
    expect(result.deviation).toMatchObject({ class: 'OFF_TOPIC' });
    expect(result.evaluation.result).toBe('reject');
    expect(result.adaptation).toMatchObject({ op: 'goto', reason: 'OFF_TOPIC' });
  });

  it('hint: the graph unsure and no endpoint configured', async () => {
    const r = await run(deps({}, false), ['search_flights']);
    expect(r.results[0]).toMatchObject({ escalated: false, answeredBy: 'graph', adaptation: { op: 'hint' } });
  });
});

describe('telemetry', () => {
  it('has a line of the spec shape for each of the spec events', async () => {
    server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }) }));
    const r = await run(deps(), ['search_flights', 'get_weather', 'book_flight']);
    for (const event of SPEC_EVENTS) expect(r.events.map((e) => e.event)).toContain(event);
    for (const e of r.events) {
      expect(Object.keys(e)).toEqual(['timestamp', 'level', 'event', 'sessionId', 'data']);
      expect(e.timestamp).toBe('2023-11-14T22:13:20.000Z');
      expect(e.sessionId).toBe('s1');
    }
    expect(r.events.some((e) => e.level === 'debug')).toBe(false);
  });

  it('adds debug lines with ENGINE_DEBUG', async () => {
    const r = await run(deps({ debug: true }), ['search_flights']);
    const debug = r.events.filter((e) => e.level === 'debug').map((e) => e.event);
    expect(debug).toEqual(expect.arrayContaining(['graph.prediction', 'model.request', 'model.answer']));
  });
});
