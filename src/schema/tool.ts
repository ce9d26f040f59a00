/**
 * One catalogue entry at the boundary: a dataset tools.jsonl line or an MCP `tools/list` entry,
 * normalised into `ToolInfo {name, description, params, outputs?, outputTypes?}`, which reads back
 * as a dataset line. Whole catalogues (arrays, tools/list results, OpenAPI documents) are read by
 * catalog.ts.
 *
 * Both formats are loose: they are written by third parties and grow over time (MCP added
 * `title`, `outputSchema`, `icons` and `_meta` across revisions; registries add `category`,
 * `server`, `tags`; datasets carry `desc_source`). What toolgraph does not read is ignored,
 * whatever it holds. What it reads is read as published, not as we would have written it: a
 * parameter's type is labelled from any JSON Schema (json-schema-type.ts), null means unknown,
 * `required` may be the text "true". A value toolgraph reads but cannot make sense of (a
 * description that is a number, a parameter without a name, an unusable tool name) is an issue
 * naming its path: the entry cannot be read.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { labelSchema, looseBooleanSchema, paramNameSchema, textSchema, toolNameSchema } from './fields.js';
import { flattenError, issuesError, limitedArray, type FlatIssue, type PathSegment } from './issues.js';
import { assertJsonDepth } from './json.js';
import { ownValue, schemaTypeLabel, typeFieldLabel } from './json-schema-type.js';
import { MAX_CATALOG_TOOLS, MAX_TEXT_LENGTH, MAX_TOOL_PARAMS } from './limits.js';
import { isTypeName } from './type-names.js';
import type { ToolInfo, ToolParam } from './types.js';

// ---------------------------------------------------------------------------------------------
// Dataset catalogue (tools.jsonl)

/**
 * A parameter as datasets write it; `null` means unknown (e.g. UltraTool's `required`). `type` is
 * a label whatever it holds: a name, a union `["string", "null"]`, a JSON Schema.
 */
const catalogParamSchema = z.looseObject({
  name: paramNameSchema,
  type: z.unknown().optional(),
  description: textSchema.nullable().optional(),
  required: looseBooleanSchema.nullable().optional(),
});

/** One line of a dataset's tools.jsonl (`domain`, `server`, `category` and the rest: ignored). */
export const catalogToolSchema = z.looseObject({
  name: toolNameSchema,
  description: textSchema.nullable().optional(),
  params: limitedArray(catalogParamSchema, MAX_TOOL_PARAMS).nullable().optional(),
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
 * The parts of an input schema toolgraph reads: its properties (the parameters) and its
 * `required` list (names; anything else in it names no parameter). `type` is not read: a
 * registry that writes `{type: "array"}` or leaves it out still lists the tool's properties.
 */
const objectSchemaSchema = z.looseObject({
  properties: z.looseObject({}).nullable().optional(),
  required: limitedArray(z.unknown(), MAX_TOOL_PARAMS).nullable().optional(),
});

/** A property's description, when it has one; its other keywords are read by schemaTypeLabel. */
const propertySchema = z.looseObject({ description: textSchema.nullable().optional() });

/** An MCP `Tool` as listed by `tools/list` (`title`, `annotations`, `outputSchema`: read leniently). */
export const mcpToolSchema = z.looseObject({
  name: toolNameSchema,
  description: textSchema.nullable().optional(),
  inputSchema: objectSchemaSchema.nullable(),
});

export type McpTool = z.output<typeof mcpToolSchema>;

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
    type: typeFieldLabel(p.type),
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

/** A tool, or everything wrong with it. Issues are collected, not thrown, so a catalogue reports all. */
export type CheckedTool = { readonly tool: ToolInfo; readonly issues?: undefined } | { readonly issues: FlatIssue[] };

/** A string usable as a fallback description (a title), or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_TEXT_LENGTH ? value : undefined;
}

/**
 * Parameters from `inputSchema.properties`, in key order. Names come from the raw input's own
 * keys (an own `__proto__` key is a parameter like any other) and follow the tool-name rules;
 * a property's type is its schemaTypeLabel, its description its `description`, else its `title`.
 */
function mcpParams(tool: McpTool, raw: Record<string, unknown>, base: readonly PathSegment[]): CheckedTool | ToolParam[] {
  const rawSchema = ownValue(raw, 'inputSchema');
  const rawProps = isRecord(rawSchema) ? ownValue(rawSchema, 'properties') : undefined;
  if (!isRecord(rawProps)) return [];
  const at = [...base, 'inputSchema', 'properties'];
  const names = Object.keys(rawProps);
  if (names.length > MAX_TOOL_PARAMS) {
    const message = `too many items: ${names.length}, the limit is ${MAX_TOOL_PARAMS}`;
    return { issues: [{ path: at, code: 'too_big', message, limit: true }] };
  }
  const required = new Set((tool.inputSchema?.required ?? []).filter((r): r is string => typeof r === 'string'));
  const issues: FlatIssue[] = [];
  const params: ToolParam[] = [];
  for (const name of names) {
    const nameCheck = paramNameSchema.safeParse(name, { reportInput: true });
    if (!nameCheck.success) issues.push(...flattenError(nameCheck.error, [...at, name]));
    const property = ownValue(rawProps, name);
    let description = '';
    if (isRecord(property)) {
      const checked = propertySchema.safeParse(property, { reportInput: true });
      if (!checked.success) issues.push(...flattenError(checked.error, [...at, name]));
      else description = checked.data.description ?? text(ownValue(property, 'title')) ?? '';
    }
    params.push({ name, type: schemaTypeLabel(property), description, required: required.has(name) });
  }
  return issues.length > 0 ? { issues } : params;
}

/**
 * What an MCP tool returns: its output schema's property names (own keys, usable names only) and
 * the named types among the schema's own `title` (a function returning an `Airport` model) and
 * its properties' types, each once. An output schema of another shape declares nothing.
 */
function mcpOutputs(raw: Record<string, unknown>): Pick<ToolInfo, 'outputs' | 'outputTypes'> {
  const schema = ownValue(raw, 'outputSchema');
  if (!isRecord(schema)) return {};
  const props = ownValue(schema, 'properties');
  const outputs = isRecord(props) ? Object.keys(props).filter((k) => paramNameSchema.safeParse(k).success).slice(0, MAX_TOOL_PARAMS) : [];
  const types = new Set<string>();
  const title = text(ownValue(schema, 'title'));
  if (title !== undefined && isTypeName(title)) types.add(title);
  for (const name of outputs) {
    const type = schemaTypeLabel(ownValue(props as Record<string, unknown>, name));
    if (isTypeName(type)) types.add(type);
  }
  return { ...(outputs.length > 0 ? { outputs } : {}), ...(types.size > 0 ? { outputTypes: [...types] } : {}) };
}

function checkMcpTool(input: Record<string, unknown>, base: readonly PathSegment[]): CheckedTool {
  const result = mcpToolSchema.safeParse(input, { reportInput: true });
  if (!result.success) return { issues: flattenError(result.error, base) };
  const tool = result.data;
  const params = mcpParams(tool, input, base);
  if (!Array.isArray(params)) return params;
  const annotations = ownValue(input, 'annotations');
  const description = tool.description ?? text(ownValue(input, 'title')) ?? (isRecord(annotations) ? text(ownValue(annotations, 'title')) : undefined) ?? '';
  return { tool: { name: tool.name, description, params, ...mcpOutputs(input) } };
}

/** Checks one entry (either format) under `base`, its place in a larger input. */
export function checkTool(input: unknown, base: readonly PathSegment[]): CheckedTool {
  if (isRecord(input) && isMcpToolShape(input)) return checkMcpTool(input, base);
  const result = catalogToolSchema.safeParse(input, { reportInput: true });
  if (!result.success) return { issues: flattenError(result.error, base) };
  return { tool: fromCatalog(result.data) };
}

/**
 * One tool: an MCP `tools/list` entry (it has `inputSchema`; params from its properties, required
 * from its `required`) or a dataset tools.jsonl line (null type/description/required become
 * '' / '' / false). Throws INVALID_INPUT naming the path of every issue, PAYLOAD_TOO_LARGE past a
 * limit.
 */
export function parseTool(input: unknown): ToolInfo {
  assertJsonDepth(input, 'parseTool');
  const checked = checkTool(input, []);
  if (checked.issues !== undefined) throw issuesError('parseTool', checked.issues);
  return checked.tool;
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
