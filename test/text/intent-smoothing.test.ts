import { describe, expect, it } from 'vitest';
import { type IntentExample } from '../../src/text/intent-association.js';
import { INTENT_SMOOTHING_GRID, selectIntentSmoothing } from '../../src/text/intent-smoothing.js';
import { expectCode } from '../helpers/expect-code.js';


/** Many tools, few traces each, a large shared vocabulary: the regime where Laplace fails. */
function sparseCorpus(seed: number): IntentExample[] {
  let state = seed;
  const next = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const examples: IntentExample[] = [];
  for (let tool = 0; tool < 60; tool++) {
    for (let r = 0; r < 3; r++) {
      const tokens = [`key${tool}`];
      for (let j = 0; j < 4 + tool % 7; j++) tokens.push(`noise${Math.floor(next() * 400)}`);
      examples.push({ tokens, tools: [tool] });
    }
  }
  return examples;
}

describe('selectIntentSmoothing', () => {
  const examples = sparseCorpus(5);
  const result = selectIntentSmoothing(60, examples, { grid: [0.01, 0.1, 1], folds: 3, seed: 2 });

  it('reports held-out MRR per candidate and picks the best', () => {
    expect(result.folds).toBe(3);
    expect(result.scores.map((s) => s.smoothing)).toEqual([0.01, 0.1, 1]);
    const best = Math.max(...result.scores.map((s) => s.mrr));
    expect(result.scores.find((s) => s.smoothing === result.smoothing)!.mrr).toBe(best);
    for (const s of result.scores) {
      expect(s.mrr).toBeGreaterThan(0);
      expect(s.mrr).toBeLessThanOrEqual(1);
    }
  });

  it('prefers a small alpha when tools have few traces in a large vocabulary', () => {
    // With V ~ 400 and about 20 tokens per tool, alpha V dwarfs the counts at alpha = 1, so the
    // tools with the shortest intents win whatever the query says.
    const laplace = result.scores.find((s) => s.smoothing === 1)!.mrr;
    expect(result.smoothing).toBeLessThan(1);
    expect(result.scores.find((s) => s.smoothing === result.smoothing)!.mrr).toBeGreaterThan(laplace);
  });

  it('is deterministic for a seed', () => {
    expect(selectIntentSmoothing(60, examples, { grid: [0.01, 0.1, 1], folds: 3, seed: 2 })).toEqual(result);
  });

  it('uses the default grid and falls back to the default alpha without enough examples', () => {
    expect(INTENT_SMOOTHING_GRID.length).toBeGreaterThan(1);
    expect(selectIntentSmoothing(2, [{ tokens: ['a'], tools: [0] }])).toEqual({
      smoothing: 0.05,
      folds: 0,
      scores: [],
    });
    // Traces without tools do not count as examples.
    expect(selectIntentSmoothing(2, [{ tokens: ['a'], tools: [0] }, { tokens: ['b'], tools: [] }]).folds).toBe(0);
    expect(selectIntentSmoothing(2, [{ tokens: ['a'], tools: [0] }, { tokens: ['b'], tools: [1] }]).folds).toBe(2);
  });

  it('rejects a bad grid, fold count or seed', () => {
    expectCode(() => selectIntentSmoothing(2, examples, { grid: [] }), 'INVALID_INPUT');
    expectCode(() => selectIntentSmoothing(2, examples, { grid: [0.1, 0] }), 'INVALID_INPUT');
    expectCode(() => selectIntentSmoothing(2, examples, { folds: 1 }), 'INVALID_INPUT');
    expectCode(() => selectIntentSmoothing(2, examples, { folds: 2.5 }), 'INVALID_INPUT');
    expectCode(() => selectIntentSmoothing(2, examples, { seed: Number.NaN }), 'INVALID_INPUT');
    expectCode(() => selectIntentSmoothing(2, [{ tokens: ['a'], tools: [5] }, { tokens: ['a'], tools: [0] }]), 'INVALID_INPUT');
  });
});
