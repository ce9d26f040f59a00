import { describe, expect, it } from 'vitest';
import { evaluateCapabilities } from '../../src/eval/capability-eval.js';
import type { Dataset } from '../../src/schema/dataset.js';
import { parseWorkflowRecord } from '../../src/schema/trace.js';

let counter = 0;
function wf(tools: string[], intent: string, split: 'train' | 'test') {
  return parseWorkflowRecord({ id: `w${++counter}`, domain: '', intent, tools, edges: [], structure: 'chain', ordered: true, split, source: 'test' });
}

/** Three recurring groups; the test split repeats two of them, adds one never seen and one single-tool task. */
function dataset(): Dataset {
  const train = [
    ...Array.from({ length: 4 }, () => wf(['weather', 'umbrella'], 'will it rain, do I need an umbrella', 'train')),
    ...Array.from({ length: 4 }, () => wf(['flights', 'book_flight', 'pay'], 'book a cheap flight to Rome', 'train')),
    ...Array.from({ length: 3 }, () => wf(['flights', 'hotels'], 'flight and hotel for a city trip', 'train')),
  ];
  const test = [
    wf(['weather', 'umbrella'], 'rain tomorrow? umbrella', 'test'),
    wf(['flights', 'book_flight', 'pay'], 'book me a flight to Oslo', 'test'),
    wf(['flights', 'cars'], 'flight and a rental car', 'test'),
    wf(['weather'], 'weather', 'test'),
  ];
  return { name: 'synthetic', dir: '/nowhere', tools: [], workflows: [...train, ...test] };
}

describe('evaluateCapabilities', () => {
  it('queries only test workflows whose tool set was learned, with every method', () => {
    const results = evaluateCapabilities(dataset(), { seed: 1 });
    expect(results.map((r) => r.method)).toEqual(['semantic', 'semantic-boost', 'passive', 'passive-boost', 'overlap', 'toolgraph']);
    for (const r of results) {
      // Learned: the three groups; the windows of the 3-tool one never run outside it (not closed).
      expect(r.capabilities).toBe(3);
      expect(r.candidates).toBe(3);
      expect(r.n).toBe(2);
      expect(r.hit5).toBe(1);
    }
    const overlap = results.find((r) => r.method === 'overlap')!;
    expect(overlap.hit1).toBe(1);
    expect(overlap.mrr).toBe(1);
    // Train is cross-fitted: every training workflow of a group with 3 others in its fold's training part can match.
    expect(overlap.trainN).toBeGreaterThan(0);
  });
});
