/**
 * Whole catalogues at the boundary: an array of tools (dataset lines and MCP entries, mixed), an
 * MCP `tools/list` result `{tools: [...], nextCursor?}` (or the JSON-RPC answer that carries it),
 * or an OpenAPI 3 document (openapi.ts).
 *
 * Two readers over one check (tool.ts checkTool):
 * - parseCatalog is strict: every entry must be readable, all issues are reported together;
 * - readCatalog is lenient unless told `strict`: an entry that cannot be read (no usable name, a
 *   field toolgraph reads holding something it cannot use) is skipped and reported with its
 *   index and reason, and the others are read. A registry of thousands of tools is not refused
 *   for one broken entry.
 * In both, the documented limits refuse the whole input (PAYLOAD_TOO_LARGE: a name too long, too
 * many tools or parameters), and a name used twice is INVALID_INPUT naming both places: which
 * definition would be meant cannot be told.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { formatPath, issuesError, limitedArray, parseWith, type FlatIssue, type PathSegment } from './issues.js';
import { assertJsonDepth } from './json.js';
import { MAX_CATALOG_TOOLS } from './limits.js';
import { isOpenApiShape, openApiEntries } from './openapi.js';
import { checkTool, type CheckedTool } from './tool.js';
import type { ToolInfo } from './types.js';

/** An entry left out of a catalogue, where it was, and why. */
export interface SkippedEntry {
  /** 0-based position of the entry: in the array, or among an OpenAPI document's operations. */
  readonly index?: number;
  /** 1-based line of a JSON Lines catalogue. */
  readonly line?: number;
  /** Its path in the document (`tools[3]`, `paths["/pets"].get`), when read from JSON. */
  readonly at?: string;
  /** What cannot be read, with the field's path: `tools[3].name: missing, expected string`. */
  readonly reason: string;
}

export interface CatalogRead {
  /** The entries read, in input order. */
  readonly tools: ToolInfo[];
  /** The entries that could not be read, in input order; empty in strict mode. */
  readonly skipped: SkippedEntry[];
}

export interface ReadCatalogOptions {
  /** Throw INVALID_INPUT, naming every issue, when any entry cannot be read (parseCatalog). */
  readonly strict?: boolean;
}

/** The tools/list result wrapper; other keys (a newer protocol revision's) are not read. */
const toolsListSchema = z.looseObject({
  tools: limitedArray(z.unknown(), MAX_CATALOG_TOOLS),
  nextCursor: z.unknown().optional(),
});

const catalogArraySchema = limitedArray(z.unknown(), MAX_CATALOG_TOOLS);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Entry {
  readonly at: readonly PathSegment[];
  readonly checked: CheckedTool;
}

/** The entries of any accepted catalogue shape, each checked; the shape itself must be readable. */
function entriesOf(input: unknown, caller: string): Entry[] {
  if (isOpenApiShape(input)) return openApiEntries(input as Record<string, unknown>, caller);
  if (!isRecord(input)) {
    const items = parseWith(catalogArraySchema, input, caller);
    return items.map((item, index) => ({ at: [index], checked: checkTool(item, [index]) }));
  }
  // A JSON-RPC answer to tools/list, saved as it came: {jsonrpc, id, result: {tools}}.
  const rpc = !Object.hasOwn(input, 'tools') && Object.hasOwn(input, 'jsonrpc') && isRecord(input['result']);
  const base: PathSegment[] = rpc ? ['result', 'tools'] : ['tools'];
  const list = parseWith(toolsListSchema, rpc ? input['result'] : input, caller, rpc ? ['result'] : []);
  return list.tools.map((item, index) => ({ at: [...base, index], checked: checkTool(item, [...base, index]) }));
}

function issueLine(issue: FlatIssue): string {
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`;
}

/** One line for an entry's issues: the first, and how many more. */
export function skipReason(issues: readonly FlatIssue[]): string {
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return `${issueLine(issues[0]!)}${more}`;
}

function nameLabel(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** Throws INVALID_INPUT naming a repeated tool name, where it repeats and where it came first. */
function assertUniqueToolNames(tools: readonly { tool: ToolInfo; at: readonly PathSegment[] }[], caller: string): void {
  const first = new Map<string, readonly PathSegment[]>();
  for (const { tool, at } of tools) {
    const seen = first.get(tool.name);
    if (seen !== undefined) {
      const path = formatPath(typeof at[at.length - 1] === 'number' ? [...at, 'name'] : at);
      throw new ToolgraphError(
        'INVALID_INPUT',
        `${caller}: ${path}: duplicate tool name ${nameLabel(tool.name)} (first at ${formatPath(seen)})`,
        { issues: [{ path, code: 'duplicate', message: 'duplicate tool name' }], total: 1, name: tool.name },
      );
    }
    first.set(tool.name, at);
  }
}

/** readCatalog under another caller's name (setTools), for its messages. */
export function readCatalogAs(input: unknown, caller: string, options: ReadCatalogOptions = {}): CatalogRead {
  assertJsonDepth(input, caller);
  const entries = entriesOf(input, caller);
  const read: { tool: ToolInfo; at: readonly PathSegment[] }[] = [];
  const skipped: SkippedEntry[] = [];
  const issues: FlatIssue[] = [];
  entries.forEach(({ at, checked }, index) => {
    if (checked.issues === undefined) {
      read.push({ tool: checked.tool, at });
      return;
    }
    issues.push(...checked.issues);
    skipped.push({ index, at: formatPath(at), reason: skipReason(checked.issues) });
  });
  // A limit refuses the input whole, in either mode: it protects the service, not the entry.
  if (issues.some((i) => i.limit)) throw issuesError(caller, issues);
  if (options.strict === true && issues.length > 0) throw issuesError(caller, issues);
  assertUniqueToolNames(read, caller);
  return { tools: read.map((r) => r.tool), skipped };
}

/**
 * A whole catalogue, leniently: `{tools, skipped}`, each entry that cannot be read skipped with
 * its index, path and reason. `{strict: true}` throws instead (as parseCatalog). Throws
 * INVALID_INPUT when the input is no catalogue at all or a name repeats, PAYLOAD_TOO_LARGE past a
 * limit.
 */
export function readCatalog(input: unknown, options: ReadCatalogOptions = {}): CatalogRead {
  return readCatalogAs(input, 'readCatalog', options);
}

/**
 * A whole catalogue: an array of tools (either format, mixed), an MCP `tools/list` result or an
 * OpenAPI 3 document. Every tool is checked and all issues are reported together (INVALID_INPUT
 * naming each path); names must be unique (INVALID_INPUT naming the duplicate and its first place).
 */
export function parseCatalog(input: unknown): ToolInfo[] {
  return readCatalogAs(input, 'parseCatalog', { strict: true }).tools;
}

/**
 * A lenient read for a write: INVALID_INPUT when entries were given and none could be read (a
 * catalogue of nothing but unreadable entries is a mistake, not an empty import), naming the
 * first reason and listing every skipped entry in `details.skipped`.
 */
export function assertSomeRead(read: CatalogRead, caller: string): CatalogRead {
  if (read.tools.length > 0 || read.skipped.length === 0) return read;
  const first = read.skipped[0]!;
  const n = read.skipped.length;
  throw new ToolgraphError(
    'INVALID_INPUT',
    `${caller}: no entry could be read (${n} skipped), nothing was written; first: ${first.line !== undefined ? `line ${first.line}: ` : ''}${first.reason}`,
    { skipped: read.skipped.slice(0, 100), total: n },
  );
}
