/** Shared fixtures and assertions for the schema tests. */
import { expect } from 'vitest';
import { type ErrorCode, ToolgraphError } from '../../src/schema/errors.js';

/** Runs `fn`, asserts it throws a ToolgraphError with `code` whose message contains every part. */
export function expectError(fn: () => unknown, code: ErrorCode, ...parts: string[]): ToolgraphError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a ToolgraphError').toBeInstanceOf(ToolgraphError);
  const error = caught as ToolgraphError;
  expect(error.code, error.message).toBe(code);
  for (const part of parts) expect(error.message).toContain(part);
  return error;
}

/** The async form of expectError. */
export async function expectRejection(
  promise: Promise<unknown>,
  code: ErrorCode,
  ...parts: string[]
): Promise<ToolgraphError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a ToolgraphError').toBeInstanceOf(ToolgraphError);
  const error = caught as ToolgraphError;
  expect(error.code, error.message).toBe(code);
  for (const part of parts) expect(error.message).toContain(part);
  return error;
}

/** The issue list a validation error carries in `details`. */
export function issuesOf(error: ToolgraphError): { path: string; code: string; message: string }[] {
  return (error.details as { issues: { path: string; code: string; message: string }[] }).issues;
}

/** The ReasoningTrace example of spec 000 (code review of PR #42), as plain JSON. */
export function specExampleTrace(): Record<string, any> {
  return {
    '@context': 'https://knowledgepulse.dev/schema/v1',
    '@type': 'ReasoningTrace',
    id: 'kp:trace:550e8400-e29b-41d4-a716-446655440000',
    metadata: {
      created_at: '2025-03-01T10:00:00.000Z',
      task_domain: 'code-review',
      success: true,
      quality_score: 0,
      visibility: 'network',
      privacy_level: 'aggregated',
    },
    task: { objective: 'Review PR #42 for security issues' },
    steps: [
      { step_id: 0, type: 'thought', content: 'Analyzing diff for injection vectors' },
      { step_id: 1, type: 'tool_call', tool: { name: 'github_pr_read' }, input: { pr: 42 } },
      { step_id: 2, type: 'observation', content: 'Found unsanitized SQL in handler.ts' },
      { step_id: 3, type: 'tool_call', tool: { name: 'static_analysis' }, input: { file: 'handler.ts' } },
      { step_id: 4, type: 'observation', content: 'Confirmed SQL injection vulnerability' },
    ],
    outcome: {
      result_summary: 'Identified 1 critical SQL injection vulnerability',
      confidence: 0.95,
    },
  };
}

/** `depth` nested arrays: [[[...]]]. */
export function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** Names a hostile caller might choose; each must round-trip untouched. */
export const HOSTILE_NAMES = [
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'prototype',
  'x'.repeat(1_000),
  '🔧🛠️ tool 👩‍💻',
  'أداة_البحث',
  'כלי חיפוש',
  'a.b[0]["c"]',
  ' padded ',
  // Visible text around invisible characters is a name: a soft hyphen, a joiner in an emoji.
  'file\u00adname',
  'a\u200bb',
] as const;

/**
 * Names every boundary refuses, with the words of the refusal: nothing that shows (blank), and
 * bidirectional controls, which make a name display as another (`file_\u202eeteled` shows as
 * `file_deleted`).
 */
export const REFUSED_NAMES: readonly (readonly [string, string])[] = [
  ['\u200b', 'must not be blank'],
  ['\u200b\u200c\u200d\u2060\ufeff', 'must not be blank'],
  [' \u00a0\u3000', 'must not be blank'],
  ['\ufe0f\u3164', 'must not be blank'],
  ['file_\u202eeteled', 'must not contain bidirectional control characters (U+202E at 5)'],
  ['\u202Eevil\u202C', 'must not contain bidirectional control characters (U+202E at 0)'],
  ['a\u2066b\u2069', 'must not contain bidirectional control characters (U+2066 at 1)'],
  ['mark\u200f', 'must not contain bidirectional control characters (U+200F at 4)'],
  ['ltr\u200e', 'must not contain bidirectional control characters (U+200E at 3)'],
  ['arabic\u061c', 'must not contain bidirectional control characters (U+061C at 6)'],
];
