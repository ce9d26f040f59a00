/** Asserts that `fn` throws a ToolgraphError with `code` (and, if given, a message containing `fragment`). */
import { expect } from 'vitest';
import { isToolgraphError } from '../../src/schema/errors.js';

export function expectCode(fn: () => unknown, code: string, fragment?: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(isToolgraphError(thrown), `expected a ToolgraphError ${code}`).toBe(true);
  if (!isToolgraphError(thrown)) return;
  expect(thrown.code).toBe(code);
  if (fragment !== undefined) expect(thrown.message).toContain(fragment);
}
