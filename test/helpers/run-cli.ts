/**
 * The `toolgraph` command run in this process: the real parser and command table (runCli over
 * COMMANDS, as main.ts runs them), with what it writes to stdout and stderr captured and its exit
 * code returned. What only a process adds (the binary's shebang, EPIPE on a closed pipe, the code
 * reaching the shell) is tested by running the built binary.
 */
import { readFileSync } from 'node:fs';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/program.js';

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export async function runInProcess(args: readonly string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, COMMANDS, {
    version: VERSION,
    output: {
      out: (text) => void (stdout += text),
      err: (text) => void (stderr += text),
    },
  });
  return { status, stdout, stderr };
}
