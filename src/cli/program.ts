/**
 * The `toolgraph` argument parser: a commander program built generically from the declarative
 * command table (commands.ts), so adding a command is adding a table entry. Building it reads
 * the descriptors only; a command's implementation is loaded by its `run`, and the help it builds
 * from tables (serve's, mcp's) by its `help` when a help is printed.
 *
 * Each table entry becomes a subcommand with its options (`type: 'string'` takes a value,
 * `'boolean'` is a flag, a name starting with `no-` is a flag too), its usage line, its summary,
 * and its details and example at the end of its `--help`. Words after the command that are not options reach
 * `run` as positionals (`eval next`, `score FILE`), as many as the command declares
 * (`positionals`; none by default, and more is bad usage), and `run` receives the values object
 * (option name -> string | true | undefined, `--no-x` as `'no-x': true`) and the output to write to.
 *
 * Exit codes: 0 success (and --help, --version); 2 bad usage (unknown command or option, missing
 * option value) or INVALID_INPUT and the other input codes; 3 NOT_FOUND; 1 INTERNAL, an
 * EMBEDDER_FAILED, or any other error. Errors go to stderr as `toolgraph <command>: [file[:line]: ]CODE:
 * what is wrong` (error-text.ts).
 */
import { Command as Program, CommanderError, Option } from 'commander';
import { ToolgraphError, type ErrorCode } from '../schema/errors.js';
import { PROCESS_OUTPUT, type CliOutput, type Command, type Values } from './command.js';
import { errorText } from './error-text.js';

export type { CliOutput } from './command.js';

export const EXIT = { ok: 0, internal: 1, usage: 2, notFound: 3 } as const;

/** How to read one table option back from commander's parsed options. */
interface OptionBinding {
  readonly name: string;
  readonly attribute: string;
  readonly kind: 'string' | 'flag' | 'negated';
}

export function exitCodeOf(code: ErrorCode): number {
  if (code === 'NOT_FOUND') return EXIT.notFound;
  if (code === 'INTERNAL' || code === 'EMBEDDER_FAILED' || code === 'STORE_UNAVAILABLE') return EXIT.internal;
  return EXIT.usage;
}

/** commander's errors that mean "the command line is wrong"; the others are help and version. */
const USAGE_ERRORS = new Set([
  'commander.unknownCommand',
  'commander.unknownOption',
  'commander.excessArguments',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.conflictingOption',
  'commander.invalidArgument',
  'commander.error',
]);

function valuesOf(opts: Record<string, unknown>, bindings: readonly OptionBinding[]): Values {
  const values: Values = {};
  for (const b of bindings) {
    const raw = opts[b.attribute];
    if (b.kind === 'string' && typeof raw === 'string') values[b.name] = raw;
    else if (b.kind === 'flag' && raw === true) values[b.name] = true;
    // commander stores `--no-x` as x = false (and x = true by default when only --no-x exists).
    else if (b.kind === 'negated' && raw === false) values[b.name] = true;
  }
  return values;
}

/** commander says `error: unknown option '--x'`; we say `toolgraph predict: unknown option '--x'`. */
function errorWriter(prefix: string, output: CliOutput): (text: string) => void {
  return (text) => output.err(text.replace(/^error: /, `${prefix}: `));
}

function subcommand(program: Program, command: Command, output: CliOutput, setCode: (code: number) => void): void {
  const usage = command.usage.startsWith(`${command.name} `) ? command.usage.slice(command.name.length + 1) : command.usage;
  const sub = program
    .command(command.name)
    .description(command.summary)
    .usage(usage)
    .allowExcessArguments(false)
    .showHelpAfterError(`Run \`toolgraph ${command.name} --help\` for its options and an example.`)
    .addHelpText('after', `${command.details !== undefined ? `\n${command.details}\n` : ''}\nExample:\n  ${command.example}`);
  sub.configureOutput({ outputError: (text) => errorWriter(`toolgraph ${command.name}`, output)(text) });
  // A command takes the words it declares; a stray one (`toolgraph stats extra`) is bad usage.
  for (const argument of command.positionals?.split(' ') ?? []) sub.argument(argument);
  const bindings: OptionBinding[] = [];
  for (const [name, spec] of Object.entries(command.options)) {
    const negated = name.startsWith('no-');
    const flags = spec.type === 'string' && !negated ? `--${name} <${spec.value ?? 'value'}>` : `--${name}`;
    const option = new Option(flags, spec.help);
    sub.addOption(option);
    bindings.push({ name, attribute: option.attributeName(), kind: negated ? 'negated' : spec.type === 'string' ? 'string' : 'flag' });
  }
  // commander passes the declared arguments first, then the options and the command itself.
  sub.action(async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Program;
    try {
      await command.run(valuesOf(cmd.opts(), bindings), cmd.args, output);
      setCode(EXIT.ok);
    } catch (error) {
      if (error instanceof ToolgraphError) {
        output.err(`${errorText(command.name, error)}\n`);
        setCode(exitCodeOf(error.code));
        return;
      }
      output.err(`toolgraph ${command.name}: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      setCode(EXIT.internal);
    }
  });
}

/**
 * The program for `commands`. Parsing errors, help and version end in a CommanderError (exit
 * override), never in process.exit, so the caller decides the exit code.
 */
export function buildProgram(
  commands: readonly Command[],
  options: { version: string; output?: CliOutput; setCode: (code: number) => void },
): Program {
  const output = options.output ?? PROCESS_OUTPUT;
  const program = new Program('toolgraph')
    .description("toolgraph: learns which tools follow which from agents' tool-use traces.")
    .usage('<command> [options]')
    .version(options.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', "show a command's help")
    .showHelpAfterError('Run `toolgraph --help` for the commands.')
    .addHelpText(
      'after',
      "\nRun `toolgraph <command> --help` for a command's options and an example.\n" +
        'Exit codes: 0 success, 2 bad usage or invalid input, 3 not found, 1 internal error or embedder failure.',
    )
    .configureOutput({ writeOut: output.out, writeErr: output.err, outputError: (text) => errorWriter('toolgraph', output)(text) })
    .exitOverride();
  for (const command of commands) subcommand(program, command, output, options.setCode);
  return program;
}

/** True when commander will print a help for `argv` (a help of no command, `help`, `-h`, `--help`). */
function asksHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.some((a) => a === '--help' || a === '-h');
}

/**
 * The commands with the help their `help` builds, for a command line that prints a help: the
 * help of the command it names (`serve --help`, `help serve`), else every command's (the list).
 */
async function withHelp(commands: readonly Command[], argv: readonly string[]): Promise<readonly Command[]> {
  const named = commands.find((c) => c.name === (argv[0] === 'help' ? argv[1] : argv[0]));
  return Promise.all(commands.map(async (c) => (c.help === undefined || (named !== undefined && c !== named) ? c : { ...c, ...(await c.help()) })));
}

/** Parses `argv` (without node and the script), runs the command, and returns the exit code. */
export async function runCli(
  argv: readonly string[],
  commands: readonly Command[],
  options: { version: string; output?: CliOutput },
): Promise<number> {
  let code: number = EXIT.ok;
  // The help built from tables is loaded only when a help is printed: any other command line
  // loads no more than the descriptors and the command it runs.
  const table = asksHelp(argv) ? await withHelp(commands, argv) : commands;
  const program = buildProgram(table, { ...options, setCode: (c) => (code = c) });
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  // commander answers `help nope` with the general help and never names `nope`; parsed as the
  // command it asks about, an unknown one is named as `toolgraph nope` names it.
  const [first, asked] = argv;
  const unknownHelp = first === 'help' && asked !== undefined && !asked.startsWith('-') && !table.some((c) => c.name === asked);
  try {
    await program.parseAsync(unknownHelp ? [asked] : [...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return USAGE_ERRORS.has(error.code) ? EXIT.usage : error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  return code;
}
