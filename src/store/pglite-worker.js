// @ts-check
/**
 * The PGlite database of a store, on a worker thread of its own (pglite-store.ts starts it).
 *
 * Why a thread: PGlite runs PostgreSQL compiled to WebAssembly, synchronously, on the thread that
 * calls it. On the service's thread, opening a database (0.6-0.9 s) and every commit of ingested
 * traces would hold the event loop, while the cold start has a graph snapshot to restore and the
 * running service has models to rebuild. Here the two run side by side.
 *
 * Why JavaScript: a worker starts from a file, which Node must be able to run as it is, both
 * from the sources (the tests) and from the build. It only relays messages.
 *
 * Protocol (one request at a time or several; answered in order by id):
 *   in:  {dataDir, wasmModule?, fsBundle?}
 *   out: {type: 'ready'} | {type: 'failed', error}
 *   in:  {id, op: 'query', sql, params} | {id, op: 'exec', sql} | {id, op: 'close'}
 *   out: {id, rows} | {id, error}    error = {name, message, code?}
 */
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
 * Opens the database, once the first message brings the folder and, where the opener has them
 * ready, PGlite's compiled WebAssembly and file bundle (the thread boots and loads PGlite's code
 * meanwhile).
 * @param {{dataDir: string, wasmModule?: unknown, fsBundle?: Uint8Array}} message
 */
async function open({ dataDir, wasmModule, fsBundle }) {
  try {
    const opened = await PGlite.create(dataDir, {
      ...(wasmModule === undefined ? {} : { pgliteWasmModule: /** @type {any} */ (wasmModule) }),
      ...(fsBundle === undefined ? {} : { fsBundle: new Blob([fsBundle]) }),
      relaxedDurability: false,
    });
    port.postMessage({ type: 'ready' });
    return opened;
  } catch (error) {
    port.postMessage({ type: 'failed', error: describe(error) });
    port.close();
    return undefined;
  }
}

const db = await open(await new Promise((resolve) => port.once('message', resolve)));

if (db !== undefined) port.on('message', async (/** @type {{id: number, op: string, sql?: string, params?: unknown[]}} */ request) => {
  const { id, op } = request;
  try {
    if (op === 'query') {
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
    port.postMessage({ id, error: describe(error) });
  }
});
