/**
 * K-fold figures are means over the folds that evaluated a query. The stable hash leaves some
 * folds empty when K is close to the number of workflows; such a fold has no figures, and
 * averaging in its zeros pulled Hit@1 of markov1 on 30 NESTFUL workflows from 0.63 (K = 5) to
 * 0.17 (K = 120) with the same 49 queries.
 */
import { describe, expect, it } from 'vitest';
import { average, evaluateNext, evaluateSearch } from '../../src/eval/run-eval.js';
import { evaluateSearchContext } from '../../src/eval/search-context.js';
import { splitsOf } from '../../src/eval/splits.js';
import { foldOf } from '../../src/recommend/folds.js';
import type { Dataset } from '../../src/schema/dataset.js';
import { parseWorkflowRecord, type WorkflowRecord } from '../../src/schema/trace.js';
import { expectCode } from '../helpers/expect-code.js';

const TOOLS = [
  { name: 'find_flight', description: 'find a flight between two cities', params: [] },
  { name: 'book_flight', description: 'book the chosen flight', params: [] },
  { name: 'pay', description: 'pay for a booking by card', params: [] },
  { name: 'weather', description: 'weather forecast for a city', params: [] },
  { name: 'hotel', description: 'find a hotel room', params: [] },
];

/** `count` copies of one task: every fold that tests anything sees the same task and ranks alike. */
function sameTask(count: number): Dataset {
  const workflows = Array.from({ length: count }, (_, i) =>
    parseWorkflowRecord({
      id: `w${i}`,
      split: i % 4 === 0 ? 'test' : 'train',
      domain: 'travel',
      source: 'test',
      intent: 'find and book a flight, then pay',
      tools: ['find_flight', 'book_flight', 'pay'],
      edges: [[0, 1], [1, 2]],
      structure: 'chain',
      ordered: true,
    }),
  );
  return { name: 'same-task', dir: '/nowhere', tools: TOOLS, workflows };
}

function emptyFolds(workflows: readonly WorkflowRecord[], folds: number): number {
  const used = new Set(workflows.map((w) => foldOf(w.id, folds)));
  return folds - used.size;
}

describe('average over folds', () => {
  it('skips folds without a query and sums n over the others', () => {
    const parts = [
      { n: 4, hit1: 0.5, mrr: 0.75 },
      { n: 0, hit1: 0, mrr: 0 },
      { n: 2, hit1: 1, mrr: 1 },
    ];
    expect(average(parts)).toEqual({ n: 6, hit1: 0.75, mrr: 0.875 });
    expect(average([parts[1]!, parts[0]!])).toEqual(parts[0]);
    expect(average([parts[1]!, parts[1]!])).toEqual({ n: 0, hit1: 0, mrr: 0 });
  });

  it('gives the same figures with K = the workflow count (empty folds) as with K = 2', () => {
    const dataset = sameTask(12);
    const big = dataset.workflows.length;
    // What the test is about: empty folds at K = 12, none at K = 2.
    expect(emptyFolds(dataset.workflows, big)).toBeGreaterThan(0);
    expect(emptyFolds(dataset.workflows, 2)).toBe(0);
    for (const evaluate of [evaluateNext, evaluateSearch, evaluateSearchContext]) {
      const two = evaluate(dataset, { folds: 2, seed: 1 });
      const many = evaluate(dataset, { folds: big, seed: 1 });
      expect(many.map((r) => r.method)).toEqual(two.map((r) => r.method));
      for (const [i, r] of many.entries()) {
        for (const [key, value] of Object.entries(r)) {
          const other = (two[i] as unknown as Record<string, unknown>)[key];
          // Means over different numbers of folds: equal up to rounding.
          if (typeof value === 'number') expect(value, `${r.method} ${key}`).toBeCloseTo(other as number, 12);
          else expect(value).toEqual(other);
        }
      }
    }
    // And the figures are not trivially zero: markov1 learns the chain in every fold.
    const markov = evaluateNext(dataset, { folds: big, seed: 1 }).find((r) => r.method === 'markov1')!;
    expect(markov.n).toBe(2 * big);
    expect(markov.hit1).toBe(1);
  });
});

describe('the number of folds', () => {
  const dataset = sameTask(12);

  it('runs from 2 to the number of workflows in the pool', () => {
    expect(splitsOf(dataset.workflows, { folds: 2 })).toHaveLength(2);
    expect(splitsOf(dataset.workflows, { folds: 12 })).toHaveLength(12);
    // With validation the pool is train alone: 9 of the 12.
    expect(splitsOf(dataset.workflows, { folds: 9, validation: true })).toHaveLength(9);
  });

  it('is INVALID_INPUT outside that range, naming --folds and the bound', () => {
    for (const folds of [13, 1_000_000, 1, 0, -3, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectCode(() => splitsOf(dataset.workflows, { folds }), 'INVALID_INPUT', '--folds: expected an integer from 2 to 12');
    }
    expectCode(() => splitsOf(dataset.workflows, { folds: 10, validation: true }), 'INVALID_INPUT', 'from 2 to 9 (the train workflows');
    expectCode(() => splitsOf(dataset.workflows.slice(0, 1), { folds: 2 }), 'INVALID_INPUT', '--folds: expected 2 workflows or more to split, there are 1');
  });

  it('is checked by every evaluation that takes folds, before any model is trained', () => {
    expectCode(() => evaluateNext(dataset, { folds: 1_000_000 }), 'INVALID_INPUT', '--folds');
    expectCode(() => evaluateSearch(dataset, { folds: 13 }), 'INVALID_INPUT', '--folds');
    expectCode(() => evaluateSearchContext(dataset, { folds: 13 }), 'INVALID_INPUT', '--folds');
  });
});
