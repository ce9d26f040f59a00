/**
 * What every CLI command is made of: a light descriptor (name, summary, usage, example, option
 * specs; commands.ts holds the table of them) whose `run` loads the implementation only when the
 * command runs, the values commander parsed for its options, the output it writes to, and the
 * one way a result is printed. program.ts builds the commander program from the descriptors.
 */

/** Parsed option values by long name: a string option's text, a flag's boolean, or absent. */
export type Values = Record<string, string | boolean | undefined>;

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly help: string;
  /** Name of the value in help (`--data <DIR>`); default `value`. Only for `type: 'string'`. */
  readonly value?: string;
}

/** Where a command writes: the process's stdout and stderr, or a test's buffers. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

export const PROCESS_OUTPUT: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** A command's summary and details as its `help` builds them from tables. */
export interface CommandHelp {
  readonly summary?: string;
  readonly details?: string;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly example: string;
  /** More of `--help` before the example, such as what a server offers (derived from its tables). */
  readonly details?: string;
  /**
   * A summary and details built from tables too heavy to load for every command line (the HTTP
   * routes, the MCP tools): loaded only when a help is shown, and shown instead of `summary`
   * and `details`.
   */
  help?(): Promise<CommandHelp>;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /**
   * The words the command takes after its name, as commander arguments (`'[task]'`,
   * `'[query...]'`); without it the command takes none, and a stray word is a usage error.
   */
  readonly positionals?: string;
  run(values: Values, positionals: readonly string[], io: CliOutput): Promise<void>;
}

/** A command's result: one JSON line with `--json`, else the table for people. */
export function print(io: CliOutput, values: Values, json: unknown, table: () => string): void {
  io.out(values['json'] === true ? `${JSON.stringify(json)}\n` : `${table()}\n`);
}
