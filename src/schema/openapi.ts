/**
 * An OpenAPI 3 document as a tool catalogue: each operation (a method of a path) is one tool.
 *
 * - name: the operation's `operationId` when it has one (a string), else `METHOD /path`
 *   (`GET /pets/{id}`), unique within a document by construction;
 * - description: `summary` and `description`, both when both are given;
 * - params: the path item's and the operation's `parameters` (the operation's win for the same
 *   name and location; path parameters are required whatever they say), then the properties of
 *   the request body's JSON schema (`allOf` members merged), or one `body` parameter when the
 *   body is not an object; types are labelled by schemaTypeLabel (a `$ref` gives its name);
 * - outputs: the properties of the first 2xx response's JSON schema, and its `$ref` name as the
 *   type it returns (addPet returns a `Pet`, whose `id` deletePet takes).
 *
 * `$ref`s inside the document (`#/components/...`) are followed; a reference to another file
 * cannot be, and the operation that needs it is reported unreadable. Everything else in the
 * document (servers, security, examples, callbacks, extensions) is not read. A value toolgraph
 * reads but cannot use (a parameter without a name, a summary that is a number) makes that one
 * operation unreadable: its issues are returned, under the operation's path, for the catalogue
 * reader to skip it or refuse the document. Swagger 2.0 is not read.
 *
 * Cost: linear in the document (each reference chain is followed at most MAX_REF_HOPS steps).
 * Reference: OpenAPI Specification 3.1.0, sections 4.8.8-4.8.14 (Paths, Path Item, Operation,
 * Parameter, Request Body, Media Type, Responses) and 4.8.23 (Reference Object).
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { looseBooleanSchema, paramNameSchema, textSchema, toolNameSchema } from './fields.js';
import { describeValue, flattenError, type FlatIssue, type PathSegment } from './issues.js';
import { ownValue, refName, schemaTypeLabel } from './json-schema-type.js';
import { MAX_CATALOG_TOOLS, MAX_TEXT_LENGTH, MAX_TOOL_PARAMS } from './limits.js';
import type { CheckedTool } from './tool.js';
import { isTypeName } from './type-names.js';
import type { ToolInfo, ToolParam } from './types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Longest chain of references followed (a cycle ends here too). */
const MAX_REF_HOPS = 32;
/** Deepest `allOf` nesting merged into a request body's or a response's properties. */
const MAX_ALL_OF_DEPTH = 8;

/** One operation, where it is in the document, and the tool it reads as (or its issues). */
export interface OpenApiEntry {
  readonly at: readonly PathSegment[];
  readonly checked: CheckedTool;
}

type Doc = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An OpenAPI (or Swagger) document rather than a tools/list result: it says its version. */
export function isOpenApiShape(input: unknown): boolean {
  return isRecord(input) && (Object.hasOwn(input, 'openapi') || Object.hasOwn(input, 'swagger'));
}

/** The value a local JSON pointer (`#/components/schemas/Pet`) names in `doc`, or undefined. */
function pointer(doc: Doc, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(value)) value = /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
    else if (isRecord(value)) value = ownValue(value, segment);
    else return undefined;
    if (value === undefined) return undefined;
  }
  return value;
}

type Resolved = { readonly value: unknown; readonly ref?: string } | { readonly unresolved: string };

/** `value` with its reference chain followed; the reference that cannot be, when one cannot. */
function deref(doc: Doc, value: unknown): Resolved {
  let current = value;
  let last: string | undefined;
  for (let hop = 0; hop <= MAX_REF_HOPS; hop++) {
    const ref = isRecord(current) ? ownValue(current, '$ref') : undefined;
    if (typeof ref !== 'string') return last === undefined ? { value: current } : { value: current, ref: last };
    const next = pointer(doc, ref);
    if (next === undefined) return { unresolved: ref };
    last = ref;
    current = next;
  }
  return { unresolved: last ?? '' };
}

function unresolvedIssue(path: readonly PathSegment[], ref: string): FlatIssue {
  const shown = JSON.stringify(ref.length > 80 ? `${ref.slice(0, 80)}…` : ref);
  return { path: [...path, '$ref'], code: 'custom', message: `cannot resolve ${shown}: only references inside the document (#/...) are read`, limit: false };
}

function typeIssue(path: readonly PathSegment[], expected: string, value: unknown): FlatIssue {
  return { path, code: 'invalid_type', message: `expected ${expected}, received ${describeValue(value)}`, limit: false };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_TEXT_LENGTH ? value : undefined;
}

interface Properties {
  readonly entries: [string, unknown][];
  readonly names: Set<string>;
  readonly required: Set<string>;
  /** Schemas merged already: one reached again (through `$ref`s) adds nothing, and costs nothing. */
  readonly seen: Set<object>;
}

/** An object schema's own properties, its `allOf` members' merged in (first definition wins). */
function properties(doc: Doc, schema: unknown, depth = 0, into: Properties = { entries: [], names: new Set(), required: new Set(), seen: new Set() }): Properties {
  const resolved = deref(doc, schema);
  if (!('value' in resolved) || !isRecord(resolved.value) || depth > MAX_ALL_OF_DEPTH || into.seen.has(resolved.value)) return into;
  const value = resolved.value;
  into.seen.add(value);
  const props = ownValue(value, 'properties');
  if (isRecord(props)) {
    for (const name of Object.keys(props)) {
      if (into.names.has(name)) continue;
      into.names.add(name);
      into.entries.push([name, ownValue(props, name)]);
    }
  }
  const required = ownValue(value, 'required');
  if (Array.isArray(required)) for (const r of required) if (typeof r === 'string') into.required.add(r);
  const allOf = ownValue(value, 'allOf');
  if (Array.isArray(allOf)) for (const member of allOf) properties(doc, member, depth + 1, into);
  return into;
}

/** The schema of a content map's JSON media type (else the first with a schema), and its key. */
function contentSchema(content: unknown): { key: string; schema: unknown } | undefined {
  if (!isRecord(content)) return undefined;
  const keys = Object.keys(content).filter((k) => isRecord(ownValue(content, k)) && ownValue(ownValue(content, k) as Doc, 'schema') !== undefined);
  const key = keys.find((k) => k.split(';', 1)[0]!.trim().toLowerCase() === 'application/json') ?? keys.find((k) => /json/i.test(k)) ?? keys[0];
  return key === undefined ? undefined : { key, schema: ownValue(ownValue(content, key) as Doc, 'schema') };
}

const parameterSchema = z.looseObject({
  name: paramNameSchema,
  description: textSchema.nullable().optional(),
  required: looseBooleanSchema.nullable().optional(),
});

const operationTextSchema = z.looseObject({
  summary: textSchema.nullable().optional(),
  description: textSchema.nullable().optional(),
});

/** A property of a body schema as a parameter (the description under the same rules as MCP's). */
function propertyParam(name: string, schema: unknown, required: boolean, path: readonly PathSegment[], issues: FlatIssue[]): ToolParam {
  const check = paramNameSchema.safeParse(name, { reportInput: true });
  if (!check.success) issues.push(...flattenError(check.error, path));
  let description = '';
  if (isRecord(schema)) {
    const raw = ownValue(schema, 'description');
    if (raw !== undefined && raw !== null && typeof raw !== 'string') issues.push(typeIssue([...path, 'description'], 'string', raw));
    else description = text(raw) ?? text(ownValue(schema, 'title')) ?? '';
  }
  return { name, type: schemaTypeLabel(schema), description, required };
}

/** The parameters of an operation, path-level ones first; issues pushed under their paths. */
function operationParams(doc: Doc, pathItem: Doc, op: Doc, at: readonly PathSegment[], opAt: readonly PathSegment[], issues: FlatIssue[]): ToolParam[] {
  const byKey = new Map<string, ToolParam>();
  const lists: [unknown, readonly PathSegment[]][] = [
    [ownValue(pathItem, 'parameters'), [...at, 'parameters']],
    [ownValue(op, 'parameters'), [...opAt, 'parameters']],
  ];
  for (const [list, listAt] of lists) {
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      issues.push(typeIssue(listAt, 'array', list));
      continue;
    }
    list.forEach((item, i) => {
      const resolved = deref(doc, item);
      if (!('value' in resolved)) return void issues.push(unresolvedIssue([...listAt, i], resolved.unresolved));
      const checked = parameterSchema.safeParse(resolved.value, { reportInput: true });
      if (!checked.success) return void issues.push(...flattenError(checked.error, [...listAt, i]));
      const p = checked.data;
      const location = typeof p['in'] === 'string' ? p['in'] : '';
      const schema = p['schema'] ?? contentSchema(p['content'])?.schema;
      byKey.set(`${location}\u0000${p.name}`, {
        name: p.name,
        type: schemaTypeLabel(schema),
        description: p.description ?? '',
        required: location === 'path' || (p.required ?? false),
      });
    });
  }
  const params = [...byKey.values()];
  const body = deref(doc, ownValue(op, 'requestBody'));
  const bodyAt = [...opAt, 'requestBody'];
  if (!('value' in body)) {
    issues.push(unresolvedIssue(bodyAt, body.unresolved));
    return params;
  }
  if (!isRecord(body.value)) return params;
  const media = contentSchema(ownValue(body.value, 'content'));
  if (media === undefined) return params;
  const schemaAt = [...bodyAt, 'content', media.key, 'schema'];
  const resolved = deref(doc, media.schema);
  if (!('value' in resolved)) {
    issues.push(unresolvedIssue(schemaAt, resolved.unresolved));
    return params;
  }
  const props = properties(doc, media.schema);
  const taken = new Set(params.map((p) => p.name));
  // Counted before any property is checked: a body of a million properties costs a count.
  const total = params.length + props.entries.reduce((n, [name]) => n + (taken.has(name) ? 0 : 1), 0);
  if (total > MAX_TOOL_PARAMS) {
    issues.push({ path: [...opAt, 'parameters'], code: 'too_big', message: `too many parameters: ${total}, the limit is ${MAX_TOOL_PARAMS}`, limit: true });
    return params;
  }
  if (props.entries.length === 0) {
    const required = looseBooleanSchema.safeParse(ownValue(body.value, 'required')).data ?? false;
    if (!taken.has('body')) params.push({ name: 'body', type: schemaTypeLabel(media.schema), description: text(ownValue(body.value, 'description')) ?? '', required });
    return params;
  }
  for (const [name, schema] of props.entries) {
    if (taken.has(name)) continue;
    taken.add(name);
    params.push(propertyParam(name, schema, props.required.has(name), [...schemaAt, 'properties', name], issues));
  }
  return params;
}

/** What the first 2xx response returns: its properties' names and its named type. */
function operationOutputs(doc: Doc, op: Doc): Pick<ToolInfo, 'outputs' | 'outputTypes'> {
  const responses = ownValue(op, 'responses');
  if (!isRecord(responses)) return {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  if (code === undefined) return {};
  const response = deref(doc, ownValue(responses, code));
  if (!('value' in response) || !isRecord(response.value)) return {};
  const media = contentSchema(ownValue(response.value, 'content'));
  if (media === undefined) return {};
  const resolved = deref(doc, media.schema);
  const named = 'value' in resolved && resolved.ref !== undefined ? refName({ $ref: resolved.ref }) : null;
  const outputs = properties(doc, media.schema)
    .entries.map(([name]) => name)
    .filter((name) => paramNameSchema.safeParse(name).success)
    .slice(0, MAX_TOOL_PARAMS);
  return {
    ...(outputs.length > 0 ? { outputs } : {}),
    ...(named !== null && isTypeName(named) ? { outputTypes: [named] } : {}),
  };
}

function operationTool(doc: Doc, path: string, method: string, pathItem: Doc, op: Doc, at: readonly PathSegment[]): CheckedTool {
  const opAt = [...at, method];
  const issues: FlatIssue[] = [];
  const operationId = ownValue(op, 'operationId');
  const name = typeof operationId === 'string' ? operationId : `${method.toUpperCase()} ${path}`;
  const nameCheck = toolNameSchema.safeParse(name, { reportInput: true });
  if (!nameCheck.success) issues.push(...flattenError(nameCheck.error, typeof operationId === 'string' ? [...opAt, 'operationId'] : opAt));
  const texts = operationTextSchema.safeParse(op, { reportInput: true });
  if (!texts.success) issues.push(...flattenError(texts.error, opAt));
  const summary = texts.data?.summary ?? '';
  const long = texts.data?.description ?? '';
  const joined = summary !== '' && long !== '' && summary !== long ? `${summary}\n\n${long}` : summary || long;
  const params = operationParams(doc, pathItem, op, at, opAt, issues);
  if (params.length > MAX_TOOL_PARAMS) {
    issues.push({ path: [...opAt, 'parameters'], code: 'too_big', message: `too many parameters: ${params.length}, the limit is ${MAX_TOOL_PARAMS}`, limit: true });
  }
  if (issues.length > 0) return { issues };
  const description = joined.length <= MAX_TEXT_LENGTH ? joined : `${joined.slice(0, MAX_TEXT_LENGTH - 1)}…`;
  return { tool: { name, description, params, ...operationOutputs(doc, op) } };
}

/**
 * The operations of an OpenAPI 3 document as catalogue entries, in document order. The document
 * itself must be readable: INVALID_INPUT naming `caller` for another version or a `paths` that is
 * not an object; PAYLOAD_TOO_LARGE past MAX_CATALOG_TOOLS operations.
 */
export function openApiEntries(doc: Doc, caller: string): OpenApiEntry[] {
  if (Object.hasOwn(doc, 'swagger') && !Object.hasOwn(doc, 'openapi')) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: swagger: Swagger 2.0 documents are not read; convert the document to OpenAPI 3 first`);
  }
  const version = ownValue(doc, 'openapi');
  if (typeof version !== 'string' || !/^3\.\d/.test(version)) {
    const seen = typeof version === 'string' ? JSON.stringify(version.slice(0, 20)) : describeValue(version);
    throw new ToolgraphError('INVALID_INPUT', `${caller}: openapi: expected an OpenAPI 3 version ("3.0.3", "3.1.0"), received ${seen}`);
  }
  const paths = ownValue(doc, 'paths');
  if (paths === undefined || paths === null) return [];
  if (!isRecord(paths)) throw new ToolgraphError('INVALID_INPUT', `${caller}: paths: expected object, received ${describeValue(paths)}`);
  const entries: OpenApiEntry[] = [];
  for (const path of Object.keys(paths)) {
    const at: PathSegment[] = ['paths', path];
    const item = deref(doc, ownValue(paths, path));
    if (!('value' in item)) {
      entries.push({ at, checked: { issues: [unresolvedIssue(at, item.unresolved)] } });
      continue;
    }
    if (!isRecord(item.value)) {
      entries.push({ at, checked: { issues: [typeIssue(at, 'object', item.value)] } });
      continue;
    }
    for (const method of Object.keys(item.value).filter((key) => (METHODS as readonly string[]).includes(key))) {
      const op = ownValue(item.value, method);
      const opAt = [...at, method];
      entries.push({ at: opAt, checked: isRecord(op) ? operationTool(doc, path, method, item.value, op, at) : { issues: [typeIssue(opAt, 'object', op)] } });
      if (entries.length > MAX_CATALOG_TOOLS) {
        throw new ToolgraphError('PAYLOAD_TOO_LARGE', `${caller}: too many operations: more than ${MAX_CATALOG_TOOLS}, the limit is ${MAX_CATALOG_TOOLS}`, { limit: MAX_CATALOG_TOOLS });
      }
    }
  }
  return entries;
}
