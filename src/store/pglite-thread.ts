/**
 * This thread's end of a PGlite database running on a worker thread (pglite-worker.js says why):
 * requests go out as messages with an id, answers come back matched by it. Rows and parameters
 * cross by structured clone, which keeps what PGlite returns (objects for json, Uint8Array for
 * bytea, bigint, Date).
 *
 * The worker keeps the process alive only while a request is waiting for its answer, as a
 * database on this thread would: an idle store left open does not hold the process at exit.
 * If the worker dies (a WebAssembly abort), every waiting request and every later one fails
 * with the reason.
 */
import { Worker } from 'node:worker_threads';
import type { Row } from './sql-driver.js';

/** An error as the worker reports it (pglite-worker.js, describe). */
interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/** The worker's first message: opened (with the assets it loaded itself, if any), or why not. */
type Opened = { readonly type: 'ready'; readonly assets?: Assets } | { readonly type: 'failed'; readonly error: WorkerError };

type Answer = { readonly id: number; readonly rows: Row[] } | { readonly id: number; readonly error: WorkerError };

/** The worker's error as an Error with PGlite's `code` (the driver's describeError reads it). */
function revive(error: WorkerError): Error {
  return Object.assign(new Error(error.message), { name: error.name }, error.code === undefined ? {} : { code: error.code });
}

/**
 * The `code` of the error every request fails with once the database thread died (not closed
 * by us): the driver reports it as STORE_UNAVAILABLE.
 */
export const THREAD_STOPPED = 'TOOLGRAPH_DB_THREAD_STOPPED';

/** PGlite's compiled WebAssembly and its file bundle (pglite-worker.js). */
interface Assets {
  readonly wasmModule: unknown;
  readonly fsBundle: Uint8Array;
}

// Compiled once per process: the first database thread reads and compiles them itself (nothing
// waits for this thread) and hands them back; later ones receive them (a compiled module crosses
// threads without compiling again), so a process that opens stores repeatedly (a service
// reopening, tests) pays for them once.
let assets: Assets | undefined;

export class PgliteThread {
  private readonly pending = new Map<number, { resolve(rows: Row[]): void; reject(error: Error): void }>();
  private nextId = 1;
  private dead: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.settled(answer.id);
      if ('error' in answer) waiting.reject(revive(answer.error));
      else waiting.resolve(answer.rows);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`exit code ${code}`)));
  }

  /** Starts the worker and opens the database in `dataDir`; rejects with PGlite's error. */
  static async open(dataDir: string): Promise<PgliteThread> {
    // No flags of this process: the worker is plain JavaScript that needs none, and some break
    // it (a worker refuses `--input-type`, which `node -e` scripts pass).
    const worker = new Worker(new URL('./pglite-worker.js', import.meta.url), { execArgv: [] });
    worker.postMessage({ dataDir, ...assets });
    // Listeners removed one by one afterwards: removeAllListeners would also drop the ones Node
    // keeps on a worker to deliver its messages.
    let onMessage!: (first: Opened) => void;
    let onError!: (error: Error) => void;
    let onExit!: (code: number) => void;
    const first = await new Promise<Opened>((resolve, reject) => {
      onMessage = resolve;
      onError = reject;
      onExit = (code) => reject(new Error(`the database thread stopped while opening (exit code ${code})`));
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
    }).finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
    if (first.type === 'failed') {
      await worker.terminate();
      throw revive(first.error);
    }
    assets ??= first.assets;
    return new PgliteThread(worker);
  }

  /** `within`: a statement of the open transaction, which the thread refuses to run without one. */
  query(sql: string, params: readonly unknown[] = [], within = false): Promise<Row[]> {
    return this.request({ op: 'query', sql, params, ...(within ? { within } : {}) });
  }

  async exec(sql: string, within = false): Promise<void> {
    await this.request({ op: 'exec', sql, ...(within ? { within } : {}) });
  }

  /**
   * BEGIN, COMMIT and ROLLBACK: the thread knows whether a transaction is open, so statements
   * sent `within` it right behind a BEGIN, before its answer, never run if that BEGIN failed.
   */
  async begin(): Promise<void> {
    await this.request({ op: 'begin' });
  }

  async commit(): Promise<void> {
    await this.request({ op: 'commit' });
  }

  async rollback(): Promise<void> {
    await this.request({ op: 'rollback' });
  }

  /** Closes the database (it writes what it holds to the folder), then stops the thread. */
  async close(): Promise<void> {
    if (this.dead !== null) return;
    try {
      await this.request({ op: 'close' });
    } finally {
      this.dead ??= new Error('the database is closed');
      await this.worker.terminate();
    }
  }

  private request(message: { op: string; sql?: string; params?: readonly unknown[]; within?: boolean }): Promise<Row[]> {
    if (this.dead !== null) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<Row[]>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  private fail(error: Error): void {
    // After close() `dead` is already set, and stays "closed".
    this.dead ??= Object.assign(new Error(`the database thread stopped: ${error.message}`), { code: THREAD_STOPPED });
    for (const [id, waiting] of this.pending) {
      this.settled(id);
      waiting.reject(this.dead);
    }
  }
}
