/**
 * The little the shared SQL store needs from a database driver. PGlite and `pg` differ in how
 * they open, pool, run transactions and fail; everything else is the same SQL.
 */
import type { ToolgraphError } from '../schema/errors.js';
import type { SubscriptionStatus } from './subscription.js';

export type Row = Record<string, unknown>;

/** One parameterised statement of a batch. */
export interface Statement {
  readonly sql: string;
  readonly params?: readonly unknown[];
}

export interface SqlSession {
  /** One parameterised statement ($1, $2, ...). */
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** Large values kept as files beside the database (PGlite), named by the database rows. */
export interface BlobFiles {
  /**
   * Writes deflated bytes durably (fsync, then rename into place); returns the name to store.
   * `rawLength` is their inflated length, kept in the name so a prefetch can inflate them in
   * one buffer before the database says which file is current.
   */
  write(data: Uint8Array, rawLength: number): Promise<string>;
  read(name: string): Promise<Uint8Array>;
  /**
   * The inflated bytes of `name` if a prefetch started at open read that file (null if it
   * failed: the caller reads the file itself); undefined otherwise. Takes the prefetch: it is
   * handed out once.
   */
  takePrefetched?(name: string): Promise<Uint8Array | null> | undefined;
  /** Deletes every blob not named in `keep` (after the rows naming others are gone). */
  retain(keep: readonly string[]): Promise<void>;
}

export interface SqlDriver extends SqlSession {
  /** Where large values go instead of bytea; undefined to keep them in the database. */
  readonly blobs?: BlobFiles;
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Runs the statements in one transaction, all or nothing, and returns each one's rows: the
   * first failure is thrown and nothing is committed. For a database on another thread
   * (PGlite's), BEGIN, the statements and COMMIT go together, one trip instead of a wait for
   * the caller's thread between them. Absent: use `transaction`.
   */
  batch?(statements: readonly Statement[]): Promise<Row[][]>;
  /**
   * Calls `onNotify(payload)` for each notification other connections send on this schema's
   * append channel (see NOTIFY_APPEND in sql-store.ts); resolves once listening, and rejects if
   * it cannot. A connection lost later is reopened, and `onStatus` told (Store.subscribe).
   * Returns the function that stops it.
   */
  listen(onNotify: (payload: string) => void, onStatus?: (status: SubscriptionStatus) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** A driver failure as a ToolgraphError saying what to check; `action` names the call. */
  describeError(error: unknown, action: string): ToolgraphError;
}
