/** Parsing of the CLI's option values shared by several commands. */
import { ToolgraphError } from '../schema/errors.js';

import type { Values } from './command.js';

/** An integer option (at least `min`), or `fallback` when absent; INVALID_INPUT otherwise. */
export function intOption(values: Values, name: string, fallback: number, min = 1): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ToolgraphError('INVALID_INPUT', `--${name}: expected an integer >= ${min}, got '${String(raw)}'`);
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
