/**
 * The files the commands read: trace files and dataset folders (`ingest`, `demo`), tool
 * catalogues (`tools import`, `--tools`) and JSON files, each bad line or file named with its
 * reason.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCatalogJsonl, TOOLS_FILE, WORKFLOWS_FILE } from '../schema/dataset.js';
import { isToolgraphError, ToolgraphError } from '../schema/errors.js';
import { readTextFile } from '../schema/jsonl.js';
import { parseTrace, parseWorkflowRecord, workflowToTrace } from '../schema/trace.js';
import type { ToolInfo, Trace } from '../schema/types.js';

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
function toTrace(value: unknown): Trace {
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
 * is rejected with its reason, a folder's workflow line as a file's; the good ones are kept. A
 * folder's catalogue is taken whole or not at all, as `tools import` takes one.
 */
export async function readTraceSource(path: string, onLine: (done: number, total: number) => void = () => {}): Promise<ReadTraces> {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const workflows = join(path, WORKFLOWS_FILE);
    // NOT_FOUND, as loadDataset says for `--data` and `eval`: the folder lacks a file.
    if (!existsSync(workflows)) {
      throw new ToolgraphError('NOT_FOUND', `ingest: ${path} is a folder without ${WORKFLOWS_FILE}; give trace files or a dataset folder`);
    }
    const catalogue = join(path, TOOLS_FILE);
    const tools = existsSync(catalogue) ? parseCatalogJsonl(await readTextFile(catalogue), catalogue) : [];
    return { ...readLines(workflows, await readTextFile(workflows), workflowTrace, onLine), tools };
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
        rejected.push({ file: path, line: 0, reason: `[${i}]: ${message(error)}` });
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
      rejected.push({ file, line: i + 1, reason: `${error.code}: ${error.message}` });
    }
  }
  onLine(lines.length, lines.length);
  return { traces, tools: [], rejected, lines: counted };
}

/**
 * A catalogue file (`tools import`, `--tools`): JSONL as a dataset's tools.jsonl
 * (parseCatalogJsonl), or JSON. `.jsonl`/`.ndjson` and `.json` say which; under any other name
 * the text does, so that a saved `tools list --json` imports whatever it is called: one JSON
 * catalogue (an array, or `{tools: [...]}`) is JSON; else a text whose first line is a JSON
 * value by itself is JSON lines (one tool on one line is a line), and a bad line is named; else
 * it is JSON, with the JSON parser's error for a pretty-printed file with a mistake.
 */
export async function readCatalog(path: string): Promise<unknown> {
  const text = await readTextFile(path);
  if (path.endsWith('.jsonl') || path.endsWith('.ndjson')) return parseCatalogJsonl(text, path);
  if (path.endsWith('.json')) return parseJson(text, path);
  const whole = jsonValue(text);
  if (whole !== undefined && (Array.isArray(whole.value) || (isObject(whole.value) && Object.hasOwn(whole.value, 'tools')))) return whole.value;
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((line) => line.trim() !== '');
  if (first !== undefined && jsonValue(first) !== undefined) return parseCatalogJsonl(text, path);
  return whole !== undefined ? whole.value : parseJson(text, path);
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

/** `text` read from `path` as JSON; INVALID_INPUT naming the file when it is not JSON. */
export function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `'${path}' is not valid JSON: ${message(error)}`);
  }
}
