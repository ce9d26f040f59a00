/**
 * `toolgraph fit`: fits the default profile's weights on recorded traces (learning to rank),
 * from the store (and stores them) or in memory, and prints them with what the fit measured.
 */
import { DAG_DEFAULTS } from '../recommend/dag/suggest-dag.js';
import { SIGNALS } from '../recommend/features.js';
import type { FitReport } from '../recommend/fit-weights.js';
import { coverageLevel, NO_MATCH_QUANTILE } from '../recommend/no-match.js';
import { ToolgraphError } from '../schema/errors.js';
import { print, type CliOutput, type Values } from './command.js';
import { learnInMemory } from './learn.js';
import { usesStore, withStore } from './store-access.js';
import { formatTable } from './table.js';

export async function runFit(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  // From the store: fit on every stored trace and store the weights.
  const report = usesStore(values) ? await withStore(values, (tg) => tg.fit()) : await fitInMemory(values, io);
  const w = report.weights;
  const u = report.searchUnseen;
  const tasks = [
    ['next', report.next],
    ['next (no intent)', report.nextNoIntent],
    ['search', report.search],
  ] as const;
  print(io, values, report, () =>
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
      dagStatusLine(report.status),
      noMatchLine(report.noMatch),
    ].join('\n'),
  );
}

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

/** The `ok` threshold of a DAG's confidence and what the held-out workflows on each side of it scored. */
function dagStatusLine(r: FitReport['status']): string {
  const c = r.calibration;
  const seen = `${r.workflows} held-out workflows, ${r.noMatch} of them no-match`;
  if (c === null) return `DAG status: ok from confidence ${DAG_DEFAULTS.warn} (spec 003; ${seen}; too few to fit)`;
  const sides = `node-F1 ${r.okNodeF1.toFixed(3)} over ${r.okWorkflows} ok, ${r.otherNodeF1.toFixed(3)} over the other ${r.otherWorkflows}`;
  if (c.share === 0) return `DAG status: no workflow is ok: none reached node-F1 ${c.target} (${seen})`;
  return `DAG status: ok from confidence ${c.threshold.toFixed(3)}, where held-out workflows reach node-F1 ${c.target} (${seen}; ${sides})`;
}

/** `fit --data / --traces`: as the store's fit, INVALID_INPUT when no trace succeeded (the weights would be the prior's, marked fitted). */
async function fitInMemory(values: Values, io: CliOutput): Promise<FitReport> {
  const { tg, traces } = await learnInMemory(values, io);
  if (!traces.some((t) => t.success && t.steps.length > 0)) {
    throw new ToolgraphError('INVALID_INPUT', 'fit: nothing to fit: the traces given have no successful one');
  }
  return tg.fit();
}
