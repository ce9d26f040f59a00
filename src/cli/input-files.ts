/**
 * The files the commands read: trace files and dataset folders (`ingest`, `demo`), tool
 * catalogues (`tools import`, `--tools`) and JSON files, each bad line or file named with its
 * reason.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCatalog, type CatalogRead, type SkippedEntry } from '../schema/catalog.js';
import { readCatalogJsonl, TOOLS_FILE, WORKFLOWS_FILE } from '../schema/dataset.js';
import { inFile, isToolgraphError, ToolgraphError, type ErrorLocation } from '../schema/errors.js';
import { readTextFile } from '../schema/jsonl.js';
import { parseTrace, parseWorkflowRecord, workflowToTrace } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { CliOutput } from './command.js';
import { reasonOf } from './error-text.js';

export interface Rejection {
  readonly file: string;
  /** 1-based line, or 0 for the whole file. */
  readonly line: number;
  readonly reason: string;
}

export interface ReadTraces {
  readonly traces: Trace[];
  readonly tools: ToolInfo[];
  readonly rejected: Rejection[];
  readonly lines: number;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Keys only a dataset workflow record has: such a line is read as one, and its errors reported
// as a workflow's.
const WORKFLOW_KEYS = ['edges', 'structure', 'ordered', 'split', 'source'];

/** One JSON value as a trace: any accepted trace format, or a dataset workflow record. */
export function toTrace(value: unknown): Trace {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && WORKFLOW_KEYS.some((k) => Object.hasOwn(value, k))) {
    return workflowToTrace(parseWorkflowRecord(value));
  }
  return parseTrace(value);
}

/** A dataset folder's workflows.jsonl line: a workflow record only, whatever keys it has. */
function workflowTrace(value: unknown): Trace {
  return workflowToTrace(parseWorkflowRecord(value));
}

/**
 * The traces of FILE (JSONL/NDJSON, one trace per line; or `.json` holding one trace or an
 * array), or of a dataset folder (workflows.jsonl, and tools.jsonl as a catalogue). A bad line
 * is rejected with its reason, a folder's workflow line as a file's, and an unreadable catalogue
 * line too, as `tools import` skips one; the good ones are kept.
 */
export async function readTraceSource(path: string, onLine: (done: number, total: number) => void = () => {}): Promise<ReadTraces> {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const workflows = join(path, WORKFLOWS_FILE);
    // NOT_FOUND, as loadDataset says for `--data` and `eval`: the folder lacks a file.
    if (!existsSync(workflows)) {
      throw new ToolgraphError('NOT_FOUND', `${path}: a folder without ${WORKFLOWS_FILE}; give trace files or a dataset folder`, undefined, { file: path });
    }
    const catalogue = join(path, TOOLS_FILE);
    const read = existsSync(catalogue) ? readCatalogJsonl(await readTextFile(catalogue), catalogue) : { tools: [], skipped: [] };
    const lines = readLines(workflows, await readTextFile(workflows), workflowTrace, onLine);
    // An unreadable catalogue line is rejected as a trace line is: said, and refused by --strict.
    const unreadTools = read.skipped.map((s) => ({ file: catalogue, line: s.line ?? 0, reason: `INVALID_INPUT: ${s.reason}` }));
    return { ...lines, rejected: [...lines.rejected, ...unreadTools], tools: read.tools };
  }
  const text = await readTextFile(path);
  if (path.endsWith('.json')) {
    const traces: Trace[] = [];
    const rejected: Rejection[] = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { traces, tools: [], rejected: [{ file: path, line: 0, reason: `invalid JSON: ${message(error)}` }], lines: 1 };
    }
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      try {
        traces.push(toTrace(item));
      } catch (error) {
        rejected.push({ file: path, line: 0, reason: `[${i}]: ${isToolgraphError(error) ? `${error.code}: ${reasonOf(error)}` : message(error)}` });
      }
    });
    onLine(items.length, items.length);
    return { traces, tools: [], rejected, lines: items.length };
  }
  return readLines(path, text, toTrace, onLine);
}

/** JSON lines of `file` as traces by `parse`, each bad line rejected with its number and reason. */
function readLines(file: string, text: string, parse: (value: unknown) => Trace, onLine: (done: number, total: number) => void): ReadTraces {
  const traces: Trace[] = [];
  const rejected: Rejection[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  let counted = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i % 1_000 === 0) onLine(i, lines.length);
    if (line.trim() === '') continue;
    counted++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      rejected.push({ file, line: i + 1, reason: `invalid JSON: ${message(error)}` });
      continue;
    }
    try {
      traces.push(parse(value));
    } catch (error) {
      if (!isToolgraphError(error)) throw error;
      rejected.push({ file, line: i + 1, reason: `${error.code}: ${reasonOf(error)}` });
    }
  }
  onLine(lines.length, lines.length);
  return { traces, tools: [], rejected, lines: counted };
}

/**
 * A catalogue file (`tools import`, `--tools`), read leniently (readCatalog): JSONL as a
 * dataset's tools.jsonl (readCatalogJsonl), or JSON (an array, a tools/list result, an OpenAPI 3
 * document). `.jsonl`/`.ndjson` and `.json` say which; under any other name the text does, so
 * that a saved `tools list --json` imports whatever it is called: one JSON catalogue (an array,
 * `{tools: [...]}` or `{openapi: ...}`) is JSON; else a text whose first line is a JSON value by
 * itself is JSON lines (one tool on one line is a line), and a bad line is skipped with its
 * number; else it is JSON, with the JSON parser's error for a pretty-printed file with a mistake.
 * Errors name the file.
 */
export async function readCatalogFile(path: string): Promise<CatalogRead> {
  const text = await readTextFile(path);
  const fromJson = (value: unknown): CatalogRead => atFile(path, () => readCatalog(value));
  const fromLines = (): CatalogRead => readCatalogJsonl(text, path);
  if (path.endsWith('.jsonl') || path.endsWith('.ndjson')) return fromLines();
  if (path.endsWith('.json')) return fromJson(parseJson(text, path));
  const whole = jsonValue(text);
  if (whole !== undefined && (Array.isArray(whole.value) || (isObject(whole.value) && ['tools', 'openapi', 'swagger', 'jsonrpc'].some((k) => Object.hasOwn(whole.value as object, k))))) {
    return fromJson(whole.value);
  }
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((line) => line.trim() !== '');
  if (first !== undefined && jsonValue(first) !== undefined) return fromLines();
  return fromJson(whole !== undefined ? whole.value : parseJson(text, path));
}

/** `fn`, its ToolgraphError said at `file` (schema/errors.ts, inFile): the CLI names the file, not the reader. */
function atFile<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw inFile(error, { file });
  }
}

/** Where a skipped entry was: `file:line` for JSON lines, `file: tools[3]` for JSON. */
export function skippedPlace(file: string, entry: SkippedEntry): string {
  return entry.line !== undefined ? `${file}:${entry.line}` : `${file}: ${entry.at ?? `[${entry.index ?? 0}]`}`;
}

/** Says each skipped entry of `file` on stderr, after their count. */
export function reportSkipped(file: string, skipped: readonly SkippedEntry[], io: CliOutput): void {
  if (skipped.length === 0) return;
  io.err(`skipped ${skipped.length} unreadable catalogue entr${skipped.length === 1 ? 'y' : 'ies'} of ${file}:\n`);
  for (const entry of skipped) {
    // A JSON entry's reason starts with its own path: said once.
    const reason = entry.at !== undefined && entry.reason.startsWith(entry.at) ? entry.reason.slice(entry.at.length).replace(/^[.:]\s*/, '') : entry.reason;
    io.err(`skipped ${skippedPlace(file, entry)}: ${reason}\n`);
  }
}

/**
 * The catalogue of a `--tools FILE` option: read as `tools import` reads one, each unreadable
 * entry said on stderr and left out; INVALID_INPUT when none can be read.
 */
export async function readToolsOption(file: string, io: CliOutput): Promise<ToolInfo[]> {
  const read = await readCatalogFile(file);
  if (read.tools.length === 0 && read.skipped.length > 0) {
    const first = read.skipped[0]!;
    throw new ToolgraphError('INVALID_INPUT', `--tools: no entry of ${file} could be read (${read.skipped.length} skipped); first: ${skippedPlace(file, first)}: ${first.reason}`);
  }
  reportSkipped(file, read.skipped, io);
  return read.tools;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function jsonValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** A JSON file's value; INVALID_INPUT naming the file when it is not JSON. */
export async function readJson(path: string): Promise<unknown> {
  return parseJson(await readTextFile(path), path);
}

/** `text` read from `path` as JSON; INVALID_INPUT naming the file (and the line, where the parser says where) when it is not JSON. */
export function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const line = lineOfPosition(text, message(error));
    const at = line === undefined ? { file: path } : { file: path, line };
    throw new ToolgraphError('INVALID_INPUT', `${path}: not valid JSON: ${message(error)}`, undefined, at);
  }
}

/** The 1-based line of the `position N` a JSON.parse error names, if it names one. */
function lineOfPosition(text: string, reason: string): number | undefined {
  const match = /position (\d+)/.exec(reason);
  if (match === null) return undefined;
  const position = Math.min(Number(match[1]), text.length);
  let line = 1;
  for (let i = 0; i < position; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Runs `fn` on what `file` held (a catalogue, capabilities, a trace): a bad input error it throws
 * is said at the file (schema/errors.ts, inFile). `file` may be a location with its line.
 */
export async function fromFile<T>(file: string | ErrorLocation, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw inFile(error, typeof file === 'string' ? { file } : file);
  }
}
