/**
 * The default store: PGlite, PostgreSQL compiled to WebAssembly, in a local folder. Zero set-up,
 * the same SQL as the server store. One process owns a folder at a time (a lock file with its
 * pid): PGlite is single-user, and two writers would corrupt it.
 *
 * Durability: a write resolves after PostgreSQL committed it to the folder's files, so killing
 * the process afterwards loses nothing, and killing it mid-transaction leaves nothing of it
 * (recovery replays the WAL on the next open).
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { ToolgraphError } from '../schema/errors.js';
import type { BlobFiles, Row, SqlDriver, SqlSession, Statement } from './sql-driver.js';
import { PgliteThread, THREAD_STOPPED } from './pglite-thread.js';
import { inflateSnapshot, SqlStore } from './sql-store.js';
import type { Store } from './store.js';

export interface PgliteStoreOptions {
  /** Folder of the database, created if missing. */
  readonly dataDir: string;
  /** Schema holding the tables (created if missing); `public` when omitted. */
  readonly schema?: string;
  /**
   * Start reading and inflating the newest snapshot file on the thread pool while the database
   * opens (a service's cold start, which reads it next); off for commands that never read it.
   */
  readonly prefetchSnapshot?: boolean;
  /**
   * With prefetchSnapshot: called at once with the prefetch's inflated bytes (null if it failed),
   * when there is a file to prefetch, so the caller can start on them before the database opens.
   * They are the current snapshot's bytes only if getSnapshot later returns the same buffer.
   */
  readonly onSnapshotPrefetch?: (bytes: Promise<Uint8Array | null>) => void;
}

const LOCK_FILE = 'toolgraph.lock';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as { code?: string }).code === 'EPERM';
  }
}

// Folders this process has open. A lock file naming our own pid but no folder here was left by
// an earlier process that had the same pid: containers restart their entry point as pid 1.
const openHere = new Set<string>();

function heldElsewhere(pid: number, dir: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return openHere.has(dir);
  return isAlive(pid);
}

/** Takes the folder's lock file, replacing one left by a process that no longer runs. */
function acquireLock(dir: string): string {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    // Written aside, then hard-linked into place: the lock appears with its pid in one step,
    // so a process starting at the same moment never reads an empty lock and takes it as stale.
    const temp = `${path}.${process.pid}.${Date.now()}`;
    writeFileSync(temp, String(process.pid));
    try {
      linkSync(temp, path);
      openHere.add(dir);
      return path;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (heldElsewhere(pid, dir)) {
        throw new ToolgraphError(
          'CONFLICT',
          `openPgliteStore: ${dir} is in use by process ${pid}${pid === process.pid ? ' (this one: close the other store first)' : ''}; stop it, use another --data-dir, or use PostgreSQL (TOOLGRAPH_DATABASE_URL) to share one graph. If no toolgraph runs, delete ${path}`,
        );
      }
      rmSync(path, { force: true });
    } finally {
      rmSync(temp, { force: true });
    }
  }
  throw new ToolgraphError('CONFLICT', `openPgliteStore: could not take the lock ${path}`);
}

function releaseLock(path: string, dir: string): void {
  openHere.delete(dir);
  rmSync(path, { force: true });
}

/** Refuses a path that is a file, or a non-empty folder that is not a PostgreSQL data folder. */
function checkFolder(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) {
      throw new ToolgraphError('INVALID_INPUT', `openPgliteStore: ${dir} is not a folder; point --data-dir at a folder (it is created if missing)`);
    }
    const entries = readdirSync(dir).filter((name) => !name.startsWith(LOCK_FILE));
    if (entries.length > 0 && !entries.includes('PG_VERSION')) {
      throw new ToolgraphError(
        'INVALID_INPUT',
        `openPgliteStore: ${dir} is not empty and is not a toolgraph database (no PG_VERSION); point --data-dir at an empty or new folder`,
      );
    }
  } else {
    mkdirSync(dir, { recursive: true });
  }
}

/** Folder, inside the data folder, of large values kept as files (graph snapshots). */
const BLOB_FOLDER = 'toolgraph-blobs';
const BLOB_NAME = /^[a-z0-9-]+\.bin$/;
/** `<time>-<random>-<inflated length>.bin`, all base 36 but the hex random part (older files have no length). */
const SIZED_BLOB_NAME = /^([a-z0-9]+)-[0-9a-f]+-([a-z0-9]+)\.bin$/;

/**
 * Graph snapshots as files: PGlite's bytea parameters cost about a second per megabyte, a file
 * write costs milliseconds. One folder per schema; the database rows name the files.
 */
export class PgliteBlobs implements BlobFiles {
  private prefetch: { readonly name: string; readonly bytes: Promise<Uint8Array | null> } | undefined;

  constructor(private readonly folder: string) {}

  /**
   * Reads and inflates the newest file (by the time in its name) in the background. On a cold
   * start that is the current snapshot, and inflating it on the thread pool while PGlite opens
   * (on its own thread) takes it off the critical path; if the database names another file, the
   * prefetch is dropped. Any failure leaves the work to getSnapshot, which reports it. Returns the
   * bytes as they will be handed out, or undefined when there is no file to prefetch.
   */
  startPrefetch(): Promise<Uint8Array | null> | undefined {
    let newest: { name: string; time: number; length: number } | undefined;
    try {
      for (const name of readdirSync(this.folder)) {
        const sized = SIZED_BLOB_NAME.exec(name);
        if (sized === null) continue;
        const time = Number.parseInt(sized[1]!, 36);
        const length = Number.parseInt(sized[2]!, 36);
        if (Number.isSafeInteger(length) && (newest === undefined || time > newest.time)) newest = { name, time, length };
      }
    } catch {
      return undefined;
    }
    if (newest === undefined) return undefined;
    const { name, length } = newest;
    const bytes = readFile(join(this.folder, name))
      .then((packed) => inflateSnapshot(packed, length))
      .catch(() => null);
    this.prefetch = { name, bytes };
    return bytes;
  }

  takePrefetched(name: string): Promise<Uint8Array | null> | undefined {
    const prefetch = this.prefetch;
    this.prefetch = undefined;
    return prefetch?.name === name ? prefetch.bytes : undefined;
  }

  async write(data: Uint8Array, rawLength: number): Promise<string> {
    await mkdir(this.folder, { recursive: true });
    const name = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}-${rawLength.toString(36)}.bin`;
    const temp = join(this.folder, `${name}.tmp`);
    const file = await open(temp, 'w');
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, join(this.folder, name));
    // The rename itself must survive a crash: sync the folder too.
    const folder = await open(this.folder, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
    return name;
  }

  async read(name: string): Promise<Uint8Array> {
    if (!BLOB_NAME.test(name)) throw new ToolgraphError('INTERNAL', `getSnapshot: the stored snapshot file name ${JSON.stringify(name)} is not one toolgraph writes`);
    try {
      return await readFile(join(this.folder, name));
    } catch (error) {
      throw new ToolgraphError('INTERNAL', `getSnapshot: the snapshot file ${join(this.folder, name)} is missing or unreadable (${errorMessage(error)}); delete the graph_snapshots rows to rebuild from the traces`);
    }
  }

  async retain(keep: readonly string[]): Promise<void> {
    const wanted = new Set(keep);
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (!wanted.has(name) && (BLOB_NAME.test(name) || name.endsWith('.bin.tmp'))) await rm(join(this.folder, name), { force: true });
    }
  }
}

class PgliteDriver implements SqlDriver {
  readonly kind = 'pglite' as const;
  // PGlite has one connection: serialise our calls so a transaction never interleaves with
  // another call's statements.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: PgliteThread,
    private readonly dir: string,
    private readonly lockPath: string,
    readonly blobs: BlobFiles,
  ) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  query(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.serial(() => this.db.query(sql, params));
  }

  exec(sql: string): Promise<void> {
    return this.serial(() => this.db.exec(sql));
  }

  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      // BEGIN goes out with the statements behind it, unanswered: the database thread runs them
      // back to back even while this thread is busy (a model rebuild's stage), instead of
      // waiting for it to read BEGIN's answer first. Sent `within` the transaction, they are
      // refused there if that BEGIN failed, so none can run outside it.
      const begun = this.db.begin();
      begun.catch(() => {});
      let result: T;
      try {
        result = await fn({ query: (sql, params = []) => this.db.query(sql, params, true), exec: (sql) => this.db.exec(sql, true) });
        await begun;
      } catch (error) {
        await this.db.rollback().catch(() => {});
        // A failed BEGIN is the reason, not the statements it made the thread refuse.
        throw await begun.then(
          () => error,
          (failed: unknown) => failed,
        );
      }
      await this.db.commit();
      return result;
    });
  }

  batch(statements: readonly Statement[]): Promise<Row[][]> {
    return this.serial(async () => {
      // Sent together, unanswered; the thread refuses the statements if BEGIN failed and the
      // COMMIT if one of them did (rolling back), so none is committed unless all succeeded.
      const begun = this.db.begin();
      const ran = statements.map((st) => this.db.query(st.sql, st.params ?? [], true));
      const committed = this.db.commit();
      const settled = await Promise.allSettled([begun, ...ran, committed]);
      const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failure !== undefined) {
        // Closed already unless the COMMIT never ran (the thread died, say): then roll back.
        if (settled[settled.length - 1]!.status === 'fulfilled') throw failure.reason;
        await this.db.rollback().catch(() => {});
        throw failure.reason;
      }
      return settled.slice(1, -1).map((s) => (s as PromiseFulfilledResult<Row[]>).value);
    });
  }

  // One process owns the folder (the lock file), and it applies its own appends directly: there
  // is no other writer to hear from.
  async listen(): Promise<() => Promise<void>> {
    return async () => {};
  }

  async close(): Promise<void> {
    try {
      await this.serial(() => this.db.close());
    } finally {
      releaseLock(this.lockPath, this.dir);
    }
  }

  describeError(error: unknown, action: string): ToolgraphError {
    const code = (error as { code?: unknown } | null)?.code;
    const cause = errorMessage(error);
    if (code === '42P01') {
      return new ToolgraphError('INTERNAL', `${action}: toolgraph tables are missing in ${this.dir}; run migrate() (openStore does) before use`, { cause });
    }
    if (code === '23505') return new ToolgraphError('CONFLICT', `${action}: ${cause}`, { cause });
    if (code === THREAD_STOPPED) {
      return new ToolgraphError('STORE_UNAVAILABLE', `${action}: the PGlite database in ${this.dir} cannot be used: ${cause}; restart toolgraph to open it again`, { cause });
    }
    if (typeof code === 'string' && (code.startsWith('22') || code === '23514')) {
      return new ToolgraphError('INVALID_INPUT', `${action}: the database rejected a value (${code}: ${cause}); nothing was written`, { cause });
    }
    return new ToolgraphError('INTERNAL', `${action}: the PGlite database in ${this.dir} failed${typeof code === 'string' ? ` (${code})` : ''}: ${cause}`, {
      driverCode: code,
      cause,
    });
  }
}

/** Opens (creating if needed) the database folder; call `migrate()` before use (openStore does). */
export async function openPgliteStore(options: PgliteStoreOptions): Promise<Store> {
  const dir = resolve(options.dataDir);
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new ToolgraphError('INVALID_INPUT', `openPgliteStore: schema must match ${SCHEMA_NAME.source}, got ${JSON.stringify(options.schema)}`);
  }
  try {
    checkFolder(dir);
  } catch (error) {
    if (error instanceof ToolgraphError) throw error;
    throw new ToolgraphError('INVALID_INPUT', `openPgliteStore: cannot use ${dir} as the data folder (${errorMessage(error)}); check the path and its permissions`);
  }
  let lockPath: string;
  try {
    lockPath = acquireLock(dir);
  } catch (error) {
    if (error instanceof ToolgraphError) throw error;
    throw new ToolgraphError('INVALID_INPUT', `openPgliteStore: cannot write the lock file in ${dir} (${errorMessage(error)}); check the folder's permissions`);
  }
  const blobs = new PgliteBlobs(join(dir, BLOB_FOLDER, options.schema ?? 'public'));
  if (options.prefetchSnapshot === true) {
    const prefetched = blobs.startPrefetch();
    if (prefetched !== undefined) options.onSnapshotPrefetch?.(prefetched);
  }
  let db: PgliteThread | undefined;
  try {
    // PGlite.create queries the database itself (its array types), so an opened one works.
    db = await PgliteThread.open(dir);
    if (options.schema !== undefined) await db.exec(`CREATE SCHEMA IF NOT EXISTS ${options.schema}; SET search_path TO ${options.schema}`);
  } catch (error) {
    await db?.close().catch(() => {});
    releaseLock(lockPath, dir);
    throw new ToolgraphError(
      'INTERNAL',
      `openPgliteStore: cannot open the database in ${dir}: it looks damaged or was written by an incompatible PGlite (${errorMessage(error)}); restore it from a backup or move it aside and start with an empty --data-dir`,
      { cause: errorMessage(error) },
    );
  }
  return new SqlStore(new PgliteDriver(db, dir, lockPath, blobs));
}
