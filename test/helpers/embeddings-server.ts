/**
 * A local OpenAI-compatible embeddings server on 127.0.0.1 (port 0): `POST /v1/embeddings` with
 * `{model, input: string[]}` answers `{object: 'list', data: [{object, index, embedding}], model,
 * usage}`, the data listed in reverse order so clients must sort by `index`. The embedding of a
 * text is `vectorOf(text, dimensions)`, so tests can compute the expected answer. `behave` lets a
 * test replace the answer (delay, status, raw body) for the next requests.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { model?: unknown; input?: unknown };
}

/** What the server does with a request; return undefined to answer normally. */
export type Behaviour = (request: RecordedRequest) => { status?: number; body?: string; delayMs?: number; dimensions?: number } | undefined;

export interface EmbeddingsServer {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  behave(behaviour: Behaviour | null): void;
  close(): Promise<void>;
}

/** A deterministic vector for `text`: [length, sum of code units, first code unit, 1, 0, ...]. */
export function vectorOf(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  const head = [text.length, sum, text.charCodeAt(0) || 0, 1];
  for (let i = 0; i < Math.min(dimensions, head.length); i++) v[i] = head[i]!;
  return v;
}

export async function startEmbeddingsServer(dimensions: number): Promise<EmbeddingsServer> {
  const requests: RecordedRequest[] = [];
  let behaviour: Behaviour | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: RecordedRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
      } catch {
        // Left empty: the answer below is a 400, as a real server would give.
      }
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const override = behaviour?.(recorded);
      const answer = (): void => {
        if (override?.status !== undefined || override?.body !== undefined) {
          res.writeHead(override.status ?? 200, { 'content-type': 'application/json' });
          res.end(override.body ?? '');
          return;
        }
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
          return;
        }
        const input = body.input;
        if (!Array.isArray(input) || input.some((t) => typeof t !== 'string' || t === '')) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: "'$.input' is invalid" } }));
          return;
        }
        const d = override?.dimensions ?? dimensions;
        const data = (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, d) })).reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
      };
      if (override?.delayMs !== undefined) setTimeout(answer, override.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    behave(next) {
      behaviour = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A loopback port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
