/**
 * Which store to use: PostgreSQL when a connection URL is given (TOOLGRAPH_DATABASE_URL), else
 * PGlite in a local folder (`--data-dir`, default `.toolgraph/` in the working directory). The
 * returned store is migrated and ready.
 */
import { join } from 'node:path';
import { openStoreOptionsSchema, type OpenStoreOptions } from '../schema/factory-options.js';
import { parseWith } from '../schema/issues.js';
import { openPgliteStore } from './pglite-store.js';
import type { Store } from './store.js';
import { DATABASE_URL_ENV, DEFAULT_DATA_DIR } from './store-location.js';

export { DATABASE_URL_ENV, DEFAULT_DATA_DIR } from './store-location.js';

export type { OpenStoreOptions } from '../schema/factory-options.js';

/** Rejects with INVALID_INPUT naming openStore for options it cannot use (factory-options.ts), before opening anything. */
export async function openStore(input: OpenStoreOptions = {}): Promise<Store> {
  const options = parseWith(openStoreOptionsSchema, input, 'openStore');
  const url = options.databaseUrl?.trim();
  const schema = options.schema === undefined ? {} : { schema: options.schema };
  const store =
    url !== undefined && url !== ''
      ? // Loaded only for PostgreSQL: `pg` takes about 85 ms to load, which a PGlite service's start need not pay.
        await (await import('./postgres-store.js')).openPostgresStore({ databaseUrl: url, ...schema })
      : await openPgliteStore({
          dataDir: options.dataDir ?? join(options.cwd ?? process.cwd(), DEFAULT_DATA_DIR),
          ...schema,
          ...(options.prefetchSnapshot === true ? { prefetchSnapshot: true } : {}),
          ...(options.onSnapshotPrefetch === undefined ? {} : { onSnapshotPrefetch: options.onSnapshotPrefetch }),
        });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

/** openStore's options from the environment: the URL variable, else the given data dir. */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv, dataDir?: string): OpenStoreOptions {
  const url = env[DATABASE_URL_ENV];
  return url !== undefined && url.trim() !== '' ? { databaseUrl: url } : dataDir === undefined ? {} : { dataDir };
}
