/**
 * Session rows (src/store/session-rows.ts) on PGlite and, with TOOLGRAPH_TEST_DATABASE_URL, on
 * PostgreSQL (each test in a schema of its own, dropped afterwards); and the in-memory rows of
 * the in-memory service, which must behave alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionRows } from '../../src/service/memory-session-rows.js';
import { openStore } from '../../src/store/open-store.js';
import type { SessionRows } from '../../src/store/session-rows.js';
import type { Store } from '../../src/store/store.js';
import { rejectionOf } from '../helpers/expect-code.js';

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];

function sessionRowsContract(name: string, open: () => Promise<{ rows: SessionRows; reopen?: () => Promise<SessionRows>; close: () => Promise<void> }>): void {
  describe(`${name}: session rows`, () => {
    const opened: (() => Promise<void>)[] = [];
    const fresh = async () => {
      const o = await open();
      opened.push(o.close);
      return o;
    };
    afterEach(async () => {
      for (const close of opened.splice(0)) await close();
    });

    it('creates, reads, updates by version and appends events in order', async () => {
      const { rows } = await fresh();
      const state = { plan: ['a'], note: 'é \u0000 "quoted" 🛠️' };
      await rows.create('s-1', state, 2_000, [{ event: 'session.start' }]);
      expect(await rows.get('s-1', 1_000)).toEqual({ id: 's-1', version: 1, state, expiresAt: 2_000 });
      expect(await rows.update('s-1', 1, { plan: ['a', 'b'] }, 3_000, [{ event: 'a' }, { event: 'b' }])).toBe(2);
      expect(await rows.update('s-1', 2, { plan: ['a', 'b', 'c'] }, 3_000, [])).toBe(3);
      expect(await rows.update('s-1', 3, { plan: [] }, 3_000, [{ event: 'c' }])).toBe(4);
      expect(await rows.get('s-1', 1_000)).toMatchObject({ version: 4, state: { plan: [] }, expiresAt: 3_000 });
      expect(await rows.events('s-1')).toEqual([{ event: 'session.start' }, { event: 'a' }, { event: 'b' }, { event: 'c' }]);
    });

    it('refuses a stale version (CONFLICT), an unknown session (NOT_FOUND) and a taken id (CONFLICT), writing nothing', async () => {
      const { rows } = await fresh();
      await rows.create('s-2', { n: 1 }, 2_000, []);
      await rows.update('s-2', 1, { n: 2 }, 2_000, [{ e: 1 }]);
      expect((await rejectionOf(rows.update('s-2', 1, { n: 3 }, 2_000, [{ e: 2 }]))).code).toBe('CONFLICT');
      expect(await rows.get('s-2', 0)).toMatchObject({ version: 2, state: { n: 2 } });
      expect(await rows.events('s-2')).toEqual([{ e: 1 }]);
      expect((await rejectionOf(rows.update('nope', 1, {}, 2_000, []))).code).toBe('NOT_FOUND');
      expect((await rejectionOf(rows.create('s-2', { n: 9 }, 2_000, [{ e: 9 }]))).code).toBe('CONFLICT');
      expect(await rows.events('s-2')).toEqual([{ e: 1 }]);
    });

    it('hides an expired session and deletes it with its events on expire; delete says whether there was one', async () => {
      const { rows } = await fresh();
      await rows.create('old', { n: 1 }, 1_000, [{ e: 1 }]);
      await rows.create('new', { n: 2 }, 5_000, [{ e: 2 }]);
      expect(await rows.get('old', 1_001)).toBeNull();
      expect(await rows.get('old', 1_000)).not.toBeNull();
      expect(await rows.expire(2_000)).toBe(1);
      expect(await rows.events('old')).toEqual([]);
      expect(await rows.get('new', 2_000)).not.toBeNull();
      expect(await rows.delete('new')).toBe(true);
      expect(await rows.delete('new')).toBe(false);
      expect(await rows.events('new')).toEqual([]);
    });

    it('keeps sessions across a reopen', async () => {
      const o = await fresh();
      if (o.reopen === undefined) return;
      await o.rows.create('kept', { n: 1 }, 9_000, [{ e: 1 }]);
      const again = await o.reopen();
      expect(await again.get('kept', 0)).toMatchObject({ version: 1, state: { n: 1 } });
      expect(await again.events('kept')).toEqual([{ e: 1 }]);
    });
  });
}

sessionRowsContract('memory', async () => ({ rows: new MemorySessionRows(), close: async () => {} }));

let root = '';
let counter = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-session-rows-'));
});
afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

// One data folder (creating one takes seconds), a schema per test.
sessionRowsContract('PGlite', async () => {
  const dataDir = join(root, 'pglite');
  const schema = `s${++counter}`;
  let store: Store = await openStore({ dataDir, schema });
  return {
    rows: store.sessions,
    reopen: async () => {
      await store.close();
      store = await openStore({ dataDir, schema });
      return store.sessions;
    },
    close: () => store.close(),
  };
});

if (!URL_ENV) console.warn('PostgreSQL session-row tests SKIPPED: TOOLGRAPH_TEST_DATABASE_URL is not set.');

describe.runIf(URL_ENV)('PostgreSQL', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    const client = new pg.Client({ connectionString: URL_ENV });
    await client.connect();
    try {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  });
  sessionRowsContract('PostgreSQL', async () => {
    const schema = `tg_sessions_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    let store: Store = await openStore({ databaseUrl: URL_ENV!, schema });
    return {
      rows: store.sessions,
      reopen: async () => {
        await store.close();
        store = await openStore({ databaseUrl: URL_ENV!, schema });
        return store.sessions;
      },
      close: () => store.close(),
    };
  });
});
