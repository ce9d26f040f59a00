/**
 * The Store contract, the two-instance test and connection errors against a real PostgreSQL
 * server. Runs when TOOLGRAPH_TEST_DATABASE_URL is set; every test works in its own schema,
 * dropped afterwards, so runs never collide.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { iterateTraces, type Store } from '../../src/store/store.js';
import { storeContract, trace } from './contract.js';
import { crashChild, expectAllOrNothing } from './crash.js';
import { rejectionOf } from '../helpers/expect-code.js';

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];
const schemas: string[] = [];
const schemaOf = new WeakMap<Store, string>();

async function openIn(schema: string): Promise<Store> {
  const store = await openStore({ databaseUrl: URL_ENV!, schema });
  schemaOf.set(store, schema);
  return store;
}

function newSchema(): string {
  const schema = `tg_test_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  return schema;
}


if (!URL_ENV) {
  // Say why, not just how many: a skipped suite must not pass for a green one.
  console.warn(
    'PostgreSQL store tests SKIPPED: TOOLGRAPH_TEST_DATABASE_URL is not set. Point it at a PostgreSQL server ' +
      '(.ci/run installs and starts one on loopback) to run the contract, crash and two-instance tests.',
  );
}

describe.runIf(URL_ENV)('PostgreSQL store', () => {
  // pg warns once per process when a client is handed a query while another runs (an error
  // from pg 9); every query of a transaction must wait for the one before.
  const pgWarnings: string[] = [];
  const onWarning = (warning: Error): void => {
    if (warning.message.includes('already executing a query')) pgWarnings.push(warning.message);
  };
  process.on('warning', onWarning);

  afterAll(async () => {
    process.off('warning', onWarning);
    // Also after the tests below this check's own.
    expect(pgWarnings).toEqual([]);
    const client = new pg.Client({ connectionString: URL_ENV });
    await client.connect();
    try {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  });

  storeContract('PostgreSQL', {
    fresh: () => openIn(newSchema()),
    async reopen(store) {
      await store.close();
      return openIn(schemaOf.get(store)!);
    },
  });

  it("never hands pg a query while another runs: appends of caller and content ids, then everything above", async () => {
    const store = await openIn(newSchema());
    try {
      const content = trace('c1', ['x', 'y'], { idSource: 'content' });
      await store.appendTraces([trace('p1', ['x', 'y']), content]);
      await store.appendTraces([content]);
      // process 'warning' events are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(pgWarnings).toEqual([]);
    } finally {
      await store.close();
    }
  });

  describe('two gateway instances on one database', () => {
    const open: Store[] = [];
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    it('migrate concurrently, see each other\'s writes through tracesSince, and converge', async () => {
      const schema = newSchema();
      const [a, b] = await Promise.all([openIn(schema), openIn(schema)]);
      open.push(a!, b!);
      const storeA = a!;
      const storeB = b!;
      expect(await storeA.stats()).toMatchObject({ traces: 0, schemaVersion: LATEST_SCHEMA_VERSION });

      const ackA = await storeA.appendTraces([trace('a1', ['x', 'y'])]);
      const seenByB = await storeB.tracesSince(0);
      expect(seenByB.traces.map((t) => t.trace.id)).toEqual(['a1']);
      expect(seenByB.lastSeq).toBe(ackA.lastSeq);

      // Both write concurrently while B tails incrementally: the ordered seq must never let a
      // row that commits late slip behind B's cursor.
      let cursor = seenByB.lastSeq;
      const tailed = new Set(seenByB.traces.map((t) => t.trace.id));
      let writing = true;
      const tail = (async () => {
        for (;;) {
          const done = !writing;
          const page = await storeB.tracesSince(cursor, 50);
          for (const item of page.traces) tailed.add(item.trace.id);
          cursor = page.lastSeq;
          if (done && page.traces.length === 0) return;
        }
      })();
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const writer = i % 2 === 0 ? storeA : storeB;
        writes.push(writer.appendTraces(Array.from({ length: 10 }, (_, k) => trace(`w${i}-${k}`, ['x', 'y', `z${k % 3}`]))));
        // The same retry from both instances: stored once.
        writes.push(writer.appendTraces([trace(`shared-${i % 5}`, ['y', 'x'])]));
      }
      await Promise.all(writes);
      writing = false;
      await tail;

      const idsOf = async (store: Store): Promise<string[]> => {
        const ids: string[] = [];
        for await (const item of iterateTraces(store)) ids.push(item.trace.id);
        return ids;
      };
      const fromA = await idsOf(storeA);
      const fromB = await idsOf(storeB);
      expect(fromA).toEqual(fromB);
      expect(fromA).toHaveLength(1 + 400 + 5);
      expect(new Set(fromA)).toEqual(tailed);
      expect(await storeA.listTransitions()).toEqual(await storeB.listTransitions());
      const xy = (await storeA.listTransitions()).find((t) => t.from === 'x' && t.to === 'y');
      expect(xy?.count).toBe(401);
    });
  });

  describe('notifications', () => {
    it("an instance hears another's commit through LISTEN/NOTIFY within a second, and only its own schema's", async () => {
      const schema = newSchema();
      const a = await openIn(schema);
      const b = await openIn(schema);
      const other = await openIn(newSchema());
      const heard: number[] = [];
      const unsubscribe = await b.subscribe((change) => {
        if (change.kind === 'traces') heard.push(change.lastSeq);
      });
      try {
        const started = Date.now();
        const ack = await a.appendTraces([trace('n1', ['x', 'y'])]);
        await other.appendTraces([trace('elsewhere', ['x', 'y'])]);
        while (heard.length === 0 && Date.now() - started < 1_000) await new Promise((r) => setTimeout(r, 5));
        expect(heard).toEqual([ack.lastSeq]);
        // Nothing stored, nothing sent.
        await a.appendTraces([trace('n1', ['x', 'y'])]);
        await unsubscribe();
        await a.appendTraces([trace('n2', ['x', 'y'])]);
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toEqual([ack.lastSeq]);
      } finally {
        await unsubscribe();
        for (const s of [a, b, other]) await s.close();
      }
    });

    it("an instance hears another's writes of shared state by kind, and the revisions say what moved", async () => {
      const schema = newSchema();
      const a = await openIn(schema);
      const b = await openIn(schema);
      const heard: string[] = [];
      const unsubscribe = await b.subscribe((change) => heard.push(change.kind));
      try {
        const before = await b.revisions();
        await a.putTools([{ name: 'x', description: 'X', params: [] }]);
        await a.putWeights(PRIOR_WEIGHTS);
        const started = Date.now();
        while (heard.length < 2 && Date.now() - started < 1_000) await new Promise((r) => setTimeout(r, 5));
        expect(heard).toEqual(['tools', 'weights']);
        expect(await b.revisions()).toEqual({ ...before, tools: before.tools + 1, weights: before.weights + 1 });
      } finally {
        await unsubscribe();
        for (const s of [a, b]) await s.close();
      }
    });
  });

  describe('crash', () => {
    it('a process killed mid-batch: the server rolls its transaction back, the acknowledged batch stays', async () => {
      const schema = newSchema();
      const args = { databaseUrl: URL_ENV!, schema, first: 200, second: 40_000, killAfterMs: 400 };
      // Kill once the identity sequence shows the killed batch's first statement inserted rows
      // (sequences are not transactional, so another session sees them at once).
      const probe = new pg.Client({ connectionString: URL_ENV });
      await probe.connect();
      const report = await crashChild({
        ...args,
        killWhen: async () => {
          const rows = await probe.query<{ v: string }>(`SELECT last_value::text AS v FROM ${schema}.traces_seq_seq`);
          return Number(rows.rows[0]?.v ?? 0) > args.first + 1_000;
        },
      }).finally(() => probe.end());
      expect(report.signal).toBe('SIGKILL');
      expect(report.secondAcked).toBe(false);
      const store = await openIn(schema);
      try {
        expect(await expectAllOrNothing(store, args, report)).toBe('none');
        // The dropped connection released the append lock: writing goes on.
        const next = await store.appendTraces([trace('after', ['a', 'b'])]);
        expect(next.inserted).toBe(1);
        // Sequence numbers are not transactional: the rolled-back batch had inserted at least
        // one 1,000-row statement when the process died.
        expect(next.lastSeq - args.first).toBeGreaterThan(1_000);
      } finally {
        await store.close();
      }
    });
  });

  describe('migrations', () => {
    it('upgrades a version-3 store, whose appends kept the transitions, without counting its traces twice, keeping its capabilities', async () => {
      const schema = newSchema();
      const store = await openIn(schema);
      await store.appendTraces([trace('old1', ['a', 'b']), trace('old2', ['a', 'b', 'c'])]);
      const capability = { id: 'ab', description: '', tools: ['a', 'b'], ordered: true, successes: 0, failures: 0 };
      await store.putCapabilities([capability]);
      const tools = [{ name: 'b', description: 'B', params: [] }, { name: 'a', description: 'A', params: [] }];
      await store.putTools(tools);
      await store.close();
      // Back to version 3 as it was: no step arrays, transitions written by the appends, no mark.
      const client = new pg.Client({ connectionString: URL_ENV });
      await client.connect();
      try {
        await client.query(`DELETE FROM ${schema}.schema_version WHERE version >= 4`);
        await client.query(`DROP INDEX ${schema}.traces_content_base_id`);
        await client.query(`CREATE INDEX traces_base_id ON ${schema}.traces (base_id)`);
        await client.query(`DROP TABLE ${schema}.revisions`);
        await client.query(`ALTER TABLE ${schema}.capabilities DROP COLUMN position`);
        await client.query(`ALTER TABLE ${schema}.tools DROP COLUMN position`);
        await client.query(`DROP TABLE ${schema}.transitions_folded`);
        await client.query(`DROP TABLE ${schema}.fit_lease`);
        await client.query(`DROP TABLE ${schema}.session_events, ${schema}.sessions`);
        await client.query(`ALTER TABLE ${schema}.traces DROP COLUMN tools, DROP COLUMN oks`);
        await client.query(
          `INSERT INTO ${schema}.transitions (from_tool, to_tool, count, successes, failures, last_seen_ms) VALUES ('a', 'b', 2, 2, 0, 1000), ('b', 'c', 1, 1, 0, 1000)`,
        );
      } finally {
        await client.end();
      }
      const upgraded = await openIn(schema);
      try {
        expect((await upgraded.stats()).schemaVersion).toBe(LATEST_SCHEMA_VERSION);
        // Capabilities stored before their registration order was kept are still there.
        expect(await upgraded.listCapabilities()).toEqual([capability]);
        // So are tools stored before theirs was (migration 8), in the table's order.
        expect(await upgraded.listTools()).toEqual(tools);
        expect(await upgraded.revisions()).toEqual({ tools: 0, capabilities: 0, weights: 0, feedback: 0 });
        // Migration 7: base ids indexed for content-hash ids only.
        const indexes = new pg.Client({ connectionString: URL_ENV });
        await indexes.connect();
        try {
          const { rows } = await indexes.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'traces' AND indexdef LIKE '%base_id%'`, [schema]);
          expect(rows.map((r: { indexname: string }) => r.indexname)).toEqual(['traces_content_base_id']);
          expect(rows[0].indexdef).toMatch(/WHERE \(id_source = 'content'::text\)/);
        } finally {
          await indexes.end();
        }
        await upgraded.appendTraces([trace('new1', ['b', 'c'])]);
        expect(await upgraded.listTransitions()).toEqual([
          { from: 'a', to: 'b', count: 2, successes: 2, failures: 0, lastSeen: 1_000 },
          { from: 'b', to: 'c', count: 2, successes: 2, failures: 0, lastSeen: 1_000 },
        ]);
      } finally {
        await upgraded.close();
      }
    });

    it('refuses a database migrated by a newer toolgraph with CONFLICT', async () => {
      const schema = newSchema();
      const store = await openIn(schema);
      const client = new pg.Client({ connectionString: URL_ENV });
      await client.connect();
      try {
        await client.query(`INSERT INTO ${schema}.schema_version (version, name) VALUES (999, 'from the future')`);
      } finally {
        await client.end();
      }
      try {
        const error = await rejectionOf(store.migrate());
        expect(error.code).toBe('CONFLICT');
        expect(error.message).toMatch(new RegExp(`schema version 999, newer than this toolgraph knows \\(${LATEST_SCHEMA_VERSION}\\); upgrade toolgraph`));
      } finally {
        await store.close();
      }
    });

    it('rejects a schema name that is not a plain identifier', async () => {
      const error = await rejectionOf(openStore({ databaseUrl: URL_ENV!, schema: 'x; DROP SCHEMA public' }));
      expect(error.code).toBe('INVALID_INPUT');
    });
  });

  describe('connection failures', () => {
    it('a server that does not answer is STORE_UNAVAILABLE naming what to check, without the password', async () => {
      const error = await rejectionOf(openStore({ databaseUrl: 'postgres://someone:s3cret@127.0.0.1:1/nowhere' }));
      expect(error.code).toBe('STORE_UNAVAILABLE');
      expect(error.message).toMatch(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/nowhere \(ECONNREFUSED\); check that PostgreSQL is running/);
      expect(error.message).not.toMatch(/s3cret/);
      expect(error.stack ?? '').not.toMatch(/node_modules\/pg/);
    });

    it('a database that does not exist says so', async () => {
      const url = new URL(URL_ENV!);
      url.pathname = '/toolgraph_no_such_database';
      const error = await rejectionOf(openStore({ databaseUrl: url.toString() }));
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toMatch(/does not exist; create it/);
    });
  });
});
