/**
 * The OpenAI-compatible embedder against a real HTTP server on loopback that speaks the protocol
 * (test/helpers/embeddings-server.ts): batching, order by index, the key header, and every
 * documented failure.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { embedOne } from '../../src/text/embedder.js';
import { createOpenAIEmbedder, excerpt } from '../../src/text/openai-embedder.js';
import { closedPort, startEmbeddingsServer, vectorOf, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { expectCode, rejectionOf } from '../helpers/expect-code.js';

const D = 8;
let server: EmbeddingsServer;

beforeAll(async () => {
  server = await startEmbeddingsServer(D);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.behave(null);
  server.requests.length = 0;
});

function embedder(extra: Partial<Parameters<typeof createOpenAIEmbedder>[0]> = {}) {
  return createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'mini', dimensions: D, ...extra });
}

describe('createOpenAIEmbedder: success', () => {
  it('splits the input into batches and keeps the input order although data come reversed', async () => {
    const texts = Array.from({ length: 7 }, (_, i) => `text number ${i} ${'x'.repeat(i)}`);
    const vectors = await embedder({ batchSize: 3 }).embed(texts);
    expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([3, 3, 1]);
    expect(server.requests.flatMap((r) => r.body.input as string[])).toEqual(texts);
    expect(server.requests.every((r) => r.body.model === 'mini' && r.method === 'POST' && r.url === '/v1/embeddings')).toBe(true);
    expect(vectors).toHaveLength(7);
    for (let i = 0; i < texts.length; i++) {
      expect(vectors[i]).toBeInstanceOf(Float32Array);
      expect(Array.from(vectors[i]!)).toEqual(vectorOf(texts[i]!, D));
    }
  });

  it('sends the key as a Bearer token, and no authorization header without a key', async () => {
    await embedder({ apiKey: 'sk-test-123' }).embed(['a']);
    await embedder().embed(['b']);
    expect(server.requests[0]!.headers['authorization']).toBe('Bearer sk-test-123');
    expect(server.requests[1]!.headers['authorization']).toBeUndefined();
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('answers blank texts with the zero vector without sending them, and makes no request for none', async () => {
    const vectors = await embedder().embed(['', 'tool', '   ']);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.input).toEqual(['tool']);
    expect(Array.from(vectors[0]!)).toEqual(new Array(D).fill(0));
    expect(Array.from(vectors[1]!)).toEqual(vectorOf('tool', D));
    expect(Array.from(vectors[2]!)).toEqual(new Array(D).fill(0));
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('cuts texts to maxChars and accepts a base URL with a trailing slash', async () => {
    await createOpenAIEmbedder({ baseUrl: `${server.baseUrl}/`, model: 'mini', dimensions: D, maxChars: 5 }).embed(['abcdefghij']);
    expect(server.requests[0]!.url).toBe('/v1/embeddings');
    expect(server.requests[0]!.body.input).toEqual(['abcde']);
  });

  it('passes the checks of embedOne, and names itself after the model', async () => {
    const e = embedder();
    expect(e.name).toBe('openai:mini');
    expect(e.dimensions).toBe(D);
    expect(Array.from(await embedOne(e, 'hello', 'test'))).toEqual(vectorOf('hello', D));
  });
});

describe('createOpenAIEmbedder: failures', () => {
  it('times out on a server that delays, naming the limit', async () => {
    server.behave(() => ({ delayMs: 1000 }));
    const started = Date.now();
    const error = await rejectionOf(embedder({ timeoutMs: 100 }).embed(['slow']));
    expect(Date.now() - started).toBeLessThan(900);
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('timed out after 100 ms');
    expect(error.message).toContain(`${server.baseUrl}/embeddings`);
  });

  it('says the connection was refused when nothing listens', async () => {
    const port = await closedPort();
    const e = createOpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'mini', dimensions: D });
    const error = await rejectionOf(e.embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain(`connection refused by 127.0.0.1:${port}`);
  });

  it('says a 401 means the key was rejected, with the status and the body, never the key', async () => {
    server.behave(() => ({ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) }));
    const error = await rejectionOf(embedder({ apiKey: 'sk-secret-999' }).embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('answered 401');
    expect(error.message).toContain('the API key was rejected');
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).not.toContain('sk-secret-999');
    expect(error.details).toEqual({ status: 401 });
  });

  it('reports a 500 with a bounded excerpt of the body', async () => {
    server.behave(() => ({ status: 500, body: `upstream exploded ${'z'.repeat(5000)}` }));
    const error = await rejectionOf(embedder().embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('answered 500 Internal Server Error');
    expect(error.message).toContain('upstream exploded');
    expect(error.message).toContain('(5018 chars)');
    expect(error.message.length).toBeLessThan(500);
  });

  it('reports a wrong base URL as a 404 with a hint', async () => {
    const e = createOpenAIEmbedder({ baseUrl: server.baseUrl.replace(/\/v1$/, ''), model: 'mini', dimensions: D });
    const error = await rejectionOf(e.embed(['a']));
    expect(error.message).toContain('answered 404');
    expect(error.message).toContain('/v1');
  });

  it('reports malformed JSON with an excerpt', async () => {
    server.behave(() => ({ status: 200, body: '{"data": [ {"index": 0, "embedding": [1, 2' }));
    const error = await rejectionOf(embedder().embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('malformed JSON');
    expect(error.message).toContain('{"data": [ {"index": 0');
  });

  it('reports a response of the wrong shape with the path of the problem', async () => {
    server.behave(() => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: 'AAAA' }] }) }));
    const error = await rejectionOf(embedder().embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('unexpected shape: data[0].embedding: expected array');
    server.behave(() => ({ status: 200, body: JSON.stringify({ object: 'list' }) }));
    expect((await rejectionOf(embedder().embed(['a']))).message).toContain('unexpected shape: data: missing');
  });

  it('rejects vectors of the wrong length, naming both lengths', async () => {
    server.behave(() => ({ dimensions: D + 1 }));
    const error = await rejectionOf(embedder().embed(['a']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain(`returned vectors of length ${D + 1}, expected ${D}`);
  });

  it('rejects a wrong number of vectors, and duplicate or out-of-range indices', async () => {
    const row = (index: number) => ({ index, embedding: new Array(D).fill(0.5) });
    server.behave(() => ({ status: 200, body: JSON.stringify({ data: [row(0)] }) }));
    expect((await rejectionOf(embedder().embed(['a', 'b']))).message).toContain('returned 1 vectors for 2 texts');
    server.behave(() => ({ status: 200, body: JSON.stringify({ data: [row(0), row(0)] }) }));
    expect((await rejectionOf(embedder().embed(['a', 'b']))).message).toContain('returned index 0 twice');
    server.behave(() => ({ status: 200, body: JSON.stringify({ data: [row(0), row(5)] }) }));
    expect((await rejectionOf(embedder().embed(['a', 'b']))).message).toContain('returned index 5 for 2 texts');
  });

  it('rejects values that are not finite: beyond the double range, and beyond float32', async () => {
    const values = new Array(D).fill(0.1);
    server.behave(() => ({ status: 200, body: `{"data":[{"index":0,"embedding":[1e999${',0.1'.repeat(D - 1)}]}]}` }));
    const huge = await rejectionOf(embedder().embed(['a']));
    expect(huge.code).toBe('EMBEDDER_FAILED');
    expect(huge.message).toContain('data[0].embedding[0]: expected number, received Infinity');
    values[3] = 1e300;
    server.behave(() => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: values }] }) }));
    expect((await rejectionOf(embedder().embed(['a']))).message).toContain('not finite in float32 at data[index 0].embedding[3]');
  });

  it('rejects bad options with INVALID_INPUT, and non-string texts', async () => {
    expectCode(() => createOpenAIEmbedder({ baseUrl: 'ftp://x/v1', model: 'm', dimensions: 3 }), 'INVALID_INPUT', 'baseUrl: expected an http or https URL');
    expectCode(() => createOpenAIEmbedder({ baseUrl: 'not a url', model: 'm', dimensions: 3 }), 'INVALID_INPUT', 'baseUrl');
    expectCode(() => createOpenAIEmbedder({ baseUrl: server.baseUrl, model: '', dimensions: 3 }), 'INVALID_INPUT', 'model');
    expectCode(() => createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'm', dimensions: 0 }), 'INVALID_INPUT', 'dimensions');
    expectCode(() => createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'm', dimensions: 3, batchSize: 0 }), 'INVALID_INPUT', 'batchSize');
    expectCode(
      () => createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'm', dimensions: 3, colour: 'red' } as never),
      'INVALID_INPUT',
      'colour: unknown key',
    );
    expect((await rejectionOf(embedder().embed(['a', 3 as unknown as string]))).code).toBe('INVALID_INPUT');
    expect(server.requests).toHaveLength(0);
  });

  it('excerpt collapses whitespace, bounds the length and names an empty body', () => {
    expect(excerpt('  a \n\t b ')).toBe('a b');
    expect(excerpt('')).toBe('(empty body)');
    expect(excerpt('y'.repeat(300))).toBe(`${'y'.repeat(200)}... (300 chars)`);
  });
});
