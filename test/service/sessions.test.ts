/**
 * A service's sessions (src/service/sessions.ts): kept by the durable service across a restart
 * (PGlite here, PostgreSQL with TOOLGRAPH_TEST_DATABASE_URL), expired when idle, a model call's
 * reservation stored before the call, telemetry to a JSONL file, the threshold calibrated on the
 * service's traces, and the errors of bad input.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_EVENTS, type TelemetryEvent } from '../../src/engine/telemetry.js';
import { openToolgraph, type DurableToolgraph, type OpenToolgraphOptions } from '../../src/service/durable-toolgraph.js';
import { inMemoryService } from '../../src/service/service.js';
import { rejectionOf } from '../helpers/expect-code.js';
import { inTempDir } from '../helpers/temp-dir.js';
import { promptCandidates, startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { FLIGHT_INTENT, TRAVEL_TOOLS, travelToolgraph, travelTraces } from '../helpers/travel-graph.js';

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];
let server: ChatServer;
beforeAll(async () => {
  server = await startChatServer();
});
afterAll(async () => {
  await server.close();
});

async function seeded(options: OpenToolgraphOptions): Promise<DurableToolgraph> {
  const tg = await openToolgraph({ seed: 1, rebuildDelayMs: 0, autoFit: false, ...options });
  await tg.setTools(TRAVEL_TOOLS);
  if ((await tg.stats()).traces === 0) await tg.ingestTraces(travelTraces());
  return tg;
}

/** The restart test, on any store: a session started and stepped, the service closed and opened again. */
async function restartKeepsSessions(open: () => Promise<DurableToolgraph>): Promise<void> {
  server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), promptTokens: 200, completionTokens: 10 }));
  const first = await open();
  const { id } = await (async () => {
    const s = await first.sessions.startSession({ intent: FLIGHT_INTENT, budgetCents: 40 });
    await s.step({ tool: 'search_flights' });
    return s;
  })();
  const before = (await first.sessions.session(id)).view();
  await first.close();
  const second = await open();
  try {
    const again = await second.sessions.session(id);
    expect(again.view()).toEqual(before);
    expect(before.budget.escalations).toBe(1);
    const result = await again.step({ tool: 'book_flight' });
    expect(result.budget.centsSpent).toBeGreaterThan(before.budget.centsSpent - 1e-9);
    const events = await again.telemetry();
    expect(events.filter((e) => e.event === 'engine.turn.start').map((e) => e.data['turn'])).toEqual([1, 2]);
  } finally {
    await second.close();
  }
}

describe('durable sessions', () => {
  it('PGlite: a restart keeps open sessions, their budget and telemetry', async () => {
    await inTempDir('tg-sessions-', async (dir) => {
      await restartKeepsSessions(() => seeded({ dataDir: dir, sessions: { options: { defaultThreshold: 1, calibrate: false, model: { url: server.url } } } }));
    });
  });

  describe.runIf(URL_ENV)('PostgreSQL', () => {
    const schema = `tg_sessions_${randomBytes(6).toString('hex')}`;
    afterAll(async () => {
      const client = new pg.Client({ connectionString: URL_ENV });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end());
    });
    it('a restart keeps open sessions', async () => {
      await restartKeepsSessions(() => seeded({ databaseUrl: URL_ENV!, schema, pollMs: 0, sessions: { options: { defaultThreshold: 1, calibrate: false, model: { url: server.url } } } }));
    });
  });

  it("stores a call's reservation before the call: a step whose final write loses keeps the charge (CONFLICT)", async () => {
    await inTempDir('tg-sessions-', async (dir) => {
      const tg = await seeded({ dataDir: dir, sessions: { options: { defaultThreshold: 1, calibrate: false, model: { url: server.url } } } });
      try {
        const s = await tg.sessions.startSession({ intent: FLIGHT_INTENT });
        let reserved: unknown = null;
        server.answer((req) => {
          // While the model "thinks", another writer moves the session on.
          void (async () => {
            const row = await tg.store.sessions.get(s.id, Date.now());
            reserved = row!.state;
            await tg.store.sessions.update(s.id, row!.version, row!.state, row!.expiresAt, []);
          })();
          return { content: JSON.stringify({ tool: promptCandidates(req)[0] }), delayMs: 300 };
        });
        const error = await rejectionOf(s.step({ tool: 'search_flights' }));
        expect(error.code).toBe('CONFLICT');
        const stored = (await tg.sessions.session(s.id)).view();
        expect(stored.budget.escalations).toBe(1);
        expect(stored.budget.centsSpent).toBeGreaterThan(0);
        expect((reserved as { budget: { centsSpent: number } }).budget.centsSpent).toBe(stored.budget.centsSpent);
      } finally {
        await tg.close();
      }
    });
  });
});

describe('in-memory sessions', () => {
  it('expire after the idle time', async () => {
    let now = 1_000_000;
    const service = inMemoryService(travelToolgraph(), { sessions: { options: { idleMs: 60_000 }, now: () => now } });
    try {
      const s = await service.sessions.startSession({ intent: FLIGHT_INTENT });
      now += 59_000;
      await s.step({ tool: 'search_flights' });
      // The step renewed it: idle counts from the last step.
      now += 59_000;
      expect((await service.sessions.session(s.id)).view().steps).toHaveLength(1);
      now += 2_000;
      expect((await rejectionOf(service.sessions.session(s.id))).code).toBe('NOT_FOUND');
      expect((await rejectionOf(s.step({ tool: 'book_flight' }))).code).toBe('NOT_FOUND');
    } finally {
      await service.close();
    }
  });

  it('write telemetry to a JSONL file, the same lines the session keeps', async () => {
    await inTempDir('tg-telemetry-', async (dir) => {
      const file = join(dir, 'telemetry.jsonl');
      const service = inMemoryService(travelToolgraph(), { sessions: { telemetryFile: file, options: { defaultThreshold: 1, model: { url: server.url } } } });
      server.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }) }));
      const s = await service.sessions.startSession({ intent: FLIGHT_INTENT });
      for (const tool of ['search_flights', 'get_weather', 'book_flight', 'pay']) await s.step({ tool });
      const kept = await s.telemetry();
      await service.close();
      const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TelemetryEvent);
      expect(lines).toEqual(kept);
      for (const event of SPEC_EVENTS) expect(lines.map((l) => l.event)).toContain(event);
    });
  });

  it('calibrate the threshold on the held-out traces and start new sessions with it', async () => {
    const service = inMemoryService(travelToolgraph());
    try {
      const before = await service.sessions.startSession({ intent: FLIGHT_INTENT });
      expect(before.view().threshold).toEqual({ value: 0.5, source: 'default' });
      const calibration = await service.sessions.calibrate();
      expect(calibration.source).toBe('calibrated');
      // Every position after the first of the 40 traces: 15 x 2 + 15 x 2 + 5 x 0 + 5 x 2.
      expect(calibration.positions).toBe(70);
      const after = await service.sessions.startSession({ intent: FLIGHT_INTENT });
      expect(after.view().threshold).toEqual({ value: calibration.value, source: 'calibrated' });
    } finally {
      await service.close();
    }
  });

  it('refuse bad input with stable codes, and delete a session', async () => {
    const service = inMemoryService(travelToolgraph());
    try {
      expect((await rejectionOf(service.sessions.startSession({}))).code).toBe('INVALID_INPUT');
      expect((await rejectionOf(service.sessions.startSession({ intent: 'x', budgetCents: -1 }))).message).toContain('budgetCents');
      expect((await rejectionOf(service.sessions.startSession({ intent: 'x', mode: 'lazy' }))).message).toContain('mode');
      const s = await service.sessions.startSession({ intent: FLIGHT_INTENT });
      expect((await rejectionOf(s.step({ tool: 42 }))).message).toMatch(/^step: tool/);
      expect((await rejectionOf(s.step({ tool: 'a', extra: 1 }))).code).toBe('INVALID_INPUT');
      expect(await service.sessions.deleteSession(s.id)).toEqual({ id: s.id, deleted: true });
      expect((await rejectionOf(service.sessions.deleteSession(s.id))).code).toBe('NOT_FOUND');
      expect((await rejectionOf(service.sessions.step('nope', { tool: 'a' }))).code).toBe('NOT_FOUND');
    } finally {
      await service.close();
    }
    expect(() => inMemoryService(travelToolgraph(), { sessions: { options: { budgetCent: 5 } as never } })).toThrow(/sessions\.options/);
    expect(() => inMemoryService(travelToolgraph(), { sessions: { telemetry: 'x' } as never })).toThrow(/sessions/);
  });
});
