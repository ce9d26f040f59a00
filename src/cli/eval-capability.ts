/**
 * `toolgraph eval capability`: the capability evaluation (src/eval/capability-eval.ts) over one
 * or more dataset folders, as a table or one JSON line per method.
 */
import { evaluateCapabilities } from '../eval/capability-eval.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs, rankingRun } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { readDataset } from './read-dataset.js';
import { progressBar } from './progress.js';
import { formatTable } from './table.js';

async function runCapabilityEval(values: Values, data: string, io: CliOutput): Promise<void> {
  const { folds, seed, validation } = rankingRun(values, 'capability');
  const json = values['json'] === true;
  const rows: (string | number)[][] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir, io);
    const bar = progressBar(`capability ${dataset.name}`);
    const results = evaluateCapabilities(dataset, { seed, validation, ...(folds ? { folds } : {}), onProgress: (d, t) => bar.update(d, t) });
    bar.stop();
    if (results.every((r) => r.n === 0)) {
      io.err(`${dataset.name}: no test workflow that a learned capability matches; skipped\n`);
      continue;
    }
    for (const r of results) {
      const line = { ...r, ...(folds ? { folds } : {}), ...(validation ? { validation: true } : {}) };
      if (json) io.out(`${JSON.stringify(line)}\n`);
      rows.push([r.data, r.method, r.n, r.candidates, r.capabilities, r.hit1, r.hit5, r.mrr, r.trainMrr, r.trainN]);
    }
  }
  if (!json) {
    io.out(`${formatTable(['data', 'method', 'n', 'multi-tool tests', 'capabilities', 'hit1', 'hit5', 'mrr', 'train mrr', 'train n'], rows)}\n`);
  }
}

export const CAPABILITY_TASK: EvalTask = { run: runCapabilityEval };
