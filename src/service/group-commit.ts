/**
 * Group commit: callers submit small batches; the writer commits many of them in one
 * transaction, and each caller's promise settles only when the transaction holding its items
 * has committed (and whatever `commit` does after that has run).
 *
 * Policy: one commit at a time. The first submission into an empty queue opens a window of
 * `windowMs` (at most 100 ms); when it closes, or as soon as `maxItems` are queued, everything
 * queued is committed together. Submissions arriving during a commit queue up for the next
 * one, so under load batches grow by themselves and the window rarely matters.
 *
 * A failed group is retried submission by submission, so one caller's bad batch (a value the
 * database refuses) fails that caller only; each submission is still all or nothing.
 */
import { MAX_BATCH_WINDOW_MS } from '../schema/limits.js';

export interface GroupCommitOptions {
  /** How long the first submission waits for company, in ms (0 .. 100; default 2). */
  readonly windowMs?: number;
  /** Items that trigger a commit without waiting for the window (default 5,000). */
  readonly maxItems?: number;
}

/** Commits the submissions' items together, returning one result per submission. */
export type CommitFn<T, R> = (groups: readonly (readonly T[])[]) => Promise<R[]>;

interface Pending<T, R> {
  readonly items: readonly T[];
  resolve(result: R): void;
  reject(error: unknown): void;
}


export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private queuedItems = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private readonly windowMs: number;
  private readonly maxItems: number;
  /** Groups committed and items in them, for stats and tests. */
  commits = 0;
  committedItems = 0;

  constructor(
    private readonly commit: CommitFn<T, R>,
    options: GroupCommitOptions = {},
  ) {
    const windowMs = options.windowMs ?? 2;
    if (!(windowMs >= 0 && windowMs <= MAX_BATCH_WINDOW_MS)) {
      throw new RangeError(`GroupCommit: windowMs must be in [0, ${MAX_BATCH_WINDOW_MS}], got ${windowMs}`);
    }
    this.windowMs = windowMs;
    this.maxItems = Math.max(1, options.maxItems ?? 5_000);
  }

  /** Queues `items`; resolves with this submission's result once its group has committed. */
  submit(items: readonly T[]): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
      this.queuedItems += items.length;
      this.schedule();
    });
  }

  /** Commits everything queued now and waits until the queue is empty. */
  async flush(): Promise<void> {
    this.clearTimer();
    while (this.queue.length > 0 || this.running !== null) {
      if (this.running === null) this.start();
      await this.running;
    }
  }

  get pending(): number {
    return this.queuedItems;
  }

  private schedule(): void {
    if (this.running !== null) return; // the commit in flight starts the next one when it ends
    if (this.queuedItems >= this.maxItems || this.windowMs === 0) {
      this.clearTimer();
      this.start();
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.running === null) this.start();
      }, this.windowMs);
    }
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private start(): void {
    if (this.queue.length === 0) return;
    // Take up to maxItems (at least one submission, whatever its size).
    let take = 0;
    let items = 0;
    while (take < this.queue.length && (take === 0 || items + this.queue[take]!.items.length <= this.maxItems)) {
      items += this.queue[take]!.items.length;
      take++;
    }
    const group = this.queue.slice(0, take);
    this.queue = this.queue.slice(take);
    this.queuedItems -= items;
    this.running = this.run(group).finally(() => {
      this.running = null;
      if (this.queue.length > 0) {
        // What queued during the commit has waited at least as long as a window: go now.
        this.start();
      }
    });
  }

  private async run(group: readonly Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.commit(group.map((p) => p.items));
      this.commits++;
      for (const [i, p] of group.entries()) {
        this.committedItems += p.items.length;
        p.resolve(results[i]!);
      }
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // Isolate the failure: each submission alone, in order.
      for (const p of group) {
        try {
          const [result] = await this.commit([p.items]);
          this.commits++;
          this.committedItems += p.items.length;
          p.resolve(result!);
        } catch (single) {
          p.reject(single);
        }
      }
    }
  }
}
