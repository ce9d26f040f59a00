/**
 * Turns zod issues into one `ToolgraphError` whose message names the call and the field path:
 * `parseTrace: steps[3].tool.name: expected string, received number`.
 *
 * We format issues ourselves rather than using zod's messages so that they are stable across zod
 * releases, name the path the way a JavaScript reader writes it, and never echo the offending
 * value (it may be huge or hostile). Every issue goes into `details.issues` (capped); the message
 * carries the first. Issues raised by a documented limit (see limits.ts) sort first and make the
 * code `PAYLOAD_TOO_LARGE`; everything else is `INVALID_INPUT`.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';

/** Marks a `.max()` check as one of the documented limits, so the error code becomes 413-like. */
export const LIMIT_MARK = 'toolgraph:limit';

/** More issues than this are counted in `details.total` but not listed. */
const MAX_LISTED_ISSUES = 100;
/** Long paths (deep nesting) are shortened in messages; `details` keeps the same short form. */
const MAX_PATH_SEGMENTS = 12;
const MAX_KEY_CHARS = 64;

export type PathSegment = PropertyKey;

export interface IssueDetail {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** An issue after formatting; `limit` says it came from a documented limit. */
export interface FlatIssue {
  readonly path: readonly PathSegment[];
  readonly code: string;
  readonly message: string;
  readonly limit: boolean;
}

/** A `z.string().max(n)` that reports as a documented limit. */
export function limitedString(max: number): z.ZodString {
  return z.string().max(max, { error: LIMIT_MARK });
}

/** A `z.array(item).max(n)` that reports as a documented limit. */
export function limitedArray<T extends z.ZodType>(item: T, max: number): z.ZodArray<T> {
  return z.array(item).max(max, { error: LIMIT_MARK });
}

const IDENTIFIER = /^[A-Za-z_$@][A-Za-z0-9_$@-]*$/;

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function appendSegment(out: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${out}[${segment}]`;
  if (typeof segment === 'symbol') return `${out}[${String(segment)}]`;
  if (IDENTIFIER.test(segment) && segment.length <= MAX_KEY_CHARS) {
    return out === '' ? segment : `${out}.${segment}`;
  }
  return `${out}[${JSON.stringify(truncate(segment, MAX_KEY_CHARS))}]`;
}

/** `['steps', 3, 'tool', 'name']` → `steps[3].tool.name`; odd keys are quoted: `a["b c"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  if (path.length > MAX_PATH_SEGMENTS) {
    // Deeply nested paths keep their head and their last key; the middle is counted, not shown.
    const head = formatPath(path.slice(0, MAX_PATH_SEGMENTS - 1));
    const skipped = path.length - MAX_PATH_SEGMENTS;
    return appendSegment(`${head}…(${skipped} more levels)…`, path[path.length - 1] as PathSegment);
  }
  let out = '';
  for (const segment of path) out = appendSegment(out, segment);
  return out;
}

/** What a value is, for "received X": never the value itself. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return 'number';
  }
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return 'object';
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' ? `${truncate(name, 32)} instance` : 'object';
  }
  return typeof value;
}

/** A short rendering of a primitive for `expected "a" | "b", received "c"`. */
function describeShort(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(truncate(value, 40));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describeValue(value);
}

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return undefined;
}

type Issue = z.core.$ZodIssue;

function issueInput(issue: Issue): unknown {
  return (issue as { input?: unknown }).input;
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>, limit: boolean): string {
  const max = String(issue.maximum);
  const size = sizeOf(issueInput(issue));
  if (issue.origin === 'string') {
    return limit
      ? `too long: ${size ?? 'more than ' + max} characters, the limit is ${max}`
      : `expected at most ${max} characters`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    return limit
      ? `too many items: ${size ?? 'more than ' + max}, the limit is ${max}`
      : `expected at most ${max} items`;
  }
  return issue.inclusive === false ? `expected less than ${max}` : `expected at most ${max}`;
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  const min = Number(issue.minimum);
  if (issue.origin === 'string') {
    return min === 1 ? 'must not be empty' : `expected at least ${min} characters`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    return `expected at least ${min} item${min === 1 ? '' : 's'}`;
  }
  return issue.inclusive === false ? `expected more than ${min}` : `expected at least ${min}`;
}

function invalidFormat(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  if (issue.format === 'datetime') {
    return 'expected an ISO 8601 datetime with a time zone, e.g. 2024-05-01T12:00:00Z';
  }
  return `expected a valid ${issue.format}`;
}

/** A branch failed "at the door" when all its issues are type mismatches of the value itself. */
function failsAtRoot(branch: readonly Issue[]): boolean {
  return branch.every((issue) => issue.path.length === 0 && issue.code === 'invalid_type');
}

function invalidUnion(
  issue: Extract<Issue, { code: 'invalid_union' }>,
  path: readonly PathSegment[],
  out: FlatIssue[],
): void {
  // The branch that got past the type check is the one the caller meant: report its issues.
  const meant = issue.errors.find((branch) => branch.length > 0 && !failsAtRoot(branch));
  if (meant !== undefined) {
    for (const inner of meant) flatten(inner, path, out);
    return;
  }
  const expected = new Set<string>();
  for (const branch of issue.errors) {
    for (const inner of branch) if (inner.code === 'invalid_type') expected.add(inner.expected);
  }
  const received = describeValue(issueInput(issue));
  const custom = issue.message !== '' && !issue.message.startsWith('Invalid input');
  const what = custom ? issue.message : `expected ${[...expected].join(' or ')}`;
  out.push({ path, code: 'invalid_type', message: `${what}, received ${received}`, limit: false });
}

/** Appends the formatted form of one zod issue (several for unknown keys) under `base`. */
export function flatten(issue: Issue, base: readonly PathSegment[], out: FlatIssue[]): void {
  const path = [...base, ...issue.path];
  const limit = issue.message === LIMIT_MARK;
  switch (issue.code) {
    case 'invalid_type': {
      const input = issueInput(issue);
      const message =
        input === undefined
          ? `missing, expected ${issue.expected}`
          : `expected ${issue.expected}, received ${describeValue(input)}`;
      out.push({ path, code: issue.code, message, limit: false });
      return;
    }
    case 'unrecognized_keys':
      for (const key of issue.keys) {
        out.push({ path: [...path, key], code: issue.code, message: 'unknown key', limit: false });
      }
      return;
    case 'too_big':
      out.push({ path, code: issue.code, message: tooBig(issue, limit), limit });
      return;
    case 'too_small':
      out.push({ path, code: issue.code, message: tooSmall(issue), limit: false });
      return;
    case 'invalid_value': {
      const options = issue.values.map((v) => JSON.stringify(v)).join(' | ');
      const message = `expected ${options}, received ${describeShort(issueInput(issue))}`;
      out.push({ path, code: issue.code, message, limit: false });
      return;
    }
    case 'invalid_format':
      out.push({ path, code: issue.code, message: invalidFormat(issue), limit: false });
      return;
    case 'invalid_union':
      invalidUnion(issue, path, out);
      return;
    case 'invalid_key':
    case 'invalid_element':
      for (const inner of issue.issues) flatten(inner, path, out);
      return;
    default: {
      const custom = issue as { params?: { limit?: unknown } };
      out.push({ path, code: issue.code, message: issue.message, limit: custom.params?.limit === true });
    }
  }
}

/** Formats all issues of a failed parse under `base` (the caller's path to this value). */
export function flattenError(error: z.ZodError, base: readonly PathSegment[] = []): FlatIssue[] {
  const out: FlatIssue[] = [];
  for (const issue of error.issues) flatten(issue, base, out);
  return out;
}

function line(issue: FlatIssue): string {
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`;
}

/** One error for a list of issues: limit issues first, all listed in `details`. */
export function issuesError(caller: string, issues: readonly FlatIssue[]): ToolgraphError {
  const sorted = [...issues.filter((i) => i.limit), ...issues.filter((i) => !i.limit)];
  const first = sorted[0];
  if (first === undefined) return new ToolgraphError('INTERNAL', `${caller}: validation failed without issues`);
  const more = sorted.length > 1 ? ` (and ${sorted.length - 1} more issue${sorted.length > 2 ? 's' : ''})` : '';
  const listed: IssueDetail[] = sorted
    .slice(0, MAX_LISTED_ISSUES)
    .map((i) => ({ path: formatPath(i.path), code: i.code, message: i.message }));
  return new ToolgraphError(first.limit ? 'PAYLOAD_TOO_LARGE' : 'INVALID_INPUT', `${caller}: ${line(first)}${more}`, {
    issues: listed,
    total: sorted.length,
  });
}

/**
 * Parses `input` with `schema` or throws one `ToolgraphError` naming `caller` and the path.
 * `base` prefixes every path (the value's place in a larger input, e.g. `['tools', 3]`).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  caller: string,
  base: readonly PathSegment[] = [],
): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw issuesError(caller, flattenError(result.error, base));
}
