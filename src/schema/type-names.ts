/**
 * Which declared types name a kind of value. A catalogue may say a tool returns an `Airport`
 * and another takes one (an MCP schema's `$ref` to a definition, an object schema's `title`):
 * that says which tool can supply the other's input (dag/data-flow.ts). A `string`, an `object`
 * or a `List` says nothing of the kind, nor does a description such as `Date (yyyy-mm-dd)` or a
 * union such as `string | null`.
 */

/** Types every catalogue uses for anything, compared lower-cased with separators removed. */
const GENERIC_TYPES: ReadonlySet<string> = new Set([
  'any', 'array', 'bool', 'boolean', 'bytes', 'date', 'datetime', 'decimal', 'dict', 'double', 'enum', 'file', 'float',
  'int', 'integer', 'json', 'list', 'long', 'map', 'none', 'null', 'num', 'number', 'object', 'record', 'set', 'str',
  'string', 'text', 'time', 'tuple', 'unknown', 'uri', 'url', 'void',
]);

/** Whether `type` names a kind of value (`Airport`, `geo.Location`), not a generic type or a description. */
export function isTypeName(type: string): boolean {
  return /^[\p{L}_][\p{L}\p{N}_.]*$/u.test(type) && !GENERIC_TYPES.has(type.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''));
}
