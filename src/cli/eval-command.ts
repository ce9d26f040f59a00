/**
 * `toolgraph eval TASK --data DIR`: finds the task in the table (eval-tasks.ts), loads it and
 * runs it. What the tasks share to check first: the task's name and --data.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { CliOutput, Values } from './command.js';
import { EVAL_TASK_NAMES, EVAL_TASKS } from './eval-tasks.js';

export async function runEval(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const task = positionals[0];
  const load = task !== undefined && Object.hasOwn(EVAL_TASKS, task) ? EVAL_TASKS[task] : undefined;
  if (load === undefined) {
    throw new ToolgraphError('INVALID_INPUT', `eval: expected one of ${EVAL_TASK_NAMES.map((t) => `'${t}'`).join(', ')}, got '${task ?? ''}'`);
  }
  if (typeof values['data'] !== 'string') throw new ToolgraphError('INVALID_INPUT', 'eval: --data DIR is required');
  await (await load()).run(values, values['data'], io);
}
