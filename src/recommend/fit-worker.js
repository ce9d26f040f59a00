// @ts-check
/**
 * Fits weights on a thread of its own (fit-thread.ts starts it and says why).
 *
 * Why JavaScript: as snapshot-worker.js, a worker starts from a file Node runs as it is, from
 * the build and from the sources (the tests): from the build it loads the compiled fit beside
 * it; from the sources, the TypeScript through tsx, a development dependency only tests need.
 *
 * Protocol, one job at a time (fit-thread.ts sends the parts of a job in order):
 *   in:  {kind: 'begin', id, options, embedding}   a new job (fit-job.ts: FitJobOptions, EmbeddingSpec)
 *        {kind: 'tools', id, tools}                catalogue entries, in catalogue order
 *        {kind: 'traces', id, traces}              traces, in store order
 *        {kind: 'queries', id, queries}            [text, vector] pairs for a `table` embedding
 *        {kind: 'run', id}                         fit what was sent
 *   out: {id, report: FitReport} | {id, error: {name, message}}
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

if (parentPort === null) throw new Error('fit-worker.js runs as a worker thread (fit-thread.ts starts it)');
const port = parentPort;

/** @returns {Promise<typeof import('./fit-job.js')>} */
async function loadFit() {
  const built = new URL('./fit-job.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return import(built.href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport('./fit-job.ts', import.meta.url);
}

const { runFitJob } = await loadFit();

/** @type {{id: number, options: any, embedding: any, tools: any[], traces: any[], queries: any[]} | null} */
let job = null;

port.on('message', (/** @type {any} */ message) => {
  const { kind, id } = message;
  try {
    if (kind === 'begin') {
      job = { id, options: message.options, embedding: message.embedding, tools: [], traces: [], queries: [] };
      return;
    }
    if (job === null || job.id !== id) throw new Error(`fit-worker: '${kind}' for job ${id}, which was not begun`);
    if (kind === 'tools') for (const t of message.tools) job.tools.push(t);
    else if (kind === 'traces') for (const t of message.traces) job.traces.push(t);
    else if (kind === 'queries') for (const q of message.queries) job.queries.push(q);
    else if (kind === 'run') {
      const { options, tools, traces, queries } = job;
      const embedding = job.embedding.kind === 'table' ? { ...job.embedding, queries } : job.embedding;
      job = null;
      port.postMessage({ id, report: runFitJob({ catalog: tools, traces, options, embedding }) });
    } else throw new Error(`fit-worker: unknown message '${String(kind)}'`);
  } catch (error) {
    job = null;
    const e = /** @type {{name?: unknown, message?: unknown}} */ (error ?? {});
    port.postMessage({ id, error: { name: typeof e.name === 'string' ? e.name : 'Error', message: typeof e.message === 'string' ? e.message : String(error) } });
  }
});
