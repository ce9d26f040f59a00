/**
 * The schema, as ordered migrations shared by the PGlite and PostgreSQL stores. A migration is
 * never edited once released: a change is a new entry with the next version. `migrate()` applies
 * the pending ones in order, each in its own transaction together with its `schema_version` row,
 * under an advisory lock so instances starting together do not race.
 *
 * Column choices:
 * - Whole values (`body`) are `json`, not `jsonb`: `json` keeps the text exactly as written,
 *   including `\u0000` and unpaired-surrogate escapes that `jsonb` rejects but our schemas allow.
 * - Key and filter columns hold text encoded by text-codec.ts for the same reason.
 * - `traces.seq` is the total order instances replay in. Appends hold a transaction-level
 *   advisory lock from before the first insert to the commit, so seqs become visible in order
 *   and `seq > last` never skips a row committed late.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE tools (
  name text PRIMARY KEY,
  body json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE capabilities (
  id text PRIMARY KEY,
  body json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE capability_tools (
  capability_id text NOT NULL REFERENCES capabilities (id) ON DELETE CASCADE,
  tool text NOT NULL,
  PRIMARY KEY (capability_id, tool)
);

CREATE TABLE traces (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  base_id text NOT NULL,
  id_source text NOT NULL CHECK (id_source IN ('caller', 'content')),
  domain text NOT NULL,
  success boolean NOT NULL,
  -- The range trace timestamps are validated to (timestampSchema); NaN fails it too.
  ts_ms double precision NOT NULL CHECK (ts_ms >= 0 AND ts_ms <= 8.64e15),
  step_count integer NOT NULL CHECK (step_count >= 0),
  body json NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX traces_base_id ON traces (base_id);

CREATE TABLE transitions (
  from_tool text NOT NULL,
  to_tool text NOT NULL,
  count bigint NOT NULL,
  successes bigint NOT NULL,
  failures bigint NOT NULL,
  last_seen_ms double precision NOT NULL,
  PRIMARY KEY (from_tool, to_tool)
);

CREATE TABLE weights (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  profile text NOT NULL DEFAULT 'default',
  body json NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
];

/** The version a fully migrated store reports. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

export const SCHEMA_VERSION_TABLE = `
CREATE TABLE IF NOT EXISTS schema_version (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;
