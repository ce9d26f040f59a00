/**
 * JSON values at the boundary: a nesting guard, schemas for free-form JSON fields (a tool call's
 * `input`), and canonical JSON + SHA-256 for content-addressed ids.
 *
 * The walk is iterative with an explicit stack, so a hostile input (a 100,000-deep array, a
 * cyclic object handed in from JavaScript) fails with an error instead of overflowing the stack.
 * Shared sub-objects are walked again only when reached at a greater depth, so a cycle always
 * ends at the depth limit and a diamond-shaped object costs at most MAX_JSON_DEPTH visits a node.
 * Complexity O(nodes) for JSON-parsed input (no sharing).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { formatPath, type PathSegment } from './issues.js';
import { MAX_JSON_DEPTH } from './limits.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

interface Frame {
  readonly value: unknown;
  /** Depth of the container holding this value (0 for the root). */
  readonly depth: number;
  readonly key: PathSegment | undefined;
  readonly parent: Frame | undefined;
}

export interface JsonProblem {
  readonly kind: 'depth' | 'type';
  readonly path: PathSegment[];
  readonly message: string;
}

function pathOf(frame: Frame): PathSegment[] {
  const path: PathSegment[] = [];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) path.push(f.key);
  return path.reverse();
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function notJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${String(value)} is not a JSON number`;
    case 'object':
      if (value === null || Array.isArray(value) || isPlainObject(value)) return undefined;
      return 'expected a JSON value, received a class instance';
    default:
      return `expected a JSON value, received ${typeof value}`;
  }
}

/**
 * The first place where `value` nests deeper than `maxDepth` containers or (with `requireJson`)
 * holds something JSON cannot represent; undefined when there is none.
 */
export function findJsonProblem(
  value: unknown,
  maxDepth: number = MAX_JSON_DEPTH,
  requireJson = true,
): JsonProblem | undefined {
  const walkedAt = new Map<object, number>();
  const stack: Frame[] = [{ value, depth: 0, key: undefined, parent: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const current = frame.value;
    if (requireJson) {
      const message = notJson(current);
      if (message !== undefined) return { kind: 'type', path: pathOf(frame), message };
    }
    if (typeof current !== 'object' || current === null) continue;
    const isArray = Array.isArray(current);
    if (!isArray && !isPlainObject(current)) continue;
    const depth = frame.depth + 1;
    if (depth > maxDepth) {
      const message = `nesting deeper than ${maxDepth} levels (or a cyclic reference)`;
      return { kind: 'depth', path: pathOf(frame), message };
    }
    const seen = walkedAt.get(current);
    if (seen !== undefined && seen >= depth) continue;
    walkedAt.set(current, depth);
    // Children pushed in reverse so the first problem reported is the first in document order.
    if (isArray) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], depth, key: i, parent: frame });
      }
    } else {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (current as Record<string, unknown>)[key], depth, key, parent: frame });
      }
    }
  }
  return undefined;
}

/**
 * Throws PAYLOAD_TOO_LARGE when `value` nests deeper than MAX_JSON_DEPTH. Run before zod: schema
 * validation and hashing recurse, and must only ever see bounded depth.
 */
export function assertJsonDepth(value: unknown, caller: string): void {
  const problem = findJsonProblem(value, MAX_JSON_DEPTH, false);
  if (problem === undefined) return;
  const where = problem.path.length === 0 ? '' : `${formatPath(problem.path)}: `;
  throw new ToolgraphError('PAYLOAD_TOO_LARGE', `${caller}: ${where}${problem.message}`, {
    issues: [{ path: formatPath(problem.path), code: 'too_deep', message: problem.message }],
    total: 1,
  });
}

function checkJson(value: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  const problem = findJsonProblem(value);
  if (problem === undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: problem.path,
    message: problem.message,
    params: { limit: problem.kind === 'depth' },
  });
}

/**
 * Any JSON value, checked without recursion. The value is returned as given (not copied), which
 * also keeps keys zod would drop, such as an own `__proto__` key from `JSON.parse`.
 */
export const jsonValueSchema = z.custom<JsonValue>(() => true).superRefine(checkJson);

/** A JSON object (a tool call's arguments, a task's input schema). */
export const jsonObjectSchema = z
  .custom<JsonObject>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && isPlainObject(value),
    { error: (issue) => `expected object, received ${describe(issue.input)}` },
  )
  .superRefine(checkJson);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const MAX_CANONICAL_DEPTH = MAX_JSON_DEPTH * 2;

function canonical(value: unknown, depth: number): string {
  if (depth > MAX_CANONICAL_DEPTH) {
    // Callers validate depth first; reaching this is a bug, not bad input.
    throw new ToolgraphError('INTERNAL', 'canonicalJson: value nests deeper than validation allows');
  }
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonical(item, depth + 1)).join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${canonical(item, depth + 1)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * JSON with object keys sorted (by UTF-16 code units) and no whitespace, so equal values always
 * give equal text. Undefined object members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, 0);
}

/** Hex SHA-256 of the canonical JSON of `value`. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
