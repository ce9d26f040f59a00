/**
 * The CLI commands over the durable store: `ingest`, `tools`, `capabilities`, `stats`, `export`
 * (their descriptors are in commands.ts), and the ingestion `demo` shares. The store is PGlite
 * in `--data-dir` (default `.toolgraph/` in the working directory), or PostgreSQL when
 * TOOLGRAPH_DATABASE_URL is set (store-access.ts).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { toGraphml } from '../graph/graph-export.js';
import type { SkippedEntry } from '../schema/catalog.js';
import { ToolgraphError } from '../schema/errors.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { DurableToolgraph } from '../service/durable-toolgraph.js';
import { fromFile, message, readCatalogFile, readJson, readTraceSource, reportSkipped, skippedPlace, type Rejection } from './input-files.js';
import { intOption, listOption, noWordAfter } from './options.js';
import { progressBar } from './progress.js';
import { storeLabel, withLearnedStore, withStore } from './store-access.js';
import { formatTable } from './table.js';
import { print, type CliOutput, type Values } from './command.js';

/** Writes `text` to `path` through a temporary file, so a reader never sees half of it. */
function writeWhole(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new ToolgraphError('INVALID_INPUT', `${path}: cannot write (${message(error)}) (--out)`, undefined, { file: path });
  }
}

export interface IngestSummary {
  readonly files: number;
  readonly lines: number;
  readonly accepted: number;
  readonly ingested: number;
  readonly duplicates: number;
  readonly tools: number;
  readonly rejected: readonly Rejection[];
  readonly store: string;
}

/** Reads every source, then writes the accepted traces in one transaction (all or nothing). */
export async function ingestSources(values: Values, paths: readonly string[], tg: DurableToolgraph): Promise<IngestSummary> {
  const traces: Trace[] = [];
  const tools: ToolInfo[] = [];
  const rejected: Rejection[] = [];
  let lines = 0;
  for (const path of paths) {
    const bar = progressBar(`ingest ${path}`);
    const read = await readTraceSource(path, (d, t) => bar.update(d, t));
    bar.stop();
    traces.push(...read.traces);
    tools.push(...read.tools);
    rejected.push(...read.rejected);
    lines += read.lines;
  }
  if (values['strict'] === true && rejected.length > 0) {
    const first = rejected[0]!;
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${first.file}${first.line > 0 ? `:${first.line}` : ''}: ${rejected.length} rejected line(s), nothing written (--strict); the first: ${first.reason}`,
      undefined,
      first.line > 0 ? { file: first.file, line: first.line } : { file: first.file },
    );
  }
  if (tools.length > 0) {
    // Catalogues of several dataset folders may repeat a tool: the last definition wins.
    const byName = new Map(tools.map((t) => [t.name, t]));
    await tg.setTools([...byName.values()]);
  }
  const result = await tg.ingestTraces(traces);
  return {
    files: paths.length,
    lines,
    accepted: traces.length,
    ingested: result.ingested,
    duplicates: traces.length - result.ingested,
    tools: tools.length,
    rejected,
    store: storeLabel(values),
  };
}

export async function runIngest(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  if (positionals.length === 0) throw new ToolgraphError('INVALID_INPUT', 'ingest: expected FILE... (JSONL trace files or dataset folders)');
  const summary = await withStore(values, (tg) => ingestSources(values, positionals, tg));
  if (values['json'] === true) {
    io.out(`${JSON.stringify(summary)}\n`);
    return;
  }
  for (const r of summary.rejected) io.err(`rejected ${r.file}${r.line > 0 ? `:${r.line}` : ''}: ${r.reason}\n`);
  io.out(
    `${formatTable(
      ['lines', 'accepted', 'stored', 'already stored', 'rejected', 'catalogue tools'],
      [[summary.lines, summary.accepted, summary.ingested, summary.duplicates, summary.rejected.length, summary.tools]],
    )}\nstore: ${summary.store}\n`,
  );
}

export async function runTools(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const [action, file] = positionals;
  if (action === 'import') {
    if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'tools import: expected FILE (JSONL, a JSON array, an MCP tools/list result, or an OpenAPI 3 document)');
    const read = await readCatalogFile(file);
    const where = (entry: SkippedEntry): string => `${skippedPlace(file, entry)}: ${entry.reason}`;
    if (values['strict'] === true && read.skipped.length > 0) {
      throw new ToolgraphError(
        'INVALID_INPUT',
        `tools import --strict: ${read.skipped.length} unreadable entr${read.skipped.length === 1 ? 'y' : 'ies'}, nothing imported; first: ${where(read.skipped[0]!)}`,
        { skipped: read.skipped.slice(0, 100) },
      );
    }
    if (read.tools.length === 0 && read.skipped.length > 0) {
      throw new ToolgraphError('INVALID_INPUT', `tools import: no entry of ${file} could be read (${read.skipped.length} skipped), nothing imported; first: ${where(read.skipped[0]!)}`);
    }
    const result = await withStore(values, async (tg) => {
      const done = await fromFile(file, () => tg.setTools(read.tools, { strict: true }));
      return { imported: read.tools.length, tools: done.tools, added: done.added };
    });
    const skipped = read.skipped;
    reportSkipped(file, skipped, io);
    print(io, values, { ...result, skipped, store: storeLabel(values) }, () =>
      `${formatTable(['imported', 'new', 'catalogue now', 'skipped'], [[result.imported, result.added, result.tools, skipped.length]])}\nstore: ${storeLabel(values)}`,
    );
    return;
  }
  if (action === 'list') {
    noWordAfter('tools list', file);
    const tools = await withStore(values, async (tg) => [...(await tg.tools())]);
    if (values['json'] === true) {
      for (const t of tools) io.out(`${JSON.stringify(t)}\n`);
      return;
    }
    // Outputs are the data flow DAG suggestion follows: listed, so a catalogue without them shows.
    const rows = tools.map((t) => [t.name, t.params.length, (t.outputs ?? []).join(', ').slice(0, 40) || '-', t.description.slice(0, 80)]);
    io.out(`${formatTable(['tool', 'params', 'outputs', 'description'], rows)}\n`);
    return;
  }
  throw new ToolgraphError('INVALID_INPUT', `tools: expected 'import FILE' or 'list', got '${action ?? ''}'`);
}

export async function runCapabilities(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const [action, arg] = positionals;
  if (action === 'import') {
    if (arg === undefined) throw new ToolgraphError('INVALID_INPUT', "capabilities import: expected FILE (JSON: an array of capabilities or {capabilities: [...]})");
    const body = await readJson(arg);
    const result = await withStore(values, (tg) => fromFile(arg, () => tg.setCapabilities(body)));
    print(io, values, { ...result, store: storeLabel(values) }, () =>
      `${formatTable(['registered capabilities now'], [[result.capabilities]])}\nstore: ${storeLabel(values)}`,
    );
    return;
  }
  if (action === 'list') {
    noWordAfter('capabilities list', arg);
    const capabilities = await withLearnedStore(values, async (tg) => [...(await tg.capabilities())]);
    if (values['json'] === true) {
      for (const c of capabilities) io.out(`${JSON.stringify(c)}\n`);
      return;
    }
    io.out(
      `${formatTable(['capability', 'source', 'tools', 'description'], capabilities.map((c) => [c.id, c.source, c.tools.join(c.ordered ? ' > ' : ', '), c.description.slice(0, 60)]))}\n`,
    );
    return;
  }
  if (action === 'rank') {
    noWordAfter('capabilities rank', arg);
    const request = {
      context: listOption(values, 'context'),
      ...(typeof values['intent'] === 'string' ? { intent: values['intent'] } : {}),
      k: intOption(values, 'k', 5),
    };
    const ranking = await withLearnedStore(values, (tg) => tg.rankCapabilities(request));
    print(io, values, ranking, () => {
      const unknown = ranking.unknownContext.length > 0 ? `\nunknown context tools ignored: ${ranking.unknownContext.join(', ')}` : '';
      const rows = ranking.items.map((c, i) => [i + 1, c.capability, c.source, c.score, c.relevance, c.structuralBoost, c.reliability, c.tools.join(c.ordered ? ' > ' : ', ')]);
      return `mode: ${ranking.mode}${unknown}\n${formatTable(['#', 'capability', 'source', 'score', 'relevance', 'boost', 'reliability', 'tools'], rows)}`;
    });
    return;
  }
  if (action === 'show') {
    if (arg === undefined) throw new ToolgraphError('INVALID_INPUT', 'capabilities show: expected ID');
    const capability = await withLearnedStore(values, (tg) => tg.expandCapability(arg));
    print(io, values, capability, () =>
      formatTable(['capability', 'source', 'ordered', 'tools', 'description'], [[capability.id, capability.source, capability.ordered ? 'yes' : 'no', capability.tools.join(capability.ordered ? ' > ' : ', '), capability.description]]),
    );
    return;
  }
  throw new ToolgraphError('INVALID_INPUT', `capabilities: expected 'import FILE', 'list', 'rank' or 'show ID', got '${action ?? ''}'`);
}

export async function runStats(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const top = intOption(values, 'top', 10, 0);
  const out = await withStore(values, async (tg) => {
    const model = tg.engine.rebuild();
    const g = model.graph;
    const order = Array.from({ length: g.n }, (_, i) => i).sort((a, b) => g.pagerank[b]! - g.pagerank[a]! || a - b);
    const store = await tg.storeStats();
    const learned = await tg.stats();
    return {
      store: { kind: store.kind, where: storeLabel(values), traces: store.traces, lastSeq: store.lastSeq, snapshotSeq: store.snapshotSeq, schemaVersion: store.schemaVersion },
      tools: g.n,
      catalogued: (await tg.tools()).filter((t) => t.description !== '' || t.params.length > 0).length,
      // Every observed transition, as export writes them; those of successful steps are the
      // graph that PageRank and Louvain read.
      transitions: learned.transitions,
      successfulTransitions: g.edgeCount,
      communities: g.communityCount,
      traces: g.traces,
      weights: model.weights.source,
      fit: learned.fit,
      topTools: order.slice(0, top).map((i) => ({ tool: g.names[i]!, pagerank: g.pagerank[i]!, calls: g.calls[i]!, community: g.communities[i]! })),
    };
  });
  print(io, values, out, () =>
    [
      formatTable(
        ['store', 'traces', 'tools', 'transitions', 'successful', 'communities', 'weights', 'snapshot at'],
        [[`${out.store.kind} ${out.store.where}`, out.traces, out.tools, out.transitions, out.successfulTransitions, out.communities, out.weights, out.store.snapshotSeq ?? '-']],
      ),
      out.fit.state === 'fitted'
        ? `fitted on ${out.fit.traces} traces at ${out.fit.fittedAt ?? '-'} in ${out.fit.ms} ms; kept: next ${out.fit.kept?.next}, next without intent ${out.fit.kept?.nextNoIntent}, search ${out.fit.kept?.search}`
        : 'no fit yet: the simple rules answer (BM25 for search, the back-off Markov rule for the next tool)',
      '',
      formatTable(['#', 'tool', 'pagerank', 'calls', 'community'], out.topTools.map((t, i) => [i + 1, t.tool, t.pagerank, t.calls, t.community])),
    ].join('\n'),
  );
}

export async function runExport(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const format = values['format'] ?? 'json';
  if (format !== 'json' && format !== 'graphml') throw new ToolgraphError('INVALID_INPUT', `--format: expected 'json' or 'graphml', got '${String(format)}'`);
  if (values['json'] === true && format !== 'json') throw new ToolgraphError('INVALID_INPUT', `export: --json is --format json, not '${format}': give one format`);
  const graph = await withStore(values, async (tg) => tg.engine.exportGraph());
  const text = format === 'json' ? `${JSON.stringify(graph)}\n` : toGraphml(graph);
  if (typeof values['out'] === 'string') {
    writeWhole(values['out'], text);
    io.err(`wrote ${graph.tools.length} tools and ${graph.transitions.length} transitions to ${values['out']}\n`);
  } else {
    io.out(text);
  }
}
