/**
 * Loads an evaluation dataset folder (format: data/README.md): `workflows.jsonl` (required) and
 * `tools.jsonl` (optional), every line validated. A tools.jsonl line that cannot be read (not
 * JSON, no usable name) is skipped with a warning: the workflows may still name that tool, which
 * is then a tool with no description, as for any tool the catalogue lacks.
 *
 * Third-party catalogues repeat tools: NESTFUL's tools.jsonl lists five tools two or three times,
 * byte for byte. A repeat identical to the first entry (after normalisation) is dropped. A repeat
 * that differs is kept out too, with a warning naming both lines: the workflows name tools by
 * name alone, so they cannot say which definition they called, and an evaluation must run on any
 * folder in the format rather than stop at a catalogue that reuses a name. (`tools import` and
 * `ingest`, which write the store, still refuse such a catalogue whole.) Workflow ids must be
 * unique (the data format promises it, docs/evaluation.md, and k-fold assignment hashes them).
 */
import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { ToolgraphError } from './errors.js';
import { skipReason, type CatalogRead, type SkippedEntry } from './catalog.js';
import { issuesError } from './issues.js';
import { assertJsonDepth, canonicalJson } from './json.js';
import { jsonlLines, parseJsonlLines, readTextFile } from './jsonl.js';
import { MAX_CATALOG_TOOLS } from './limits.js';
import { checkTool, parseTool } from './tool.js';
import { parseWorkflowRecord, type WorkflowRecord } from './trace.js';
import type { ToolInfo } from './types.js';

export interface Dataset {
  /** The folder's base name, e.g. `nestful`. */
  readonly name: string;
  /** Absolute path of the folder. */
  readonly dir: string;
  /** The catalogue, in file order, repeats removed; empty without tools.jsonl. */
  readonly tools: ToolInfo[];
  readonly workflows: WorkflowRecord[];
  /**
   * What loading read past: each tools.jsonl line that could not be read, and each tool name
   * repeated with another definition (the first kept). Absent in a Dataset built by hand: none.
   */
  readonly warnings?: readonly string[];
}

export const WORKFLOWS_FILE = 'workflows.jsonl';
export const TOOLS_FILE = 'tools.jsonl';

function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

async function assertFolder(dir: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch {
    throw new ToolgraphError('NOT_FOUND', `loadDataset: ${dir}: no such folder`, { path: dir }, { file: dir });
  }
  if (!isDirectory) {
    throw new ToolgraphError('INVALID_INPUT', `loadDataset: ${dir}: expected a folder, found a file`, { path: dir }, { file: dir });
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readTextFile(path);
  } catch (error) {
    if (error instanceof ToolgraphError && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}

/** Catalogue lines with their numbers, repeats dropped or reported (see parseCatalogJsonl). */
function distinctTools(entries: readonly { tool: ToolInfo; line: number }[], source: string, onConflict?: (message: string) => void): ToolInfo[] {
  const first = new Map<string, { line: number; json: string }>();
  const tools: ToolInfo[] = [];
  for (const { tool, line } of entries) {
    const json = canonicalJson(tool);
    const seen = first.get(tool.name);
    if (seen === undefined) {
      first.set(tool.name, { line, json });
      tools.push(tool);
    } else if (seen.json !== json) {
      const message = `${source}:${line}: duplicate tool name ${quoted(tool.name)} with a different definition (first at line ${seen.line})`;
      if (onConflict === undefined) {
        throw new ToolgraphError('INVALID_INPUT', message, { source, line, name: tool.name, firstLine: seen.line }, { file: source, line });
      }
      onConflict(`${message}; the first is kept`);
    }
  }
  if (tools.length > MAX_CATALOG_TOOLS) {
    throw new ToolgraphError(
      'PAYLOAD_TOO_LARGE',
      `${source}: too many tools: ${tools.length}, the limit is ${MAX_CATALOG_TOOLS}`,
      { source },
      { file: source },
    );
  }
  return tools;
}

/**
 * A JSONL catalogue: one tool a line, every line readable (a bad one is INVALID_INPUT naming
 * `source:line`). Third-party catalogues repeat a tool byte for byte (NESTFUL does), so an
 * identical repeat is dropped. A repeat that differs is INVALID_INPUT naming both lines, unless
 * `onConflict` is given: then the first definition is kept and `onConflict` is told, in the
 * same words.
 */
export function parseCatalogJsonl(text: string, source: string, onConflict?: (message: string) => void): ToolInfo[] {
  return distinctTools(parseJsonlLines(text, (value, line) => ({ tool: parseTool(value), line }), source), source, onConflict);
}

/**
 * A JSONL catalogue read leniently: a line that is not JSON, or whose tool cannot be read (no
 * usable name, ...: tool.ts), is skipped with its line and reason, and the others are read.
 * Repeats as parseCatalogJsonl. A line past a limit still refuses the file: PAYLOAD_TOO_LARGE
 * naming `source:line`.
 */
export function readCatalogJsonl(text: string, source: string, onConflict?: (message: string) => void): CatalogRead {
  const entries: { tool: ToolInfo; line: number }[] = [];
  const skipped: SkippedEntry[] = [];
  for (const item of jsonlLines(text, source)) {
    if ('invalid' in item) {
      skipped.push({ line: item.line, reason: item.invalid });
      continue;
    }
    try {
      assertJsonDepth(item.value, `${source}:${item.line}`);
    } catch (error) {
      if (error instanceof ToolgraphError && error.code === 'PAYLOAD_TOO_LARGE') throw new ToolgraphError(error.code, error.message, { source, line: item.line });
      throw error;
    }
    const checked = checkTool(item.value, []);
    if (checked.issues === undefined) entries.push({ tool: checked.tool, line: item.line });
    else if (checked.issues.some((i) => i.limit)) throw issuesError(`${source}:${item.line}`, checked.issues);
    else skipped.push({ line: item.line, reason: skipReason(checked.issues) });
  }
  return { tools: distinctTools(entries, source, onConflict), skipped };
}

function loadWorkflows(text: string, source: string): WorkflowRecord[] {
  const entries = parseJsonlLines(text, (value, line) => ({ record: parseWorkflowRecord(value), line }), source);
  const first = new Map<string, number>();
  return entries.map(({ record, line }) => {
    const seen = first.get(record.id);
    if (seen !== undefined) {
      throw new ToolgraphError(
        'INVALID_INPUT',
        `${source}:${line}: duplicate workflow id ${quoted(record.id)} (first at line ${seen})`,
        { source, line, id: record.id, firstLine: seen },
        { file: source, line },
      );
    }
    first.set(record.id, line);
    return record;
  });
}

/**
 * Loads `dir/workflows.jsonl` and, when present, `dir/tools.jsonl`. Errors: NOT_FOUND for a
 * missing folder or workflows.jsonl (naming the path); INVALID_INPUT (`file:line: ...`) for a bad
 * workflow line or a repeated workflow id; PAYLOAD_TOO_LARGE past a limit. An unreadable
 * tools.jsonl line and a tool repeated with another definition are warnings (`warnings`).
 */
export async function loadDataset(dir: string): Promise<Dataset> {
  const root = resolve(dir);
  await assertFolder(root);
  const workflowsPath = join(root, WORKFLOWS_FILE);
  const toolsPath = join(root, TOOLS_FILE);
  const [workflowsText, toolsText] = await Promise.all([readOptional(workflowsPath), readOptional(toolsPath)]);
  if (workflowsText === undefined) {
    throw new ToolgraphError('NOT_FOUND', `loadDataset: ${root}: missing ${WORKFLOWS_FILE}`, { path: workflowsPath }, { file: root });
  }
  const warnings: string[] = [];
  const catalogue = toolsText === undefined ? { tools: [], skipped: [] } : readCatalogJsonl(toolsText, toolsPath, (message) => warnings.push(message));
  for (const s of catalogue.skipped) warnings.push(`${toolsPath}:${s.line}: ${s.reason}; the entry is skipped`);
  return {
    name: basename(root),
    dir: root,
    tools: catalogue.tools,
    workflows: loadWorkflows(workflowsText, workflowsPath),
    warnings,
  };
}
