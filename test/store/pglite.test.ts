import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, storeOptionsFromEnv } from '../../src/store/open-store.js';
import { openPgliteStore, PgliteBlobs } from '../../src/store/pglite-store.js';
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

describe('PGlite store: the snapshot prefetch', () => {
  it('inflates the newest sized file once, for that name only, and leaves failures to the caller', async () => {
    const folder = join(root, 'prefetch-unit');
    const blobs = new PgliteBlobs(folder);
    const raw = new Uint8Array(50_000).map((_, i) => i % 251);
    const older = await blobs.write(deflateSync(new Uint8Array(10)), 10);
    await new Promise((done) => setTimeout(done, 5));
    const newest = await blobs.write(deflateSync(raw), raw.byteLength);
    // An older-style name without the length is never prefetched.
    writeFileSync(join(folder, 'zzzzzzzzzz-abcdef.bin'), deflateSync(raw));
    blobs.startPrefetch();
    expect(blobs.takePrefetched(older)).toBeUndefined();
    blobs.startPrefetch();
    expect(new Uint8Array((await blobs.takePrefetched(newest))!)).toEqual(raw);
    expect(blobs.takePrefetched(newest)).toBeUndefined();
    // Damaged bytes, or bytes longer than the name says: null, and getSnapshot reads the file itself.
    writeFileSync(join(folder, newest), Buffer.from('damaged'));
    blobs.startPrefetch();
    expect(await blobs.takePrefetched(newest)).toBeNull();
    writeFileSync(join(folder, newest), deflateSync(new Uint8Array(60_000)));
    blobs.startPrefetch();
    expect(await blobs.takePrefetched(newest)).toBeNull();
    // No folder yet: nothing to prefetch.
    const none = new PgliteBlobs(join(root, 'prefetch-none'));
    none.startPrefetch();
    expect(none.takePrefetched(newest)).toBeUndefined();
  });

  it('serves the snapshot the database names, not a newer orphan file', async () => {
    const schema = `pf${++counter}`;
    let store = await openIn(schema);
    const data = new Uint8Array(20_000).map((_, i) => (i * 7) % 256);
    await store.putSnapshot({ traceSeq: 5, format: 1, data });
    await store.close();
    // A crash between writing a file and committing its row leaves a newer file no row names.
    const folder = join(dataDir, 'toolgraph-blobs', schema);
    writeFileSync(join(folder, `${(Date.now() + 60_000).toString(36)}-abcdef-${(20_000).toString(36)}.bin`), deflateSync(new Uint8Array(20_000)));
    store = await openStore({ dataDir, schema, prefetchSnapshot: true });
    try {
      const got = await store.getSnapshot();
      expect(got!.traceSeq).toBe(5);
      expect(got!.data).toEqual(data);
    } finally {
      await store.close();
    }
    store = await openStore({ dataDir, schema, prefetchSnapshot: true });
    try {
      // Once the orphan is gone (the next putSnapshot removes it), the prefetch is the current file.
      for (const name of readdirSync(folder)) if (name.includes('-abcdef-')) rmSync(join(folder, name));
      expect((await store.getSnapshot())!.data).toEqual(data);
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
