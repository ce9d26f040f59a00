// @ts-check
/**
 * The PGlite database of a store, on a worker thread of its own (pglite-thread.ts starts it).
 *
 * Why a thread: PGlite runs PostgreSQL compiled to WebAssembly, synchronously, on the thread that
 * calls it. On the service's thread, opening a database (0.6-0.9 s) and every commit of ingested
 * traces would hold the event loop, while the cold start has a graph snapshot to restore and the
 * running service has models to rebuild. Here the two run side by side.
 *
 * Why JavaScript: a worker starts from a file, which Node must be able to run as it is, both
 * from the sources (the tests) and from the build. It only relays messages.
 *
 * Protocol (one request at a time or several; they run one after another in the order received,
 * which the store relies on when it sends a transaction's statements together; answers carry
 * the request's id):
 *   in:  {dataDir, wasmModule?, fsBundle?}
 *   out: {type: 'ready', assets?: {wasmModule, fsBundle}} | {type: 'failed', error}
 *   in:  {id, op: 'query', sql, params, within?} | {id, op: 'exec', sql, within?}
 *        | {id, op: 'begin' | 'commit' | 'rollback'} | {id, op: 'close'}
 *   out: {id, rows} | {id, error}    error = {name, message, code?}
 * A statement sent `within: true` belongs to the transaction the last 'begin' opened: if that
 * BEGIN failed (or none is open), it is refused (code 25P01) instead of run on its own, and if
 * one of them failed, 'commit' rolls back and fails (code 25P02). So a store may send a whole
 * transaction, BEGIN to COMMIT, without waiting for any answer in between.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** PostgreSQL's type oid of json. */
const JSON_OID = 114;

/**
 * PGlite serialises a json parameter with JSON.stringify unless it is a string; bytes (the
 * store's large json parameters, sql-store.ts jsonParam) must pass through untouched so that
 * they go in the binary format, as `pg` sends them. (PGlite binds any bytes a serializer returns
 * in the binary format; its type says string, hence the cast.)
 * @type {import('@electric-sql/pglite').QueryOptions}
 */
const QUERY_OPTIONS = {
  serializers: {
    [JSON_OID]: (/** @type {unknown} */ value) =>
      /** @type {string} */ (/** @type {unknown} */ (value instanceof Uint8Array || typeof value === 'string' ? value : JSON.stringify(value))),
  },
};

/** @param {unknown} error */
function describe(error) {
  const e = /** @type {{name?: unknown, message?: unknown, code?: unknown}} */ (error ?? {});
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
  };
}

if (parentPort === null) throw new Error('pglite-worker.js runs as a worker thread (pglite-thread.ts starts it)');
const port = parentPort;

/**
 * PGlite's WebAssembly compiled and its file bundle read, for this database and to hand back to
 * the opener for the next (pglite-thread.ts); undefined on any failure, and PGlite loads them.
 * @returns {Promise<{wasmModule: unknown, fsBundle: Uint8Array} | undefined>}
 */
async function loadAssets() {
  try {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [wasm, data] = await Promise.all([readFile(join(dist, 'pglite.wasm')), readFile(join(dist, 'pglite.data'))]);
    // Node has WebAssembly, but the lib setting (ES2022, no DOM) does not declare it.
    const wasmRuntime = /** @type {{WebAssembly: {compile(bytes: Uint8Array): Promise<unknown>}}} */ (/** @type {unknown} */ (globalThis)).WebAssembly;
    return { wasmModule: await wasmRuntime.compile(wasm), fsBundle: data };
  } catch {
    return undefined;
  }
}

/**
 * Opens the database the first message names, with PGlite's compiled WebAssembly and file
 * bundle when the opener has them from an earlier thread, else loading them here and handing
 * them back with `ready`.
 * @param {{dataDir: string, wasmModule?: unknown, fsBundle?: Uint8Array}} message
 */
async function open({ dataDir, wasmModule, fsBundle }) {
  try {
    const loaded = wasmModule === undefined ? await loadAssets() : undefined;
    const use = loaded ?? (wasmModule === undefined || fsBundle === undefined ? undefined : { wasmModule, fsBundle });
    const opened = await PGlite.create(dataDir, {
      ...(use === undefined ? {} : { pgliteWasmModule: /** @type {any} */ (use.wasmModule), fsBundle: new Blob([use.fsBundle]) }),
      relaxedDurability: false,
    });
    port.postMessage({ type: 'ready', ...(loaded === undefined ? {} : { assets: loaded }) });
    return opened;
  } catch (error) {
    port.postMessage({ type: 'failed', error: describe(error) });
    port.close();
    return undefined;
  }
}

const db = await open(await new Promise((resolve) => port.once('message', resolve)));

/** Whether the last 'begin' opened a transaction that no 'commit' or 'rollback' has closed yet. */
let inTransaction = false;
/**
 * Whether a statement of the open transaction failed. PostgreSQL then answers COMMIT by rolling
 * back, without an error: a COMMIT sent right behind the statements, before their answers, is
 * refused instead (code 25P02), so the store never takes a rolled-back transaction for committed.
 */
let transactionFailed = false;

/**
 * Runs one request and posts its answer; never rejects.
 * @param {import('@electric-sql/pglite').PGlite} db
 * @param {{id: number, op: string, sql?: string, params?: unknown[], within?: boolean}} request
 */
async function handle(db, request) {
  const { id, op } = request;
  try {
    if (request.within === true && !inTransaction) {
      port.postMessage({ id, error: { name: 'Error', message: 'pglite-worker: a statement of a transaction that is not open (its BEGIN failed) was not run', code: '25P01' } });
    } else if (op === 'begin') {
      await db.exec('BEGIN');
      inTransaction = true;
      transactionFailed = false;
      port.postMessage({ id, rows: [] });
    } else if (op === 'commit' && inTransaction && transactionFailed) {
      inTransaction = false;
      await db.exec('ROLLBACK');
      port.postMessage({ id, error: { name: 'Error', message: 'pglite-worker: a statement of the transaction failed, so it was rolled back, not committed', code: '25P02' } });
    } else if (op === 'commit' || op === 'rollback') {
      // Closed whatever the answer: a failed COMMIT rolls back.
      inTransaction = false;
      await db.exec(op === 'commit' ? 'COMMIT' : 'ROLLBACK');
      port.postMessage({ id, rows: [] });
    } else if (op === 'query') {
      const result = await db.query(/** @type {string} */ (request.sql), request.params ?? [], QUERY_OPTIONS);
      port.postMessage({ id, rows: result.rows });
    } else if (op === 'exec') {
      await db.exec(/** @type {string} */ (request.sql));
      port.postMessage({ id, rows: [] });
    } else if (op === 'close') {
      await db.close();
      port.postMessage({ id, rows: [] });
      port.close();
    } else {
      port.postMessage({ id, error: { name: 'Error', message: `pglite-worker: unknown operation ${JSON.stringify(op)}` } });
    }
  } catch (error) {
    if (request.within === true) transactionFailed = true;
    port.postMessage({ id, error: describe(error) });
  }
}

// Chained rather than started as they arrive: PGlite queues concurrent calls in call order too,
// but that is its implementation; the order of a transaction's statements is ours to keep.
let previous = Promise.resolve();
if (db !== undefined) port.on('message', (/** @type {{id: number, op: string, sql?: string, params?: unknown[]}} */ request) => {
  previous = previous.then(() => handle(db, request));
});
