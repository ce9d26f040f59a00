/** Parsing of the CLI's option values shared by several commands. */
import { ToolgraphError } from '../schema/errors.js';

import type { Values } from './command.js';

// Plain decimal text only: Number() reads '' and '  ' as 0, '0x10' as 16 and '1e3' as 1000, none of
// which someone typing an option means.
const INTEGER = /^[0-9]+$/;
const DECIMAL = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/**
 * An integer option in [min, max] written in decimal digits, or `fallback` when absent;
 * INVALID_INPUT naming the option otherwise.
 */
export function intOption(values: Values, name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && INTEGER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new ToolgraphError('INVALID_INPUT', `--${name}: expected an integer ${range}, got '${String(raw)}'`);
  }
  return value;
}

/** A decimal option (`0.75`, `.5`, `1`) in [min, max], or undefined when absent; INVALID_INPUT naming the option otherwise. */
export function decimalOption(values: Values, name: string, min: number, max: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ToolgraphError('INVALID_INPUT', `--${name}: expected a number in [${min}, ${max}], got '${String(raw)}'`);
  }
  return value;
}

/** A comma-separated option as its non-empty items; [] when absent. */
export function listOption(values: Values, name: string): string[] {
  const raw = values[name];
  if (typeof raw !== 'string' || raw === '') return [];
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * A text given as the command's words (`toolgraph search find flights to Paris`, as one argument
 * or several) or as the option `--<name>`. Neither, or both at once, is INVALID_INPUT: which one
 * was meant is not ours to guess.
 */
export function textOrWords(values: Values, name: string, words: readonly string[], command: string): string {
  const option = values[name];
  if (typeof option === 'string' && words.length > 0) {
    throw new ToolgraphError('INVALID_INPUT', `${command}: give the ${name} as words or as --${name}, not both`);
  }
  const text = typeof option === 'string' ? option : words.join(' ');
  if (text.trim() === '') throw new ToolgraphError('INVALID_INPUT', `${command}: expected the ${name} in words (\`toolgraph ${command} "..."\`)`);
  return text;
}

/** A comma-separated list that two option names stand for (`--after`, `--context`); both at once is INVALID_INPUT. */
export function listOptionEither(values: Values, name: string, synonym: string, command: string): string[] {
  if (typeof values[name] === 'string' && typeof values[synonym] === 'string') {
    throw new ToolgraphError('INVALID_INPUT', `${command}: --${name} and --${synonym} are the same list: give one`);
  }
  return listOption(values, typeof values[name] === 'string' ? name : synonym);
}

/**
 * An action that takes no word (`tools list`, `capabilities rank`) given one: bad usage, as
 * commander makes a stray word after a command (the command declares the words its other
 * actions take, so commander lets this one through).
 */
export function noWordAfter(action: string, word: string | undefined): void {
  if (word !== undefined) throw new ToolgraphError('INVALID_INPUT', `too many arguments for '${action}': expected none, got '${word}'`);
}
