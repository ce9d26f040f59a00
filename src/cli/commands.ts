/**
 * The CLI's commands: each parses its own options, calls the library, prints a table or JSON.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench, BENCH_CASES } from '../../bench/perf/run-bench.js';
import { evaluateNext, evaluateSearch } from '../../bench/eval/run-eval.js';
import { loadDataset } from '../schema/dataset.js';
import { ToolgraphError } from '../schema/errors.js';
import { readJsonlFile, readTextFile } from '../schema/jsonl.js';
import { contributeTrace } from '../scoring/contribute-trace.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { createHashedEmbedder } from '../text/hashed-embedder.js';
import { parseTrace, workflowToTrace } from '../schema/trace.js';
import { SIGNALS } from '../recommend/features.js';
import { Toolgraph, type ToolgraphOptions } from '../service/toolgraph.js';
import { inMemoryService, type ToolgraphService } from '../service/service.js';
import { SERVER_REBUILD_DELAY_MS } from '../service/server-defaults.js';
import { serveCommands } from './serve-commands.js';
import { progressBar } from './progress.js';
import { formatTable } from './table.js';

type Values = Record<string, string | boolean | undefined>;

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly help: string;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly example: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  run(values: Values, positionals: readonly string[]): Promise<void>;
}

const SOURCE_OPTIONS: Record<string, OptionSpec> = {
  data: { type: 'string', help: 'a dataset folder (workflows.jsonl, tools.jsonl) to learn from' },
  traces: { type: 'string', help: 'a JSONL file of traces (ReasoningTrace or compact) to learn from' },
  tools: { type: 'string', help: 'a tool catalogue: JSONL, or JSON (array or MCP tools/list result)' },
  seed: { type: 'string', help: 'seed of every random step (default 42)' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
};

/** The bundled sample: NESTFUL (Apache-2.0), shipped in samples/. */
export function sampleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..']) {
    const candidate = resolve(here, up, 'samples', 'nestful');
    if (existsSync(candidate)) return candidate;
  }
  throw new ToolgraphError('NOT_FOUND', 'toolgraph: bundled samples/nestful not found next to the package');
}

function intOption(values: Values, name: string, fallback: number, min = 1): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ToolgraphError('INVALID_INPUT', `--${name}: expected an integer >= ${min}, got '${String(raw)}'`);
  }
  return value;
}

function listOption(values: Values, name: string): string[] {
  const raw = values[name];
  if (typeof raw !== 'string' || raw === '') return [];
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function print(values: Values, json: unknown, table: () => string): void {
  process.stdout.write(values['json'] === true ? `${JSON.stringify(json)}\n` : `${table()}\n`);
}

/** Builds an in-memory Toolgraph from --data / --traces / --tools, fitted on what it learned. */
async function loadToolgraph(values: Values, options: ToolgraphOptions = {}): Promise<Toolgraph> {
  const seed = intOption(values, 'seed', 42, 0);
  const tg = new Toolgraph({ seed, ...options });
  const data = values['data'];
  const traces = values['traces'];
  const tools = values['tools'];
  if (data === undefined && traces === undefined) {
    throw new ToolgraphError('INVALID_INPUT', 'expected --data DIR or --traces FILE to learn from');
  }
  if (typeof data === 'string') {
    const dataset = await loadDataset(data);
    tg.setTools(dataset.tools);
    tg.ingestTraces(dataset.workflows.map(workflowToTrace));
  }
  if (typeof tools === 'string') tg.setTools(await readCatalogFile(tools));
  if (typeof traces === 'string') tg.ingestTraces(await readJsonlFile(traces, (v) => parseTrace(v)));
  tg.fit();
  return tg;
}

async function readCatalogFile(path: string): Promise<unknown> {
  if (path.endsWith('.jsonl')) return readJsonlFile(path, (v) => v);
  return parseJsonText(await readTextFile(path), path);
}

function parseJsonText(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `'${path}' is not valid JSON: ${(error as Error).message}`);
  }
}

/** A ranked list as a table: rank, tool, score, the dynamic signals that fired. */
function itemsTable(items: readonly { tool: string; score: number; signals: Readonly<Record<string, number>> }[]): string {
  return formatTable(['#', 'tool', 'score', 'signals'], items.map((it, i) => [i + 1, it.tool, it.score, signalsCell(it.signals)]));
}

function signalsCell(signals: Readonly<Record<string, number>>): string {
  return SIGNALS.filter((s) => (signals[s] ?? 0) > 0 && s !== 'pagerank' && s !== 'popularity')
    .map((s) => `${s}=${signals[s]!.toFixed(2)}`)
    .join(' ');
}

/** Dataset folders under DIR: DIR itself if it has workflows.jsonl, else its children that do. */
function datasetDirs(dir: string): string[] {
  if (existsSync(join(dir, 'workflows.jsonl'))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ToolgraphError('NOT_FOUND', `--data: no such folder '${dir}'`);
  }
  const children = readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => existsSync(join(path, 'workflows.jsonl')))
    .sort();
  if (children.length === 0) throw new ToolgraphError('NOT_FOUND', `--data: no workflows.jsonl in '${dir}' or its subfolders`);
  return children;
}

const evalCommand: Command = {
  name: 'eval',
  summary: 'Evaluate next-tool prediction or tool search on public data, beside the baselines.',
  usage: 'eval <next|search> --data DIR [--folds K] [--no-intent] [--json]',
  example: 'toolgraph eval next --data ../shared/data/ultratool',
  options: {
    data: { type: 'string', help: 'a dataset folder, or a folder of dataset folders (all are run)' },
    folds: { type: 'string', help: 'K-fold by a stable hash of ids instead of the split field' },
    'no-intent': { type: 'boolean', help: 'next: predict without the intent text' },
    seed: { type: 'string', help: 'seed of every random step (default 42)' },
    json: { type: 'boolean', help: 'one JSON line per method' },
  },
  async run(values, positionals) {
    const task = positionals[0];
    if (task !== 'next' && task !== 'search') {
      throw new ToolgraphError('INVALID_INPUT', `eval: expected 'next' or 'search', got '${task ?? ''}'`);
    }
    if (typeof values['data'] !== 'string') throw new ToolgraphError('INVALID_INPUT', 'eval: --data DIR is required');
    const folds = values['folds'] === undefined ? undefined : intOption(values, 'folds', 5, 2);
    const seed = intOption(values, 'seed', 42, 0);
    const rows: Record<string, string | number>[] = [];
    for (const dir of datasetDirs(values['data'])) {
      const dataset = await loadDataset(dir);
      const bar = progressBar(`${task} ${dataset.name}`);
      const options = { folds, seed, intent: values['no-intent'] !== true, onProgress: (d: number, t: number) => bar.update(d, t) };
      const results = task === 'next' ? evaluateNext(dataset, options) : evaluateSearch(dataset, options);
      bar.stop();
      if (results.every((r) => r.n === 0)) {
        process.stderr.write(`${dataset.name}: no ${task === 'next' ? 'ordered test workflow with two tools or more' : 'test workflow with an intent'}; skipped\n`);
        continue;
      }
      for (const r of results) {
        const line = { ...r, ...(task === 'next' ? { intent: values['no-intent'] !== true } : {}), ...(folds ? { folds } : {}) };
        if (values['json'] === true) process.stdout.write(`${JSON.stringify(line)}\n`);
        rows.push(line as unknown as Record<string, string | number>);
      }
    }
    if (values['json'] !== true) {
      const metrics = task === 'next' ? ['n', 'hit1', 'hit3', 'hit5', 'mrr'] : ['n', 'hit1', 'recall5', 'recall10', 'ndcg10', 'mrr'];
      process.stdout.write(`${formatTable(['data', 'method', ...metrics], rows.map((r) => [r['data']!, r['method']!, ...metrics.map((m) => r[m]!)]))}\n`);
    }
  },
};

const fitCommand: Command = {
  name: 'fit',
  summary: "Fit the default profile's weights on recorded traces (learning to rank) and print them.",
  usage: 'fit (--data DIR | --traces FILE) [--tools FILE] [--json]',
  example: 'toolgraph fit --data samples/nestful',
  options: SOURCE_OPTIONS,
  async run(values) {
    const tg = await loadToolgraph(values);
    const w = tg.fittedWeights;
    const report = tg.lastFit!;
    const tasks = [
      ['next', report.next],
      ['next (no intent)', report.nextNoIntent],
      ['search', report.search],
    ] as const;
    print(values, report, () =>
      [
        formatTable(['signal', 'next', 'next (no intent)', 'search'], SIGNALS.map((s, i) => [s, w.next[i]!, w.nextNoIntent[i]!, w.search[i]!])),
        '',
        formatTable(
          ['weights', 'queries', 'loss before', 'loss after', 'held-out hit@1', 'back-off hit@1', 'kept'],
          tasks.map(([name, t]) => [name, t.queries, t.initialLoss, t.loss, t.hit1Fitted, t.hit1Backoff, name === 'search' ? 'fitted' : t.selected]),
        ),
      ].join('\n'),
    );
  },
};

const predictCommand: Command = {
  name: 'predict',
  summary: 'Rank the next tool after the tools called so far (and the task intent).',
  usage: 'predict (--data DIR | --traces FILE) --context a,b [--intent TEXT] [--k N] [--profile default|seed] [--json]',
  example: 'toolgraph predict --data samples/nestful --context TripadvisorSearchLocation --intent "hotels in Rome"',
  options: {
    ...SOURCE_OPTIONS,
    context: { type: 'string', help: 'comma-separated tools called so far, in order' },
    intent: { type: 'string', help: "the task's intent in words" },
    k: { type: 'string', help: 'number of results (default 5)' },
    profile: { type: 'string', help: "'default' (fitted) or 'seed' (spec 003 as written)" },
  },
  async run(values) {
    const tg = await loadToolgraph(values);
    const result = tg.predictNext({
      context: listOption(values, 'context'),
      ...(typeof values['intent'] === 'string' ? { intent: values['intent'] } : {}),
      k: intOption(values, 'k', 5),
      ...(typeof values['profile'] === 'string' ? { profile: values['profile'] } : {}),
    });
    print(values, result, () => {
      const head = `${result.kind} (profile ${result.profile}, graph version ${result.version})`;
      const unknown = result.unknownContext.length > 0 ? `\nunknown context tools ignored: ${result.unknownContext.join(', ')}` : '';
      return `${head}${unknown}\n${itemsTable(result.items)}`;
    });
  },
};

const searchCommand: Command = {
  name: 'search',
  summary: 'Rank the tools that fit a request in words.',
  usage: 'search (--data DIR | --traces FILE) --query TEXT [--context a,b] [--k N] [--json]',
  example: 'toolgraph search --data samples/nestful --query "find flights to Paris"',
  options: {
    ...SOURCE_OPTIONS,
    query: { type: 'string', help: 'the request in words' },
    context: { type: 'string', help: 'comma-separated tools called so far' },
    k: { type: 'string', help: 'number of results (default 5)' },
  },
  async run(values) {
    const tg = await loadToolgraph(values);
    const result = tg.searchTools({ query: values['query'] ?? '', context: listOption(values, 'context'), k: intOption(values, 'k', 5) });
    print(values, result, () => itemsTable(result.items));
  },
};

const demoCommand: Command = {
  name: 'demo',
  summary: 'The main job on the bundled sample data: learn, fit, predict and search.',
  usage: 'demo [--json]',
  example: 'toolgraph demo',
  options: { json: { type: 'boolean', help: 'print JSON lines instead of tables' } },
  async run(values) {
    const dir = sampleDir();
    const tg = await loadToolgraph({ data: dir });
    const stats = tg.stats();
    const prediction = tg.predictNext({ context: ['TripadvisorSearchLocation'], intent: 'Find the best-rated hotels in Rome for next weekend' });
    const search = tg.searchTools({ query: 'find flights from New York to London' });
    if (values['json'] === true) {
      process.stdout.write(`${JSON.stringify({ stats })}\n${JSON.stringify({ prediction })}\n${JSON.stringify({ search })}\n`);
      return;
    }
    process.stdout.write(
      [
        `learned from ${dir}: ${stats.traces} traces, ${stats.tools} tools, ${stats.transitions} transitions`,
        '',
        'next tool after TripadvisorSearchLocation, intent "Find the best-rated hotels in Rome for next weekend":',
        itemsTable(prediction.items),
        '',
        'tools for "find flights from New York to London":',
        itemsTable(search.items),
        '',
      ].join('\n'),
    );
  },
};

const scoreCommand: Command = {
  name: 'score',
  summary: 'Score the value of ReasoningTraces (specs 000/001) with the breakdown of every dimension.',
  usage: 'score FILE [--threshold X] [--no-embedder] [--json]',
  example: 'toolgraph score traces.jsonl --json',
  options: {
    threshold: { type: 'string', help: 'value at or above which a trace is contributed to the novelty memory (default 0.75)' },
    'no-embedder': { type: 'boolean', help: 'score without the built-in embedder (novelty 0.5)' },
    json: { type: 'boolean', help: 'one JSON line per trace: the full breakdown' },
  },
  async run(values, positionals) {
    const file = positionals[0];
    if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'score: expected FILE (a JSON ReasoningTrace, or JSONL of them)');
    const threshold = values['threshold'] === undefined ? undefined : Number(values['threshold']);
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
      throw new ToolgraphError('INVALID_INPUT', `--threshold: expected a number in [0, 1], got '${String(values['threshold'])}'`);
    }
    const traces = file.endsWith('.jsonl') ? await readJsonlFile(file, (v) => v) : [parseJsonText(await readTextFile(file), file)];
    // Traces are scored in file order; each one at or above the threshold enters the novelty
    // memory, so later traces are novel relative to the contributed earlier ones.
    const cache = new VectorCache();
    const embedder = values['no-embedder'] === true ? null : createHashedEmbedder();
    const rows: (string | number)[][] = [];
    for (const [i, trace] of traces.entries()) {
      const result = await contributeTrace(trace, { cache, embedder, ...(threshold !== undefined ? { threshold } : {}) }).catch((error: unknown) => {
        if (error instanceof ToolgraphError) throw new ToolgraphError(error.code, `trace ${i + 1}: ${error.message}`, error.details);
        throw error;
      });
      const b = result.breakdown;
      const id = (trace as { id?: unknown }).id;
      if (values['json'] === true) {
        process.stdout.write(`${JSON.stringify({ id: typeof id === 'string' ? id : null, contributed: result.contributed, ...b })}\n`);
        continue;
      }
      rows.push([
        typeof id === 'string' ? id : `#${i + 1}`,
        b.score,
        b.dimensions.complexity,
        b.dimensions.novelty,
        b.dimensions.toolDiversity,
        b.dimensions.outcomeConfidence,
        b.profile,
        b.overrides.map((o) => o.rule).join(' ') || '-',
        result.contributed ? 'yes' : 'no',
      ]);
    }
    if (values['json'] !== true) {
      process.stdout.write(`${formatTable(['trace', 'value', 'C', 'N', 'D', 'O', 'profile', 'overrides', 'contributed'], rows)}\n`);
    }
  },
};

const benchCommand: Command = {
  name: 'bench',
  summary: 'Performance benchmarks on seeded synthetic graphs with planted communities.',
  usage: `bench [--case ${BENCH_CASES.join('|')}] [--tools N] [--edges M] [--json]`,
  example: 'toolgraph bench --case predict --tools 10000 --edges 100000',
  options: {
    case: { type: 'string', help: `one case (${BENCH_CASES.join(', ')}); default all` },
    tools: { type: 'string', help: 'number of tools (default 10000)' },
    edges: { type: 'string', help: 'number of directed edges (default 100000)' },
    seed: { type: 'string', help: 'seed (default 42)' },
    json: { type: 'boolean', help: 'one JSON line per case' },
  },
  async run(values) {
    const only = values['case'];
    if (typeof only === 'string' && !(BENCH_CASES as readonly string[]).includes(only)) {
      throw new ToolgraphError('INVALID_INPUT', `bench: --case must be one of ${BENCH_CASES.join(', ')}`);
    }
    await runBench({
      cases: typeof only === 'string' ? [only as (typeof BENCH_CASES)[number]] : [...BENCH_CASES],
      tools: intOption(values, 'tools', 10_000, 2),
      edges: intOption(values, 'edges', 100_000, 1),
      seed: intOption(values, 'seed', 42, 0),
      json: values['json'] === true,
    });
  },
};

/**
 * The service behind `serve` and `mcp`: learned in memory from --data / --traces like the other
 * commands, or empty (with --tools, if given) when neither is given: traces then arrive over the
 * API.
 */
async function loadService(values: Values): Promise<ToolgraphService> {
  const options = { rebuildDelayMs: intOption(values, 'rebuild-delay', SERVER_REBUILD_DELAY_MS, 0) };
  if (values['data'] !== undefined || values['traces'] !== undefined) return inMemoryService(await loadToolgraph(values, options));
  const tg = new Toolgraph({ seed: intOption(values, 'seed', 42, 0), ...options });
  if (typeof values['tools'] === 'string') tg.setTools(await readCatalogFile(values['tools']));
  return inMemoryService(tg);
}

export const COMMANDS: readonly Command[] = [
  demoCommand,
  predictCommand,
  searchCommand,
  fitCommand,
  scoreCommand,
  evalCommand,
  benchCommand,
  ...serveCommands(SOURCE_OPTIONS, loadService),
];
