#!/usr/bin/env node
/**
 * The `toolgraph` command: a thin face over the library. Tables for people, `--json` for
 * scripts (one JSON object per line), errors on stderr with their stable code.
 *
 * Exit codes: 0 success, 1 internal error, 2 bad usage or invalid input, 3 not found.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgraphError } from '../schema/errors.js';
import { COMMANDS, type Command } from './commands.js';

const EXIT = { ok: 0, internal: 1, usage: 2, notFound: 3 } as const;

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'toolgraph: learns which tools follow which from agents\' tool-use traces.',
    '',
    'Usage: toolgraph <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `toolgraph <command> --help` for a command\'s options and an example.',
  ].join('\n');
}

function commandHelp(command: Command): string {
  const options = Object.entries(command.options).map(([name, spec]) => {
    const flag = `--${name}${spec.type === 'string' ? ' VALUE' : ''}`;
    return `  ${flag.padEnd(22)} ${spec.help}`;
  });
  return [`Usage: toolgraph ${command.usage}`, '', command.summary, '', 'Options:', ...options, '  --help                 show this help', '', 'Example:', `  ${command.example}`].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return EXIT.ok;
  }
  if (name === '--version') {
    process.stdout.write('0.1.0\n');
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    process.stderr.write(`toolgraph: unknown command '${name}'\n\n${usage()}\n`);
    return EXIT.usage;
  }
  const config: ParseArgsConfig = {
    args: [...rest],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean' },
      ...Object.fromEntries(Object.entries(command.options).map(([k, v]) => [k, { type: v.type }])),
    },
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    process.stderr.write(`toolgraph ${name}: ${(error as Error).message}\n\n${commandHelp(command)}\n`);
    return EXIT.usage;
  }
  if (parsed.values['help'] === true) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.ok;
  }
  try {
    await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ToolgraphError) {
      process.stderr.write(`toolgraph ${name}: ${error.code}: ${error.message}\n`);
      return error.code === 'NOT_FOUND' ? EXIT.notFound : error.code === 'INTERNAL' ? EXIT.internal : EXIT.usage;
    }
    process.stderr.write(`toolgraph ${name}: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.internal;
  }
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
