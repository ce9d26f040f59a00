/**
 * PGlite on its own worker thread (pglite-thread.ts, pglite-worker.js): values and errors cross
 * intact, a dead thread fails every request clearly, and an idle open database does not keep
 * the process alive.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteThread, THREAD_STOPPED } from '../../src/store/pglite-thread.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT_STORE = join(ROOT, 'dist', 'src', 'store', 'open-store.js');
let root = '';
let thread: PgliteThread;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-thread-'));
  thread = await PgliteThread.open(join(root, 'db'));
}, 60_000);

afterAll(async () => {
  await thread?.close();
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

describe('PGlite on a worker thread', () => {
  it('returns rows with their types, and binds bytes given for json as the text itself', async () => {
    const rows = await thread.query(
      `SELECT $1::int AS n, $2::text AS t, '{"a": [1, 2]}'::json AS j, '\\x00ff'::bytea AS b, NULL AS z, $3::json AS sent`,
      [42, '__proto__ ✓', new TextEncoder().encode('{"k": "v"}')],
    );
    expect(rows).toEqual([{ n: 42, t: '__proto__ ✓', j: { a: [1, 2] }, b: new Uint8Array([0, 255]), z: null, sent: { k: 'v' } }]);
    await thread.exec('CREATE TABLE IF NOT EXISTS t (x int PRIMARY KEY); INSERT INTO t VALUES (1)');
    expect(await thread.query('SELECT count(*)::int AS c FROM t')).toEqual([{ c: 1 }]);
  });

  it("rejects with PostgreSQL's message and code, and stays usable", async () => {
    const error = (await thread.query('SELECT 1 / $1::int AS x', [0]).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/division by zero/);
    expect(error.code).toBe('22012');
    await thread.exec('CREATE TABLE IF NOT EXISTS unique_x (x int PRIMARY KEY); INSERT INTO unique_x VALUES (1) ON CONFLICT DO NOTHING');
    const duplicate = (await thread.exec('INSERT INTO unique_x VALUES (1)').catch((e: unknown) => e)) as Error & { code?: string };
    expect(duplicate.code).toBe('23505');
    expect(await thread.query('SELECT 2 AS x')).toEqual([{ x: 2 }]);
  });

  it('runs statements sent within a transaction only while one is open, so none outlives a failed BEGIN', async () => {
    await thread.exec('CREATE TABLE IF NOT EXISTS within_t (x int PRIMARY KEY)');
    // Sent together, unanswered, as the store sends a transaction: BEGIN, statements, COMMIT.
    const begun = thread.begin();
    const inserted = thread.query('INSERT INTO within_t VALUES (1) RETURNING x', [], true);
    const committed = thread.commit();
    await Promise.all([begun, inserted, committed]);
    expect(await inserted).toEqual([{ x: 1 }]);
    // No transaction open (as after a BEGIN that failed): refused, not run on its own.
    const refused = (await thread.query('INSERT INTO within_t VALUES (2)', [], true).catch((e: unknown) => e)) as Error & { code?: string };
    expect(refused.code).toBe('25P01');
    expect(refused.message).toMatch(/not open/);
    await expect(thread.exec('INSERT INTO within_t VALUES (3)', true)).rejects.toMatchObject({ code: '25P01' });
    // A rollback closes it too, and takes what it held with it.
    await Promise.all([thread.begin(), thread.query('INSERT INTO within_t VALUES (4)', [], true)]);
    await thread.rollback();
    await expect(thread.query('INSERT INTO within_t VALUES (5)', [], true)).rejects.toMatchObject({ code: '25P01' });
    expect(await thread.query('SELECT x FROM within_t ORDER BY x')).toEqual([{ x: 1 }]);
    // A COMMIT sent behind a statement that fails is refused, and the transaction rolled back:
    // PostgreSQL would answer it as if committed.
    const [, good, bad, commit] = await Promise.allSettled([
      thread.begin(),
      thread.query('INSERT INTO within_t VALUES (6)', [], true),
      thread.query('INSERT INTO within_t VALUES (1)', [], true),
      thread.commit(),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    expect(commit).toMatchObject({ status: 'rejected', reason: { code: '25P02' } });
    expect(await thread.query('SELECT x FROM within_t ORDER BY x')).toEqual([{ x: 1 }]);
    // And the next transaction starts clean.
    await Promise.all([thread.begin(), thread.query('INSERT INTO within_t VALUES (7)', [], true), thread.commit()]);
    expect(await thread.query('SELECT x FROM within_t ORDER BY x')).toEqual([{ x: 1 }, { x: 7 }]);
  });

  it('fails waiting and later requests with the reason when the thread dies', async () => {
    const doomed = await PgliteThread.open(join(root, 'doomed'));
    const waiting = doomed.query('SELECT pg_sleep(0.5)');
    // A crash of the thread, as a WebAssembly abort would end it.
    await (doomed as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(waiting).rejects.toThrow(/database thread stopped/);
    await expect(doomed.query('SELECT 1')).rejects.toThrow(/database thread stopped/);
    // Marked as such, for the driver to report STORE_UNAVAILABLE rather than a failed statement.
    await expect(doomed.query('SELECT 1')).rejects.toMatchObject({ code: THREAD_STOPPED });
    await doomed.close();
  }, 60_000);

  it('rejects every request after close', async () => {
    const closing = await PgliteThread.open(join(root, 'closing'));
    await closing.close();
    await expect(closing.query('SELECT 1')).rejects.toThrow(/closed/);
    await closing.close();
  }, 60_000);

  it.runIf(existsSync(BUILT_STORE))('does not keep the process alive while idle, as a store left open must not', async () => {
    const script = `const { openStore } = await import(${JSON.stringify(pathToFileURL(BUILT_STORE).href)});
      const store = await openStore({ dataDir: ${JSON.stringify(join(root, 'idle'))} });
      await store.listTools();
      console.log('opened');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(out.trim()).toBe('opened');
    expect(code).toBe(0);
  }, 60_000);
});
