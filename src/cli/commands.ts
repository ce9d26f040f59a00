/**
 * The CLI's commands: each parses its own options, calls the library, prints a table or JSON.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench, BENCH_CASES } from '../../bench/perf/run-bench.js';
import { evaluateDag } from '../../bench/eval/dag-eval.js';
import { evaluateNoMatch, type NoMatchResult } from '../../bench/eval/nomatch-eval.js';
import { evaluateNext, evaluateSearch } from '../../bench/eval/run-eval.js';
import { evaluateSearchContext } from '../../bench/eval/search-context.js';
import { ALTERNATIVES, evaluateFeedback, type AlternativeRule } from '../../bench/eval/feedback-eval.js';
import { readDataset } from './read-dataset.js';
import { ToolgraphError } from '../schema/errors.js';
import { readJsonlFile, readTextFile } from '../schema/jsonl.js';
import { contributeTrace } from '../scoring/contribute-trace.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { createEmbedder } from '../text/embedder-config.js';
import { parseTrace, workflowToTrace } from '../schema/trace.js';
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import type { FitReport } from '../recommend/fit-weights.js';
import { coverageLevel, NO_MATCH_QUANTILE } from '../recommend/no-match.js';
import type { Trace } from '../schema/types.js';
import { SIGNALS } from '../recommend/features.js';
import { Toolgraph, type ToolgraphOptions } from '../service/toolgraph.js';
import { inMemoryService, type ToolgraphService } from '../service/service.js';
import { openToolgraph } from '../service/durable-toolgraph.js';
import { SERVER_REBUILD_DELAY_MS } from '../service/server-defaults.js';
import type { SessionServiceOptions } from '../service/sessions.js';
import { sessionOptionsFromEnv } from '../engine/options.js';
import { storeOptionsFromEnv } from '../store/open-store.js';
import { runCapabilityEval } from './eval-capability.js';
import { serveCommands } from './serve-commands.js';
import { progressBar } from './progress.js';
import { DATA_DIR_OPTION, ingestSources, parseJson, readCatalog, STORE_COMMANDS, storeLabel, usesStore, withLearnedStore, withStore } from './store-commands.js';
import { decimalOption, intOption, listOption, listOptionEither, textOrWords } from './options.js';
import { formatNumber, formatTable } from './table.js';
import { print, type Command, type OptionSpec, type Values } from './command.js';


const SOURCE_OPTIONS: Record<string, OptionSpec> = {
  data: { type: 'string', help: 'a dataset folder (workflows.jsonl, tools.jsonl) to learn from' },
  traces: { type: 'string', help: 'a JSONL file of traces (ReasoningTrace or compact) to learn from' },
  tools: { type: 'string', help: 'a tool catalogue (JSONL, or JSON: array or MCP tools/list result) for --data / --traces' },
  seed: { type: 'string', help: 'seed of every random step (default 42)' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
  // Without --data / --traces, the command answers from the store.
  ...DATA_DIR_OPTION,
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

/** Builds an in-memory Toolgraph from --data / --traces / --tools, fitted on what it learned. */
async function loadToolgraph(values: Values, options: ToolgraphOptions = {}): Promise<Toolgraph> {
  const { tg } = await learnInMemory(values, options);
  tg.fit();
  return tg;
}

/** An in-memory Toolgraph that learned from --data / --traces / --tools, not fitted, and the traces it learned. */
async function learnInMemory(values: Values, options: ToolgraphOptions = {}): Promise<{ tg: Toolgraph; traces: readonly Trace[] }> {
  const seed = intOption(values, 'seed', 42, 0);
  const tg = new Toolgraph({ seed, ...options });
  const data = values['data'];
  const traces = values['traces'];
  const tools = values['tools'];
  if (data === undefined && traces === undefined) {
    throw new ToolgraphError('INVALID_INPUT', 'expected --data DIR or --traces FILE to learn from');
  }
  let learned: Trace[] = [];
  if (typeof data === 'string') {
    const dataset = await readDataset(data);
    tg.setTools(dataset.tools);
    learned = dataset.workflows.map(workflowToTrace);
    tg.ingestTraces(learned);
  }
  if (typeof tools === 'string') tg.setTools(await readCatalog(tools));
  if (typeof traces === 'string') {
    const read = await readJsonlFile(traces, (v) => parseTrace(v));
    tg.ingestTraces(read);
    learned = learned.concat(read);
  }
  return { tg, traces: learned };
}

/** A ranked list as a table: rank, tool, score, the dynamic signals that fired. */
function itemsTable(items: readonly { tool: string; score: number; signals: Readonly<Record<string, number>>; kind?: string; capability?: string }[]): string {
  // A capability item starts with its predicted tool: shown as the capability, then that tool.
  const label = (it: (typeof items)[number]): string => (it.kind === 'capability' ? `capability ${it.capability ?? ''} (starts with ${it.tool})` : it.tool);
  return formatTable(['#', 'tool', 'score', 'signals'], items.map((it, i) => [i + 1, label(it), it.score, signalsCell(it.signals)]));
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

/** Marks a JSON line measured on the held-out quarter of train, so it is never read as a test figure. */
function validationMark(values: Values): { validation?: true } {
  return values['validation'] === true ? { validation: true } : {};
}

/** eval nomatch: every --data dataset against every other --foreign dataset. */
async function runNoMatch(values: Values, data: string): Promise<void> {
  if (typeof values['foreign'] !== 'string') throw new ToolgraphError('INVALID_INPUT', 'eval nomatch: --foreign DIR2 is required');
  const seed = intOption(values, 'seed', 42, 0);
  const foreign = await Promise.all(datasetDirs(values['foreign']).map((dir) => readDataset(dir)));
  const rows: NoMatchResult[] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir);
    for (const result of evaluateNoMatch(dataset, foreign, seed, values['validation'] === true)) {
      // A rate over no request is not 0: say so, as the other evaluations do, and print no row.
      if (result.n === 0 || result.foreignN === 0) {
        const empty = result.n === 0 ? dataset.name : result.foreign;
        process.stderr.write(`${dataset.name} against ${result.foreign}: ${empty} has no test workflow with an intent; skipped\n`);
        continue;
      }
      if (values['json'] === true) process.stdout.write(`${JSON.stringify({ ...result, ...validationMark(values) })}\n`);
      rows.push(result);
    }
  }
  if (values['json'] !== true) {
    const metrics = ['n', 'foreignN', 'inDomainNoMatch', 'foreignNoMatch', 'hit1', 'hit1Always', 'recall5', 'dagReject', 'foreignDagReject'] as const;
    process.stdout.write(`${formatTable(['data', 'foreign', ...metrics], rows.map((r) => [r.data, r.foreign, ...metrics.map((m) => r[m])]))}\n`);
    // What calibration could buy: thresholds at quantiles of the evaluated in-domain coverage.
    const curve = rows.flatMap((r) => r.curve.map((p) => [r.data, r.foreign, p.quantile, p.inDomainNoMatch, p.hit1, p.foreignNoMatch]));
    process.stdout.write(`\ncalibration curve (threshold at a quantile of the evaluated in-domain coverage):\n`);
    process.stdout.write(`${formatTable(['data', 'foreign', 'quantile', 'inDomainNoMatch', 'hit1', 'foreignNoMatch'], curve)}\n`);
  }
}

const evalCommand: Command = {
  name: 'eval',
  summary: 'Evaluate next-tool prediction, tool search, no-match, DAG suggestion, feedback, capability ranking or workflow sessions on public data, beside the baselines.',
  usage: 'eval <next|search|nomatch|dag|feedback|capability|session> --data DIR [--foreign DIR2] [--folds K] [--no-intent] [--context] [--cold-tools] [--validation] [--model-accuracy P] [--json]',
  example: 'toolgraph eval next --data ../shared/data/ultratool',
  positionals: '[task]',
  options: {
    data: { type: 'string', help: 'a dataset folder, or a folder of dataset folders (all are run)' },
    folds: { type: 'string', help: 'K-fold by a stable hash of ids instead of the split field' },
    'no-intent': { type: 'boolean', help: 'next, feedback: predict without the intent text' },
    context: { type: 'boolean', help: 'search: with the tools called so far (the next-tool positions, the intent as the query)' },
    'cold-tools': { type: 'boolean', help: 'search: a fifth of the tools (by a hash of the name) held out of training with every workflow that calls one; the requests that name one' },
    foreign: { type: 'string', help: 'nomatch: a dataset folder (or folder of them) whose intents must come back no-match' },
    validation: { type: 'boolean', help: 'hold out a quarter of train instead of reading test (for design choices)' },
    alternative: { type: 'string', help: "feedback: the drifted transitions' working alternative, runner-up (default) or random" },
    'model-accuracy': { type: 'string', help: "session: the stand-in model tier's accuracy p (default 0.9)" },
    seed: { type: 'string', help: 'seed of every random step (default 42)' },
    json: { type: 'boolean', help: 'one JSON line per method' },
  },
  async run(values, positionals) {
    const task = positionals[0];
    const tasks = ['next', 'search', 'nomatch', 'dag', 'feedback', 'capability', 'session'] as const;
    if (task !== 'next' && task !== 'search' && task !== 'nomatch' && task !== 'dag' && task !== 'feedback' && task !== 'capability' && task !== 'session') {
      throw new ToolgraphError('INVALID_INPUT', `eval: expected one of ${tasks.map((t) => `'${t}'`).join(', ')}, got '${task ?? ''}'`);
    }
    if (typeof values['data'] !== 'string') throw new ToolgraphError('INVALID_INPUT', 'eval: --data DIR is required');
    if (task === 'session') {
      const run = { seed: intOption(values, 'seed', 42, 0), validation: values['validation'] === true, modelAccuracy: decimalOption(values, 'model-accuracy', 0, 1) ?? 0.9, json: values['json'] === true };
      return (await import('./eval-session.js')).runSessionEval(datasetDirs(values['data']), run);
    }
    if (task === 'nomatch') return runNoMatch(values, values['data']);
    if (task === 'feedback') return runFeedbackEval(values, values['data']);
    const folds = values['folds'] === undefined ? undefined : intOption(values, 'folds', 5, 2);
    const seed = intOption(values, 'seed', 42, 0);
    const validation = values['validation'] === true;
    const withContext = values['context'] === true;
    if (withContext && task !== 'search') throw new ToolgraphError('INVALID_INPUT', `eval: --context applies to 'search' only, not '${task}'`);
    const coldTools = values['cold-tools'] === true;
    if (coldTools && (task !== 'search' || withContext)) throw new ToolgraphError('INVALID_INPUT', "eval: --cold-tools applies to 'search' without --context only");
    if (task === 'capability') return runCapabilityEval(datasetDirs(values['data']), { folds, seed, validation, json: values['json'] === true });
    const rows: Record<string, string | number>[] = [];
    for (const dir of datasetDirs(values['data'])) {
      const dataset = await readDataset(dir);
      const bar = progressBar(`${task} ${dataset.name}`);
      const options = { folds, seed, validation, coldTools, intent: values['no-intent'] !== true, onProgress: (d: number, t: number) => bar.update(d, t) };
      const results: readonly { n: number }[] =
        task === 'next'
          ? evaluateNext(dataset, options)
          : task === 'search'
            ? withContext
              ? evaluateSearchContext(dataset, options)
              : evaluateSearch(dataset, options)
            : evaluateDag(dataset, options);
      bar.stop();
      if (results.every((r) => r.n === 0)) {
        const what = {
          next: 'ordered test workflow with two tools or more',
          search: withContext ? 'ordered test workflow with an intent and two tools or more' : coldTools ? 'test workflow with an intent that names a held-out tool' : 'test workflow with an intent',
          dag: 'test workflow with two tools or more',
        }[task];
        process.stderr.write(`${dataset.name}: no ${what}; skipped\n`);
        continue;
      }
      for (const r of results) {
        const line = { ...r, ...(task === 'next' ? { intent: values['no-intent'] !== true } : {}), ...(folds ? { folds } : {}), ...(coldTools ? { coldTools } : {}), ...validationMark(values) };
        if (values['json'] === true) process.stdout.write(`${JSON.stringify(line)}\n`);
        rows.push(line as unknown as Record<string, string | number>);
      }
    }
    if (values['json'] !== true) {
      const metrics = {
        next: ['n', 'hit1', 'hit3', 'hit5', 'mrr'],
        search: withContext ? ['n', 'hit1', 'hit3', 'hit5', 'mrr'] : ['n', 'hit1', 'recall5', 'recall10', 'ndcg10', 'mrr', 'nll'],
        dag: ['n', 'nodeF1', 'edgeF1', 'nodePrecision', 'nodeRecall', 'edgePrecision', 'edgeRecall', 'meanNodes', 'okShare', 'okNodeF1', 'rejectShare', 'rejectNodeF1', 'stepLoss', 'stepBrier'],
      }[task];
      process.stdout.write(`${formatTable(['data', 'method', ...metrics], rows.map((r) => [r['data']!, r['method']!, ...metrics.map((m) => r[m] ?? '-')]))}\n`);
    }
  },
};

/** `eval feedback`: the drift replay of bench/eval/feedback-eval.ts, one row per phase and method. */
async function runFeedbackEval(values: Values, data: string): Promise<void> {
  const seed = intOption(values, 'seed', 42, 0);
  const alternative = (values['alternative'] ?? 'runner-up') as AlternativeRule;
  if (!ALTERNATIVES.includes(alternative)) {
    throw new ToolgraphError('INVALID_INPUT', `--alternative: expected ${ALTERNATIVES.join(' or ')}, got '${String(values['alternative'])}'`);
  }
  const rows: Record<string, string | number>[] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir);
    const bar = progressBar(`feedback ${dataset.name}`);
    const { results } = evaluateFeedback(dataset, {
      seed,
      validation: values['validation'] === true,
      alternative,
      intent: values['no-intent'] !== true,
      onProgress: (d, t) => bar.update(d, t),
    });
    bar.stop();
    if (results.every((r) => r.n === 0)) {
      process.stderr.write(`${dataset.name}: no ordered test workflow with two tools or more; skipped\n`);
      continue;
    }
    for (const r of results) {
      const line = { ...r, intent: values['no-intent'] !== true, ...validationMark(values) };
      if (values['json'] === true) process.stdout.write(`${JSON.stringify(line)}\n`);
      rows.push(line as unknown as Record<string, string | number>);
    }
  }
  if (values['json'] !== true) {
    const metrics = ['n', 'nDrifted', 'hit1', 'hit1Drifted', 'hit1Stable'];
    process.stdout.write(`${formatTable(['data', 'phase', 'method', ...metrics], rows.map((r) => [r['data']!, r['phase']!, r['method']!, ...metrics.map((m) => r[m]!)]))}\n`);
    const first = rows[0];
    if (first !== undefined) {
      process.stdout.write(`drifted transitions ${first['driftedTransitions']} of ${first['candidateTransitions']} learned test transitions; ${first['replayed']} replayed traces\n`);
    }
  }
}

const fitCommand: Command = {
  name: 'fit',
  summary: "Fit the default profile's weights on recorded traces (learning to rank) and print them.",
  usage: 'fit [--data DIR | --traces FILE | --data-dir DIR] [--tools FILE] [--json]',
  example: 'toolgraph fit --data samples/nestful',
  options: SOURCE_OPTIONS,
  async run(values) {
    // From the store: fit on every stored trace and store the weights.
    const report = usesStore(values) ? await withStore(values, (tg) => tg.fit()) : await fitInMemory(values);
    const w = report.weights;
    const u = report.searchUnseen;
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
          ['weights', 'queries', 'loss before', 'loss after', 'held-out hit@1', 'back-off hit@1', 'kept', 'rule scale'],
          [
            ...tasks.map(([name, t]) => [name, t.queries, t.initialLoss, t.loss, t.hit1Fitted, t.hit1Backoff, t.selected, t.selected === 'backoff' ? t.ruleScale.toPrecision(3) : '-']),
            // lexicalUnseen alone, on searches for never-called tools; "back-off" is the search weights before.
            ['search (never-called)', u.queries, u.initialLoss, u.loss, u.hit1After, u.hit1Before, u.refitted ? 'refitted' : 'unchanged', '-'],
          ],
        ),
        '',
        stepCalibrationLine(report.steps),
        noMatchLine(report.noMatch),
      ].join('\n'),
    );
  },
};

/** The no-match rule's calibration and the held-out requests it was fitted on. */
function noMatchLine(r: FitReport['noMatch']): string {
  const c = r.calibration;
  if (c === null) return 'no match: no held-out request to set it on; any matched word is enough';
  return (
    `no match: a request fits when its coverage, similarity to the nearest recorded request and first tool's probability, ` +
    `as log p-values among ${r.requests} held-out requests, sum to at least ${c.threshold.toFixed(3)} ` +
    `(their ${100 * NO_MATCH_QUANTILE}% quantile; ${c.wordsThreshold.toFixed(3)} for the two word readings alone, with context; ` +
    `a tool nobody asked for covers a request from coverage ${coverageLevel(c).toFixed(3)})`
  );
}

/** What the workflow steps' calibration was fitted on and what it gained. */
function stepCalibrationLine(r: FitReport['steps']): string {
  const seen = `${r.steps} steps of ${r.workflows} held-out workflows, ${(100 * r.correct).toFixed(1)}% right`;
  const c = r.calibration;
  if (c === null) return `workflow steps: not calibrated (${seen}; too few)`;
  const range = `${c.value[0]!.toFixed(3)}-${c.value[c.value.length - 1]!.toFixed(3)}`;
  return `workflow steps: calibrated on ${seen}: ${c.value.length} levels, ${range}; cross-entropy ${r.lossBefore.toFixed(3)} -> ${r.lossAfter.toFixed(3)}`;
}

/** `fit --data / --traces`: as the store's fit, INVALID_INPUT when no trace succeeded (the weights would be the prior's, marked fitted). */
async function fitInMemory(values: Values): Promise<FitReport> {
  const { tg, traces } = await learnInMemory(values);
  if (!traces.some((t) => t.success && t.steps.length > 0)) {
    throw new ToolgraphError('INVALID_INPUT', 'fit: nothing to fit: the traces given have no successful one');
  }
  return tg.fit();
}

const predictCommand: Command = {
  name: 'predict',
  summary: 'Rank the next tool after the tools called so far (and the task intent).',
  usage: 'predict [--data DIR | --traces FILE | --data-dir DIR] --after a,b [--intent TEXT] [--k N] [--profile default|seed] [--json]',
  example: 'toolgraph predict --data samples/nestful --after TripadvisorSearchLocation --intent "hotels in Rome"',
  options: {
    ...SOURCE_OPTIONS,
    after: { type: 'string', help: 'comma-separated tools called so far, in order' },
    context: { type: 'string', help: 'the same as --after' },
    intent: { type: 'string', help: "the task's intent in words" },
    k: { type: 'string', help: 'number of results (default 5)' },
    profile: { type: 'string', help: "'default' (fitted) or 'seed' (spec 003 as written)" },
  },
  async run(values) {
    const request = {
      context: listOptionEither(values, 'after', 'context', 'predict'),
      ...(typeof values['intent'] === 'string' ? { intent: values['intent'] } : {}),
      k: intOption(values, 'k', 5),
      ...(typeof values['profile'] === 'string' ? { profile: values['profile'] } : {}),
    };
    const result = usesStore(values)
      ? await withLearnedStore(values, (tg) => tg.predictNext(request))
      : (await loadToolgraph(values)).predictNext(request);
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
  usage: 'search QUERY [--data DIR | --traces FILE | --data-dir DIR] [--context a,b] [--k N] [--profile default|seed] [--json]',
  example: 'toolgraph search "find flights to Paris" --data samples/nestful',
  positionals: '[query...]',
  options: {
    ...SOURCE_OPTIONS,
    query: { type: 'string', help: 'the request in words, instead of QUERY' },
    context: { type: 'string', help: 'comma-separated tools called so far' },
    k: { type: 'string', help: 'number of results (default 5)' },
    profile: { type: 'string', help: "'default' (fitted) or 'seed' (spec 003 section 1 as written: adaptive alpha)" },
  },
  async run(values, positionals) {
    const request = {
      query: textOrWords(values, 'query', positionals, 'search'),
      context: listOption(values, 'context'),
      k: intOption(values, 'k', 5),
      ...(typeof values['profile'] === 'string' ? { profile: values['profile'] } : {}),
    };
    const result = usesStore(values)
      ? await withStore(values, (tg) => tg.searchTools(request))
      : (await loadToolgraph(values)).searchTools(request);
    print(values, result, () => {
      const similarity = result.similarity === undefined ? '' : `, similarity ${result.similarity.toFixed(2)}`;
      const head = `${result.kind} (profile ${result.profile}, graph version ${result.version}, coverage ${result.coverage.toFixed(2)}${similarity})`;
      const unknown = result.unknownContext.length > 0 ? `\nunknown context tools ignored: ${result.unknownContext.join(', ')}` : '';
      return `${head}${unknown}\n${result.kind === 'no-match' ? `no match: ${result.hint}\nnearest tools:\n` : ''}${itemsTable(result.items)}`;
    });
  },
};

/** A suggested DAG as a table: node, tool, confidence, what it depends on; then the warnings. */
function dagTable(dag: DagSuggestion): string {
  const needs = new Map<string, string[]>();
  for (const e of dag.edges) needs.set(e.to, [...(needs.get(e.to) ?? []), `${e.from} (${e.source}, ${formatNumber(e.confidence)})`]);
  const layerOf = new Map<string, number>();
  dag.layers.forEach((layer, l) => layer.forEach((id) => layerOf.set(id, l)));
  const table = formatTable(
    ['node', 'layer', 'tool', 'confidence', 'after'],
    dag.nodes.map((n) => [
      n.id,
      layerOf.get(n.id) ?? 0,
      n.kind === 'tool' ? n.tool : `capability ${n.capability}: ${n.tools.join(' > ')}`,
      n.confidence,
      (needs.get(n.id) ?? []).join(', ') || '-',
    ]),
  );
  const summary = `confidence ${dag.confidence.toFixed(3)} (${dag.status}${dag.kind === 'no-match' ? ', nothing fits' : ''})`;
  return [table, summary, ...dag.warnings.map((w) => `warning: ${w}`)].join('\n');
}

const dagCommand: Command = {
  name: 'dag',
  summary: 'Suggest a workflow (a DAG of tools with dependencies and confidences) for an intent.',
  usage: 'dag INTENT [--data DIR | --traces FILE | --data-dir DIR] [--context a,b] [--max-nodes N] [--expand] [--json]',
  example: 'toolgraph dag "find flights from New York to London and hotels in London" --data samples/nestful',
  positionals: '[intent...]',
  options: {
    ...SOURCE_OPTIONS,
    intent: { type: 'string', help: 'the task in words, instead of INTENT' },
    context: { type: 'string', help: 'comma-separated tools already called (not suggested again)' },
    'max-nodes': { type: 'string', help: 'largest number of steps (default 10)' },
    expand: { type: 'boolean', help: 'list a capability\'s tools as separate nodes' },
  },
  async run(values, positionals) {
    const request = {
      intent: textOrWords(values, 'intent', positionals, 'dag'),
      context: listOption(values, 'context'),
      maxNodes: intOption(values, 'max-nodes', 10),
      expandCapabilities: values['expand'] === true,
    };
    const dag = usesStore(values)
      ? await withLearnedStore(values, (tg) => tg.suggestDag(request))
      : (await loadToolgraph(values)).suggestDag(request);
    print(values, dag, () => dagTable(dag));
  },
};

const DEMO_DAG_INTENT = 'Find flights from New York to London on August 15, 2024 and hotels in London';

const demoCommand: Command = {
  name: 'demo',
  summary: 'The main job on the bundled sample: store it, learn, fit, then predict, search and suggest a workflow from the store.',
  usage: 'demo [--data-dir DIR] [--json]',
  example: 'toolgraph demo',
  options: { ...DATA_DIR_OPTION, json: { type: 'boolean', help: 'print JSON lines instead of tables' } },
  async run(values) {
    const dir = sampleDir();
    const out = await withLearnedStore(values, async (tg) => {
      // The sample's workflows carry ids: a second run stores nothing new and skips the fit.
      const ingest = await ingestSources({}, [dir], tg);
      const fitted = ingest.ingested > 0 || tg.engine.fittedWeights.source !== 'fitted' ? await tg.fit() : null;
      return {
        ingest,
        fitted: fitted !== null,
        stats: await tg.stats(),
        prediction: await tg.predictNext({ context: ['TripadvisorSearchLocation'], intent: 'Find the best-rated hotels in Rome for next weekend' }),
        search: await tg.searchTools({ query: 'find flights from New York to London' }),
        dag: await tg.suggestDag({ intent: DEMO_DAG_INTENT }),
      };
    });
    const { stats, prediction, search, dag } = out;
    const store = { where: storeLabel(values), stored: out.ingest.ingested, alreadyStored: out.ingest.duplicates, fitted: out.fitted };
    if (values['json'] === true) {
      process.stdout.write(`${JSON.stringify({ stats, store })}\n${JSON.stringify({ prediction })}\n${JSON.stringify({ search })}\n${JSON.stringify({ dag })}\n`);
      return;
    }
    process.stdout.write(
      [
        `stored ${dir} in ${store.where}: ${store.stored} new traces (${store.alreadyStored} already there)${store.fitted ? ', fitted the ranker' : ''}`,
        `the store now holds ${stats.traces} traces, ${stats.tools} tools, ${stats.transitions} transitions`,
        '',
        'next tool after TripadvisorSearchLocation, intent "Find the best-rated hotels in Rome for next weekend":',
        itemsTable(prediction.items),
        '',
        'tools for "find flights from New York to London":',
        itemsTable(search.items),
        '',
        `a workflow for "${DEMO_DAG_INTENT}":`,
        dagTable(dag),
        '',
      ].join('\n'),
    );
  },
};

const scoreCommand: Command = {
  name: 'score',
  summary: 'Score the value of ReasoningTraces (specs 000/001) with the breakdown of every dimension.',
  usage: 'score FILE [--threshold X] [--embedder SPEC | --no-embedder] [--json]',
  example: 'toolgraph score traces.jsonl --json',
  positionals: '[file]',
  options: {
    threshold: { type: 'string', help: 'value at or above which a trace is contributed to the novelty memory (default 0.75)' },
    'no-embedder': { type: 'boolean', help: 'score without the built-in embedder (novelty 0.5)' },
    embedder: {
      type: 'string',
      value: 'SPEC',
      help: 'hashed, none, transformers:DIR or openai:URL (README, Embedders); default $TOOLGRAPH_EMBEDDER, else hashed',
    },
    json: { type: 'boolean', help: 'one JSON line per trace: the full breakdown' },
  },
  async run(values, positionals) {
    const file = positionals[0];
    if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'score: expected FILE (a JSON ReasoningTrace, or JSONL of them)');
    const threshold = decimalOption(values, 'threshold', 0, 1);
    const traces = file.endsWith('.jsonl') ? await readJsonlFile(file, (v) => v) : [parseJson(await readTextFile(file), file)];
    // Traces are scored in file order; each one at or above the threshold enters the novelty
    // memory, so later traces are novel relative to the contributed earlier ones.
    const spec = typeof values['embedder'] === 'string' ? values['embedder'] : undefined;
    const embedder = values['no-embedder'] === true ? null : await createEmbedder(spec);
    const cache = new VectorCache(embedder === null ? {} : { dimensions: embedder.dimensions });
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
 * The service behind `serve` and `mcp`: by default the durable store (`--data-dir`, or
 * PostgreSQL with TOOLGRAPH_DATABASE_URL), so that what is posted survives a restart and several
 * instances share one graph; in memory when --data / --traces name what to learn from instead.
 * `--tools` adds a catalogue either way. Rebuilds wait --rebuild-delay (default 2 s): under
 * steady ingestion a short delay keeps the server rebuilding instead of answering.
 */
async function loadService(values: Values): Promise<ToolgraphService> {
  const options = { rebuildDelayMs: intOption(values, 'rebuild-delay', SERVER_REBUILD_DELAY_MS, 0) };
  const sessions = sessionServiceOptions(values);
  if (values['data'] !== undefined || values['traces'] !== undefined) return inMemoryService(await loadToolgraph(values, options), { sessions });
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const service = await openToolgraph({
    ...storeOptionsFromEnv(process.env, dataDir),
    seed: intOption(values, 'seed', 42, 0),
    learnCapabilities: values['learn-capabilities'] === true,
    // What goes wrong in the background (a lost LISTEN connection, a failed snapshot) is told
    // on stderr: stdout is the request log (serve) or the JSON-RPC channel (mcp).
    onWarning: (message) => process.stderr.write(`toolgraph: warning: ${message}\n`),
    ...options,
    sessions,
  });
  try {
    if (typeof values['tools'] === 'string') await service.setTools(await readCatalog(values['tools']));
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

const sessionCommand: Command = {
  name: 'session',
  summary: 'Replay recorded workflows as budget-controlled sessions (spec 002) and print each decision.',
  usage: 'session replay FILE [--data DIR | --traces FILE | --data-dir DIR] [--mode adaptive|deterministic] [--budget CENTS] [--telemetry FILE] [--json]',
  example: 'toolgraph session replay samples/nestful/workflows.jsonl --data samples/nestful',
  positionals: '[action] [file]',
  options: {
    ...SOURCE_OPTIONS,
    mode: { type: 'string', help: "'adaptive' (default: a model tier for the steps the graph is unsure of, with TOOLGRAPH_LLM_URL) or 'deterministic'" },
    budget: { type: 'string', value: 'CENTS', help: "each session's budget in US cents (default SESSION_BUDGET_CENTS, 100)" },
    telemetry: { type: 'string', value: 'FILE', help: 'append the sessions\' telemetry to FILE (JSON lines)' },
    'rebuild-delay': { type: 'string', help: 'ms from an ingestion to the model rebuild that includes it (default 2000)' },
  },
  async run(values, positionals) {
    // Loaded here: only this command needs it.
    const { runSessionReplay } = await import('./session-replay.js');
    await runSessionReplay(values, positionals, loadService);
  },
};

/** Workflow sessions' settings: spec 002's environment variables, TOOLGRAPH_LLM_URL / _KEY, and --telemetry FILE. */
function sessionServiceOptions(values: Values): SessionServiceOptions {
  const telemetry = values['telemetry'];
  return { options: sessionOptionsFromEnv(process.env), ...(typeof telemetry === 'string' ? { telemetryFile: telemetry } : {}) };
}

export const COMMANDS: readonly Command[] = [
  demoCommand,
  predictCommand,
  searchCommand,
  dagCommand,
  fitCommand,
  scoreCommand,
  evalCommand,
  sessionCommand,
  benchCommand,
  ...STORE_COMMANDS,
  ...serveCommands(SOURCE_OPTIONS, loadService),
];
