/** Asserts that `fn` throws a ToolgraphError with `code` (and, if given, a message containing `fragment`). */
import { expect } from 'vitest';
import { isToolgraphError, ToolgraphError } from '../../src/schema/errors.js';

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

/** The ToolgraphError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejectionOf(promise: Promise<unknown>): Promise<ToolgraphError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgraphError);
    return error as ToolgraphError;
  }
  throw new Error('expected a ToolgraphError, nothing was thrown');
}
