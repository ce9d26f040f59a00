import { describe, expect, it } from 'vitest';
import { inMemoryService } from '../../src/service/service.js';
import { ToolgraphError } from '../../src/schema/errors.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import type { Embedder } from '../../src/text/embedder.js';
import { createHashedEmbedder } from '../../src/text/hashed-embedder.js';
import { rejectionOf } from '../helpers/expect-code.js';
import { reasoningTrace } from '../scoring/_helpers.js';

const trace = (id: string, objective: string) =>
  reasoningTrace({ id, objective, steps: ['thought', 'tool_call', 'observation', 'tool_call', 'observation'] });

describe('Toolgraph.score and the service contract', () => {
  it('contributes only at or above the threshold, so a merely scored trace leaves novelty alone', async () => {
    const tg = new Toolgraph();
    const first = await tg.score(trace('a', 'convert currency'), { threshold: 1 });
    expect(first.contributed).toBe(false);
    expect(first.breakdown.dimensions.novelty).toBe(0.5);
    // Nothing was contributed, so the same trace is still scored against an empty memory.
    const again = await tg.score(trace('a', 'convert currency'), { contribute: true });
    expect(again.breakdown.dimensions.novelty).toBe(0.5);
    expect(again.reason).toBe('explicit');
    // Now it is remembered: the identical trace is no longer novel.
    const repeat = await tg.score(trace('b', 'convert currency'));
    expect(repeat.breakdown.dimensions.novelty).toBeLessThan(0.5);
  });

  it('passes every call through, async, with the facade errors unchanged', async () => {
    const service = inMemoryService(new Toolgraph({ seed: 1 }));
    await service.setTools([{ name: 'a' }, { name: 'b' }]);
    await service.ingest({ intent: 'x', tools: ['a', 'b'] });
    const prediction = await service.predictNext({ context: ['a'], k: 1 });
    expect(prediction.items[0]?.tool).toBe('b');
    expect((await service.stats()).traces).toBe(1);
    expect((await service.tools()).map((t) => t.name)).toEqual(['a', 'b']);
    expect((await rejectionOf(service.ingest({ tools: 'nope' }))).code).toBe('INVALID_INPUT');
    expect((await rejectionOf(service.score({}))).code).toBe('INVALID_INPUT');
    await service.close();
  });
});

describe('search over a configured embedder', () => {
  it('embeds tool texts once per catalogue and the query per request, then uses the embedding signal', async () => {
    const inner = createHashedEmbedder({ dimensions: 64, seed: 3 });
    const calls: number[] = [];
    const embedder: Embedder = { dimensions: 64, name: 'counting', embed: (texts) => (calls.push(texts.length), inner.embed(texts)) };
    const service = inMemoryService(new Toolgraph({ embedder }));
    await service.setTools([
      { name: 'weather_forecast', description: 'Forecast of the weather for a city' },
      { name: 'flight_search', description: 'Search flights between airports' },
    ]);
    const result = await service.searchTools({ query: 'weather forecasts', k: 1 });
    expect(result.items[0]!.tool).toBe('weather_forecast');
    expect(result.items[0]!.signals.embedding).toBeGreaterThan(0.3);
    await service.searchTools({ query: 'flights', k: 1 });
    // One batch for the two tools, then one call per new query; the tools are not embedded again.
    expect(calls).toEqual([2, 1, 1]);
  });

  it('surfaces the embedder failure to the caller', async () => {
    const embedder: Embedder = { dimensions: 8, embed: () => Promise.reject(new ToolgraphError('EMBEDDER_FAILED', 'endpoint down')) };
    const service = inMemoryService(new Toolgraph({ embedder }));
    await service.setTools([{ name: 'a', description: 'alpha' }]);
    expect((await rejectionOf(service.searchTools({ query: 'alpha' }))).code).toBe('EMBEDDER_FAILED');
  });
});
