/**
 * A client of an OpenAI-compatible chat-completions endpoint (OpenAI itself, or a local server
 * speaking the same protocol: llama.cpp, vLLM, Ollama):
 *
 *   POST {url}/chat/completions   Authorization: Bearer {key}   (sent only with a key)
 *   request  {model, messages: [{role, content}], max_completion_tokens | max_tokens, response_format?}
 *   response {choices: [{message: {content}}], usage: {prompt_tokens, completion_tokens}}
 *
 * One call, bounded by a timeout that covers the headers and the body. Its outcome is data, never
 * an exception: the answer's text and the usage the endpoint reported, or why there is none
 * (timeout, refused, a non-2xx status, malformed JSON, a body of the wrong shape), with the usage
 * when a malformed answer still reported it. The session falls back to the graph on any of them.
 */
import { z } from 'zod';
import type { ModelEndpoint } from './options.js';

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export type ChatFailure = 'timeout' | 'transport' | 'status' | 'malformed';

export type ChatOutcome =
  | { readonly ok: true; readonly content: string; readonly usage: ChatUsage | null; readonly ms: number }
  | { readonly ok: false; readonly failure: ChatFailure; readonly message: string; readonly status?: number; readonly usage: ChatUsage | null; readonly ms: number };

export interface ChatClient {
  /** The endpoint, without credentials, for telemetry. */
  readonly endpoint: string;
  complete(model: string, messages: readonly ChatMessage[]): Promise<ChatOutcome>;
}

const usageSchema = z.object({ prompt_tokens: z.int().min(0), completion_tokens: z.int().min(0) });

const responseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
  usage: usageSchema.optional(),
});

function usageOf(body: unknown): ChatUsage | null {
  const parsed = usageSchema.safeParse((body as { usage?: unknown } | null)?.usage);
  return parsed.success ? { promptTokens: parsed.data.prompt_tokens, completionTokens: parsed.data.completion_tokens } : null;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}... (${flat.length} chars)` : flat === '' ? '(empty body)' : flat;
}

/** A client for `endpoint.url` (required). */
export function createChatClient(endpoint: ModelEndpoint): ChatClient {
  if (endpoint.url === undefined) throw new TypeError('createChatClient: the endpoint has no url');
  const url = new URL(`${endpoint.url.replace(/\/+$/, '')}/chat/completions`);
  const shown = `${url.origin}${url.pathname}`;
  return {
    endpoint: shown,
    async complete(model, messages) {
      const t0 = performance.now();
      const ms = (): number => Math.round(performance.now() - t0);
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (endpoint.key !== undefined) headers['authorization'] = `Bearer ${endpoint.key}`;
      const body = {
        model,
        messages,
        [endpoint.tokenField]: endpoint.maxCompletionTokens,
        ...(endpoint.jsonMode ? { response_format: { type: 'json_object' } } : {}),
      };
      let status: number;
      let text: string;
      try {
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(endpoint.timeoutMs) });
        status = response.status;
        // The same signal bounds the body: a server that sends its headers and stalls still times out.
        text = await response.text();
      } catch (error) {
        const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
        if (err.name === 'TimeoutError' || err.name === 'AbortError') {
          return { ok: false, failure: 'timeout', message: `POST ${shown} timed out after ${endpoint.timeoutMs} ms`, usage: null, ms: ms() };
        }
        const code = err.cause?.code;
        return { ok: false, failure: 'transport', message: `POST ${shown} failed${code === undefined ? '' : ` (${code})`}: ${err.cause?.message ?? err.message ?? String(error)}`, usage: null, ms: ms() };
      }
      if (status < 200 || status > 299) {
        return { ok: false, failure: 'status', status, message: `POST ${shown} answered ${status}: ${excerpt(text)}`, usage: null, ms: ms() };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        return { ok: false, failure: 'malformed', message: `POST ${shown} answered malformed JSON (${(error as Error).message}): ${excerpt(text)}`, usage: null, ms: ms() };
      }
      const parsed = responseSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue === undefined ? '' : `${issue.path.join('.') || 'body'}: ${issue.message}`;
        return { ok: false, failure: 'malformed', message: `POST ${shown} answered an unexpected shape (${where})`, usage: usageOf(json), ms: ms() };
      }
      return { ok: true, content: parsed.data.choices[0]!.message.content, usage: usageOf(json), ms: ms() };
    },
  };
}
