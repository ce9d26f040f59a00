/**
 * Train/test splits of the protocol: the dataset's own `split` field, or with K folds a stable
 * hash of each id (ignoring `split`), every fold tested once against the other K - 1.
 */
import type { WorkflowRecord } from '../../src/schema/trace.js';
import { foldOf } from '../../src/recommend/folds.js';

export interface Split {
  readonly train: readonly WorkflowRecord[];
  readonly test: readonly WorkflowRecord[];
}

export function splitsOf(workflows: readonly WorkflowRecord[], folds?: number): Split[] {
  if (folds === undefined || folds <= 1) {
    return [{ train: workflows.filter((w) => w.split === 'train'), test: workflows.filter((w) => w.split === 'test') }];
  }
  const splits: Split[] = [];
  for (let k = 0; k < folds; k++) {
    splits.push({
      train: workflows.filter((w) => foldOf(w.id, folds) !== k),
      test: workflows.filter((w) => foldOf(w.id, folds) === k),
    });
  }
  return splits;
}
