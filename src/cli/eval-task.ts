/** One task of `toolgraph eval` (eval-tasks.ts lists them and loads each when it runs). */
import type { CliOutput, Values } from './command.js';

export interface EvalTask {
  /** Runs the task on the dataset folder (or folder of them) `data`, given as --data. */
  run(values: Values, data: string, io: CliOutput): Promise<void>;
}
