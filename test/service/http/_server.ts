/**
 * Test helpers for the HTTP face: a real server on loopback (port 0) over a real in-memory
 * service, and a small fetch wrapper that returns status, headers and parsed body.
 */
import { connect } from 'node:net';
import { inMemoryService, type ToolgraphService } from '../../../src/service/service.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from '../../../src/service/http/server.js';
import { Toolgraph } from '../../../src/service/toolgraph.js';

export const CATALOG = [
  { name: 'search_flights', description: 'Search flights between two airports' },
  { name: 'book_flight', description: 'Book a flight' },
  { name: 'search_hotels', description: 'Find hotels in a city' },
  { name: 'book_hotel', description: 'Book a hotel room' },
  { name: 'send_email', description: 'Send an email' },
];

export const TRACES = [
  { id: 's1', intent: 'fly to Rome', tools: ['search_flights', 'book_flight', 'send_email'] },
  { id: 's2', intent: 'fly to Paris', tools: ['search_flights', 'book_flight'] },
  { id: 's3', intent: 'hotel in Rome', tools: ['search_hotels', 'book_hotel', 'send_email'] },
  { id: 's4', intent: 'trip to Madrid', tools: ['search_flights', 'book_flight', 'search_hotels', 'book_hotel'] },
];

/** A seeded in-memory service: the catalogue above and four traces. */
export async function seededService(): Promise<ToolgraphService> {
  const service = inMemoryService(new Toolgraph({ seed: 1, rebuildDelayMs: 5 }));
  await service.setTools(CATALOG);
  await service.ingest(TRACES);
  return service;
}

export async function startTestServer(
  options: HttpServerOptions = {},
  service?: ToolgraphService,
): Promise<RunningHttpServer & { service: ToolgraphService }> {
  const s = service ?? (await seededService());
  const server = await startHttpServer(s, { port: 0, host: '127.0.0.1' }, options);
  return Object.assign(server, { service: s });
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

export interface Send {
  readonly method?: string;
  /** An object is sent as JSON; a string or Buffer as is. */
  readonly body?: unknown;
  readonly type?: string | null;
  readonly headers?: Record<string, string>;
}

export async function call(base: string, path: string, send: Send = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(send.headers ?? {}) };
  let body: string | Buffer | undefined;
  if (send.body !== undefined) {
    body = typeof send.body === 'string' || Buffer.isBuffer(send.body) ? send.body : JSON.stringify(send.body);
    const type = send.type === undefined ? 'application/json' : send.type;
    if (type !== null) headers['content-type'] = type;
  }
  const response = await fetch(`${base}${path}`, { method: send.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * Asks `probe` until `done` holds of its answer or `timeoutMs` passed, and returns the last
 * answer for the test to assert on. What a debounced rebuild makes visible is asked for this
 * way: a fixed wait raced the rebuild on a busy machine.
 */
export async function eventually<T>(probe: () => Promise<T>, done: (answer: T) => boolean, timeoutMs = 2_000): Promise<T> {
  const started = performance.now();
  let answer = await probe();
  while (!done(answer) && performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    answer = await probe();
  }
  return answer;
}

/**
 * Sends `request` (a whole HTTP/1.1 request, as bytes on the wire) over a plain socket and reads
 * the answer until the server closes: for what fetch cannot send (two Host headers, a Host of
 * our choosing). The request should carry `Connection: close`.
 */
export async function rawCall(base: string, request: string | Buffer): Promise<Reply> {
  const url = new URL(base);
  const data = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) }, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
  const split = data.indexOf('\r\n\r\n');
  const head = data.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
  const headers = new Headers();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let rest = data.subarray(split + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      rest = rest.subarray(eol + 2 + size + 2);
    }
    rest = Buffer.concat(parts);
  }
  const body = rest.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, text: body, json };
}
