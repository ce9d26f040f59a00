/**
 * Workflow sessions (engine/session.ts) as rows: one per session, its whole state as json with
 * a version that every write moves forward, and its telemetry events in order beside it. A
 * write names the version it read: a step another instance wrote meanwhile is CONFLICT, never
 * lost. A session is gone once it has been idle past its expiry (`expires_ms`): reads skip it,
 * and `expire` deletes it with its events. The store keeps the state as given; the service
 * checks it when it reads it back (another version may have written it).
 */
import { ToolgraphError } from '../schema/errors.js';
import type { SqlDriver, SqlSession } from './sql-driver.js';
import { encodeText } from './text-codec.js';

export interface StoredSession {
  readonly id: string;
  /** 1 when created, one more at every update. */
  readonly version: number;
  readonly state: unknown;
  /** Epoch ms after which the session is expired. */
  readonly expiresAt: number;
}

export interface SessionRows {
  /** Stores a new session at version 1 with its first events; CONFLICT when the id is taken. */
  create(id: string, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<void>;
  /** The session, or null when there is none or it expired before `now`. */
  get(id: string, now: number): Promise<StoredSession | null>;
  /**
   * Replaces version `version` with the next and appends `events`, in one transaction; resolves
   * with the new version. CONFLICT when the stored version is another (a concurrent write),
   * NOT_FOUND when the session is gone.
   */
  update(id: string, version: number, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<number>;
  /** The session's events, oldest first ([] for an unknown id). */
  events(id: string): Promise<unknown[]>;
  /** Deletes the session and its events; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Deletes every session expired before `now`, with its events; how many. */
  expire(now: number): Promise<number>;
}

type Run = <T>(action: string, fn: () => Promise<T>) => Promise<T>;

/** Events per INSERT statement. */
const EVENTS_PER_STATEMENT = 500;

async function appendEvents(tx: SqlSession, id: string, firstSeq: number, events: readonly unknown[]): Promise<void> {
  for (let at = 0; at < events.length; at += EVENTS_PER_STATEMENT) {
    const part = events.slice(at, at + EVENTS_PER_STATEMENT);
    const rows = part.map((body, i) => ({ seq: firstSeq + at + i, body: JSON.stringify(body) }));
    await tx.query(
      `INSERT INTO session_events (session_id, seq, body)
       SELECT $1, seq, body::json FROM json_to_recordset($2::json) AS r(seq int, body text)`,
      [id, JSON.stringify(rows)],
    );
  }
}

function finite(value: number, what: string, action: string): void {
  if (!Number.isFinite(value)) throw new ToolgraphError('INVALID_INPUT', `${action}: ${what} must be a finite number`);
}

export class SqlSessionRows implements SessionRows {
  constructor(
    private readonly driver: SqlDriver,
    private readonly run: Run,
  ) {}

  create(id: string, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<void> {
    return this.run('createSession', async () => {
      finite(expiresAt, 'expiresAt', 'createSession');
      const key = encodeText(id);
      await this.driver.transaction(async (tx) => {
        const rows = await tx.query(
          `INSERT INTO sessions (id, version, body, updated_ms, expires_ms, event_count)
           VALUES ($1, 1, $2::json, $3::float8, $4::float8, $5::int) ON CONFLICT (id) DO NOTHING RETURNING id`,
          [key, JSON.stringify(state), Date.now(), expiresAt, events.length],
        );
        if (rows.length === 0) throw new ToolgraphError('CONFLICT', `createSession: a session with id ${JSON.stringify(id.slice(0, 100))} exists`);
        await appendEvents(tx, key, 1, events);
      });
    });
  }

  get(id: string, now: number): Promise<StoredSession | null> {
    return this.run('getSession', async () => {
      const rows = await this.driver.query('SELECT version, body::text AS body, expires_ms FROM sessions WHERE id = $1 AND expires_ms >= $2::float8', [encodeText(id), now]);
      const row = rows[0];
      if (row === undefined) return null;
      return { id, version: Number(row['version']), state: JSON.parse(String(row['body'])) as unknown, expiresAt: Number(row['expires_ms']) };
    });
  }

  update(id: string, version: number, state: unknown, expiresAt: number, events: readonly unknown[]): Promise<number> {
    return this.run('updateSession', async () => {
      finite(expiresAt, 'expiresAt', 'updateSession');
      const key = encodeText(id);
      return this.driver.transaction(async (tx) => {
        const rows = await tx.query(
          `UPDATE sessions SET version = version + 1, body = $3::json, updated_ms = $4::float8, expires_ms = $5::float8, event_count = event_count + $6::int
           WHERE id = $1 AND version = $2::int RETURNING version, event_count`,
          [key, version, JSON.stringify(state), Date.now(), expiresAt, events.length],
        );
        const row = rows[0];
        if (row === undefined) {
          const exists = await tx.query('SELECT version FROM sessions WHERE id = $1', [key]);
          if (exists.length === 0) throw new ToolgraphError('NOT_FOUND', `no session ${JSON.stringify(id.slice(0, 100))} (it may have expired)`);
          throw new ToolgraphError('CONFLICT', `session ${JSON.stringify(id.slice(0, 100))} changed meanwhile (another step was recorded first); report its steps one at a time`);
        }
        const count = Number(row['event_count']);
        await appendEvents(tx, key, count - events.length + 1, events);
        return Number(row['version']);
      });
    });
  }

  events(id: string): Promise<unknown[]> {
    return this.run('sessionEvents', async () => {
      const rows = await this.driver.query('SELECT body::text AS body FROM session_events WHERE session_id = $1 ORDER BY seq', [encodeText(id)]);
      return rows.map((row) => JSON.parse(String(row['body'])) as unknown);
    });
  }

  delete(id: string): Promise<boolean> {
    return this.run('deleteSession', async () => {
      const rows = await this.driver.query('DELETE FROM sessions WHERE id = $1 RETURNING id', [encodeText(id)]);
      return rows.length > 0;
    });
  }

  expire(now: number): Promise<number> {
    return this.run('expireSessions', async () => {
      const rows = await this.driver.query('DELETE FROM sessions WHERE expires_ms < $1::float8 RETURNING id', [now]);
      return rows.length;
    });
  }
}
