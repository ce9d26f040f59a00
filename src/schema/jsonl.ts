/**
 * JSON Lines: one JSON value per line, parsed by a caller-given line parser. Errors say where:
 * `data/nestful/tools.jsonl:12: parseTool: params[0].name: must not be empty`.
 *
 * Fails on the first bad line: a dataset with a broken line is a broken dataset, and a partial
 * load would silently change evaluation numbers.
 */
import { readFile } from 'node:fs/promises';
import { ToolgraphError, isToolgraphError } from './errors.js';
import { MAX_JSONL_LINE_LENGTH } from './limits.js';

/** A line parser that also receives the 1-based line number, to report or remember it. */
export type NumberedLineParser<T> = (value: unknown, line: number) => T;

/**
 * Parses every non-blank line of `text` with `parseLine`, called with the value only, so
 * `parseJsonl(text, parseTrace, 'x')` never passes a line number as parseTrace's options.
 * See parseJsonlLines.
 */
export function parseJsonl<T>(text: string, parseLine: (value: unknown) => T, source: string): T[] {
  return parseJsonlLines(text, (value) => parseLine(value), source);
}

/**
 * Parses every non-blank line of `text` with `parseLine(value, lineNumber)`. A ToolgraphError from `parseLine` keeps
 * its code (INVALID_INPUT, or PAYLOAD_TOO_LARGE past a limit) and gets `source:line: ` in front;
 * invalid JSON and any other error become INVALID_INPUT. A leading byte-order mark and CRLF line
 * ends are accepted.
 */
export function parseJsonlLines<T>(text: string, parseLine: NumberedLineParser<T>, source: string): T[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  const out: T[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const at = `${source}:${i + 1}`;
    if (line.trim() === '') continue;
    if (line.length > MAX_JSONL_LINE_LENGTH) {
      throw new ToolgraphError(
        'PAYLOAD_TOO_LARGE',
        `${at}: line too long: ${line.length} characters, the limit is ${MAX_JSONL_LINE_LENGTH}`,
        { source, line: i + 1 },
        { file: source, line: i + 1 },
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolgraphError('INVALID_INPUT', `${at}: invalid JSON: ${reason}`, { source, line: i + 1 }, { file: source, line: i + 1 });
    }
    try {
      out.push(parseLine(value, i + 1));
    } catch (error) {
      if (isToolgraphError(error)) {
        throw new ToolgraphError(
          error.code,
          `${at}: ${error.message}`,
          {
            source,
            line: i + 1,
            cause: error.details,
          },
          { file: source, line: i + 1 },
        );
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolgraphError('INVALID_INPUT', `${at}: ${reason}`, { source, line: i + 1 }, { file: source, line: i + 1 });
    }
  }
  return out;
}

/** One non-blank line of a JSON Lines text: its 1-based number and its value, or why it is not JSON. */
export type JsonlLine = { readonly line: number; readonly value: unknown } | { readonly line: number; readonly invalid: string };

/**
 * Every non-blank line of `text` as JSON, a line that is not JSON kept as such rather than
 * thrown, for a reader that reports bad lines and goes on. A line past MAX_JSONL_LINE_LENGTH is
 * still PAYLOAD_TOO_LARGE (`source:line: ...`): the limit refuses the file. BOM and CRLF as
 * parseJsonlLines.
 */
export function jsonlLines(text: string, source: string): JsonlLine[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  const out: JsonlLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    if (line.length > MAX_JSONL_LINE_LENGTH) {
      throw new ToolgraphError(
        'PAYLOAD_TOO_LARGE',
        `${source}:${i + 1}: line too long: ${line.length} characters, the limit is ${MAX_JSONL_LINE_LENGTH}`,
        { source, line: i + 1 },
      );
    }
    try {
      out.push({ line: i + 1, value: JSON.parse(line) as unknown });
    } catch (error) {
      out.push({ line: i + 1, invalid: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  return out;
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Reads a whole UTF-8 text file. A missing file is NOT_FOUND naming the path; a directory is
 * INVALID_INPUT; anything else (permissions, I/O) is INTERNAL. Each error's location is the path.
 */
export async function readTextFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = errnoCode(error);
    const at = { file: path };
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ToolgraphError('NOT_FOUND', `readTextFile: ${path}: no such file`, { path }, at);
    }
    if (code === 'EISDIR') {
      throw new ToolgraphError('INVALID_INPUT', `readTextFile: ${path}: expected a file, found a directory`, { path }, at);
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolgraphError('INTERNAL', `readTextFile: ${path}: cannot read: ${reason}`, { path, errno: code }, at);
  }
}

/** Reads a JSONL file and parses it with parseJsonl; `source` (default: the path) prefixes errors. */
export async function readJsonlFile<T>(
  path: string,
  parseLine: (value: unknown) => T,
  source: string = path,
): Promise<T[]> {
  return parseJsonl(await readTextFile(path), parseLine, source);
}
