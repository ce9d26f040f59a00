import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, storeOptionsFromEnv } from '../../src/store/open-store.js';
import { openPgliteStore } from '../../src/store/pglite-store.js';
import type { Store } from '../../src/store/store.js';
import { storeContract, trace } from './contract.js';
import { crashChild, expectAllOrNothing } from './crash.js';
import { rejectionOf } from '../helpers/expect-code.js';

// One data folder for the file (creating one costs seconds); every test gets its own schema.
let root = '';
let dataDir = '';
let counter = 0;
const schemaOf = new WeakMap<Store, string>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolgraph-pglite-'));
  // The default place, .toolgraph/ under the working directory, is checked by the first test.
  dataDir = join(root, '.toolgraph');
  const store = await openStore({ cwd: root });
  await store.close();
  // initdb runs in WebAssembly: seconds, more when test files share the CPUs.
}, 60_000);

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

async function openIn(schema: string): Promise<Store> {
  const store = await openStore({ dataDir, schema });
  schemaOf.set(store, schema);
  return store;
}

storeContract('PGlite', {
  fresh: () => openIn(`t${++counter}`),
  async reopen(store) {
    await store.close();
    return openIn(schemaOf.get(store)!);
  },
});


describe('openStore: which store', () => {
  it('takes the URL from TOOLGRAPH_DATABASE_URL, else the data dir', () => {
    expect(storeOptionsFromEnv({ TOOLGRAPH_DATABASE_URL: 'postgres://h/db' }, 'dir')).toEqual({ databaseUrl: 'postgres://h/db' });
    expect(storeOptionsFromEnv({ TOOLGRAPH_DATABASE_URL: '  ' }, 'dir')).toEqual({ dataDir: 'dir' });
    expect(storeOptionsFromEnv({})).toEqual({});
  });
});

describe('PGlite store: graph snapshots as files', () => {
  it('keeps the bytes in files beside the database, the newest two, and reads them back', async () => {
    const store = await openIn(`snap${++counter}`);
    try {
      const folder = join(dataDir, 'toolgraph-blobs', schemaOf.get(store)!);
      for (let i = 1; i <= 3; i++) await store.putSnapshot({ traceSeq: i, format: 1, data: new Uint8Array(1_000 * i).fill(i) });
      expect(readdirSync(folder).sort()).toHaveLength(2);
      expect((await store.getSnapshot())!.data).toEqual(new Uint8Array(3_000).fill(3));
      // Damaged bytes are reported, and never inflate past the recorded length.
      const newest = readdirSync(folder).sort().at(-1)!;
      const saved = readFileSync(join(folder, newest));
      for (const [bytes, message] of [
        [deflateSync(new Uint8Array(1_000_000).fill(3)), /does not inflate to its 3000 recorded bytes/],
        [Buffer.from('not deflate at all'), /does not inflate to its 3000 recorded bytes/],
        [deflateSync(new Uint8Array(2_000).fill(3)), /has 2000 bytes, 3000 were stored/],
      ] as const) {
        writeFileSync(join(folder, newest), bytes);
        const damaged = await rejectionOf(store.getSnapshot());
        expect(damaged.code).toBe('INTERNAL');
        expect(damaged.message).toMatch(message);
      }
      writeFileSync(join(folder, newest), saved);
      expect((await store.getSnapshot())!.data).toEqual(new Uint8Array(3_000).fill(3));
      // A file that went missing is reported, not decoded as garbage.
      for (const name of readdirSync(folder)) rmSync(join(folder, name));
      const error = await rejectionOf(store.getSnapshot());
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toMatch(/snapshot file .* is missing/);
    } finally {
      await store.close();
    }
  });
});

describe('PGlite store: the folder', () => {
  it('creates .toolgraph/ in the working directory by default, owned by one process at a time', async () => {
    expect(existsSync(join(root, '.toolgraph', 'PG_VERSION'))).toBe(true);
    const store = await openStore({ cwd: root });
    try {
      expect(store.kind).toBe('pglite');
      expect(readFileSync(join(dataDir, 'toolgraph.lock'), 'utf8')).toBe(String(process.pid));
      // PGlite is single-user: a second open is refused while the first is open.
      const busy = await rejectionOf(openStore({ dataDir }));
      expect(busy.code).toBe('CONFLICT');
      expect(busy.message).toMatch(/in use by process/);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, 'toolgraph.lock'))).toBe(false);
  });

  it('takes over a lock left by a process that no longer runs, or by an earlier process with our pid', async () => {
    const lock = join(dataDir, 'toolgraph.lock');
    for (const stale of ['2147483646', String(process.pid), 'garbage']) {
      writeFileSync(lock, stale);
      const store = await openPgliteStore({ dataDir });
      await store.close();
      expect(existsSync(lock)).toBe(false);
    }
  });

  it('refuses a file, and a folder that holds something else, with INVALID_INPUT', async () => {
    const file = join(root, 'file');
    writeFileSync(file, 'not a folder');
    const notFolder = await rejectionOf(openStore({ dataDir: file }));
    expect(notFolder.code).toBe('INVALID_INPUT');
    expect(notFolder.message).toMatch(/is not a folder/);

    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'mine');
    const foreign = await rejectionOf(openStore({ dataDir: other }));
    expect(foreign.code).toBe('INVALID_INPUT');
    expect(foreign.message).toMatch(/not a toolgraph database/);
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('reports a damaged folder as INTERNAL saying what to do, not a driver stack', async () => {
    const damaged = join(root, 'damaged');
    mkdirSync(damaged);
    writeFileSync(join(damaged, 'PG_VERSION'), 'garbage\n');
    const error = await rejectionOf(openStore({ dataDir: damaged }));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toMatch(/damaged.*move it aside/);
    expect(existsSync(join(damaged, 'toolgraph.lock'))).toBe(false);

    // A real database whose control file was cut short.
    const truncated = join(root, 'truncated');
    cpSync(dataDir, truncated, { recursive: true });
    truncateSync(join(truncated, 'global', 'pg_control'), 100);
    const cut = await rejectionOf(openStore({ dataDir: truncated }));
    expect(cut.code).toBe('INTERNAL');
    expect(cut.message).toMatch(/cannot open the database in .*truncated: it looks damaged/);
  });
});

describe('PGlite store: crash', () => {
  it('a process killed mid-batch leaves the acknowledged batch and nothing of the killed one', async () => {
    const args = { dataDir, schema: 'crash', first: 200, second: 40_000, killAfterMs: 500 };
    const report = await crashChild(args);
    // The batch takes well over a second here: the kill lands inside its transaction.
    expect(report.signal).toBe('SIGKILL');
    expect(report.secondAcked).toBe(false);
    // The dead child's lock is taken over; PostgreSQL recovery discards the open transaction.
    const store = await openStore({ dataDir, schema: 'crash' });
    try {
      expect(await expectAllOrNothing(store, args, report)).toBe('none');
      // (Unlike on a server, the sequence cannot show how far the batch got: PGlite's WAL
      // buffers live in the killed process. The batch takes seconds here; the kill is at 0.5 s.)
      expect(await store.appendTraces([trace('second-0', ['a'])])).toMatchObject({ inserted: 1 });
    } finally {
      await store.close();
    }
  });
});
