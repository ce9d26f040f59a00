/**
 * Graph snapshots built on a worker thread (snapshot-worker.js), so that this thread can build
 * the rest of a model meanwhile: at a million transitions the graph snapshot takes 0.4-0.6 s and
 * the text model (the catalogue's BM25 index, the intent association) 0.3-0.4 s, one after the
 * other on one thread. A cold start is the case that waits for both (durable-toolgraph.ts), on
 * a machine whose other core has just finished opening the database.
 *
 * `build` runs the snapshot's first stage here, ordering the transitions into new arrays (the
 * live graph goes on learning), and hands those and a copy of the rest to the worker by
 * transfer; the snapshot comes back by transfer too (snapshot-transfer.ts). If the worker cannot
 * start or dies, every waiting build and every later one fails with the reason, and the caller
 * builds on its own thread. The worker keeps the process alive only while a build is waiting.
 */
import { Worker } from 'node:worker_threads';
import type { GraphSnapshot, SnapshotInput, SnapshotOptions } from './snapshot.js';
import { packRequest, unpackSnapshot, type PackedSnapshot } from './snapshot-transfer.js';

/**
 * Transitions from which a cold start's first model finishes its graph snapshot on the worker
 * (durable-toolgraph.ts, firstModelOffThreadFrom): the worker starts cold and builds once, and
 * was slower with it at 100,000 transitions, faster at 250,000 (docs/decisions/store-performance/
 * 11-the-graph-side-of-the-cold-start.md). The running service's rebuilds take it only when asked (Toolgraph's
 * offThreadFrom): on two cores shared with the load they showed no measurable gain.
 */
export const FIRST_MODEL_OFF_THREAD_FROM = 200_000;

type Answer = { readonly id: number; readonly snapshot: PackedSnapshot } | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };

export class SnapshotThread {
  private readonly pending = new Map<number, { resolve(snapshot: GraphSnapshot): void; reject(error: Error): void }>();
  private nextId = 1;
  private dead: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.settled(answer.id);
      if ('error' in answer) waiting.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name }));
      else {
        try {
          waiting.resolve(unpackSnapshot(answer.snapshot));
        } catch (error) {
          waiting.reject(error as Error);
        }
      }
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the snapshot thread stopped (exit code ${code})`)));
  }

  /** Starts the worker; it loads its modules while the caller does other work. */
  static start(): SnapshotThread {
    return new SnapshotThread(new Worker(new URL('./snapshot-worker.js', import.meta.url)));
  }

  /** The snapshot buildSnapshotFrom(input, options) gives, its second stage built on the worker. */
  build(input: SnapshotInput, options: SnapshotOptions = {}): Promise<GraphSnapshot> {
    if (this.dead !== null) return Promise.reject(this.dead);
    const { value, transfer } = packRequest(input, options);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, request: value }, transfer);
    });
  }

  /** Stops the worker; builds still waiting fail. */
  async close(): Promise<void> {
    if (this.dead === null) {
      this.fail(new Error('the snapshot thread was closed'));
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
