/**
 * Every ranked answer holds at most k items and names no tool twice, whatever the graph, the
 * capabilities and the request: a capability item counts as the tool it starts (capability-items.ts),
 * and tools learned since the model (newer-scores.ts) join the same k.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { Toolgraph } from '../../src/service/toolgraph.js';

const WORDS = ['flight', 'hotel', 'book', 'search', 'weather', 'city', 'price', 'email', 'send', 'report'];

function randomCase(seed: number) {
  const rng = createRng(seed);
  const int = (n: number) => Math.floor(rng() * n);
  const tools = Array.from({ length: 3 + int(8) }, (_, i) => `t${i}`);
  const pick = () => tools[int(tools.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[int(WORDS.length)]!).join(' ');
  const tg = new Toolgraph({ seed });
  tg.setTools(tools.map((name) => ({ name, description: words(3) })));
  for (let i = 0; i < 5 + int(30); i++) tg.ingest({ intent: words(1 + int(4)), tools: Array.from({ length: 1 + int(4) }, pick) });
  const capabilities = Array.from({ length: int(6) }, (_, i) => ({ id: `c${i}`, tools: [...new Set(Array.from({ length: 2 + int(3) }, pick))] }));
  if (capabilities.length > 0) tg.setCapabilities(capabilities);
  tg.rebuild();
  // Learned since the model: transitions and tools it has not seen, read live.
  for (let i = 0; i < int(4); i++) tg.ingest({ intent: words(2), tools: [pick(), `new${int(3)}`, pick()] });
  return { tg, rng, int, pick, words, tools };
}

function expectAnswer(items: readonly { tool: string }[], k: number, what: string): void {
  expect(items.length, what).toBeLessThanOrEqual(k);
  expect(new Set(items.map((i) => i.tool)).size, what).toBe(items.length);
}

describe('ranked answers: at most k items, no tool twice', () => {
  it('holds for predictNext and searchTools on random small graphs and requests', () => {
    let capabilityItems = 0;
    let answers = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { tg, int, pick, words } = randomCase(seed);
      for (let q = 0; q < 10; q++) {
        const k = 1 + int(6);
        const context = Array.from({ length: int(3) }, pick);
        const intent = int(2) === 0 ? {} : { intent: words(1 + int(3)) };
        const prediction = tg.predictNext({ context, k, ...intent });
        expectAnswer(prediction.items, k, `predict seed ${seed} ${JSON.stringify({ context, k, ...intent })}`);
        capabilityItems += prediction.items.filter((i) => i.kind === 'capability').length;
        const search = tg.searchTools({ query: words(1 + int(3)), k, ...(int(2) === 0 ? { context } : {}) });
        expectAnswer(search.items, k, `search seed ${seed}`);
        answers += 2;
      }
      tg.close();
    }
    // The property was tested where capabilities take part, not only on plain tool lists.
    expect(capabilityItems).toBeGreaterThan(20);
    expect(answers).toBe(1200);
  });
});
