/**
 * Every failure the HTTP face reports, as `{error: {code, message, issues?}}` with a status code.
 *
 * Library errors keep their code (INVALID_INPUT, PAYLOAD_TOO_LARGE, ...); Fastify's own errors
 * (body too large, unsupported content type, malformed Content-Length) are translated into the
 * same codes so a client matches on one vocabulary. Anything unexpected is a 500 INTERNAL whose
 * message says nothing about the internals: the stack goes to the log, not to the caller. A store
 * that cannot be reached (STORE_UNAVAILABLE) is 503 with `Retry-After`; its cause goes to the log.
 */
import type { ErrorCode } from '../../schema/errors.js';
import { isToolgraphError } from '../../schema/errors.js';
import type { HttpErrorCode } from '../../schema/service-requests.js';

/** An error raised by the HTTP layer itself (auth, content type, routing). */
export class HttpError extends Error {
  readonly status: number;
  readonly code: HttpErrorCode;

  constructor(status: number, code: HttpErrorCode, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }
}

const STATUS: Readonly<Record<ErrorCode, number>> = {
  INVALID_INPUT: 400,
  UNKNOWN_TOOL: 404,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  CONFLICT: 409,
  INTERNAL: 500,
  // The configured embeddings endpoint failed: an upstream's fault, not the caller's.
  EMBEDDER_FAILED: 502,
  // For now: answered with Retry-After.
  STORE_UNAVAILABLE: 503,
};

/**
 * Seconds a client is asked to wait (`Retry-After`) before retrying while the store cannot be
 * reached: the pool opens a fresh connection for the next request, so a retry soon after the
 * server is back succeeds.
 */
export const STORE_RETRY_AFTER_SECONDS = 2;

export interface ErrorBody {
  readonly error: {
    readonly code: HttpErrorCode;
    readonly message: string;
    readonly issues?: readonly unknown[];
  };
}

export interface RenderedError {
  readonly status: number;
  readonly body: ErrorBody;
  /** True when the error is ours to fix (log it at error level with its stack). */
  readonly internal: boolean;
  /** Headers the answer carries (`Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** What to log at warn level (an outage's cause, which the caller is not told). */
  readonly warning?: string;
}

function issuesOf(details: unknown): readonly unknown[] | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const issues = (details as { issues?: unknown }).issues;
  return Array.isArray(issues) ? issues : undefined;
}

/** Fastify's client errors carry a 4xx `statusCode` and an `FST_...` code. */
function fastifyClientError(error: unknown): { status: number; code: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode, code, message } = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return undefined;
  return { status: statusCode, code: typeof code === 'string' ? code : '', message: typeof message === 'string' ? message : '' };
}

export function renderError(error: unknown): RenderedError {
  if (isToolgraphError(error)) {
    if (error.code === 'STORE_UNAVAILABLE') {
      // The cause names the database's host and what the operator should check: for the log.
      return {
        status: 503,
        body: { error: { code: error.code, message: `the store cannot be reached right now; retry in ${STORE_RETRY_AFTER_SECONDS} s` } },
        internal: false,
        headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
        warning: error.message,
      };
    }
    const issues = issuesOf(error.details);
    const status = STATUS[error.code];
    const message = error.code === 'INTERNAL' ? 'internal error' : error.message;
    return {
      status,
      body: { error: { code: error.code, message, ...(issues !== undefined && status < 500 ? { issues } : {}) } },
      internal: status >= 500,
    };
  }
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: { code: error.code, message: error.message } }, internal: false };
  }
  const client = fastifyClientError(error);
  if (client !== undefined) {
    if (client.status === 413) {
      return { status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than this endpoint accepts' } }, internal: false };
    }
    if (client.status === 415) {
      return { status: 415, body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: client.message } }, internal: false };
    }
    if (client.status === 404) return { status: 404, body: { error: { code: 'NOT_FOUND', message: client.message } }, internal: false };
    // Malformed requests Fastify catches before a handler (bad Content-Length, aborted body...).
    return { status: 400, body: { error: { code: 'INVALID_INPUT', message: `${client.code}: ${client.message}` } }, internal: false };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } }, internal: true };
}

/**
 * The raw response to a request Node's HTTP parser refused before Fastify saw it (its
 * `clientError`): headers past Node's limit, a request not received in time, malformed HTTP.
 * In the API's error shape, so a client matches on the same codes; the connection is closed.
 */
export function clientErrorResponse(nodeCode: string | undefined): string {
  const [status, code, message] =
    nodeCode === 'HPE_HEADER_OVERFLOW'
      ? [431, 'PAYLOAD_TOO_LARGE', 'the request line and headers are larger than the server accepts (16 KiB)']
      : nodeCode === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'INVALID_INPUT', 'the request was not received in time']
        : [400, 'INVALID_INPUT', 'malformed HTTP request'];
  const body = JSON.stringify({ error: { code, message } });
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`;
}
