/**
 * Runs asynchronous steps one at a time, in the order they were queued. A failed step fails its
 * own caller only; the steps after it still run.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const next = this.tail.then(step);
    this.tail = next.catch(() => {});
    return next;
  }

  /** Resolves once every step queued so far has settled. */
  idle(): Promise<unknown> {
    return this.tail;
  }
}
