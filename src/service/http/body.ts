/**
 * Request bodies: strict UTF-8, JSON or NDJSON, parsed by us rather than Fastify's default.
 *
 * Why our own parser: Fastify's JSON parser rejects any object with a `__proto__` key, but such a
 * key is legitimate data here (an MCP tool may have a parameter of that name; the schema layer
 * handles own `__proto__` keys on purpose). `JSON.parse` creates it as an own property and never
 * touches a prototype. Invalid UTF-8 is an error, not silently replaced by U+FFFD: a replaced
 * byte would change a tool name without anyone noticing.
 */
import { ToolgraphError } from '../../schema/errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export const JSON_TYPE = 'application/json';
/** NDJSON under its common names: one JSON value per line. */
export const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'] as const;

function decode(body: Buffer): string {
  try {
    return decoder.decode(body);
  } catch {
    throw new ToolgraphError('INVALID_INPUT', 'request body is not valid UTF-8');
  }
}

function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `${where} is not valid JSON: ${(error as Error).message}`);
  }
}

export function parseJsonBody(body: Buffer): unknown {
  const text = decode(body);
  if (text.trim() === '') throw new ToolgraphError('INVALID_INPUT', 'request body is empty, expected JSON');
  return parseJsonText(text, 'request body');
}

/** An array of the lines' values; blank lines are skipped, and an empty body is an error. */
export function parseNdjsonBody(body: Buffer): unknown[] {
  const text = decode(body);
  const values: unknown[] = [];
  let start = 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    if (raw !== '') values.push(parseJsonText(raw, `line ${line}`));
    start = end + 1;
  }
  if (values.length === 0) throw new ToolgraphError('INVALID_INPUT', 'request body has no NDJSON lines');
  return values;
}
