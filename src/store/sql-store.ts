/**
 * The Store over SQL, shared by the PGlite and PostgreSQL stores: same statements, same
 * transactions, so the two cannot drift apart. Drivers (sql-driver.ts) only open, pool and
 * translate errors.
 */
import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';
import type { FittedWeights } from '../recommend/model.js';
import { weightsFromRecord, weightsRecord } from '../recommend/weights-record.js';
import { ToolgraphError } from '../schema/errors.js';
import { parseWith } from '../schema/issues.js';
import { catalogFullError } from '../schema/tool.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SCHEMA_VERSION_TABLE } from './migrations.js';
import type { Row, SqlDriver, SqlSession, Statement } from './sql-driver.js';
import type { PatternConfidence } from '../scoring/confidence-state.js';
import { SHARED_KINDS } from './store.js';
import type {
  AppendResult,
  CapabilityInfo,
  GraphSnapshotRecord,
  PatternFeedbackRow,
  PatternFilter,
  PatternHistoryRow,
  SharedKind,
  Store,
  StoreChange,
  StoreRevisions,
  StoreStats,
  StoredPatternFeedback,
  StoredTrace,
  TracePage,
  TransitionRow,
  SubscriptionStatus,
  Unsubscribe,
} from './store.js';
import { historyToAppend, parseStoredPattern, patternColumns, patternFeedbackRowSchema, validPattern } from './pattern-rows.js';
import { decodeText, encodeText } from './text-codec.js';
import { SqlSessionRows, type SessionRows } from './session-rows.js';

/** Rows per multi-row statement: well under PostgreSQL's 65,535 bind parameters. */
const ROWS_PER_STATEMENT = 1_000;
export const DEFAULT_PAGE_SIZE = 1_000;
export const MAX_PAGE_SIZE = 100_000;

// Transaction-level advisory locks, keyed by schema so stores in different schemas (tests,
// tenants) do not wait for each other.
const APPEND_LOCK = `SELECT pg_advisory_xact_lock(hashtext('toolgraph:append:' || current_schema()))`;
const MIGRATE_LOCK = `SELECT pg_advisory_xact_lock(hashtext('toolgraph:migrate:' || current_schema()))`;
// Delivered at commit to every connection LISTENing on the channel (PostgreSQL); see subscribe.
const NOTIFY_APPEND = `SELECT pg_notify('toolgraph:' || current_schema(), $1)`;
/**
 * A write of shared state moves its revision forward and notifies, first thing in its
 * transaction: the row lock it takes is held to the commit, so the writes of one kind (and the
 * seqs of verdicts) commit in order. The payload is the kind; an append's is a number.
 */
const BUMP_REVISION = `WITH bumped AS (UPDATE revisions SET revision = revision + 1 WHERE kind = $1 RETURNING kind)
  SELECT pg_notify('toolgraph:' || current_schema(), kind) FROM bumped`;
/** Snapshots kept: the newest and the one before, in case the newest cannot be decoded. */
const SNAPSHOTS_KEPT = 2;

function placeholders(rows: number, columns: number, casts: readonly string[] = []): string {
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) cells.push(`$${r * columns + c + 1}${casts[c] ?? ''}`);
    out.push(`(${cells.join(', ')})`);
  }
  return out.join(', ');
}

function chunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The trace as stored and as tracesSince reads it back, under its stored id: only the Trace
 * fields, so stray properties of the object never persist.
 */
function storedTrace(trace: Trace, id: string): Trace {
  return {
    id,
    ...(trace.idSource === undefined ? {} : { idSource: trace.idSource }),
    intent: trace.intent,
    domain: trace.domain,
    steps: trace.steps.map((s) => ({ tool: s.tool, ok: s.ok })),
    success: trace.success,
    timestamp: trace.timestamp,
  };
}

/**
 * A batch of rows travels as one JSON parameter, unpacked by json_to_recordset on the server:
 * against a multi-row VALUES list with a bind parameter per cell, this halves the time of an
 * append on PGlite (10,800 against 5,100 traces/s for 2,000-trace batches, measured), whose
 * per-parameter encoding is JavaScript while the JSON is parsed in C. Text key columns carry
 * encodeText's output, which holds no NUL, so json-to-text conversion accepts every value; a
 * whole trace travels as its JSON text and is cast to the `json` body column verbatim, escapes
 * included.
 */
function traceRow(trace: Trace, id: string): Record<string, unknown> {
  return {
    id: encodeText(id),
    base_id: encodeText(trace.id),
    id_source: trace.idSource === 'content' ? 'content' : 'caller',
    domain: encodeText(trace.domain),
    success: trace.success,
    ts_ms: trace.timestamp,
    step_count: trace.steps.length,
    // For the transitions fold: key columns, so encoded like the others.
    tools: trace.steps.map((s) => encodeText(s.tool)),
    oks: trace.steps.map((s) => s.ok),
    // As text, cast to json on the server: a nested object would be unescaped on the way, and
    // `\u0000` or a lone surrogate in it refused.
    body: JSON.stringify(storedTrace(trace, id)),
  };
}

const INSERT_TRACES = `INSERT INTO traces (id, base_id, id_source, domain, success, ts_ms, step_count, tools, oks, body)
  SELECT id, base_id, id_source, domain, success, ts_ms, step_count, tools, oks, body::json
  FROM json_to_recordset($1::json)
    AS r(id text, base_id text, id_source text, domain text, success boolean, ts_ms float8, step_count int, tools text[], oks boolean[], body text)
  ON CONFLICT (id) DO NOTHING`;

/**
 * First-order transition statistics of the traces in (mark, upto], added to the table in one
 * statement: a step succeeds only in a successful trace (failed traces never strengthen an
 * edge), as TransitionGraph.ingest counts them.
 */
const FOLD_TRANSITIONS = `INSERT INTO transitions (from_tool, to_tool, count, successes, failures, last_seen_ms)
  SELECT t.tools[i - 1], t.tools[i], count(*),
         count(*) FILTER (WHERE t.success AND t.oks[i]),
         count(*) FILTER (WHERE NOT (t.success AND t.oks[i])),
         max(t.ts_ms)
  FROM traces t, generate_subscripts(t.tools, 1) AS i
  WHERE t.seq > $1::bigint AND t.seq <= $2::bigint AND i > 1
  GROUP BY 1, 2
  ON CONFLICT (from_tool, to_tool) DO UPDATE SET
    count = transitions.count + excluded.count,
    successes = transitions.successes + excluded.successes,
    failures = transitions.failures + excluded.failures,
    last_seen_ms = greatest(transitions.last_seen_ms, excluded.last_seen_ms)`;
/** Rows per JSON parameter: a few MB of text at most for typical traces. */
const ROWS_PER_RECORDSET = 5_000;

/**
 * A json parameter as its UTF-8 bytes. Both drivers send bytes in the binary format, which for
 * json is the text itself, so a batch's megabytes are encoded once, natively, instead of being
 * measured and re-encoded by the driver in JavaScript (PGlite walks a string parameter twice):
 * the insert alone ran 25-40% faster in a PGlite test, the service's write path 13%
 * (docs/decisions/store-performance/03-batch-as-utf8-bytes.md). The placeholder must be typed json ($1::json).
 */
function jsonParam(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** A capability's stored body: every field it was registered with. */
function capabilityBody(c: CapabilityInfo): CapabilityInfo {
  return {
    id: c.id,
    description: c.description,
    tools: [...c.tools],
    ordered: c.ordered,
    ...(c.code !== undefined ? { code: c.code } : {}),
    successes: c.successes,
    failures: c.failures,
  };
}

/** A stored body back as a capability; bodies written before `ordered` and the counts were stored get their defaults. */
function capabilityFromBody(body: Partial<CapabilityInfo>): CapabilityInfo {
  return capabilityBody({
    id: String(body.id),
    description: body.description ?? '',
    tools: body.tools ?? [],
    ordered: body.ordered ?? true,
    ...(body.code !== undefined ? { code: body.code } : {}),
    successes: body.successes ?? 0,
    failures: body.failures ?? 0,
  });
}

const inflateAsync = promisify(inflate);
const deflateAsync = promisify(deflate);

/**
 * Deflates a snapshot on the thread pool: deflateSync held the event loop 0.67-0.70 s for a 79 MB
 * snapshot, every 100,000 traces. Output chunks of up to 16 MB: at zlib's default 16 KB, each
 * chunk's thread-pool round trip made it 1.7-1.8 s, against 0.7-0.9 s (the bytes are the same).
 * Level 1: most of the gain (count columns are small integers in float64) at ~1 GB/s.
 */
function deflateSnapshot(raw: Uint8Array): Promise<Uint8Array> {
  return deflateAsync(raw, { level: 1, chunkSize: Math.max(64 * 1024, Math.min(16 * 1024 * 1024, raw.byteLength)) });
}

/**
 * Inflates a stored snapshot on the thread pool into one buffer of its recorded length. zlib's
 * default 16 KB output chunks cost a thread-pool round trip each plus a final concatenation:
 * 0.6-1.1 s for a 79 MB snapshot, against 0.24-0.33 s in one chunk. The recorded length also
 * bounds the output, so damaged bytes cannot inflate without limit.
 */
export function inflateSnapshot(stored: Uint8Array, byteLength: number): Promise<Uint8Array> {
  return inflateAsync(stored, { chunkSize: Math.max(64, byteLength), maxOutputLength: Math.max(1, byteLength) });
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

const LAST_SEQ = 'SELECT coalesce(max(seq), 0)::text AS s FROM traces';

function seqOf(rows: readonly Row[]): number {
  return num(rows[0]?.['s'] ?? 0);
}

/**
 * The traces each insert returned a row for, with their seqs. A trace the insert skipped (its id
 * was stored before) is a retry, `skipped`, unless its id is a content hash: then it is a second
 * identical run, added to `repeats` to be stored under `id#n`.
 */
function storedRows(batches: readonly (readonly Trace[])[], inserted: readonly Row[][], repeats: Trace[]): { stored: { seq: number; trace: Trace }[]; skipped: number } {
  const stored: { seq: number; trace: Trace }[] = [];
  let skipped = 0;
  for (const [b, chunk] of batches.entries()) {
    const written = new Map(inserted[b]!.map((row) => [str(row['id']), num(row['seq_text'])]));
    for (const trace of chunk) {
      const seq = written.get(encodeText(trace.id));
      if (seq !== undefined) stored.push({ seq, trace });
      else if (trace.idSource === 'content') repeats.push(trace);
      else skipped++;
    }
  }
  return { stored, skipped };
}

/** An append's result from what it stored, in seq order, after `previousSeq`. */
function appended(stored: { seq: number; trace: Trace }[], duplicates: number, previousSeq: number): AppendResult {
  stored.sort((a, b) => a.seq - b.seq);
  const lastSeq = stored.length > 0 ? stored[stored.length - 1]!.seq : previousSeq;
  return { inserted: stored.length, duplicates, lastSeq, previousSeq, stored: stored.map((s) => ({ seq: s.seq, trace: storedTrace(s.trace, s.trace.id) })) };
}

export class SqlStore implements Store {
  private closed = false;
  readonly sessions: SessionRows;

  constructor(private readonly driver: SqlDriver) {
    this.sessions = new SqlSessionRows(driver, (action, fn) => this.run(action, fn));
  }

  get kind(): 'pglite' | 'postgres' {
    return this.driver.kind;
  }

  private async run<T>(action: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new ToolgraphError('INTERNAL', `${action}: the store is closed`);
    try {
      return await fn();
    } catch (error) {
      if (error instanceof ToolgraphError) throw error;
      throw this.driver.describeError(error, action);
    }
  }

  migrate(): Promise<{ from: number; to: number }> {
    return this.run('migrate', async () => {
      // Every start calls this, and a store is nearly always current: one read settles it. A
      // version cannot go down, so no lock is needed to see that it is the latest; anything
      // else (no table yet, older, an error) takes the locked way below, which reports errors.
      const current = await this.versionIn(this.driver).catch(() => null);
      if (current === LATEST_SCHEMA_VERSION) return { from: current, to: current };
      const from = await this.driver.transaction(async (tx) => {
        await tx.query(MIGRATE_LOCK);
        await tx.exec(SCHEMA_VERSION_TABLE);
        return this.versionIn(tx);
      });
      if (from > LATEST_SCHEMA_VERSION) {
        throw new ToolgraphError(
          'CONFLICT',
          `migrate: the database is at schema version ${from}, newer than this toolgraph knows (${LATEST_SCHEMA_VERSION}); upgrade toolgraph`,
        );
      }
      const pending = [...MIGRATIONS].sort((a, b) => a.version - b.version).filter((m) => m.version > from);
      for (const migration of pending) {
        await this.driver.transaction(async (tx) => {
          await tx.query(MIGRATE_LOCK);
          // Another instance may have applied it while we waited for the lock.
          const done = await tx.query('SELECT 1 FROM schema_version WHERE version = $1', [migration.version]);
          if (done.length > 0) return;
          await tx.exec(migration.sql);
          await tx.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        });
      }
      return { from, to: Math.max(from, LATEST_SCHEMA_VERSION) };
    });
  }

  private async versionIn(session: SqlSession): Promise<number> {
    const rows = await session.query('SELECT coalesce(max(version), 0) AS v FROM schema_version');
    return num(rows[0]?.['v'] ?? 0);
  }

  putTools(tools: readonly ToolInfo[], options: { readonly maxTotal?: number } = {}): Promise<void> {
    return this.run('putTools', async () => {
      // Last entry wins, as a catalogue update would; one statement must not touch a key twice.
      const byName = new Map<string, ToolInfo>();
      for (const tool of tools) byName.set(tool.name, tool);
      if (byName.size === 0) return;
      await this.driver.transaction(async (tx) => {
        await tx.query(BUMP_REVISION, ['tools']);
        for (const chunk of chunks([...byName.values()])) {
          const params: unknown[] = [];
          for (const tool of chunk) {
            const body = {
              name: tool.name,
              description: tool.description,
              params: tool.params.map((p) => ({ name: p.name, type: p.type, description: p.description, required: p.required })),
              ...(tool.outputs !== undefined && tool.outputs.length > 0 ? { outputs: [...tool.outputs] } : {}),
              ...(tool.outputTypes !== undefined && tool.outputTypes.length > 0 ? { outputTypes: [...tool.outputTypes] } : {}),
            };
            params.push(encodeText(tool.name), JSON.stringify(body));
          }
          await tx.query(
            `INSERT INTO tools (name, body) VALUES ${placeholders(chunk.length, 2, ['', '::json'])}
             ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_at = now()`,
            params,
          );
        }
        if (options.maxTotal !== undefined) {
          // The revision bump above holds the row lock every catalogue write takes first, so
          // this count sees every committed write and none can commit beside this one.
          const rows = await tx.query('SELECT count(*) AS n FROM tools');
          const total = num(rows[0]?.['n'] ?? 0);
          if (total > options.maxTotal) throw catalogFullError('putTools', total, options.maxTotal);
        }
      });
    });
  }

  leaseFit(holder: string, ms: number): Promise<boolean> {
    return this.run('leaseFit', async () => {
      const rows = await this.driver.query(
        `INSERT INTO fit_lease (id, holder, expires_at) VALUES (1, $1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE fit_lease.expires_at < now() OR fit_lease.holder = excluded.holder
         RETURNING holder`,
        [encodeText(holder), ms],
      );
      return rows.length > 0;
    });
  }

  releaseFit(holder: string): Promise<void> {
    return this.run('releaseFit', async () => {
      await this.driver.query('DELETE FROM fit_lease WHERE holder = $1', [encodeText(holder)]);
    });
  }

  listTools(): Promise<ToolInfo[]> {
    return this.run('listTools', async () => {
      const rows = await this.driver.query('SELECT body::text AS body FROM tools ORDER BY position');
      return rows.map((row) => JSON.parse(str(row['body'])) as ToolInfo);
    });
  }

  putCapabilities(capabilities: readonly CapabilityInfo[]): Promise<void> {
    return this.run('putCapabilities', async () => {
      const byId = new Map<string, CapabilityInfo>();
      for (const capability of capabilities) byId.set(capability.id, capability);
      if (byId.size === 0) return;
      await this.driver.transaction(async (tx) => {
        await tx.query(BUMP_REVISION, ['capabilities']);
        for (const chunk of chunks([...byId.values()])) {
          const params: unknown[] = [];
          for (const c of chunk) {
            params.push(encodeText(c.id), JSON.stringify(capabilityBody(c)));
          }
          await tx.query(
            `INSERT INTO capabilities (id, body) VALUES ${placeholders(chunk.length, 2, ['', '::json'])}
             ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = now()`,
            params,
          );
          await tx.query('DELETE FROM capability_tools WHERE capability_id = ANY($1::text[])', [chunk.map((c) => encodeText(c.id))]);
          const members: unknown[] = [];
          for (const c of chunk) for (const tool of new Set(c.tools)) members.push([encodeText(c.id), encodeText(tool)]);
          for (const part of chunks(members)) {
            await tx.query(`INSERT INTO capability_tools (capability_id, tool) VALUES ${placeholders(part.length, 2)}`, part.flat());
          }
        }
      });
    });
  }

  listCapabilities(): Promise<CapabilityInfo[]> {
    return this.run('listCapabilities', async () => {
      const rows = await this.driver.query('SELECT body::text AS body FROM capabilities ORDER BY position');
      return rows.map((row) => capabilityFromBody(JSON.parse(str(row['body'])) as Partial<CapabilityInfo>));
    });
  }

  appendTraces(traces: readonly Trace[]): Promise<AppendResult> {
    return this.run('appendTraces', async () => {
      if (traces.length === 0) {
        const last = await this.lastSeq(this.driver);
        return { inserted: 0, duplicates: 0, lastSeq: last, previousSeq: last, stored: [] };
      }
      const firsts: Trace[] = [];
      const repeats: Trace[] = [];
      const inBatch = new Set<string>();
      let duplicates = 0;
      for (const trace of traces) {
        if (!inBatch.has(trace.id)) {
          inBatch.add(trace.id);
          firsts.push(trace);
        } else if (trace.idSource === 'content') repeats.push(trace);
        else duplicates++;
      }
      const batches = chunks(firsts, ROWS_PER_RECORDSET);
      // The lock is held to the commit: seqs are assigned and become visible in the same order,
      // so a reader's `seq > last` never skips a row that commits later with a smaller seq.
      const statements: Statement[] = [
        { sql: APPEND_LOCK },
        { sql: LAST_SEQ },
        ...batches.map((chunk) => ({ sql: `${INSERT_TRACES} RETURNING id, seq::text AS seq_text`, params: [jsonParam(chunk.map((t) => traceRow(t, t.id)))] })),
      ];
      // Only a content-hash id can need a statement after these (a second identical run, stored
      // under `id#n`). Without one, a driver that can (PGlite's, whose database is on another
      // thread) sends the whole transaction at once; PostgreSQL's takes the path below, which
      // also notifies the other instances.
      if (this.driver.batch !== undefined && traces.every((t) => t.idSource !== 'content')) {
        const [, last, ...inserted] = await this.driver.batch(statements);
        const { stored, skipped } = storedRows(batches, inserted, repeats);
        return appended(stored, duplicates + skipped, seqOf(last!));
      }
      return this.driver.transaction(async (tx) => {
        // One after the other: a pg client handed a query while another runs queues it, but pg
        // deprecates that (a warning now, an error from pg 9); the extra round trips are a few per
        // group commit. A failure throws before the statements after it are sent.
        const results: Row[][] = [];
        for (const st of statements) results.push(await tx.query(st.sql, st.params ?? []));
        const [, last, ...inserted] = results;
        const { stored, skipped } = storedRows(batches, inserted, repeats);
        // A content-hash id seen before is a second identical run: keep it under `id#n`.
        for (const trace of repeats) {
          const countRows = await tx.query("SELECT count(*) AS n FROM traces WHERE base_id = $1 AND id_source = 'content'", [encodeText(trace.id)]);
          for (let n = num(countRows[0]?.['n'] ?? 1) + 1; ; n++) {
            const id = `${trace.id}#${n}`;
            const rows = await tx.query(`${INSERT_TRACES} RETURNING seq::text AS seq_text`, [jsonParam([traceRow(trace, id)])]);
            if (rows.length > 0) {
              stored.push({ seq: num(rows[0]!['seq_text']), trace: storedTrace(trace, id) });
              break;
            }
          }
        }
        const result = appended(stored, duplicates + skipped, seqOf(last!));
        // Other instances hear of it; PGlite has one process and nobody listening (its driver's
        // listen), so its appends spare the round trip to the database thread.
        if (result.inserted > 0 && this.driver.kind === 'postgres') await tx.query(NOTIFY_APPEND, [String(result.lastSeq)]);
        return result;
      });
    });
  }

  foldTransitions(): Promise<number> {
    return this.run('foldTransitions', () => this.driver.transaction((tx) => this.fold(tx)));
  }

  /**
   * Folds the traces after transitions_folded.seq into the transitions table and moves the mark;
   * returns how many traces were folded. The mark's row lock serialises folders (another
   * instance waits, then finds nothing left), and appends make seqs visible in order
   * (APPEND_LOCK), so `seq > mark` never skips a trace that commits later.
   */
  private async fold(tx: SqlSession): Promise<number> {
    const marks = await tx.query('SELECT seq::text AS seq_text FROM transitions_folded FOR UPDATE');
    const mark = num(marks[0]?.['seq_text'] ?? 0);
    const range = await tx.query('SELECT count(*)::text AS n, max(seq)::text AS upto FROM traces WHERE seq > $1::bigint', [String(mark)]);
    const count = num(range[0]?.['n'] ?? 0);
    if (count === 0) return 0;
    const upto = str(range[0]!['upto']);
    await tx.query(FOLD_TRANSITIONS, [String(mark), upto]);
    await tx.query('UPDATE transitions_folded SET seq = $1::bigint', [upto]);
    return count;
  }


  private async lastSeq(session: SqlSession): Promise<number> {
    return seqOf(await session.query(LAST_SEQ));
  }

  tracesSince(afterSeq: number, limit: number = DEFAULT_PAGE_SIZE): Promise<TracePage> {
    return this.run('tracesSince', async () => {
      if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
        throw new ToolgraphError('INVALID_INPUT', `tracesSince: seq must be a non-negative integer, got ${String(afterSeq)}`);
      }
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        throw new ToolgraphError('INVALID_INPUT', `tracesSince: limit must be an integer in [1, ${MAX_PAGE_SIZE}], got ${String(limit)}`);
      }
      const rows = await this.driver.query(
        // `traces.seq`, not the text alias: ordering by the alias would sort 10 before 9.
        'SELECT seq::text AS seq_text, body::text AS body FROM traces WHERE traces.seq > $1::bigint ORDER BY traces.seq LIMIT $2::int',
        [String(afterSeq), limit],
      );
      const traces: StoredTrace[] = rows.map((row) => ({ seq: num(row['seq_text']), trace: JSON.parse(str(row['body'])) as Trace }));
      return { traces, lastSeq: traces.length > 0 ? traces[traces.length - 1]!.seq : afterSeq };
    });
  }

  listTransitions(): Promise<TransitionRow[]> {
    return this.run('listTransitions', async () => {
      const rows = await this.driver.transaction(async (tx) => {
        await this.fold(tx);
        return tx.query(
          `SELECT from_tool, to_tool, count::text AS count, successes::text AS successes, failures::text AS failures, last_seen_ms
           FROM transitions ORDER BY from_tool COLLATE "C", to_tool COLLATE "C"`,
        );
      });
      return rows.map((row: Row) => ({
        from: decodeText(str(row['from_tool'])),
        to: decodeText(str(row['to_tool'])),
        count: num(row['count']),
        successes: num(row['successes']),
        failures: num(row['failures']),
        lastSeen: num(row['last_seen_ms']),
      }));
    });
  }

  putWeights(weights: FittedWeights): Promise<void> {
    return this.run('putWeights', async () => {
      // Checked before it is written: named by signal (weights-record.ts), every number finite.
      const body = weightsRecord(weights, 'putWeights');
      await this.driver.transaction(async (tx) => {
        await tx.query(BUMP_REVISION, ['weights']);
        await tx.query('INSERT INTO weights (body) VALUES ($1::json)', [JSON.stringify(body)]);
      });
    });
  }

  getWeights(): Promise<FittedWeights | null> {
    return this.run('getWeights', async () => {
      const rows = await this.driver.query('SELECT body::text AS body FROM weights ORDER BY seq DESC LIMIT 1');
      if (rows.length === 0) return null;
      return weightsFromRecord(JSON.parse(str(rows[0]!['body'])), 'getWeights');
    });
  }

  putPatterns(patterns: readonly PatternConfidence[]): Promise<void> {
    return this.run('putPatterns', async () => {
      const byId = new Map<string, PatternConfidence>();
      for (const [i, pattern] of patterns.entries()) byId.set(validPattern(pattern, `putPatterns: patterns[${i}]`).id, pattern);
      if (byId.size === 0) return;
      await this.driver.transaction((tx) => this.writePatterns(tx, [...byId.values()]));
    });
  }

  appendPatternFeedback(entry: PatternFeedbackRow, state: PatternConfidence): Promise<number> {
    return this.run('appendPatternFeedback', async () => {
      const row = parseWith(patternFeedbackRowSchema, entry, 'appendPatternFeedback');
      validPattern(state, 'appendPatternFeedback: state');
      if (state.id !== row.patternId) {
        throw new ToolgraphError('INVALID_INPUT', `appendPatternFeedback: the state is of pattern ${JSON.stringify(state.id)}, the verdict of ${JSON.stringify(row.patternId)}`);
      }
      return this.driver.transaction(async (tx) => {
        await tx.query(BUMP_REVISION, ['feedback']);
        const rows = await tx.query('INSERT INTO pattern_feedback (pattern_id, tools, decision, at_ms) VALUES ($1, $2::json, $3, $4::float8) RETURNING seq::text AS seq_text', [
          encodeText(row.patternId),
          JSON.stringify(row.tools),
          row.decision,
          row.at,
        ]);
        await this.writePatterns(tx, [state]);
        return num(rows[0]?.['seq_text']);
      });
    });
  }

  listPatternFeedback(afterSeq = 0): Promise<StoredPatternFeedback[]> {
    return this.run('listPatternFeedback', async () => {
      if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
        throw new ToolgraphError('INVALID_INPUT', `listPatternFeedback: seq must be a non-negative integer, got ${String(afterSeq)}`);
      }
      const rows = await this.driver.query(
        'SELECT seq::text AS seq_text, pattern_id, tools::text AS tools, decision, at_ms FROM pattern_feedback WHERE seq > $1::bigint ORDER BY seq',
        [String(afterSeq)],
      );
      return rows.map((row) => ({
        seq: num(row['seq_text']),
        patternId: decodeText(str(row['pattern_id'])),
        tools: JSON.parse(str(row['tools'])) as string[],
        decision: str(row['decision']) as PatternFeedbackRow['decision'],
        at: num(row['at_ms']),
      }));
    });
  }

  /** Upserts patterns (distinct ids) and appends their new history entries, in `tx`. */
  private async writePatterns(tx: SqlSession, patterns: readonly PatternConfidence[]): Promise<void> {
    for (const chunk of chunks(patterns, 500)) {
      const ids = chunk.map((p) => encodeText(p.id));
      const before = await tx.query('SELECT id, body::text AS body FROM patterns WHERE id = ANY($1::text[])', [ids]);
      const stored = new Map(before.map((row) => [str(row['id']), parseStoredPattern(str(row['body']), 'putPatterns')]));
      await tx.query(
        `INSERT INTO patterns (id, kind, status, tier, freq_score, eff_score, human_score, composite,
           observation_count, application_count, success_count, contradiction_count, created_ms, updated_ms, body)
         VALUES ${placeholders(chunk.length, 15, ['', '', '', '', '::float8', '::float8', '::float8', '::float8', '::bigint', '::bigint', '::bigint', '::bigint', '::float8', '::float8', '::json'])}
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, status = excluded.status, tier = excluded.tier,
           freq_score = excluded.freq_score, eff_score = excluded.eff_score, human_score = excluded.human_score,
           composite = excluded.composite, observation_count = excluded.observation_count,
           application_count = excluded.application_count, success_count = excluded.success_count,
           contradiction_count = excluded.contradiction_count, created_ms = excluded.created_ms,
           updated_ms = excluded.updated_ms, body = excluded.body, stored_at = now()`,
        chunk.flatMap((p) => [encodeText(p.id), ...patternColumns(p), JSON.stringify(p)]),
      );
      const history: unknown[][] = [];
      for (const p of chunk) {
        for (const h of historyToAppend(stored.get(encodeText(p.id)), p)) {
          history.push([encodeText(p.id), h.at, h.reason, h.frequency, h.effectiveness, h.human, h.composite]);
        }
      }
      for (const part of chunks(history)) {
        await tx.query(
          `INSERT INTO pattern_history (pattern_id, at_ms, reason, freq_score, eff_score, human_score, composite)
           VALUES ${placeholders(part.length, 7, ['', '::float8', '', '::float8', '::float8', '::float8', '::float8'])}`,
          part.flat(),
        );
      }
    }
  }

  listPatterns(filter: PatternFilter = {}): Promise<PatternConfidence[]> {
    return this.run('listPatterns', async () => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.kind !== undefined) {
        params.push(filter.kind);
        where.push(`kind = $${params.length}`);
      }
      if (filter.status !== undefined) {
        params.push(filter.status);
        where.push(`status = $${params.length}`);
      }
      if (filter.minComposite !== undefined) {
        if (!Number.isFinite(filter.minComposite)) throw new ToolgraphError('INVALID_INPUT', 'listPatterns: minComposite must be a finite number');
        params.push(filter.minComposite);
        where.push(`composite >= $${params.length}::float8`);
      }
      let tail = 'ORDER BY id COLLATE "C"';
      if (filter.limit !== undefined) {
        if (!Number.isSafeInteger(filter.limit) || filter.limit < 1) {
          throw new ToolgraphError('INVALID_INPUT', `listPatterns: limit must be an integer >= 1, got ${String(filter.limit)}`);
        }
        params.push(filter.limit);
        tail = `ORDER BY composite DESC, id COLLATE "C" LIMIT $${params.length}::int`;
      }
      const rows = await this.driver.query(
        `SELECT body::text AS body FROM patterns ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ${tail}`,
        params,
      );
      return rows.map((row) => parseStoredPattern(str(row['body']), 'listPatterns'));
    });
  }

  patternHistory(id: string): Promise<PatternHistoryRow[]> {
    return this.run('patternHistory', async () => {
      if (typeof id !== 'string') throw new ToolgraphError('INVALID_INPUT', 'patternHistory: id must be a string');
      const rows = await this.driver.query(
        `SELECT seq::text AS seq_text, at_ms, reason, freq_score, eff_score, human_score, composite
         FROM pattern_history WHERE pattern_id = $1 ORDER BY seq`,
        [encodeText(id)],
      );
      return rows.map((row) => ({
        seq: num(row['seq_text']),
        at: num(row['at_ms']),
        reason: str(row['reason']) as PatternHistoryRow['reason'],
        frequency: num(row['freq_score']),
        effectiveness: num(row['eff_score']),
        human: num(row['human_score']),
        composite: num(row['composite']),
      }));
    });
  }

  putSnapshot(snapshot: GraphSnapshotRecord): Promise<void> {
    return this.run('putSnapshot', async () => {
      if (!Number.isSafeInteger(snapshot.traceSeq) || snapshot.traceSeq < 0) {
        throw new ToolgraphError('INVALID_INPUT', `putSnapshot: traceSeq must be a non-negative integer, got ${String(snapshot.traceSeq)}`);
      }
      if (!Number.isSafeInteger(snapshot.format) || snapshot.format < 1) {
        throw new ToolgraphError('INVALID_INPUT', `putSnapshot: format must be a positive integer, got ${String(snapshot.format)}`);
      }
      if (!(snapshot.data instanceof Uint8Array)) throw new ToolgraphError('INVALID_INPUT', 'putSnapshot: data must be a Uint8Array');
      const packed = await deflateSnapshot(snapshot.data);
      const blobs = this.driver.blobs;
      // The file is durable before the row naming it commits; a crash in between leaves an
      // unnamed file, removed by the next putSnapshot.
      const file = blobs === undefined ? null : await blobs.write(packed, snapshot.data.byteLength);
      const kept = await this.driver.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO graph_snapshots (trace_seq, format, byte_length, compression, body, file)
           VALUES ($1::bigint, $2::int, $3::bigint, 'deflate', $4::bytea, $5)`,
          [String(snapshot.traceSeq), snapshot.format, String(snapshot.data.byteLength), file === null ? packed : null, file],
        );
        await tx.query(
          `DELETE FROM graph_snapshots WHERE seq NOT IN (
             SELECT seq FROM graph_snapshots ORDER BY trace_seq DESC, seq DESC LIMIT ${SNAPSHOTS_KEPT})`,
        );
        return tx.query('SELECT file FROM graph_snapshots WHERE file IS NOT NULL');
      });
      await blobs?.retain(kept.map((row) => str(row['file'])));
    });
  }

  getSnapshot(): Promise<GraphSnapshotRecord | null> {
    return this.run('getSnapshot', async () => {
      const rows = await this.driver.query(
        `SELECT trace_seq::text AS trace_seq, format, byte_length::text AS byte_length, compression, body, file
         FROM graph_snapshots ORDER BY trace_seq DESC, seq DESC LIMIT 1`,
      );
      if (rows.length === 0) return null;
      const row = rows[0]!;
      const byteLength = num(row['byte_length']);
      const deflated = row['compression'] === 'deflate';
      // The inflated bytes, when a prefetch at open already has them; else the stored bytes.
      let raw: Uint8Array | null = null;
      let stored: Uint8Array | null = null;
      if (row['file'] !== null && row['file'] !== undefined) {
        const blobs = this.driver.blobs;
        if (blobs === undefined) throw new ToolgraphError('INTERNAL', 'getSnapshot: the snapshot is in a file, and this store keeps no files');
        const name = str(row['file']);
        const early = deflated ? await blobs.takePrefetched?.(name) : undefined;
        if (early != null && early.byteLength === byteLength) raw = early;
        else stored = await blobs.read(name);
      } else if (row['body'] instanceof Uint8Array) {
        stored = row['body'];
      } else {
        throw new ToolgraphError('INTERNAL', 'getSnapshot: the driver returned the snapshot body in an unexpected form');
      }
      if (raw === null) {
        // Inflated on the thread pool: a large snapshot takes hundreds of milliseconds, which the
        // event loop spends on the other loads of an open meanwhile.
        try {
          raw = deflated ? await inflateSnapshot(stored!, byteLength) : stored!;
        } catch (error) {
          throw new ToolgraphError('INTERNAL', `getSnapshot: the stored snapshot does not inflate to its ${byteLength} recorded bytes (${(error as Error).message})`);
        }
      }
      if (raw.byteLength !== byteLength) {
        throw new ToolgraphError('INTERNAL', `getSnapshot: the snapshot has ${raw.byteLength} bytes, ${byteLength} were stored`);
      }
      // A plain array at offset 0 of its own buffer: the codec reads its columns as aligned views
      // without copying. The inflated bytes usually are one already; a view into a larger
      // buffer (a driver's) is copied.
      const data = raw.byteOffset === 0 && raw.buffer.byteLength === raw.byteLength ? new Uint8Array(raw.buffer) : new Uint8Array(raw);
      return { traceSeq: num(row['trace_seq']), format: num(row['format']), data };
    });
  }

  subscribe(listener: (change: StoreChange) => void, onStatus: (status: SubscriptionStatus) => void = () => {}): Promise<Unsubscribe> {
    return this.run('subscribe', () =>
      this.driver.listen((payload) => {
        if ((SHARED_KINDS as readonly string[]).includes(payload)) {
          listener({ kind: payload as SharedKind });
          return;
        }
        const seq = Number(payload);
        if (Number.isSafeInteger(seq)) listener({ kind: 'traces', lastSeq: seq });
      }, onStatus),
    );
  }

  ping(): Promise<void> {
    return this.run('ping', async () => {
      await this.driver.query('SELECT 1');
    });
  }

  revisions(): Promise<StoreRevisions> {
    return this.run('revisions', async () => {
      const rows = await this.driver.query('SELECT kind, revision::text AS revision FROM revisions');
      const found = new Map(rows.map((row) => [str(row['kind']), num(row['revision'])]));
      const revisions = {} as Record<SharedKind, number>;
      for (const kind of SHARED_KINDS) revisions[kind] = found.get(kind) ?? 0;
      return revisions;
    });
  }

  stats(): Promise<StoreStats> {
    return this.run('stats', async () => {
      const rows = await this.driver.transaction(async (tx) => {
        await this.fold(tx);
        return tx.query(
          `SELECT (SELECT coalesce(max(version), 0) FROM schema_version) AS v,
                  (SELECT count(*) FROM tools)::text AS tools,
                  (SELECT count(*) FROM capabilities)::text AS capabilities,
                  (SELECT count(*) FROM traces)::text AS traces,
                  (SELECT count(*) FROM transitions)::text AS transitions,
                  (SELECT coalesce(max(seq), 0) FROM traces)::text AS last_seq,
                  (SELECT count(*) FROM patterns)::text AS patterns,
                  (SELECT max(trace_seq) FROM graph_snapshots)::text AS snapshot_seq`,
        );
      });
      const row = rows[0] ?? {};
      return {
        kind: this.kind,
        schemaVersion: num(row['v']),
        tools: num(row['tools']),
        capabilities: num(row['capabilities']),
        traces: num(row['traces']),
        transitions: num(row['transitions']),
        lastSeq: num(row['last_seq']),
        patterns: num(row['patterns']),
        snapshotSeq: row['snapshot_seq'] === null || row['snapshot_seq'] === undefined ? null : num(row['snapshot_seq']),
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.driver.close();
    } catch (error) {
      throw this.driver.describeError(error, 'close');
    }
  }
}
