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

/**
 * Where in a file the input that failed is: the file as the caller named it, and the 1-based
 * line when the file is read by lines. Data, so that each face says it its own way (the CLI:
 * `toolgraph ingest: traces.jsonl:12: INVALID_INPUT: ...`, cli/error-text.ts).
 */
export interface ErrorLocation {
  readonly file: string;
  readonly line?: number;
}

export class ToolgraphError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly location: ErrorLocation | undefined;

  constructor(code: ErrorCode, message: string, details?: unknown, location?: ErrorLocation) {
    super(message);
    this.name = 'ToolgraphError';
    this.code = code;
    this.details = details;
    this.location = location;
  }

  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isToolgraphError(value: unknown): value is ToolgraphError {
  return value instanceof ToolgraphError;
}

/**
 * `error` as read from `location`, unless it already says where it is: the same code, message
 * and details, for an error raised by what a file held (a catalogue's entry, a capability).
 */
export function inFile(error: unknown, location: ErrorLocation): unknown {
  if (!(error instanceof ToolgraphError) || error.location !== undefined) return error;
  if (error.code === 'INTERNAL' || error.code === 'EMBEDDER_FAILED') return error;
  return new ToolgraphError(error.code, error.message, error.details, location);
}
