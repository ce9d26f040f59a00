/**
 * Train/test splits of the protocol: the dataset's own `split` field, or with K folds a stable
 * hash of each id (ignoring `split`), every fold tested once against the other K - 1.
 *
 * With `validation`, the test split is never read: a stable quarter of train is held out instead
 * (with K folds, the folds are drawn from train alone). Design choices are made on these figures,
 * and the test split only reports the choice.
 */
import type { WorkflowRecord } from '../../src/schema/trace.js';
import { foldOf } from '../../src/recommend/folds.js';

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
  if (folds === undefined || folds <= 1) {
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
