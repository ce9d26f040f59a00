/**
 * Train/test splits of the protocol: the dataset's own `split` field, or with K folds a stable
 * hash of each id (ignoring `split`), every fold tested once against the other K - 1.
 *
 * With `validation`, the test split is never read: a stable quarter of train is held out instead
 * (with K folds, the folds are drawn from train alone). Design choices are made on these figures,
 * and the test split only reports the choice.
 *
 * K runs from 2 to the number of workflows in the pool. Every fold trains a model, and above
 * that bound at least K - pool folds test nothing: `--folds 1000000` trained a million models
 * for no figure. Below it the hash may still leave a fold empty; the averages skip such folds
 * (run-eval.ts).
 */
import type { WorkflowRecord } from '../schema/trace.js';
import { foldOf } from '../recommend/folds.js';
import { ToolgraphError } from '../schema/errors.js';

export interface Split {
  readonly train: readonly WorkflowRecord[];
  readonly test: readonly WorkflowRecord[];
}

export interface SplitOptions {
  readonly folds?: number | undefined;
  readonly validation?: boolean | undefined;
}

/** The quarter of train held out by `validation`. */
const VALIDATION_FOLDS = 4;

export function splitsOf(workflows: readonly WorkflowRecord[], options: SplitOptions = {}): Split[] {
  const { folds, validation = false } = options;
  const pool = validation ? workflows.filter((w) => w.split === 'train') : workflows;
  if (folds !== undefined && !(Number.isSafeInteger(folds) && folds >= 2 && folds <= pool.length)) {
    const what = validation ? 'train workflows' : 'workflows';
    const expected = pool.length >= 2 ? `an integer from 2 to ${pool.length} (the ${what} to split)` : `2 ${what} or more to split, there are ${pool.length}`;
    throw new ToolgraphError('INVALID_INPUT', `--folds: expected ${expected}, got ${String(folds)}`);
  }
  if (folds === undefined) {
    if (validation) {
      return [
        { train: pool.filter((w) => foldOf(w.id, VALIDATION_FOLDS) !== 0), test: pool.filter((w) => foldOf(w.id, VALIDATION_FOLDS) === 0) },
      ];
    }
    return [{ train: pool.filter((w) => w.split === 'train'), test: pool.filter((w) => w.split === 'test') }];
  }
  const splits: Split[] = [];
  for (let k = 0; k < folds; k++) {
    splits.push({
      train: pool.filter((w) => foldOf(w.id, folds) !== k),
      test: pool.filter((w) => foldOf(w.id, folds) === k),
    });
  }
  return splits;
}

/** One tool in this many is held out by withColdTools. */
const COLD_FOLDS = 5;

/** A tool withColdTools holds out of training: a stable fifth of names, by the same hash as the folds. */
export function isColdTool(name: string): boolean {
  return foldOf(`cold:${name}`, COLD_FOLDS) === 0;
}

/**
 * `split` for tools no trace has shown yet (`eval search --cold-tools`): a fifth of the tools
 * leave training with every workflow that calls one, and only the test requests that name one
 * are asked. What a gateway meets when its catalogue grows: the description must carry the tool.
 */
export function withColdTools(split: Split): Split {
  return {
    train: split.train.filter((w) => !w.tools.some(isColdTool)),
    test: split.test.filter((w) => w.tools.some(isColdTool)),
  };
}
