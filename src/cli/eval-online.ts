/**
 * `toolgraph eval online`: each dataset's train replayed in batches into a fresh store that fits
 * itself as a served one does, its test requests asked at each checkpoint beside the baselines
 * trained on the same prefix (src/eval/online-eval.ts); one table per dataset, or a JSON line per
 * checkpoint and method with --json.
 */
import { ToolgraphError } from '../schema/errors.js';
import { evaluateOnline, type OnlineResult } from '../eval/online-eval.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { intOption } from './options.js';
import { progressBar } from './progress.js';
import { readDataset } from './read-dataset.js';
import { formatTable } from './table.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** The table's columns, each with the result's figure it shows ('-' where a method has none). */
const COLUMNS: readonly (readonly [string, keyof OnlineResult])[] = [
  ['checkpoint', 'checkpoint'],
  ['traces', 'traces'],
  ['method', 'method'],
  ['search hit1', 'searchHit1'],
  ['search recall5', 'searchRecall5'],
  ['next hit1', 'nextHit1'],
  ['dag nodeF1', 'dagNodeF1'],
  ['dag edgeF1', 'dagEdgeF1'],
  ['fit', 'fit'],
  ['fitTraces', 'fitTraces'],
];

// The replay reads train in file order and asks test: it has no folds, no validation quarter,
// and asks the next tool with the intent.
const NOT_ONLINE = ['folds', 'validation', 'no-intent', 'context', 'cold-tools', 'foreign', 'alternative'];

async function runOnline(values: Values, data: string, io: CliOutput): Promise<void> {
  const stray = NOT_ONLINE.find((name) => values[name] !== undefined);
  if (stray !== undefined) throw new ToolgraphError('INVALID_INPUT', `eval: --${stray} does not apply to 'online' (train replayed in file order, test asked)`);
  const seed = intOption(values, 'seed', DEFAULT_SEED, 0);
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir, io);
    if (!dataset.workflows.some((w) => w.split === 'train') || !dataset.workflows.some((w) => w.split === 'test')) {
      io.err(`${dataset.name}: no train workflow to replay or no test workflow to ask; skipped\n`);
      continue;
    }
    const bar = progressBar(`online ${dataset.name}`);
    const results = await evaluateOnline(dataset, { seed, onProgress: (d, t) => bar.update(d, t) }).finally(() => bar.stop());
    if (values['json'] === true) {
      for (const r of results) io.out(`${JSON.stringify(r)}\n`);
      continue;
    }
    io.out(`${dataset.name}\n${formatTable(COLUMNS.map(([name]) => name), results.map((r) => COLUMNS.map(([, key]) => r[key] ?? '-')))}\n`);
  }
}

export const ONLINE_TASK: EvalTask = { run: runOnline };
