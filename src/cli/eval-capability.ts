/**
 * `toolgraph eval capability`: the capability evaluation (src/eval/capability-eval.ts) over one
 * or more dataset folders, as a table or one JSON line per method.
 */
import { evaluateCapabilities } from '../eval/capability-eval.js';
import { readDataset } from './read-dataset.js';
import { progressBar } from './progress.js';
import { formatTable } from './table.js';

export interface CapabilityEvalRun {
  readonly folds?: number | undefined;
  readonly seed: number;
  readonly validation: boolean;
  readonly json: boolean;
}

export async function runCapabilityEval(dirs: readonly string[], run: CapabilityEvalRun): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const dir of dirs) {
    const dataset = await readDataset(dir);
    const bar = progressBar(`capability ${dataset.name}`);
    const results = evaluateCapabilities(dataset, { seed: run.seed, validation: run.validation, ...(run.folds ? { folds: run.folds } : {}), onProgress: (d, t) => bar.update(d, t) });
    bar.stop();
    if (results.every((r) => r.n === 0)) {
      process.stderr.write(`${dataset.name}: no test workflow that a learned capability matches; skipped\n`);
      continue;
    }
    for (const r of results) {
      const line = { ...r, ...(run.folds ? { folds: run.folds } : {}), ...(run.validation ? { validation: true } : {}) };
      if (run.json) process.stdout.write(`${JSON.stringify(line)}\n`);
      rows.push([r.data, r.method, r.n, r.candidates, r.capabilities, r.hit1, r.hit5, r.mrr, r.trainMrr, r.trainN]);
    }
  }
  if (!run.json) {
    process.stdout.write(`${formatTable(['data', 'method', 'n', 'multi-tool tests', 'capabilities', 'hit1', 'hit5', 'mrr', 'train mrr', 'train n'], rows)}\n`);
  }
}
