/**
 * Weights fitted on a worker thread (fit-worker.js), so that a service keeps answering while it
 * fits: a fit builds a dozen fold models and runs Newton's method over thousands of held-out
 * queries, seconds of work on a few thousand traces, minutes on a large catalogue.
 *
 * The job goes over in parts (fit-job.ts): catalogue entries and traces in pages, each page one
 * message, the event loop turning between them, so no single copy holds this thread long. The
 * report comes back as plain data. One job at a time; a job that fails rejects with the worker's
 * reason, and if the worker cannot start or dies, every job waiting and every later one fails:
 * the caller keeps the weights it has. The worker keeps the process alive only while a job waits.
 */
import { Worker } from 'node:worker_threads';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { EmbeddingSpec, FitJobOptions } from './fit-job.js';
import type { FitReport } from './fit-weights.js';

/** Catalogue entries or traces per message: each is copied on this thread as it is posted. */
export const FIT_PAGE = 1_000;

export interface FitParts {
  readonly catalog: readonly ToolInfo[];
  /** The traces, in pages (a store's read) or as one array, which is paged here. */
  readonly traces: AsyncIterable<readonly Trace[]> | readonly Trace[];
  readonly options: FitJobOptions;
  readonly embedding: EmbeddingSpec;
  /** For a `table` embedding: the query vectors, in pages, sent once the traces are. */
  readonly queries?: () => AsyncIterable<readonly (readonly [string, Float32Array])[]>;
}

type Answer = { readonly id: number; readonly report: FitReport } | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };

export class FitThread {
  private readonly pending = new Map<number, { resolve(report: FitReport): void; reject(error: Error): void }>();
  private nextId = 1;
  private dead: Error | null = null;
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.settled(answer.id);
      if ('error' in answer) waiting.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name }));
      else waiting.resolve(answer.report);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the fit thread stopped (exit code ${code})`)));
  }

  static start(): FitThread {
    return new FitThread(new Worker(new URL('./fit-worker.js', import.meta.url)));
  }

  /** fitWeights on these parts, on the worker; jobs run one after another in call order. */
  fit(parts: FitParts): Promise<FitReport> {
    const job = this.tail.then(() => this.send(parts));
    this.tail = job.catch(() => {});
    return job;
  }

  private async send(parts: FitParts): Promise<FitReport> {
    if (this.dead !== null) throw this.dead;
    const id = this.nextId++;
    const answer = new Promise<FitReport>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
    });
    // Settles with the job, whatever happens to the sending below.
    answer.catch(() => {});
    try {
      const post = async (message: object): Promise<void> => {
        if (this.dead !== null) throw this.dead;
        this.worker.postMessage(message);
        await turn();
      };
      const { embedding } = parts;
      await post({ kind: 'begin', id, options: parts.options, embedding });
      for (let i = 0; i < parts.catalog.length; i += FIT_PAGE) await post({ kind: 'tools', id, tools: parts.catalog.slice(i, i + FIT_PAGE) });
      for await (const page of pages(parts.traces)) {
        for (let i = 0; i < page.length; i += FIT_PAGE) await post({ kind: 'traces', id, traces: page.slice(i, i + FIT_PAGE) });
      }
      if (parts.queries !== undefined) for await (const page of parts.queries()) await post({ kind: 'queries', id, queries: page });
      await post({ kind: 'run', id });
    } catch (error) {
      const waiting = this.pending.get(id);
      if (waiting !== undefined) {
        this.settled(id);
        waiting.reject(error as Error);
      }
    }
    return answer;
  }

  /** Stops the worker; jobs still waiting fail. */
  async close(): Promise<void> {
    if (this.dead === null) {
      this.fail(new Error('the fit thread was closed'));
      await this.worker.terminate();
    }
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  private fail(error: Error): void {
    if (this.dead === null) this.dead = error;
    for (const [id, waiting] of this.pending) {
      this.settled(id);
      waiting.reject(this.dead);
    }
  }
}

async function* pages(traces: AsyncIterable<readonly Trace[]> | readonly Trace[]): AsyncIterable<readonly Trace[]> {
  if (Symbol.asyncIterator in traces) yield* traces;
  else yield traces as readonly Trace[];
}

/** One turn of the event loop: what waits for this thread runs between two pages. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
