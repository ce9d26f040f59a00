/**
 * `toolgraph eval next | search | dag`: the harness of src/eval on every dataset --data names,
 * one row per dataset and method (JSON lines with --json), beside the baselines. A dataset with
 * no request to evaluate is said on stderr and printed no row.
 */
import type { Dataset } from '../schema/dataset.js';
import { evaluateDag } from '../eval/dag-eval.js';
import { evaluateNext, evaluateSearch, type EvalOptions } from '../eval/run-eval.js';
import { evaluateSearchContext } from '../eval/search-context.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs, rankingRun, validationMark, type RankingRun } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { progressBar } from './progress.js';
import { readDataset } from './read-dataset.js';
import { formatTable } from './table.js';

interface Ranking {
  readonly name: 'next' | 'search' | 'dag';
  evaluate(dataset: Dataset, options: EvalOptions, run: RankingRun): readonly { n: number }[];
  /** What a dataset lacks when it has nothing to evaluate. */
  nothing(run: RankingRun): string;
  /** The table's columns after data and method. */
  metrics(run: RankingRun): readonly string[];
}

function rankingTask(task: Ranking): EvalTask {
  return { run: (values, data, io) => runRanking(task, values, data, io) };
}

async function runRanking(task: Ranking, values: Values, data: string, io: CliOutput): Promise<void> {
  const run = rankingRun(values, task.name);
  const { folds, seed, validation, coldTools } = run;
  const rows: Record<string, string | number>[] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir, io);
    const bar = progressBar(`${task.name} ${dataset.name}`);
    const options = { folds, seed, validation, coldTools, intent: values['no-intent'] !== true, onProgress: (d: number, t: number) => bar.update(d, t) };
    const results = task.evaluate(dataset, options, run);
    bar.stop();
    if (results.every((r) => r.n === 0)) {
      io.err(`${dataset.name}: no ${task.nothing(run)}; skipped\n`);
      continue;
    }
    for (const r of results) {
      const line = { ...r, ...(task.name === 'next' ? { intent: values['no-intent'] !== true } : {}), ...(folds ? { folds } : {}), ...(coldTools ? { coldTools } : {}), ...validationMark(values) };
      if (values['json'] === true) io.out(`${JSON.stringify(line)}\n`);
      rows.push(line as unknown as Record<string, string | number>);
    }
  }
  if (values['json'] !== true) {
    const metrics = task.metrics(run);
    io.out(`${formatTable(['data', 'method', ...metrics], rows.map((r) => [r['data']!, r['method']!, ...metrics.map((m) => r[m] ?? '-')]))}\n`);
  }
}

export const NEXT_TASK = rankingTask({
  name: 'next',
  evaluate: (dataset, options) => evaluateNext(dataset, options),
  nothing: () => 'ordered test workflow with two tools or more',
  metrics: () => ['n', 'hit1', 'hit3', 'hit5', 'mrr'],
});

export const SEARCH_TASK = rankingTask({
  name: 'search',
  evaluate: (dataset, options, run) => (run.withContext ? evaluateSearchContext(dataset, options) : evaluateSearch(dataset, options)),
  nothing: (run) =>
    run.withContext ? 'ordered test workflow with an intent and two tools or more' : run.coldTools ? 'test workflow with an intent that names a held-out tool' : 'test workflow with an intent',
  metrics: (run) => (run.withContext ? ['n', 'hit1', 'hit3', 'hit5', 'mrr'] : ['n', 'hit1', 'recall5', 'recall10', 'ndcg10', 'mrr', 'nll']),
});

export const DAG_TASK = rankingTask({
  name: 'dag',
  evaluate: (dataset, options) => evaluateDag(dataset, options),
  nothing: () => 'test workflow with two tools or more',
  metrics: () => ['n', 'nodeF1', 'edgeF1', 'nodePrecision', 'nodeRecall', 'edgePrecision', 'edgeRecall', 'meanNodes', 'okShare', 'okNodeF1', 'warnShare', 'warnNodeF1', 'rejectShare', 'rejectNodeF1', 'notOkNodeF1', 'stepLoss', 'stepBrier'],
});
