import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, parseEmbedderSpec } from '../../src/text/embedder-config.js';
import { createHashedEmbedder } from '../../src/text/hashed-embedder.js';
import { closedPort, startEmbeddingsServer, vectorOf, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { expectCode, rejectionOf } from '../helpers/expect-code.js';

describe('parseEmbedderSpec', () => {
  it('parses the four forms', () => {
    expect(parseEmbedderSpec('hashed')).toEqual({ kind: 'hashed' });
    expect(parseEmbedderSpec(' none ')).toEqual({ kind: 'none' });
    expect(parseEmbedderSpec('transformers:/models/all-MiniLM-L6-v2')).toEqual({ kind: 'transformers', modelPath: '/models/all-MiniLM-L6-v2' });
    expect(parseEmbedderSpec('transformers:C:\\models\\mini')).toEqual({ kind: 'transformers', modelPath: 'C:\\models\\mini' });
    expect(parseEmbedderSpec('openai:http://127.0.0.1:8080/v1')).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:8080/v1' });
  });

  it('rejects anything else with INVALID_INPUT naming the accepted forms', () => {
    for (const bad of ['', 'Hashed', 'sentence-transformers:/x', 'hashed:384']) {
      expectCode(() => parseEmbedderSpec(bad), 'INVALID_INPUT', "'hashed', 'none', 'transformers:/path/to/model' or 'openai:http://host:port/v1'");
    }
    expectCode(() => parseEmbedderSpec('transformers:'), 'INVALID_INPUT', 'followed by the model folder');
    expectCode(() => parseEmbedderSpec('openai:'), 'INVALID_INPUT', 'followed by an http(s) base URL');
    expectCode(() => parseEmbedderSpec('openai'), 'INVALID_INPUT', 'followed by an http(s) base URL');
    expectCode(() => parseEmbedderSpec('openai:ftp://host/v1'), 'INVALID_INPUT', 'http(s) base URL');
    expectCode(() => parseEmbedderSpec('openai:http://me:sk-1@host/v1'), 'INVALID_INPUT', 'TOOLGRAPH_EMBEDDINGS_KEY, not in the URL');
    expectCode(() => parseEmbedderSpec(42 as unknown as string), 'INVALID_INPUT', 'got number');
  });
});

describe('createEmbedder', () => {
  let server: EmbeddingsServer;
  const dir = mkdtempSync(join(tmpdir(), 'tg-embedder-config-'));
  beforeAll(async () => {
    server = await startEmbeddingsServer(6);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    server.requests.length = 0;
  });

  it('defaults to the hashed embedder, and takes the spec from TOOLGRAPH_EMBEDDER when none is given', async () => {
    const byDefault = await createEmbedder(undefined, {});
    expect(byDefault?.name).toBe('hashed-384');
    const reference = await createHashedEmbedder().embed(['find flights']);
    expect(Array.from((await byDefault!.embed(['find flights']))[0]!)).toEqual(Array.from(reference[0]!));
    expect(await createEmbedder(undefined, { TOOLGRAPH_EMBEDDER: 'none' })).toBeNull();
    expect((await createEmbedder(undefined, { TOOLGRAPH_EMBEDDER: '  ' }))?.name).toBe('hashed-384');
    // An explicit spec wins over the environment.
    expect((await createEmbedder('hashed', { TOOLGRAPH_EMBEDDER: 'none' }))?.name).toBe('hashed-384');
    expect((await rejectionOf(createEmbedder(undefined, { TOOLGRAPH_EMBEDDER: 'bogus' }))).code).toBe('INVALID_INPUT');
  });

  it('builds the openai embedder from the environment, key and dimensions included', async () => {
    const env = { TOOLGRAPH_EMBEDDINGS_MODEL: 'mini', TOOLGRAPH_EMBEDDINGS_KEY: 'sk-abc', TOOLGRAPH_EMBEDDINGS_DIMENSIONS: '6' };
    const embedder = await createEmbedder(`openai:${server.baseUrl}`, env);
    expect(server.requests).toHaveLength(0);
    expect(embedder?.dimensions).toBe(6);
    expect(embedder?.name).toBe('openai:mini');
    const [vector] = await embedder!.embed(['route planner']);
    expect(Array.from(vector!)).toEqual(vectorOf('route planner', 6));
    expect(server.requests[0]!.headers['authorization']).toBe('Bearer sk-abc');
    expect(server.requests[0]!.body.model).toBe('mini');
  });

  it('probes the dimensions with one request when TOOLGRAPH_EMBEDDINGS_DIMENSIONS is unset', async () => {
    const embedder = await createEmbedder(undefined, { TOOLGRAPH_EMBEDDER: `openai:${server.baseUrl}`, TOOLGRAPH_EMBEDDINGS_MODEL: 'mini' });
    expect(embedder?.dimensions).toBe(6);
    expect(server.requests.map((r) => r.body.input)).toEqual([['dimension probe']]);
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('says what is missing or wrong in the environment', async () => {
    const noModel = await rejectionOf(createEmbedder(`openai:${server.baseUrl}`, {}));
    expect(noModel.code).toBe('INVALID_INPUT');
    expect(noModel.message).toContain('TOOLGRAPH_EMBEDDINGS_MODEL');
    const badDims = await rejectionOf(createEmbedder(`openai:${server.baseUrl}`, { TOOLGRAPH_EMBEDDINGS_MODEL: 'm', TOOLGRAPH_EMBEDDINGS_DIMENSIONS: '3.5' }));
    expect(badDims.code).toBe('INVALID_INPUT');
    expect(badDims.message).toContain("TOOLGRAPH_EMBEDDINGS_DIMENSIONS to be a positive integer, got '3.5'");
    expect(server.requests).toHaveLength(0);
  });

  it('passes the embedders\' own errors through: a missing model folder, an unreachable server', async () => {
    const folder = await rejectionOf(createEmbedder(`transformers:${join(dir, 'no-model')}`, {}));
    expect(folder.code).toBe('NOT_FOUND');
    expect(folder.message).toContain('config.json');
    const refused = await rejectionOf(createEmbedder(`openai:http://127.0.0.1:${await closedPort()}/v1`, { TOOLGRAPH_EMBEDDINGS_MODEL: 'm' }));
    expect(refused.code).toBe('EMBEDDER_FAILED');
    expect(refused.message).toContain('connection refused');
  });
});
