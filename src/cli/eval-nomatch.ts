/**
 * `toolgraph eval nomatch`: every --data dataset against every --foreign dataset, whose intents
 * must come back no-match (src/eval/nomatch-eval.ts), with the calibration curve in the table.
 */
import { ToolgraphError } from '../schema/errors.js';
import { evaluateNoMatch, type NoMatchResult } from '../eval/nomatch-eval.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs, validationMark } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { intOption } from './options.js';
import { readDataset } from './read-dataset.js';
import { formatTable } from './table.js';
import { DEFAULT_SEED } from '../graph/rng.js';

async function runNoMatch(values: Values, data: string, io: CliOutput): Promise<void> {
  if (typeof values['foreign'] !== 'string') throw new ToolgraphError('INVALID_INPUT', 'eval nomatch: --foreign DIR2 is required');
  const seed = intOption(values, 'seed', DEFAULT_SEED, 0);
  const foreign = await Promise.all(datasetDirs(values['foreign'], 'foreign').map((dir) => readDataset(dir, io)));
  const rows: NoMatchResult[] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir, io);
    for (const result of evaluateNoMatch(dataset, foreign, seed, values['validation'] === true)) {
      // A rate over no request is not 0: say so, as the other evaluations do, and print no row.
      if (result.n === 0 || result.foreignN === 0) {
        const empty = result.n === 0 ? dataset.name : result.foreign;
        io.err(`${dataset.name} against ${result.foreign}: ${empty} has no test workflow with an intent; skipped\n`);
        continue;
      }
      if (values['json'] === true) io.out(`${JSON.stringify({ ...result, ...validationMark(values) })}\n`);
      rows.push(result);
    }
  }
  if (values['json'] !== true) {
    const metrics = ['n', 'foreignN', 'inDomainNoMatch', 'foreignNoMatch', 'hit1', 'hit1Always', 'recall5', 'dagReject', 'foreignDagReject'] as const;
    io.out(`${formatTable(['data', 'foreign', ...metrics], rows.map((r) => [r.data, r.foreign, ...metrics.map((m) => r[m])]))}\n`);
    // What calibration could buy: thresholds at quantiles of the evaluated in-domain coverage.
    const curve = rows.flatMap((r) => r.curve.map((p) => [r.data, r.foreign, p.quantile, p.inDomainNoMatch, p.hit1, p.foreignNoMatch]));
    io.out(`\ncalibration curve (threshold at a quantile of the evaluated in-domain coverage):\n`);
    io.out(`${formatTable(['data', 'foreign', 'quantile', 'inDomainNoMatch', 'hit1', 'foreignNoMatch'], curve)}\n`);
  }
}

export const NOMATCH_TASK: EvalTask = { run: runNoMatch };
