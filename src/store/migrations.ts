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
  {
    version: 2,
    name: 'learned patterns with confidence history; graph snapshots',
    // Patterns follow spec 004's instincts / confidence_history tables, adapted: the id names a
    // transition, second-order context or capability; the three dimensions, composite, tier and
    // evidence counts are columns (for SQL readers and ordering), and the whole state, with its
    // bounded in-memory history, is kept as json so it reads back exactly. pattern_history keeps
    // every history entry ever stored, beyond the in-memory bound.
    sql: `
CREATE TABLE patterns (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('transition', 'second_order', 'capability')),
  status text NOT NULL CHECK (status IN ('active', 'deprecated')),
  tier text NOT NULL,
  freq_score double precision NOT NULL,
  eff_score double precision NOT NULL,
  human_score double precision NOT NULL,
  composite double precision NOT NULL,
  observation_count bigint NOT NULL,
  application_count bigint NOT NULL,
  success_count bigint NOT NULL,
  contradiction_count bigint NOT NULL,
  created_ms double precision NOT NULL,
  updated_ms double precision NOT NULL,
  body json NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX patterns_composite ON patterns (composite DESC);

CREATE TABLE pattern_history (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pattern_id text NOT NULL REFERENCES patterns (id) ON DELETE CASCADE,
  at_ms double precision NOT NULL,
  reason text NOT NULL,
  freq_score double precision NOT NULL,
  eff_score double precision NOT NULL,
  human_score double precision NOT NULL,
  composite double precision NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pattern_history_pattern ON pattern_history (pattern_id, seq);

-- The learned graph as of trace_seq, in the binary format of src/graph/graph-codec.ts: an
-- instance restores the newest one and replays only the traces after it. The bytes are in
-- body (PostgreSQL), or in a file of the data folder named by file (PGlite, whose bytea
-- parameters cost about a second per megabyte).
CREATE TABLE graph_snapshots (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  trace_seq bigint NOT NULL CHECK (trace_seq >= 0),
  format integer NOT NULL,
  byte_length bigint NOT NULL,
  compression text NOT NULL CHECK (compression IN ('none', 'deflate')),
  body bytea,
  file text,
  stored_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((body IS NULL) <> (file IS NULL))
);
`,
  },
  {
    version: 3,
    name: 'human feedback log',
    // People's verdicts on patterns, as given: the facade's registry is rebuilt from them at
    // open, and each pattern's confidence is replayed from them (service/pattern-view.ts). The
    // tools are json (names may hold what text refuses); the id is text-codec encoded.
    sql: `
CREATE TABLE pattern_feedback (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pattern_id text NOT NULL,
  tools json NOT NULL,
  decision text NOT NULL CHECK (decision IN ('approve', 'reject')),
  at_ms double precision NOT NULL CHECK (at_ms >= 0 AND at_ms <= 8.64e15),
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pattern_feedback_pattern ON pattern_feedback (pattern_id);
`,
  },
  {
    version: 4,
    name: 'transitions folded in after the append',
    // Upserting the transitions in every append's transaction was 40% of an append on PGlite.
    // The table is derived data, so appends now only record each trace's tools and step
    // outcomes as arrays, and one SQL statement folds every trace after the mark into the
    // table later (sql-store.ts, fold): sustained, append plus fold ran 8,100-8,200 traces/s
    // against 5,900-6,100 for the inline upsert (PGlite, 2,000-trace batches, same run). Until
    // now each append folded its own traces, so the mark starts at the last one.
    sql: `
ALTER TABLE traces ADD COLUMN tools text[], ADD COLUMN oks boolean[];
CREATE TABLE transitions_folded (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  seq bigint NOT NULL
);
INSERT INTO transitions_folded (seq) SELECT coalesce(max(seq), 0) FROM traces;
`,
  },
  {
    version: 5,
    name: 'capabilities keep their registration order',
    // The engine keeps registered capabilities in registration order (a replaced id keeps its
    // place), and that order is the capabilities' column order in the co-clustering: a restart
    // must read them back in it, not by id. An upsert leaves the identity of a replaced row as it was.
    sql: `
ALTER TABLE capabilities ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY;
`,
  },
  {
    version: 6,
    name: 'revisions of the shared state',
    // Several instances on one database serve one catalogue, one set of capabilities, one fit
    // and one feedback log. Each write of one of these moves its counter forward first thing in
    // its transaction, under the row's lock, and notifies; an instance reads the four counters
    // (on the notification, and on its poll should one be lost) and reads again only what moved.
    // The lock also serialises verdicts, so their seqs commit in order.
    sql: `
CREATE TABLE revisions (
  kind text PRIMARY KEY CHECK (kind IN ('tools', 'capabilities', 'weights', 'feedback')),
  revision bigint NOT NULL
);
INSERT INTO revisions (kind, revision) VALUES ('tools', 0), ('capabilities', 0), ('weights', 0), ('feedback', 0);
`,
  },
  {
    version: 7,
    name: 'base ids indexed for content-hash ids only',
    // The index serves one query: how many runs of a content-hash id are stored, when a second
    // identical run comes (sql-store.ts, appendTraces). A caller's id is never looked up by it,
    // yet every append paid its insert: copying 50,000 traces within PGlite took 563-586 ms with
    // it, 436-490 ms with this one (both past the first run).
    sql: `
DROP INDEX traces_base_id;
CREATE INDEX traces_content_base_id ON traces (base_id) WHERE id_source = 'content';
`,
  },
  {
    version: 8,
    name: 'tools keep their registration order',
    // A catalogue's order is the order tools get their indices in (TransitionGraph.addTool), and
    // Louvain, ties and the fit's fold models follow indices: a store that listed its tools by
    // name fitted other weights than the same data in memory (the community weight 0.663
    // against 0.360 on the NESTFUL sample), and a restart without a snapshot renumbered them.
    // As for capabilities (migration 5): an upsert leaves a replaced tool's position as it was;
    // tools stored before this migration keep the order of the table's scan.
    sql: `
ALTER TABLE tools ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY;
`,
  },
  {
    version: 9,
    name: 'the fit lease',
    // Services fit their own weights as traces accumulate (service/background-fit.ts). Of several
    // instances on one database one fits at a time: it holds this row until it has stored the
    // weights, or until the lease runs out (an instance that died while fitting).
    sql: `
CREATE TABLE fit_lease (
  id smallint PRIMARY KEY CHECK (id = 1),
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
  },
  {
    version: 10,
    name: 'workflow sessions',
    // Budget-controlled sessions (spec 002; engine/session.ts, session-rows.ts) survive a
    // restart: one row per session with its whole state as json and a version each write moves
    // forward (a concurrent step is refused, not lost), and its telemetry events in order. Idle
    // sessions expire: expires_ms is indexed for the sweep that deletes them.
    sql: `
CREATE TABLE sessions (
  id text PRIMARY KEY,
  version integer NOT NULL CHECK (version >= 1),
  body json NOT NULL,
  updated_ms double precision NOT NULL,
  expires_ms double precision NOT NULL,
  event_count integer NOT NULL CHECK (event_count >= 0)
);
CREATE INDEX sessions_expires ON sessions (expires_ms);

CREATE TABLE session_events (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  body json NOT NULL,
  PRIMARY KEY (session_id, seq)
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
