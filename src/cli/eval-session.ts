/**
 * `toolgraph eval session`: the session evaluation (src/eval/session-eval.ts) over one or more
 * dataset folders, as tables (per budget; the graph's answers alone; the escalation policies at
 * equal rates; the deviation rule) or one JSON line per row with `--json`.
 */
import { evaluateSessions, POLICIES, type SessionEvalResult } from '../eval/session-eval.js';
import type { CliOutput, Values } from './command.js';
import { datasetDirs } from './eval-inputs.js';
import type { EvalTask } from './eval-task.js';
import { decimalOption, intOption } from './options.js';
import { readDataset } from './read-dataset.js';
import { progressBar } from './progress.js';
import { formatTable } from './table.js';
import { DEFAULT_SEED } from '../graph/rng.js';

export interface SessionEvalRun {
  readonly seed: number;
  readonly validation: boolean;
  readonly modelAccuracy: number;
  readonly json: boolean;
}

type Row<M extends SessionEvalResult['method']> = Extract<SessionEvalResult, { method: M }>;

function tables(rows: readonly SessionEvalResult[]): string {
  const of = <M extends SessionEvalResult['method']>(method: M) => rows.filter((r): r is Row<M> => r.method === method);
  const out: string[] = [];
  out.push(
    formatTable(
      ['data', 'budget (cents)', 'sessions', 'steps', 'accuracy', 'escalations / session', 'cents / session', 'most cents', 'over budget', 'threshold'],
      of('budget').map((r) => [r.data, r.budgetCents, r.sessions, r.n, r.accuracy, r.escalationsPerSession, r.centsPerSession, r.maxCents, r.overBudget, r.threshold]),
    ),
  );
  out.push(
    '',
    formatTable(
      ['data', 'graph-only steps', 'accuracy', 'AURC', 'coverage at 95% precision', 'threshold', 'calibrated on', 'its coverage on test', 'its precision on test'],
      of('graph-only').map((r) => [r.data, r.n, r.accuracy, r.aurc, r.coverageAt95, `${r.threshold} (${r.thresholdSource})`, `${r.calibrationPositions} held-out train positions`, r.thresholdCoverage, r.thresholdPrecision]),
    ),
  );
  const policies = of('policy');
  const keys = [...new Set(policies.filter((r) => r.policy !== 'never' && r.policy !== 'always').map((r) => `${r.data}\u0000${r.rate}\u0000${r.calibrated}`))];
  const accuracy = (data: string, policy: string, rate?: number, calibrated?: boolean): number | string =>
    policies.find((r) => r.data === data && r.policy === policy && (rate === undefined || (r.rate === rate && r.calibrated === calibrated)))?.accuracy ?? '-';
  out.push(
    '',
    'accuracy at equal escalation rates (never escalates: rate 0; always: rate 1):',
    formatTable(
      ['data', 'rate', ...POLICIES.filter((p) => p !== 'never' && p !== 'always'), 'never', 'always'],
      keys.map((key) => {
        const [data, rate, calibrated] = key.split('\u0000') as [string, string, string];
        const r = Number(rate);
        const c = calibrated === 'true';
        return [data, c ? `${rate} (calibrated threshold)` : rate, accuracy(data, 'random', r, c), accuracy(data, 'inertia', r, c), accuracy(data, 'toolgraph', r, c), accuracy(data, 'never'), accuracy(data, 'always')];
      }),
    ),
  );
  const deviation = of('deviation');
  if (deviation.length > 0) {
    out.push(
      '',
      'deviation rule on step texts (own: should be ON_TOPIC; foreign, another domain: should be OFF_TOPIC):',
      formatTable(
        ['data', 'profile', 'own texts', 'own ON_TOPIC', 'own OFF_TOPIC', 'foreign OFF_TOPIC', 'foreign ON_TOPIC'],
        deviation.map((r) => [r.data, r.profile, r.n, r.ownOnTopic, r.ownOffTopic, r.foreignOffTopic, r.foreignOnTopic]),
      ),
    );
  }
  return out.join('\n');
}

export async function runSessionEval(dirs: readonly string[], run: SessionEvalRun, io: CliOutput): Promise<void> {
  const rows: SessionEvalResult[] = [];
  for (const dir of dirs) {
    const dataset = await readDataset(dir, io);
    const bar = progressBar(`session ${dataset.name}`);
    const results = await evaluateSessions(dataset, { seed: run.seed, validation: run.validation, modelAccuracy: run.modelAccuracy, onProgress: (d, t) => bar.update(d, t) });
    bar.stop();
    if (results.every((r) => r.method !== 'budget' || r.sessions === 0)) {
      io.err(`${dataset.name}: no ordered test workflow with two tools or more; skipped\n`);
      continue;
    }
    for (const r of results) {
      if (run.json) io.out(`${JSON.stringify({ ...r, ...(run.validation ? { validation: true } : {}) })}\n`);
      rows.push(r);
    }
  }
  if (!run.json && rows.length > 0) io.out(`${tables(rows)}\n`);
}

export const SESSION_TASK: EvalTask = {
  run: (values: Values, data: string, io: CliOutput) =>
    runSessionEval(
      datasetDirs(data),
      { seed: intOption(values, 'seed', DEFAULT_SEED, 0), validation: values['validation'] === true, modelAccuracy: decimalOption(values, 'model-accuracy', 0, 1) ?? 0.9, json: values['json'] === true },
      io,
    ),
};
