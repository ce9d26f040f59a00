/** Parsing of the CLI's option values shared by several commands. */
import { ToolgraphError } from '../schema/errors.js';

type Values = Record<string, string | boolean | undefined>;

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
