/**
 * Where the store is by default, and the environment variable that selects PostgreSQL instead:
 * constants alone, so that the CLI's help names them without loading a store.
 */
export const DEFAULT_DATA_DIR = '.toolgraph';
export const DATABASE_URL_ENV = 'TOOLGRAPH_DATABASE_URL';
