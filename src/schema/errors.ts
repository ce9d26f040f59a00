/**
 * The one error class toolgraph throws for bad input and broken invariants.
 * Expected outcomes (cold start, no match) are data, never errors. Codes are stable: callers,
 * the HTTP layer and tests match on them.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'UNKNOWN_TOOL',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'CONFLICT',
  'INTERNAL',
  // A configured embedder could not run: its optional package is missing, its model failed to
  // load, or its remote endpoint timed out, refused, failed or answered something malformed.
  'EMBEDDER_FAILED',
  // The store cannot be reached for now (PostgreSQL refused, dropped or timed out the connection;
  // PGlite's database thread died): the operation was not carried out, and may be retried later.
  'STORE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ToolgraphError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'ToolgraphError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isToolgraphError(value: unknown): value is ToolgraphError {
  return value instanceof ToolgraphError;
}
