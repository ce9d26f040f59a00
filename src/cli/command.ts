/**
 * What every CLI command is made of (commands.ts, store-commands.ts, serve-commands.ts): its
 * option specs, the values commander parsed for them, and the one way a result is printed.
 * program.ts builds the commander program from these.
 */

/** Parsed option values by long name: a string option's text, a flag's boolean, or absent. */
export type Values = Record<string, string | boolean | undefined>;

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly help: string;
  /** Name of the value in help (`--data <DIR>`); default `value`. Only for `type: 'string'`. */
  readonly value?: string;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly example: string;
  /** More of `--help` before the example, such as what a server offers (derived from its tables). */
  readonly details?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /**
   * The words the command takes after its name, as commander arguments (`'[task]'`,
   * `'[query...]'`); without it the command takes none, and a stray word is a usage error.
   */
  readonly positionals?: string;
  run(values: Values, positionals: readonly string[]): Promise<void>;
}

/** A command's result on stdout: one JSON line with `--json`, else the table for people. */
export function print(values: Values, json: unknown, table: () => string): void {
  process.stdout.write(values['json'] === true ? `${JSON.stringify(json)}\n` : `${table()}\n`);
}
