#!/usr/bin/env -S node --max-semi-space-size=64
/**
 * The `toolgraph` command: a thin face over the library. Tables for people, `--json` for
 * scripts (one JSON object per line), errors on stderr with their stable code.
 *
 * Exit codes: 0 success, 1 internal error (or a failed embedder), 2 bad usage or invalid input,
 * 3 not found. The parser is program.ts (commander, built from the table in commands.ts).
 */
import { VERSION } from '../schema/version.js';
import { COMMANDS } from './commands.js';
import { EXIT, runCli } from './program.js';

export function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, COMMANDS, { version: VERSION });
}

// A reader that stops early (`toolgraph eval ... --json | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`toolgraph: ${String(error)}\n`);
    process.exitCode = EXIT.internal;
  },
);
