/**
 * A PostgreSQL connection that LISTENs on one schema's channel and stays listening: when the
 * connection is lost (a server restart, a dropped socket) it says so, reconnects with backoff
 * (backoff.ts: 100 ms doubling to 5 s, seeded jitter) for as long as it takes, LISTENs again,
 * and says so too. Notifications sent while it was away are lost: whoever is told it is back
 * must catch up by reading (the durable service does).
 *
 * A dedicated connection outside the pool: LISTEN belongs to a session, and a pooled connection
 * would be handed to other queries.
 */
import pg from 'pg';
import { createRng } from '../graph/rng.js';
import { backoffDelay, RECONNECT_BACKOFF, type BackoffOptions } from './backoff.js';
import type { SubscriptionStatus } from './store.js';

export interface ListenOptions {
  readonly backoff?: BackoffOptions;
  /** Seed of the jitter; default: this process's id, so that instances spread their retries. */
  readonly seed?: number;
}

export class ListenConnection {
  private client: pg.Client | null = null;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private opening: Promise<void> | null = null;
  /** Failed attempts since the connection was lost, and when that was. */
  private attempts = 0;
  private lostAt = 0;
  private readonly jitter: () => number;
  private readonly backoff: BackoffOptions;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onNotify: (payload: string) => void,
    private readonly onStatus: (status: SubscriptionStatus) => void,
    options: ListenOptions = {},
  ) {
    this.jitter = createRng(options.seed ?? process.pid);
    this.backoff = options.backoff ?? RECONNECT_BACKOFF;
  }

  /** Connects and LISTENs; rejects with the driver's error if the first attempt fails. */
  async start(): Promise<void> {
    await this.open();
  }

  /** Stops listening and reconnecting; resolves once the connection is closed. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.opening?.catch(() => {});
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private open(): Promise<void> {
    const opening = this.connect().finally(() => {
      if (this.opening === opening) this.opening = null;
    });
    this.opening = opening;
    return opening;
  }

  private async connect(): Promise<void> {
    // TCP keep-alive, so that a peer gone without a word (a host that vanished) is noticed too.
    const client = new pg.Client({ ...this.config, keepAlive: true });
    let reason = 'the server closed it';
    let listening = false;
    // A lost connection emits 'error' (why) and then 'end'; without an 'error' listener a
    // dropped connection would crash the process.
    client.on('error', (error: Error) => {
      reason = error.message;
    });
    client.on('end', () => {
      if (listening) this.lost(client, reason);
    });
    try {
      await client.connect();
      const rows = await client.query<{ s: string }>('SELECT current_schema() AS s');
      const channel = `toolgraph:${rows.rows[0]?.s ?? 'public'}`;
      client.on('notification', (message) => {
        if (message.channel === channel) this.onNotify(message.payload ?? '');
      });
      await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    listening = true;
    this.client = client;
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    this.attempts = 0;
    this.lostAt = Date.now();
    const retryInMs = this.nextDelay();
    this.onStatus({ state: 'lost', reason, retryInMs });
    this.retryIn(retryInMs);
  }

  private nextDelay(): number {
    return backoffDelay(this.attempts, this.backoff, this.jitter());
  }

  private retryIn(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.retry();
    }, ms);
    // A service that is otherwise done does not wait for a server that may never come back.
    this.timer.unref?.();
  }

  private async retry(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.open();
    } catch {
      if (this.stopped) return;
      this.attempts++;
      this.retryIn(this.nextDelay());
      return;
    }
    if (this.client !== null) this.onStatus({ state: 'listening', attempts: this.attempts + 1, downMs: Date.now() - this.lostAt });
  }
}
