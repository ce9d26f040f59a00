/**
 * The CLI commands over the durable store: `ingest`, `tools`, `capabilities`, `stats`, `export`,
 * and the store mode of `predict`, `search`, `fit` and `demo`. The store is PGlite in
 * `--data-dir` (default `.toolgraph/` in the working directory), or PostgreSQL when
 * TOOLGRAPH_DATABASE_URL is set.
 */
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { toGraphml } from '../graph/graph-export.js';
import { parseCatalogJsonl, TOOLS_FILE, WORKFLOWS_FILE } from '../schema/dataset.js';
import { isToolgraphError, ToolgraphError } from '../schema/errors.js';
import { readTextFile } from '../schema/jsonl.js';
import { parseTrace, parseWorkflowRecord, workflowToTrace } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { openToolgraph, type DurableToolgraph } from '../service/durable-toolgraph.js';
import { DATABASE_URL_ENV, DEFAULT_DATA_DIR, storeOptionsFromEnv } from '../store/open-store.js';
import { intOption, listOption, noWordAfter } from './options.js';
import { progressBar } from './progress.js';
import { formatTable } from './table.js';
import { print, type Command, type OptionSpec, type Values } from './command.js';


export const DATA_DIR_OPTION: Record<string, OptionSpec> = {
  'data-dir': {
    type: 'string',
    help: `the store's folder (PGlite; default ${DEFAULT_DATA_DIR}/ here); ${DATABASE_URL_ENV} selects PostgreSQL instead`,
  },
};

/** Where the store is, for messages: the PostgreSQL host/db or the PGlite folder. */
export function storeLabel(values: Values): string {
  const url = process.env[DATABASE_URL_ENV];
  if (url !== undefined && url.trim() !== '') return `PostgreSQL (${DATABASE_URL_ENV})`;
  return resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : DEFAULT_DATA_DIR);
}

/** Opens the durable toolgraph the options and environment name, runs `fn`, and closes it. */
export async function withStore<T>(values: Values, fn: (tg: DurableToolgraph) => Promise<T>): Promise<T> {
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const tg = await openToolgraph({ ...storeOptionsFromEnv(process.env, dataDir), seed: intOption(values, 'seed', 42, 0) });
  try {
    return await fn(tg);
  } finally {
    await tg.close();
  }
}

/**
 * withStore for an answer that reads capabilities or predictions. An open that restores a
 * snapshot reads the traces before it in the background, and until then the model has no trace
 * outcomes (a registered capability's reliability is the 0.5 of none); the model rebuilt after
 * would come too late for a process that answers once, so it is built here.
 */
export function withLearnedStore<T>(values: Values, fn: (tg: DurableToolgraph) => Promise<T>): Promise<T> {
  return withStore(values, async (tg) => {
    await tg.capabilitiesLearned();
    tg.engine.rebuild();
    return fn(tg);
  });
}

// ---------------------------------------------------------------------------------------------
// Reading trace files

export interface Rejection {
  readonly file: string;
  /** 1-based line, or 0 for the whole file. */
  readonly line: number;
  readonly reason: string;
}

export interface ReadTraces {
  readonly traces: Trace[];
  readonly tools: ToolInfo[];
  readonly rejected: Rejection[];
  readonly lines: number;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Keys only a dataset workflow record has: such a line is read as one, and its errors reported
// as a workflow's.
const WORKFLOW_KEYS = ['edges', 'structure', 'ordered', 'split', 'source'];

/** One JSON value as a trace: any accepted trace format, or a dataset workflow record. */
export function toTrace(value: unknown): Trace {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && WORKFLOW_KEYS.some((k) => Object.hasOwn(value, k))) {
    return workflowToTrace(parseWorkflowRecord(value));
  }
  return parseTrace(value);
}

/** A dataset folder's workflows.jsonl line: a workflow record only, whatever keys it has. */
function workflowTrace(value: unknown): Trace {
  return workflowToTrace(parseWorkflowRecord(value));
}

/**
 * The traces of FILE (JSONL/NDJSON, one trace per line; or `.json` holding one trace or an
 * array), or of a dataset folder (workflows.jsonl, and tools.jsonl as a catalogue). A bad line
 * is rejected with its reason, a folder's workflow line as a file's; the good ones are kept. A
 * folder's catalogue is taken whole or not at all, as `tools import` takes one.
 */
export async function readTraceSource(path: string, onLine: (done: number, total: number) => void = () => {}): Promise<ReadTraces> {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const workflows = join(path, WORKFLOWS_FILE);
    // NOT_FOUND, as loadDataset says for `--data` and `eval`: the folder lacks a file.
    if (!existsSync(workflows)) {
      throw new ToolgraphError('NOT_FOUND', `ingest: ${path} is a folder without ${WORKFLOWS_FILE}; give trace files or a dataset folder`);
    }
    const catalogue = join(path, TOOLS_FILE);
    const tools = existsSync(catalogue) ? parseCatalogJsonl(await readTextFile(catalogue), catalogue) : [];
    return { ...readLines(workflows, await readTextFile(workflows), workflowTrace, onLine), tools };
  }
  const text = await readTextFile(path);
  if (path.endsWith('.json')) {
    const traces: Trace[] = [];
    const rejected: Rejection[] = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { traces, tools: [], rejected: [{ file: path, line: 0, reason: `invalid JSON: ${message(error)}` }], lines: 1 };
    }
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      try {
        traces.push(toTrace(item));
      } catch (error) {
        rejected.push({ file: path, line: 0, reason: `[${i}]: ${message(error)}` });
      }
    });
    onLine(items.length, items.length);
    return { traces, tools: [], rejected, lines: items.length };
  }
  return readLines(path, text, toTrace, onLine);
}

/** JSON lines of `file` as traces by `parse`, each bad line rejected with its number and reason. */
function readLines(file: string, text: string, parse: (value: unknown) => Trace, onLine: (done: number, total: number) => void): ReadTraces {
  const traces: Trace[] = [];
  const rejected: Rejection[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  let counted = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i % 1_000 === 0) onLine(i, lines.length);
    if (line.trim() === '') continue;
    counted++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      rejected.push({ file, line: i + 1, reason: `invalid JSON: ${message(error)}` });
      continue;
    }
    try {
      traces.push(parse(value));
    } catch (error) {
      if (!isToolgraphError(error)) throw error;
      rejected.push({ file, line: i + 1, reason: `${error.code}: ${error.message}` });
    }
  }
  onLine(lines.length, lines.length);
  return { traces, tools: [], rejected, lines: counted };
}

/**
 * A catalogue file (`tools import`, `--tools`): JSONL as a dataset's tools.jsonl
 * (parseCatalogJsonl), or JSON. `.jsonl`/`.ndjson` and `.json` say which; under any other name
 * the text does, so that a saved `tools list --json` imports whatever it is called: one JSON
 * catalogue (an array, or `{tools: [...]}`) is JSON; else a text whose first line is a JSON
 * value by itself is JSON lines (one tool on one line is a line), and a bad line is named; else
 * it is JSON, with the JSON parser's error for a pretty-printed file with a mistake.
 */
export async function readCatalog(path: string): Promise<unknown> {
  const text = await readTextFile(path);
  if (path.endsWith('.jsonl') || path.endsWith('.ndjson')) return parseCatalogJsonl(text, path);
  if (path.endsWith('.json')) return parseJson(text, path);
  const whole = jsonValue(text);
  if (whole !== undefined && (Array.isArray(whole.value) || (isObject(whole.value) && Object.hasOwn(whole.value, 'tools')))) return whole.value;
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((line) => line.trim() !== '');
  if (first !== undefined && jsonValue(first) !== undefined) return parseCatalogJsonl(text, path);
  return whole !== undefined ? whole.value : parseJson(text, path);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function jsonValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** A JSON file's value; INVALID_INPUT naming the file when it is not JSON. */
async function readJson(path: string): Promise<unknown> {
  return parseJson(await readTextFile(path), path);
}

/** `text` read from `path` as JSON; INVALID_INPUT naming the file when it is not JSON. */
export function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `'${path}' is not valid JSON: ${message(error)}`);
  }
}

/** Writes `text` to `path` through a temporary file, so a reader never sees half of it. */
function writeWhole(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new ToolgraphError('INVALID_INPUT', `--out: cannot write ${path} (${message(error)})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Commands

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
      `ingest --strict: ${rejected.length} rejected line(s), nothing written; first: ${first.file}:${first.line}: ${first.reason}`,
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

const ingestCommand: Command = {
  name: 'ingest',
  summary: 'Store traces (JSONL of any trace format, or dataset folders) durably and learn from them.',
  usage: 'ingest FILE... [--data-dir DIR] [--strict] [--json]',
  example: 'toolgraph ingest traces.jsonl ../shared/data/ultratool',
  positionals: '[files...]',
  options: {
    ...DATA_DIR_OPTION,
    strict: { type: 'boolean', help: 'write nothing if any line is rejected (exit 2)' },
    seed: { type: 'string', help: 'seed of every random step (default 42)' },
    json: { type: 'boolean', help: 'print the summary as JSON' },
  },
  async run(values, positionals) {
    if (positionals.length === 0) throw new ToolgraphError('INVALID_INPUT', 'ingest: expected FILE... (JSONL trace files or dataset folders)');
    const summary = await withStore(values, (tg) => ingestSources(values, positionals, tg));
    if (values['json'] === true) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      return;
    }
    for (const r of summary.rejected) process.stderr.write(`rejected ${r.file}${r.line > 0 ? `:${r.line}` : ''}: ${r.reason}\n`);
    process.stdout.write(
      `${formatTable(
        ['lines', 'accepted', 'stored', 'already stored', 'rejected', 'catalogue tools'],
        [[summary.lines, summary.accepted, summary.ingested, summary.duplicates, summary.rejected.length, summary.tools]],
      )}\nstore: ${summary.store}\n`,
    );
  },
};

const toolsCommand: Command = {
  name: 'tools',
  summary: 'Import a tool catalogue into the store, or list the stored one.',
  usage: 'tools import FILE | tools list [--data-dir DIR] [--json]',
  example: 'toolgraph tools import mcp-tools-list.json',
  positionals: '[action] [file]',
  options: { ...DATA_DIR_OPTION, json: { type: 'boolean', help: 'print JSON' } },
  async run(values, positionals) {
    const [action, file] = positionals;
    if (action === 'import') {
      if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'tools import: expected FILE (JSONL, a JSON array, or an MCP tools/list result)');
      const catalog = await readCatalog(file);
      const result = await withStore(values, async (tg) => {
        const done = await tg.setTools(catalog);
        return { imported: Array.isArray(catalog) ? catalog.length : (catalog as { tools?: unknown[] }).tools?.length ?? 0, tools: done.tools, added: done.added };
      });
      print(values, { ...result, store: storeLabel(values) }, () =>
        `${formatTable(['imported', 'new', 'catalogue now'], [[result.imported, result.added, result.tools]])}\nstore: ${storeLabel(values)}`,
      );
      return;
    }
    if (action === 'list') {
      noWordAfter('tools list', file);
      const tools = await withStore(values, async (tg) => [...(await tg.tools())]);
      if (values['json'] === true) {
        for (const t of tools) process.stdout.write(`${JSON.stringify(t)}\n`);
        return;
      }
      // Outputs are the data flow DAG suggestion follows: listed, so a catalogue without them shows.
      const rows = tools.map((t) => [t.name, t.params.length, (t.outputs ?? []).join(', ').slice(0, 40) || '-', t.description.slice(0, 80)]);
      process.stdout.write(`${formatTable(['tool', 'params', 'outputs', 'description'], rows)}\n`);
      return;
    }
    throw new ToolgraphError('INVALID_INPUT', `tools: expected 'import FILE' or 'list', got '${action ?? ''}'`);
  },
};

const capabilitiesCommand: Command = {
  name: 'capabilities',
  summary: 'Register capabilities (named groups of tools) in the store, list them, rank them, or show one.',
  usage: 'capabilities import FILE | list | rank [--intent TEXT] [--context a,b] [--k N] | show ID [--data-dir DIR] [--json]',
  example: 'toolgraph capabilities import capabilities.json && toolgraph capabilities rank --intent "book a hotel"',
  positionals: '[action] [arg]',
  options: {
    ...DATA_DIR_OPTION,
    intent: { type: 'string', help: "rank: the task's intent in words" },
    context: { type: 'string', help: 'rank: comma-separated tools called so far, in order' },
    k: { type: 'string', help: 'rank: number of results (default 5)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  async run(values, positionals) {
    const [action, arg] = positionals;
    if (action === 'import') {
      if (arg === undefined) throw new ToolgraphError('INVALID_INPUT', "capabilities import: expected FILE (JSON: an array of capabilities or {capabilities: [...]})");
      const body = await readJson(arg);
      const result = await withStore(values, (tg) => tg.setCapabilities(body));
      print(values, { ...result, store: storeLabel(values) }, () =>
        `${formatTable(['registered capabilities now'], [[result.capabilities]])}\nstore: ${storeLabel(values)}`,
      );
      return;
    }
    if (action === 'list') {
      noWordAfter('capabilities list', arg);
      const capabilities = await withLearnedStore(values, async (tg) => [...(await tg.capabilities())]);
      if (values['json'] === true) {
        for (const c of capabilities) process.stdout.write(`${JSON.stringify(c)}\n`);
        return;
      }
      process.stdout.write(
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
      print(values, ranking, () => {
        const unknown = ranking.unknownContext.length > 0 ? `\nunknown context tools ignored: ${ranking.unknownContext.join(', ')}` : '';
        const rows = ranking.items.map((c, i) => [i + 1, c.capability, c.source, c.score, c.relevance, c.structuralBoost, c.reliability, c.tools.join(c.ordered ? ' > ' : ', ')]);
        return `mode: ${ranking.mode}${unknown}\n${formatTable(['#', 'capability', 'source', 'score', 'relevance', 'boost', 'reliability', 'tools'], rows)}`;
      });
      return;
    }
    if (action === 'show') {
      if (arg === undefined) throw new ToolgraphError('INVALID_INPUT', 'capabilities show: expected ID');
      const capability = await withLearnedStore(values, (tg) => tg.expandCapability(arg));
      print(values, capability, () =>
        formatTable(['capability', 'source', 'ordered', 'tools', 'description'], [[capability.id, capability.source, capability.ordered ? 'yes' : 'no', capability.tools.join(capability.ordered ? ' > ' : ', '), capability.description]]),
      );
      return;
    }
    throw new ToolgraphError('INVALID_INPUT', `capabilities: expected 'import FILE', 'list', 'rank' or 'show ID', got '${action ?? ''}'`);
  },
};

const statsCommand: Command = {
  name: 'stats',
  summary: 'What the store has learned: tools, transitions, communities, top tools by PageRank.',
  usage: 'stats [--data-dir DIR] [--top N] [--json]',
  example: 'toolgraph stats --top 5',
  options: {
    ...DATA_DIR_OPTION,
    top: { type: 'string', help: 'how many top tools to list (default 10)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  async run(values) {
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
        topTools: order.slice(0, top).map((i) => ({ tool: g.names[i]!, pagerank: g.pagerank[i]!, calls: g.calls[i]!, community: g.communities[i]! })),
      };
    });
    print(values, out, () =>
      [
        formatTable(
          ['store', 'traces', 'tools', 'transitions', 'successful', 'communities', 'weights', 'snapshot at'],
          [[`${out.store.kind} ${out.store.where}`, out.traces, out.tools, out.transitions, out.successfulTransitions, out.communities, out.weights, out.store.snapshotSeq ?? '-']],
        ),
        '',
        formatTable(['#', 'tool', 'pagerank', 'calls', 'community'], out.topTools.map((t, i) => [i + 1, t.tool, t.pagerank, t.calls, t.community])),
      ].join('\n'),
    );
  },
};

const exportCommand: Command = {
  name: 'export',
  summary: 'Export the learned graph as JSON or GraphML.',
  usage: 'export [--format json|graphml | --json] [--out FILE] [--data-dir DIR]',
  example: 'toolgraph export --format graphml --out toolgraph.graphml',
  options: {
    ...DATA_DIR_OPTION,
    format: { type: 'string', help: "'json' (default) or 'graphml'" },
    json: { type: 'boolean', help: 'the same as --format json (as every command takes --json)' },
    out: { type: 'string', help: 'write to FILE (whole, through a temporary file) instead of stdout' },
  },
  async run(values) {
    const format = values['format'] ?? 'json';
    if (format !== 'json' && format !== 'graphml') throw new ToolgraphError('INVALID_INPUT', `--format: expected 'json' or 'graphml', got '${String(format)}'`);
    if (values['json'] === true && format !== 'json') throw new ToolgraphError('INVALID_INPUT', `export: --json is --format json, not '${format}': give one format`);
    const graph = await withStore(values, async (tg) => tg.engine.exportGraph());
    const text = format === 'json' ? `${JSON.stringify(graph)}\n` : toGraphml(graph);
    if (typeof values['out'] === 'string') {
      writeWhole(values['out'], text);
      process.stderr.write(`wrote ${graph.tools.length} tools and ${graph.transitions.length} transitions to ${values['out']}\n`);
    } else {
      process.stdout.write(text);
    }
  },
};

export const STORE_COMMANDS: readonly Command[] = [ingestCommand, toolsCommand, capabilitiesCommand, statsCommand, exportCommand];

/**
 * True when a command should answer from the store: no --data / --traces source given. `--tools`
 * then is bad usage rather than ignored: it adds a catalogue to what is learned in memory, and a
 * one-shot command does not change the store's.
 */
export function usesStore(values: Values): boolean {
  const store = values['data'] === undefined && values['traces'] === undefined;
  if (store && values['tools'] !== undefined) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      '--tools goes with --data or --traces (what is learned in memory); a store\'s catalogue is imported with `toolgraph tools import FILE`',
    );
  }
  return store;
}
