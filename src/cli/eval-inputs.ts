/**
 * What the `eval` tasks read from the command line: the dataset folders --data names, the mark
 * of a validation run, and the options the ranking tasks (next, search, dag, capability) share.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ToolgraphError } from '../schema/errors.js';
import type { Values } from './command.js';
import { intOption } from './options.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** Dataset folders under DIR: DIR itself if it has workflows.jsonl, else its children that do. `option`: where DIR was given. */
export function datasetDirs(dir: string, option = 'data'): string[] {
  if (existsSync(join(dir, 'workflows.jsonl'))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ToolgraphError('NOT_FOUND', `${dir}: no such folder (--${option})`, undefined, { file: dir });
  }
  const children = readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => existsSync(join(path, 'workflows.jsonl')))
    .sort();
  if (children.length === 0) throw new ToolgraphError('NOT_FOUND', `${dir}: no workflows.jsonl in it or its subfolders (--${option})`, undefined, { file: dir });
  return children;
}

/** Marks a JSON line measured on the held-out quarter of train, so it is never read as a test figure. */
export function validationMark(values: Values): { validation?: true } {
  return values['validation'] === true ? { validation: true } : {};
}

export interface RankingRun {
  readonly folds: number | undefined;
  readonly seed: number;
  readonly validation: boolean;
  readonly withContext: boolean;
  readonly coldTools: boolean;
}

/** The options of a ranking task, INVALID_INPUT for a value out of range or a flag the task does not take. */
export function rankingRun(values: Values, task: string): RankingRun {
  const folds = values['folds'] === undefined ? undefined : intOption(values, 'folds', 5, 2);
  const seed = intOption(values, 'seed', DEFAULT_SEED, 0);
  const validation = values['validation'] === true;
  const withContext = values['context'] === true;
  if (withContext && task !== 'search') throw new ToolgraphError('INVALID_INPUT', `eval: --context applies to 'search' only, not '${task}'`);
  const coldTools = values['cold-tools'] === true;
  if (coldTools && (task !== 'search' || withContext)) throw new ToolgraphError('INVALID_INPUT', "eval: --cold-tools applies to 'search' without --context only");
  return { folds, seed, validation, withContext, coldTools };
}
