import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient } from '../../src/engine/chat-client.js';
import { modelEndpointSchema } from '../../src/engine/options.js';
import { closedPort } from '../helpers/embeddings-server.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';

let server: ChatServer;
beforeAll(async () => {
  server = await startChatServer();
});
afterAll(async () => {
  await server.close();
});

const endpoint = (over: Record<string, unknown> = {}) => modelEndpointSchema.parse({ url: server.url, timeoutMs: 500, ...over });
const messages = [{ role: 'user' as const, content: 'hi' }];

describe('chat client against a loopback chat-completions server', () => {
  it('posts the protocol request with the key and the token bound, and reads content and usage', async () => {
    server.answer(() => ({ content: '{"tool":"x"}', promptTokens: 42, completionTokens: 7 }));
    const client = createChatClient(endpoint({ key: 'sk-test', maxCompletionTokens: 99 }));
    const outcome = await client.complete('o3-mini', messages);
    expect(outcome).toMatchObject({ ok: true, content: '{"tool":"x"}', usage: { promptTokens: 42, completionTokens: 7 } });
    const request = server.requests.at(-1)!;
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers['authorization']).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'o3-mini', messages, max_completion_tokens: 99, response_format: { type: 'json_object' } });
  });

  it('sends max_tokens instead when asked, no key header without a key, no response_format without JSON mode', async () => {
    server.answer(() => ({ content: 'ok' }));
    await createChatClient(endpoint({ tokenField: 'max_tokens', jsonMode: false })).complete('m', messages);
    const request = server.requests.at(-1)!;
    expect(request.headers['authorization']).toBeUndefined();
    expect(request.body['max_tokens']).toBe(512);
    expect(request.body['max_completion_tokens']).toBeUndefined();
    expect(request.body['response_format']).toBeUndefined();
  });

  it('reports a 429 and a 500 as status failures', async () => {
    server.answer(() => ({ status: 429, raw: '{"error":{"message":"rate limited"}}' }));
    expect(await createChatClient(endpoint()).complete('m', messages)).toMatchObject({ ok: false, failure: 'status', status: 429, usage: null });
    server.answer(() => ({ status: 500, raw: 'oops' }));
    const outcome = await createChatClient(endpoint()).complete('m', messages);
    expect(outcome).toMatchObject({ ok: false, failure: 'status', status: 500 });
    expect(!outcome.ok && outcome.message).toContain('answered 500');
  });

  it('reports malformed JSON, and a body of the wrong shape with the usage it still reported', async () => {
    server.answer(() => ({ status: 200, raw: '{"choices": [' }));
    expect(await createChatClient(endpoint()).complete('m', messages)).toMatchObject({ ok: false, failure: 'malformed', usage: null });
    server.answer(() => ({ status: 200, raw: JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } }) }));
    expect(await createChatClient(endpoint()).complete('m', messages)).toMatchObject({ ok: false, failure: 'malformed', usage: { promptTokens: 5, completionTokens: 1 } });
  });

  it('times out a slow reply and a refused connection fails as transport', async () => {
    server.answer(() => ({ content: 'late', delayMs: 2_000 }));
    const t0 = Date.now();
    expect(await createChatClient(endpoint({ timeoutMs: 200 })).complete('m', messages)).toMatchObject({ ok: false, failure: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(1_500);
    const port = await closedPort();
    expect(await createChatClient(modelEndpointSchema.parse({ url: `http://127.0.0.1:${port}/v1` })).complete('m', messages)).toMatchObject({ ok: false, failure: 'transport' });
  });
});
