/**
 * The store on a PostgreSQL server (`TOOLGRAPH_DATABASE_URL`), for several gateway instances
 * sharing one graph. A small `pg` pool; every write is one transaction committed before the
 * call resolves. Failures come back as ToolgraphError saying what to check, without the
 * password or the driver's stack.
 */
import pg from 'pg';
import { ToolgraphError } from '../schema/errors.js';
import type { Row, SqlDriver, SqlSession } from './sql-driver.js';
import { ListenConnection, type ListenOptions } from './listen-connection.js';
import { SqlStore } from './sql-store.js';
import type { Store, SubscriptionStatus } from './store.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  readonly databaseUrl: string;
  /**
   * Schema holding the tables (created if missing); the server's default search_path when
   * omitted. Lets tests and tenants share one database without colliding.
   */
  readonly schema?: string;
  /** Connections in the pool (default 4). */
  readonly maxConnections?: number;
  /** How long to wait for a connection, in ms (default 10,000). */
  readonly connectTimeoutMs?: number;
  /** How the LISTEN connection reconnects when lost (listen-connection.ts; default 100 ms doubling to 5 s). */
  readonly listen?: ListenOptions;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `host:port/database` of a URL, never its password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  } catch {
    return '(unparsable URL)';
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Socket failures: the server, or the way to it, is not there. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);

/**
 * Maps a `pg` failure to a ToolgraphError whose message says what to check. The server being
 * out of reach (refused, dropped or timed-out connections, a shutdown, no connection slot) is
 * STORE_UNAVAILABLE: nothing is wrong with the request, and the same call may succeed later.
 */
export function describePostgresError(error: unknown, action: string, where: string): ToolgraphError {
  const code = errorCode(error);
  const cause = errorMessage(error);
  const details = { driverCode: code, cause };
  const check = 'check that PostgreSQL is running and that TOOLGRAPH_DATABASE_URL names the right host, port, database and credentials';
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new ToolgraphError('STORE_UNAVAILABLE', `${action}: cannot reach PostgreSQL at ${where} (${code}); ${check}`, details);
  }
  if (/timeout/i.test(cause) && /connect/i.test(cause)) {
    return new ToolgraphError('STORE_UNAVAILABLE', `${action}: timed out connecting to PostgreSQL at ${where}; ${check}`, details);
  }
  // pg's own words for a socket that closed under it: no SQLSTATE, no errno.
  if (code === undefined && /connection terminated|not queryable/i.test(cause)) {
    return new ToolgraphError('STORE_UNAVAILABLE', `${action}: lost the connection to PostgreSQL at ${where} (${cause}); the operation may not have been committed, retry it`, details);
  }
  if (code === '53300') {
    return new ToolgraphError('STORE_UNAVAILABLE', `${action}: PostgreSQL at ${where} has no connection to spare (${code}: ${cause}); retry later, or raise its max_connections`, details);
  }
  if (code === '28P01' || code === '28000') {
    return new ToolgraphError('INTERNAL', `${action}: PostgreSQL at ${where} refused the credentials (${code}: ${cause}); check the user and password in TOOLGRAPH_DATABASE_URL`, details);
  }
  if (code === '3D000') {
    return new ToolgraphError('INTERNAL', `${action}: the database in ${where} does not exist; create it (createdb) or fix TOOLGRAPH_DATABASE_URL`, details);
  }
  if (code === '42P01') {
    return new ToolgraphError('INTERNAL', `${action}: toolgraph tables are missing in ${where}; run migrate() (openStore does) before use`, details);
  }
  if (code !== undefined && (code.startsWith('08') || code.startsWith('57P'))) {
    return new ToolgraphError('STORE_UNAVAILABLE', `${action}: lost the connection to PostgreSQL at ${where} (${code}: ${cause}); the operation was not committed, retry it`, details);
  }
  if (code !== undefined && (code.startsWith('22') || code === '23514')) {
    return new ToolgraphError('INVALID_INPUT', `${action}: the database rejected a value (${code}: ${cause}); nothing was written`, details);
  }
  if (code === '23505') {
    return new ToolgraphError('CONFLICT', `${action}: ${cause}`, details);
  }
  return new ToolgraphError('INTERNAL', `${action}: PostgreSQL at ${where} failed${code ? ` (${code})` : ''}: ${cause}`, details);
}

function session(client: pg.PoolClient | pg.Pool): SqlSession {
  return {
    async query(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
      const result = await client.query(sql, params as unknown[]);
      return result.rows as Row[];
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

class PostgresDriver implements SqlDriver {
  readonly kind = 'postgres' as const;
  private readonly direct: SqlSession;
  private readonly listeners = new Set<ListenConnection>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly where: string,
    private readonly config: pg.ClientConfig,
    private readonly listenOptions: ListenOptions,
  ) {
    this.direct = session(pool);
  }

  async listen(onNotify: (payload: string) => void, onStatus: (status: SubscriptionStatus) => void = () => {}): Promise<() => Promise<void>> {
    const connection = new ListenConnection(this.config, onNotify, onStatus, this.listenOptions);
    await connection.start();
    this.listeners.add(connection);
    return async () => {
      if (!this.listeners.delete(connection)) return;
      await connection.stop();
    };
  }

  query(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.direct.query(sql, params);
  }

  exec(sql: string): Promise<void> {
    return this.direct.exec(sql);
  }

  async transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(session(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable: destroy it rather than return it to the pool.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    for (const connection of this.listeners) await connection.stop();
    this.listeners.clear();
    await this.pool.end();
  }

  describeError(error: unknown, action: string): ToolgraphError {
    return describePostgresError(error, action, this.where);
  }
}

/** Opens (and checks) a connection pool; call `migrate()` before use (openStore does). */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const where = describeDatabaseUrl(options.databaseUrl);
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new ToolgraphError('INVALID_INPUT', `openPostgresStore: schema must match ${SCHEMA_NAME.source}, got ${JSON.stringify(options.schema)}`);
  }
  let pool: pg.Pool;
  const config: pg.ClientConfig = {
    connectionString: options.databaseUrl,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // Names our sessions in pg_stat_activity, for whoever operates the server.
    application_name: 'toolgraph',
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  };
  try {
    pool = new pg.Pool({ ...config, max: options.maxConnections ?? 4 });
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `openPostgresStore: TOOLGRAPH_DATABASE_URL is not a valid connection URL (${errorMessage(error)})`);
  }
  // An idle pooled connection can fail (server restart); without a listener Node would crash.
  // The next query checks out a fresh connection and reports any real failure.
  pool.on('error', () => {});
  try {
    if (options.schema !== undefined) {
      // IF NOT EXISTS still races when two instances start together; the lock serialises them.
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('toolgraph:schema:' || $1))`, [options.schema]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    } else {
      await pool.query('SELECT 1');
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw describePostgresError(error, 'openPostgresStore', where);
  }
  return new SqlStore(new PostgresDriver(pool, where, config, options.listen ?? {}));
}
