/**
 * A local OpenAI-compatible chat-completions server on 127.0.0.1 (port 0): `POST
 * /v1/chat/completions` with `{model, messages, ...}` answers `{id, object, choices: [{index,
 * message: {role, content}, finish_reason}], usage: {prompt_tokens, completion_tokens,
 * total_tokens}}`. What it answers is the test's: `answer(request)` returns the content and the
 * usage, or a raw reply (a status, a body that is no JSON, a delay past the client's timeout).
 * Every request is recorded, headers and body.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { model?: string; messages?: { role: string; content: string }[]; [key: string]: unknown };
}

export type ChatReply =
  | { readonly content: string; readonly promptTokens?: number; readonly completionTokens?: number; readonly noUsage?: boolean; readonly delayMs?: number }
  | { readonly status: number; readonly raw: string; readonly delayMs?: number };

export interface ChatServer {
  /** Base URL up to /v1, as TOOLGRAPH_LLM_URL takes it. */
  readonly url: string;
  readonly requests: ChatRequest[];
  /** How the next requests are answered. */
  answer(fn: (request: ChatRequest) => ChatReply): void;
  close(): Promise<void>;
}

/** The candidate tools of a toolgraph prompt, in the order listed. */
export function promptCandidates(request: ChatRequest): string[] {
  const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const at = user.indexOf('Candidate tools');
  if (at < 0) return [];
  return user
    .slice(at)
    .split('\n')
    .slice(1)
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2).replace(/ \([0-9.]+\)(:.*)?$/, ''));
}

export async function startChatServer(): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  let answer: (request: ChatRequest) => ChatReply = (r) => ({ content: JSON.stringify({ tool: promptCandidates(r)[0] ?? 'none' }) });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: ChatRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      } catch {
        // An unreadable request gets the 400 below.
      }
      const request: ChatRequest = { url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions' || !Array.isArray(body.messages)) {
        res.writeHead(req.url === '/v1/chat/completions' ? 400 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const reply = answer(request);
      const send = (): void => {
        if (res.destroyed) return;
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json' });
          res.end(reply.raw);
          return;
        }
        const prompt = reply.promptTokens ?? 100;
        const completion = reply.completionTokens ?? 10;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
            ...(reply.noUsage === true ? {} : { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } }),
          }),
        );
      };
      if (reply.delayMs !== undefined) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answer(fn) {
      answer = fn;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
