/**
 * Tool catalogues at the boundary: dataset tools.jsonl lines and MCP `tools/list` entries, both
 * normalised into `ToolInfo {name, description, params}`.
 *
 * Both formats are loose (unknown keys allowed): they are written by third parties and grow over
 * time (MCP added `title`, `outputSchema`, `icons` and `_meta` across revisions; datasets carry
 * `desc_source`, `output_parameters`). The fields we read are checked strictly.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { labelSchema, paramNameSchema, textSchema, toolNameSchema } from './fields.js';
import {
  flattenError,
  formatPath,
  issuesError,
  limitedArray,
  parseWith,
  type FlatIssue,
  type PathSegment,
} from './issues.js';
import { assertJsonDepth } from './json.js';
import { MAX_CATALOG_TOOLS, MAX_TOOL_PARAMS } from './limits.js';
import type { ToolInfo, ToolParam } from './types.js';

// ---------------------------------------------------------------------------------------------
// Dataset catalogue (tools.jsonl)

/** A parameter as datasets write it; `null` means unknown (e.g. UltraTool's `required`). */
const catalogParamSchema = z.looseObject({
  name: paramNameSchema,
  type: labelSchema.nullable().optional(),
  description: textSchema.nullable().optional(),
  required: z.boolean().nullable().optional(),
});

/** One line of a dataset's tools.jsonl. */
export const catalogToolSchema = z.looseObject({
  name: toolNameSchema,
  description: textSchema.nullable().optional(),
  params: limitedArray(catalogParamSchema, MAX_TOOL_PARAMS).optional(),
  domain: z.union([labelSchema, limitedArray(labelSchema, MAX_TOOL_PARAMS)]).optional(),
  server: labelSchema.optional(),
  category: labelSchema.optional(),
});

export type CatalogTool = z.output<typeof catalogToolSchema>;

// ---------------------------------------------------------------------------------------------
// MCP tools/list entries

/** JSON Schema allows `true`/`false` as schemas; objects are read for type and description. */
const mcpPropertySchema = z.union([
  z.boolean(),
  z.looseObject({
    type: z.union([labelSchema, limitedArray(labelSchema, 16)]).optional(),
    description: textSchema.optional(),
    title: textSchema.optional(),
  }),
]);

const objectSchemaSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), mcpPropertySchema).optional(),
  required: limitedArray(z.string(), MAX_TOOL_PARAMS).optional(),
});

/** An MCP `Tool` as listed by `tools/list`. */
export const mcpToolSchema = z.looseObject({
  name: toolNameSchema,
  title: labelSchema.optional(),
  description: textSchema.optional(),
  inputSchema: objectSchemaSchema,
  outputSchema: objectSchemaSchema.optional(),
  annotations: z.looseObject({ title: labelSchema.optional() }).optional(),
});

export type McpTool = z.output<typeof mcpToolSchema>;

/** The `tools/list` result wrapper. */
const toolsListSchema = z.strictObject({
  tools: limitedArray(z.unknown(), MAX_CATALOG_TOOLS),
  nextCursor: z.string().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

const catalogArraySchema = limitedArray(z.unknown(), MAX_CATALOG_TOOLS);

// ---------------------------------------------------------------------------------------------
// Normalisation

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** MCP when it has `inputSchema`; otherwise a dataset line. */
export function isMcpToolShape(input: unknown): boolean {
  return isRecord(input) && Object.hasOwn(input, 'inputSchema');
}

function fromCatalog(tool: CatalogTool): ToolInfo {
  const params: ToolParam[] = (tool.params ?? []).map((p) => ({
    name: p.name,
    type: p.type ?? '',
    description: p.description ?? '',
    required: p.required ?? false,
  }));
  return { name: tool.name, description: tool.description ?? '', params };
}

function jsonSchemaType(property: z.output<typeof mcpPropertySchema>): string {
  if (typeof property === 'boolean' || property.type === undefined) return '';
  return typeof property.type === 'string' ? property.type : property.type.join(' | ');
}

/**
 * zod's record drops an own `__proto__` key (it would set the prototype), so property names are
 * read from the raw input, and such a property's schema is validated here.
 */
function mcpParams(raw: unknown, tool: McpTool, base: readonly PathSegment[], caller: string): ToolParam[] {
  const rawProps = isRecord(raw) && isRecord(raw['inputSchema']) ? raw['inputSchema']['properties'] : undefined;
  if (!isRecord(rawProps)) return [];
  const required = new Set(tool.inputSchema.required ?? []);
  const names = Object.keys(rawProps);
  const issues: FlatIssue[] = [];
  const params: ToolParam[] = [];
  if (names.length > MAX_TOOL_PARAMS) {
    const path = [...base, 'inputSchema', 'properties'];
    throw issuesError(caller, [
      { path, code: 'too_big', message: `too many items: ${names.length}, the limit is ${MAX_TOOL_PARAMS}`, limit: true },
    ]);
  }
  for (const name of names) {
    const path = [...base, 'inputSchema', 'properties', name];
    const nameCheck = paramNameSchema.safeParse(name, { reportInput: true });
    if (!nameCheck.success) issues.push(...flattenError(nameCheck.error, path));
    const value = Object.getOwnPropertyDescriptor(rawProps, name)?.value;
    const checked = mcpPropertySchema.safeParse(value, { reportInput: true });
    if (!checked.success) {
      issues.push(...flattenError(checked.error, path));
      continue;
    }
    const property = checked.data;
    params.push({
      name,
      type: jsonSchemaType(property),
      description: typeof property === 'boolean' ? '' : (property.description ?? property.title ?? ''),
      required: required.has(name),
    });
  }
  if (issues.length > 0) throw issuesError(caller, issues);
  return params;
}

function fromMcp(raw: unknown, tool: McpTool, base: readonly PathSegment[], caller: string): ToolInfo {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    params: mcpParams(raw, tool, base, caller),
  };
}

function parseToolAt(input: unknown, base: readonly PathSegment[], caller: string): ToolInfo {
  if (isMcpToolShape(input)) return fromMcp(input, parseWith(mcpToolSchema, input, caller, base), base, caller);
  return fromCatalog(parseWith(catalogToolSchema, input, caller, base));
}

/** One tool, either an MCP `tools/list` entry (has `inputSchema`) or a dataset tools.jsonl line. */
export function parseTool(input: unknown): ToolInfo {
  assertJsonDepth(input, 'parseTool');
  return parseToolAt(input, [], 'parseTool');
}

function nameLabel(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * Throws INVALID_INPUT when two tools share a name; `where(i)` renders the i-th tool's place.
 * Exported for dataset loading, which reports file lines instead of indices.
 */
export function assertUniqueToolNames(
  tools: readonly ToolInfo[],
  caller: string,
  where: (index: number) => string,
): void {
  const first = new Map<string, number>();
  tools.forEach((tool, index) => {
    const seen = first.get(tool.name);
    if (seen !== undefined) {
      throw new ToolgraphError(
        'INVALID_INPUT',
        `${caller}: ${where(index)}: duplicate tool name ${nameLabel(tool.name)} (first at ${where(seen)})`,
        { name: tool.name, index, firstIndex: seen },
      );
    }
    first.set(tool.name, index);
  });
}

/**
 * A whole catalogue: an array of tools (either format, mixed) or an MCP `tools/list` result
 * `{tools: [...], nextCursor?}`. All tools are checked and every issue reported; names must be
 * unique.
 */
export function parseCatalog(input: unknown): ToolInfo[] {
  const caller = 'parseCatalog';
  assertJsonDepth(input, caller);
  const wrapped = isRecord(input);
  const items = wrapped
    ? parseWith(toolsListSchema, input, caller).tools
    : parseWith(catalogArraySchema, input, caller);
  const base: PathSegment[] = wrapped ? ['tools'] : [];
  const tools: ToolInfo[] = [];
  const issues: FlatIssue[] = [];
  items.forEach((item, index) => {
    try {
      tools.push(parseToolAt(item, [...base, index], caller));
    } catch (error) {
      const details = error instanceof ToolgraphError ? error.details : undefined;
      if (!isFlatDetails(details)) throw error;
      issues.push(...details.flat);
    }
  });
  if (issues.length > 0) throw issuesError(caller, issues);
  assertUniqueToolNames(tools, caller, (i) => `${formatPath([...base, i])}.name`);
  return tools;
}

function isFlatDetails(details: unknown): details is { flat: FlatIssue[] } {
  return isRecord(details) && Array.isArray(details['flat']);
}
