/**
 * SessionRows (store/session-rows.ts) in memory, for the in-memory service and the library's
 * sessions without a store: the same versions, conflicts and expiry, nothing kept past the
 * process. States and events are copied through JSON, as a store would keep them.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { SessionRows, StoredSession } from '../store/session-rows.js';

interface Row {
  version: number;
  state: string;
  expiresAt: number;
  events: string[];
}

export class MemorySessionRows implements SessionRows {
  private readonly rows = new Map<string, Row>();

  async create(id: string, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<void> {
    if (this.rows.has(id)) throw new ToolgraphError('CONFLICT', `createSession: a session with id ${JSON.stringify(id.slice(0, 100))} exists`);
    this.rows.set(id, { version: 1, state: JSON.stringify(state), expiresAt, events: events.map((e) => JSON.stringify(e)) });
  }

  async get(id: string, now: number): Promise<StoredSession | null> {
    const row = this.rows.get(id);
    if (row === undefined || row.expiresAt < now) return null;
    return { id, version: row.version, state: JSON.parse(row.state) as unknown, expiresAt: row.expiresAt };
  }

  async update(id: string, version: number, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<number> {
    const row = this.rows.get(id);
    if (row === undefined) throw new ToolgraphError('NOT_FOUND', `no session ${JSON.stringify(id.slice(0, 100))} (it may have expired)`);
    if (row.version !== version) {
      throw new ToolgraphError('CONFLICT', `session ${JSON.stringify(id.slice(0, 100))} changed meanwhile (another step was recorded first); report its steps one at a time`);
    }
    row.version++;
    row.state = JSON.stringify(state);
    row.expiresAt = expiresAt;
    for (const e of events) row.events.push(JSON.stringify(e));
    return row.version;
  }

  async events(id: string): Promise<unknown[]> {
    return (this.rows.get(id)?.events ?? []).map((e) => JSON.parse(e) as unknown);
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async expire(now: number): Promise<number> {
    let n = 0;
    for (const [id, row] of this.rows) {
      if (row.expiresAt < now) {
        this.rows.delete(id);
        n++;
      }
    }
    return n;
  }
}
