// @ts-check
/**
 * Builds graph snapshots on a thread of its own (snapshot-thread.ts starts it and says why).
 *
 * Why JavaScript: as pglite-worker.js, a worker starts from a file Node must run as it is, from
 * the build and from the sources (the tests). From the build it loads the compiled builder beside
 * it; from the sources, where there is only TypeScript, it loads that through tsx, a development
 * dependency that only the tests need.
 *
 * Protocol (requests answered in order; answers carry the request's id):
 *   in:  {id, request: BuildRequest}                 (snapshot-transfer.ts, packRequest)
 *   out: {id, snapshot: PackedSnapshot} | {id, error: {name, message}}
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

if (parentPort === null) throw new Error('snapshot-worker.js runs as a worker thread (snapshot-thread.ts starts it)');
const port = parentPort;

/** @returns {Promise<typeof import('./snapshot-transfer.js')>} */
async function loadBuilder() {
  const built = new URL('./snapshot-transfer.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return import(built.href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport('./snapshot-transfer.ts', import.meta.url);
}

const { buildPacked } = await loadBuilder();

port.on('message', (/** @type {{id: number, request: import('./snapshot-transfer.js').BuildRequest}} */ { id, request }) => {
  try {
    const { value, transfer } = buildPacked(request);
    port.postMessage({ id, snapshot: value }, transfer);
  } catch (error) {
    const e = /** @type {{name?: unknown, message?: unknown}} */ (error ?? {});
    port.postMessage({ id, error: { name: typeof e.name === 'string' ? e.name : 'Error', message: typeof e.message === 'string' ? e.message : String(error) } });
  }
});
