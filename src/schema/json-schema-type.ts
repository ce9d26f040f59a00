/**
 * The label of the type a JSON Schema describes, as a catalogue's parameter type: what people
 * read in `tools list`, and what DAG suggestion matches a tool's output type against another's
 * parameter type (`Airport` feeds `Airport`).
 *
 * In order, the first that applies:
 * 1. a named type: the last segment of the schema's `$ref` (`#/$defs/Airport` -> `Airport`), alone
 *    or as the one `allOf` entry (pydantic writes a described model field so), else an object
 *    schema's `title` (a field's title is its label, not a type);
 * 2. `type`: a name, or a union of names joined by ` | ` (`["string", "null"]` -> `string | null`);
 * 3. `anyOf` / `oneOf`: the members' labels, each once, joined the same way (pydantic's
 *    `Optional[str]` is `anyOf: [{type: string}, {type: null}]` -> `string | null`);
 * 4. `enum` / `const` without a type: the JSON types of the values (`["a", "b"]` -> `string`);
 * 5. `properties` without a type: `object`; `items`: `array`.
 * OpenAPI 3.0's `nullable: true` adds `| null`. Anything else (`{}`, `true`, a number where a type
 * name belongs) has no label: ''. The label is data to read, never a reason to refuse a tool:
 * every shape gives one, cut at MAX_ID_LENGTH.
 *
 * Cost: linear in the size of the schema's `anyOf`/`oneOf` tree, at most MAX_LABEL_VISITS
 * schemas (nesting is bounded by the caller's assertJsonDepth). Reference: JSON Schema 2020-12 Validation, sections 6.1 (type, enum,
 * const) and Core 10.2 (anyOf, oneOf, allOf), 8.2.3 ($ref).
 */
import { MAX_ID_LENGTH } from './limits.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property's value: a key named `__proto__` is read as any other, never the prototype. */
export function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.getOwnPropertyDescriptor(record, key)?.value;
}

/** The last segment of a schema's own `$ref` (`#/$defs/Airport` -> `Airport`), or null. */
export function refName(schema: unknown): string | null {
  const ref = isRecord(schema) ? ownValue(schema, '$ref') : undefined;
  if (typeof ref !== 'string' || ref.length > MAX_ID_LENGTH) return null;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return name === '' ? null : name;
}

/** The named type a schema stands for (rule 1 above), or null. */
export function typeName(schema: unknown): string | null {
  if (!isRecord(schema)) return null;
  const allOf = ownValue(schema, 'allOf');
  const named = refName(schema) ?? (Array.isArray(allOf) && allOf.length === 1 ? refName(allOf[0]) : null);
  if (named !== null) return named;
  const title = ownValue(schema, 'title');
  return ownValue(schema, 'type') === 'object' && typeof title === 'string' && title !== '' && title.length <= MAX_ID_LENGTH ? title : null;
}

function cut(label: string): string {
  return label.length <= MAX_ID_LENGTH ? label : `${label.slice(0, MAX_ID_LENGTH - 1)}…`;
}

function union(labels: Iterable<string>): string {
  return [...new Set([...labels].filter((l) => l !== ''))].join(' | ');
}

/** A `type` keyword's value as a label: a name, or the names of a union; '' for anything else. */
export function typeKeywordLabel(type: unknown): string {
  if (typeof type === 'string') return cut(type);
  if (Array.isArray(type)) return cut(union(type.filter((t): t is string => typeof t === 'string')));
  return '';
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Schemas one label may visit. JSON input is a tree, visited once; an object built in code may
 * share a member between many `anyOf`s, and a diamond of them would be walked exponentially often.
 */
const MAX_LABEL_VISITS = 10_000;

function label(schema: unknown, budget: { left: number }): string {
  if (!isRecord(schema) || --budget.left < 0) return '';
  const named = typeName(schema);
  if (named !== null) return named;
  let base = typeKeywordLabel(ownValue(schema, 'type'));
  if (base === '') {
    for (const key of ['anyOf', 'oneOf']) {
      const members = ownValue(schema, key);
      if (Array.isArray(members)) base = union(members.map((member) => label(member, budget)));
      if (base !== '') break;
    }
  }
  if (base === '') {
    const values = ownValue(schema, 'enum');
    if (Array.isArray(values)) base = union(values.map(jsonType));
    else if (Object.hasOwn(schema, 'const')) base = jsonType(ownValue(schema, 'const'));
  }
  if (base === '' && isRecord(ownValue(schema, 'properties'))) base = 'object';
  if (base === '' && Object.hasOwn(schema, 'items')) base = 'array';
  if (base !== '' && ownValue(schema, 'nullable') === true) base = union([...base.split(' | '), 'null']);
  return base;
}

/** The label of the type `schema` describes (see the file's opening); '' when it says none. */
export function schemaTypeLabel(schema: unknown): string {
  return cut(label(schema, { left: MAX_LABEL_VISITS }));
}

/**
 * A catalogue's `type` field as a label, whatever it holds: a type name or union as
 * typeKeywordLabel, a JSON Schema as schemaTypeLabel, '' for null or anything else.
 */
export function typeFieldLabel(type: unknown): string {
  return isRecord(type) ? schemaTypeLabel(type) : typeKeywordLabel(type);
}
