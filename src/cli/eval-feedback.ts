/**
 * `toolgraph eval feedback`: the drift replay of src/eval/feedback-eval.ts, one row per phase
 * and method.
 */
import { ToolgraphError } from '../schema/errors.js';
import { ALTERNATIVES, evaluateFeedback, type AlternativeRule } from '../eval/feedback-eval.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs, validationMark } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { intOption } from './options.js';
import { progressBar } from './progress.js';
import { readDataset } from './read-dataset.js';
import { formatTable } from './table.js';
import { DEFAULT_SEED } from '../graph/rng.js';

async function runFeedbackEval(values: Values, data: string, io: CliOutput): Promise<void> {
  const seed = intOption(values, 'seed', DEFAULT_SEED, 0);
  const alternative = (values['alternative'] ?? 'runner-up') as AlternativeRule;
  if (!ALTERNATIVES.includes(alternative)) {
    throw new ToolgraphError('INVALID_INPUT', `--alternative: expected ${ALTERNATIVES.join(' or ')}, got '${String(values['alternative'])}'`);
  }
  const rows: Record<string, string | number>[] = [];
  for (const dir of datasetDirs(data)) {
    const dataset = await readDataset(dir, io);
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
      io.err(`${dataset.name}: no ordered test workflow with two tools or more; skipped\n`);
      continue;
    }
    for (const r of results) {
      const line = { ...r, intent: values['no-intent'] !== true, ...validationMark(values) };
      if (values['json'] === true) io.out(`${JSON.stringify(line)}\n`);
      rows.push(line as unknown as Record<string, string | number>);
    }
  }
  if (values['json'] !== true) {
    const metrics = ['n', 'nDrifted', 'hit1', 'hit1Drifted', 'hit1Stable'];
    io.out(`${formatTable(['data', 'phase', 'method', ...metrics], rows.map((r) => [r['data']!, r['phase']!, r['method']!, ...metrics.map((m) => r[m]!)]))}\n`);
    const first = rows[0];
    if (first !== undefined) {
      io.out(`drifted transitions ${first['driftedTransitions']} of ${first['candidateTransitions']} learned test transitions; ${first['replayed']} replayed traces\n`);
    }
  }
}

export const FEEDBACK_TASK: EvalTask = { run: runFeedbackEval };
