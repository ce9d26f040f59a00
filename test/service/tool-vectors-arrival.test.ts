/**
 * Tool vectors that an asynchronous embedder fetched for a request (Toolgraph.prepareEmbeddings)
 * are in the model that answers it, even when a background build was planned in between and has
 * not landed yet: the model stays stale until a build planned after the vectors arrived is
 * installed. (Found by the durable restart test with an OpenAI-compatible embedder: one of three
 * concurrent first searches, under load, was answered without the embedding signal.)
 */
import { describe, expect, it } from 'vitest';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { createOpenAIEmbedder } from '../../src/text/openai-embedder.js';
import { startEmbeddingsServer } from '../helpers/embeddings-server.js';

const TOOLS = [
  { name: 'search_flights', description: 'Search flights between two airports', params: [] },
  { name: 'book_flight', description: 'Book a seat on a flight', params: [] },
  { name: 'weather_forecast', description: 'The weather forecast for a city', params: [] },
];
const TRACES = [1, 2, 3].map((i) => ({ id: `t${i}`, intent: `fly to Rome ${i}`, tools: ['search_flights', 'book_flight'], success: true }));

describe('tool vectors arriving while a build is in flight', () => {
  it('answers with the vectors the request waited for, not with the model planned before them', async () => {
    const server = await startEmbeddingsServer(16);
    // The debounce is long so that only the calls below build models.
    const tg = new Toolgraph({ rebuildDelayMs: 60_000, embedder: createOpenAIEmbedder({ baseUrl: server.baseUrl, model: 'mini', dimensions: 16 }) });
    try {
      tg.setTools(TOOLS);
      tg.ingest(TRACES);
      const query = { query: 'find flights to Rome', k: 3 };
      // The first model has no tool vectors yet: nothing was fetched.
      expect(tg.searchTools(query).items.every((item) => item.signals.embedding === 0)).toBe(true);
      await tg.prepareEmbeddings([query.query]);
      // A build planned now (as by the debounce) lands later; the query comes first.
      const flight = tg.rebuildInBackground(Number.POSITIVE_INFINITY);
      const answer = tg.searchTools(query);
      expect(answer.items.some((item) => item.signals.embedding > 0)).toBe(true);
      await flight;
      expect(tg.searchTools(query)).toEqual(answer);
    } finally {
      tg.close();
      await server.close();
    }
  });
});
