/**
 * The tasks of `toolgraph eval`, one entry each: its name and how to load its runner. The
 * command's usage and its "expected one of" error list these names in this order, and a task's
 * module (and the evaluation harness under src/eval/ it runs) is loaded only when that task
 * runs. Adding a task is adding an entry here and its module.
 */
import type { EvalTask } from './eval-task.js';

export type { EvalTask } from './eval-task.js';

export const EVAL_TASKS: Readonly<Record<string, () => Promise<EvalTask>>> = {
  next: async () => (await import('./eval-ranked.js')).NEXT_TASK,
  search: async () => (await import('./eval-ranked.js')).SEARCH_TASK,
  nomatch: async () => (await import('./eval-nomatch.js')).NOMATCH_TASK,
  dag: async () => (await import('./eval-ranked.js')).DAG_TASK,
  feedback: async () => (await import('./eval-feedback.js')).FEEDBACK_TASK,
  capability: async () => (await import('./eval-capability.js')).CAPABILITY_TASK,
  online: async () => (await import('./eval-online.js')).ONLINE_TASK,
  session: async () => (await import('./eval-session.js')).SESSION_TASK,
};

export const EVAL_TASK_NAMES: readonly string[] = Object.keys(EVAL_TASKS);
