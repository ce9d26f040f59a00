import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trainToolgraph } from '../../src/eval/next-methods.js';
import { evaluateSearchContext, SEARCH_CONTEXT_METHODS } from '../../src/eval/search-context.js';
import { buildUniverse } from '../../src/eval/universe.js';
import { searchTools } from '../../src/recommend/search-tools.js';
import { loadDataset } from '../../src/schema/dataset.js';

const SAMPLE = fileURLToPath(new URL('../../samples/nestful', import.meta.url));

describe('the search-with-context evaluation', () => {
  it("scores searchTools' own answers at the next-tool positions, context included", async () => {
    const dataset = await loadDataset(SAMPLE);
    const results = evaluateSearchContext(dataset, { seed: 42 });
    expect(results.map((r) => r.method)).toEqual([...SEARCH_CONTEXT_METHODS]);
    const train = dataset.workflows.filter((w) => w.split === 'train');
    const test = dataset.workflows.filter((w) => w.split === 'test' && w.ordered && w.intent !== '');
    const positions = test.reduce((s, w) => s + Math.max(0, w.tools.length - 1), 0);
    for (const r of results) expect(r.n).toBe(positions);

    // Hit@1 of the two context-aware methods, recomputed from searchTools' first answer.
    const { model } = trainToolgraph(buildUniverse(dataset.tools, train), train, 42);
    for (const profile of ['default', 'seed'] as const) {
      let hits = 0;
      for (const w of test) {
        for (let i = 1; i < w.tools.length; i++) {
          const top = searchTools(model, { query: w.intent, context: w.tools.slice(0, i), k: 1, profile }).items[0];
          if (top?.tool === w.tools[i]) hits++;
        }
      }
      const method = profile === 'default' ? 'toolgraph' : 'seed';
      expect(results.find((r) => r.method === method)!.hit1).toBeCloseTo(hits / positions, 12);
    }
    // The context is what tells the steps of one request apart.
    const hit1 = (m: string) => results.find((r) => r.method === m)!.hit1;
    expect(hit1('toolgraph')).toBeGreaterThan(hit1('search'));
  });
});
