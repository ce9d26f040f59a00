/**
 * Tool catalogues at the boundary: dataset tools.jsonl lines and MCP `tools/list` entries, both
 * normalised into `ToolInfo {name, description, params, outputs?}`, which reads back as a
 * dataset line.
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
import { MAX_CATALOG_TOOLS, MAX_ID_LENGTH, MAX_TOOL_PARAMS } from './limits.js';
import { isTypeName } from './type-names.js';
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
  output_parameters: limitedArray(paramNameSchema, MAX_TOOL_PARAMS).nullable().optional(),
  // ToolInfo's own name for them: a catalogue read back (GET /v1/tools, the store, a dataset
  // already loaded) must keep its data flow, which DAG suggestion reads.
  outputs: limitedArray(paramNameSchema, MAX_TOOL_PARAMS).optional(),
  outputTypes: limitedArray(labelSchema, MAX_TOOL_PARAMS).optional(),
});

export type CatalogTool = z.output<typeof catalogToolSchema>;

// ---------------------------------------------------------------------------------------------
// MCP tools/list entries

/**
 * JSON Schema allows `true`/`false` as schemas; objects are read for type and description (and,
 * leniently, for the name of their type: typeName).
 */
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
  const outputs = [...new Set([...(tool.output_parameters ?? []), ...(tool.outputs ?? [])])];
  const outputTypes = [...new Set(tool.outputTypes ?? [])];
  return {
    name: tool.name,
    description: tool.description ?? '',
    params,
    ...(outputs.length > 0 ? { outputs } : {}),
    ...(outputTypes.length > 0 ? { outputTypes } : {}),
  };
}

/** The last segment of a schema's own `$ref` (`#/$defs/Airport` -> `Airport`), or null. */
function refName(schema: unknown): string | null {
  const ref = isRecord(schema) ? ownValue(schema, '$ref') : undefined;
  if (typeof ref !== 'string' || ref.length > MAX_ID_LENGTH) return null;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return name === '' ? null : name;
}

/**
 * The name of the type a schema stands for, or null: the definition its `$ref` points to, alone
 * or as the one `allOf` entry (pydantic writes a described field so), else an object schema's
 * `title` (a field's title is its label, not a type). Read leniently: these keys are optional
 * and loose in MCP, and an odd one names no type rather than failing the tool.
 */
function typeName(schema: unknown): string | null {
  if (!isRecord(schema)) return null;
  const allOf = ownValue(schema, 'allOf');
  const named = refName(schema) ?? (Array.isArray(allOf) && allOf.length === 1 ? refName(allOf[0]) : null);
  if (named !== null) return named;
  const title = ownValue(schema, 'title');
  return ownValue(schema, 'type') === 'object' && typeof title === 'string' && title !== '' && title.length <= MAX_ID_LENGTH ? title : null;
}

/** A property's type: the name of its type (typeName), else its JSON Schema type ('' for none). */
function jsonSchemaType(property: z.output<typeof mcpPropertySchema>): string {
  if (typeof property === 'boolean') return '';
  const named = typeName(property);
  if (named !== null) return named;
  if (property.type === undefined) return '';
  return typeof property.type === 'string' ? property.type : property.type.join(' | ');
}

/** A tool, or everything wrong with it. Issues are collected, not thrown, so a catalogue reports all. */
type Checked = { readonly tool: ToolInfo; readonly issues?: undefined } | { readonly issues: FlatIssue[] };

function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.getOwnPropertyDescriptor(record, key)?.value;
}

/**
 * Parameters from `inputSchema.properties`, in key order. zod's record skips an own `__proto__`
 * key (assigning it would set the prototype), so names come from the raw input and that one
 * property's schema is validated here. Names follow the tool-name rules.
 */
function mcpParams(raw: Record<string, unknown>, tool: McpTool, base: readonly PathSegment[]): Checked | ToolParam[] {
  const rawSchema = ownValue(raw, 'inputSchema');
  const rawProps = isRecord(rawSchema) ? ownValue(rawSchema, 'properties') : undefined;
  if (!isRecord(rawProps)) return [];
  const at = [...base, 'inputSchema', 'properties'];
  const names = Object.keys(rawProps);
  if (names.length > MAX_TOOL_PARAMS) {
    const message = `too many items: ${names.length}, the limit is ${MAX_TOOL_PARAMS}`;
    return { issues: [{ path: at, code: 'too_big', message, limit: true }] };
  }
  const required = new Set(tool.inputSchema.required ?? []);
  const parsed = tool.inputSchema.properties ?? {};
  const issues: FlatIssue[] = [];
  const params: ToolParam[] = [];
  for (const name of names) {
    const nameCheck = paramNameSchema.safeParse(name, { reportInput: true });
    if (!nameCheck.success) issues.push(...flattenError(nameCheck.error, [...at, name]));
    let property = Object.hasOwn(parsed, name) ? parsed[name] : undefined;
    if (property === undefined) {
      const checked = mcpPropertySchema.safeParse(ownValue(rawProps, name), { reportInput: true });
      if (!checked.success) {
        issues.push(...flattenError(checked.error, [...at, name]));
        continue;
      }
      property = checked.data;
    }
    params.push({
      name,
      type: jsonSchemaType(property),
      description: typeof property === 'boolean' ? '' : (property.description ?? property.title ?? ''),
      required: required.has(name),
    });
  }
  return issues.length > 0 ? { issues } : params;
}

/**
 * The named types an MCP tool returns: its output schema's own `title` (a function returning an
 * `Airport` model), then its properties' types, each once, type names only (isTypeName).
 */
function mcpOutputTypes(tool: McpTool, outputs: readonly string[], rawProps: Record<string, unknown> | undefined): string[] {
  const types = new Set<string>();
  const title = tool.outputSchema === undefined ? undefined : tool.outputSchema['title'];
  if (typeof title === 'string' && title.length <= MAX_ID_LENGTH && isTypeName(title)) types.add(title);
  // Parsed with the tool, but for an own `__proto__` key, which zod's record skips (mcpParams).
  const parsed = tool.outputSchema?.properties ?? {};
  for (const name of outputs) {
    const property = Object.hasOwn(parsed, name) ? parsed[name] : mcpPropertySchema.safeParse(rawProps === undefined ? undefined : ownValue(rawProps, name)).data;
    if (property === undefined) continue;
    const type = jsonSchemaType(property);
    if (isTypeName(type)) types.add(type);
  }
  return [...types];
}

function checkTool(input: unknown, base: readonly PathSegment[]): Checked {
  if (isRecord(input) && isMcpToolShape(input)) {
    const result = mcpToolSchema.safeParse(input, { reportInput: true });
    if (!result.success) return { issues: flattenError(result.error, base) };
    const tool = result.data;
    const params = mcpParams(input, tool, base);
    if (!Array.isArray(params)) return params;
    const description = tool.description ?? tool.title ?? tool.annotations?.title ?? '';
    // Own keys only: an output field may be called `__proto__` as well as any other.
    const outputProps = tool.outputSchema === undefined ? undefined : ownValue(ownValue(input, 'outputSchema') as Record<string, unknown>, 'properties');
    const outputs = isRecord(outputProps) ? Object.keys(outputProps).filter((k) => paramNameSchema.safeParse(k).success) : [];
    const outputTypes = mcpOutputTypes(tool, outputs, isRecord(outputProps) ? outputProps : undefined);
    return {
      tool: { name: tool.name, description, params, ...(outputs.length > 0 ? { outputs } : {}), ...(outputTypes.length > 0 ? { outputTypes } : {}) },
    };
  }
  const result = catalogToolSchema.safeParse(input, { reportInput: true });
  if (!result.success) return { issues: flattenError(result.error, base) };
  return { tool: fromCatalog(result.data) };
}

/**
 * One tool: an MCP `tools/list` entry (it has `inputSchema`; params from its properties, required
 * from its `required`) or a dataset tools.jsonl line (null type/description/required become
 * '' / '' / false). Throws INVALID_INPUT naming the path, PAYLOAD_TOO_LARGE past a limit.
 */
export function parseTool(input: unknown): ToolInfo {
  assertJsonDepth(input, 'parseTool');
  const checked = checkTool(input, []);
  if (checked.issues !== undefined) throw issuesError('parseTool', checked.issues);
  return checked.tool;
}

function nameLabel(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** Throws INVALID_INPUT naming a repeated tool name, where it repeats and where it came first. */
function assertUniqueToolNames(tools: readonly ToolInfo[], caller: string, base: readonly PathSegment[]): void {
  const first = new Map<string, number>();
  tools.forEach((tool, index) => {
    const seen = first.get(tool.name);
    if (seen !== undefined) {
      const at = formatPath([...base, index, 'name']);
      throw new ToolgraphError(
        'INVALID_INPUT',
        `${caller}: ${at}: duplicate tool name ${nameLabel(tool.name)} (first at ${formatPath([...base, seen])})`,
        { issues: [{ path: at, code: 'duplicate', message: 'duplicate tool name' }], total: 1, name: tool.name },
      );
    }
    first.set(tool.name, index);
  });
}

/**
 * A whole catalogue: an array of tools (either format, mixed) or an MCP `tools/list` result
 * `{tools: [...], nextCursor?, _meta?}`. Every tool is checked and all issues are reported
 * together; names must be unique (INVALID_INPUT naming the duplicate and its first place).
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
    const checked = checkTool(item, [...base, index]);
    if (checked.issues !== undefined) issues.push(...checked.issues);
    else tools.push(checked.tool);
  });
  if (issues.length > 0) throw issuesError(caller, issues);
  assertUniqueToolNames(tools, caller, base);
  return tools;
}

/**
 * Throws PAYLOAD_TOO_LARGE, naming the limit, when adding `tools` would make a catalogue that
 * holds `existing` exceed MAX_CATALOG_TOOLS entries. Writes are refused here, never reads: a
 * store opens with whatever it holds.
 */
export function assertCatalogRoom(existing: { has(name: string): boolean; readonly size: number }, tools: readonly ToolInfo[], caller: string): void {
  let after = existing.size;
  const counted = new Set<string>();
  for (const tool of tools) {
    if (existing.has(tool.name) || counted.has(tool.name)) continue;
    counted.add(tool.name);
    after++;
  }
  if (after > MAX_CATALOG_TOOLS) throw catalogFullError(caller, after, MAX_CATALOG_TOOLS);
}

/** The error of a write that would make a catalogue hold `after` entries, past the limit. */
export function catalogFullError(caller: string, after: number, limit: number): ToolgraphError {
  return new ToolgraphError(
    'PAYLOAD_TOO_LARGE',
    `${caller}: the catalogue would hold ${after} tools, the limit is ${limit}; nothing was written`,
    { limit, total: after },
  );
}
