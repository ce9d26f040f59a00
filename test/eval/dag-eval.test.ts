/**
 * `eval dag`: which records are asked, what counts as a gold edge, and the micro-averaged
 * node and edge F1 of both methods on a dataset whose answers are plain.
 */
import { describe, expect, it } from 'vitest';
import { evaluateDag, goldEdges } from '../../src/eval/dag-eval.js';
import { splitsOf } from '../../src/eval/splits.js';
import type { Dataset } from '../../src/schema/dataset.js';
import { parseWorkflowRecord, type WorkflowRecord } from '../../src/schema/trace.js';

type Structure = 'single' | 'chain' | 'dag' | 'parallel' | 'set';

function record(id: string, split: 'train' | 'test', intent: string, tools: string[], structure: Structure, edges: [number, number][] = []): WorkflowRecord {
  return parseWorkflowRecord({ id, split, domain: 'd', source: 'test', intent, tools, edges, structure, ordered: structure !== 'set' });
}

const pair = (from: string, to: string): string => `${from}\u0000${to}`;

describe('goldEdges', () => {
  it('reads listed edges as tool pairs, repeats included', () => {
    const r = record('a', 'test', 'x', ['fetch', 'parse', 'fetch'], 'dag', [[0, 1], [1, 2], [0, 2]]);
    expect(goldEdges(r)).toEqual([pair('fetch', 'parse'), pair('parse', 'fetch'), pair('fetch', 'fetch')]);
  });

  it('takes a chain without listed edges as its consecutive pairs, and any other record without them as none', () => {
    expect(goldEdges(record('c', 'test', 'x', ['a', 'b', 'c'], 'chain'))).toEqual([pair('a', 'b'), pair('b', 'c')]);
    for (const structure of ['parallel', 'set', 'dag', 'single'] as const) {
      expect(goldEdges(record('p', 'test', 'x', structure === 'single' ? ['a'] : ['a', 'b'], structure))).toEqual([]);
    }
  });
});

/**
 * Two kinds of task, each always two steps in one order: find an airport then book a flight,
 * check the weather then find a hotel. Test asks each kind twice as a chain, and once a request
 * of both weather and hotel recorded as two parallel calls (no edges). Test requests name cities
 * train has: on data this small, the no-match rule turns away a request whose one new word is an
 * unseen city, and a no-match DAG has no nodes.
 */
function dataset(): Dataset {
  const tools = [
    { name: 'find_airport', description: 'find the airport of a city', params: [{ name: 'city', type: 'string', description: 'the city', required: true }] },
    { name: 'book_flight', description: 'book a flight from an airport', params: [{ name: 'airport', type: 'string', description: 'departure airport code', required: true }] },
    { name: 'weather_now', description: 'current weather in a city', params: [{ name: 'city', type: 'string', description: 'the city', required: true }] },
    { name: 'hotel_find', description: 'find a hotel room in a city', params: [{ name: 'city', type: 'string', description: 'the city', required: true }] },
  ];
  const cities = ['Rome', 'Paris', 'Oslo', 'Lima', 'Cairo', 'Delhi', 'Tokyo', 'Quito', 'Dakar', 'Hanoi', 'Porto', 'Riga'];
  const workflows = [
    ...cities.map((c, i) => record(`f${i}`, 'train', `find the airport in ${c}, then book a flight`, ['find_airport', 'book_flight'], 'chain', [[0, 1]])),
    ...cities.map((c, i) => record(`h${i}`, 'train', `check the weather in ${c}, then find a hotel room`, ['weather_now', 'hotel_find'], 'chain', [[0, 1]])),
    record('t1', 'test', 'find the airport in Rome, then book a flight', ['find_airport', 'book_flight'], 'chain', [[0, 1]]),
    record('t2', 'test', 'find the airport in Paris, then book a flight', ['find_airport', 'book_flight'], 'chain', [[0, 1]]),
    record('t3', 'test', 'check the weather in Oslo, then find a hotel room', ['weather_now', 'hotel_find'], 'chain', [[0, 1]]),
    record('t4', 'test', 'check the weather in Lima, then find a hotel room', ['weather_now', 'hotel_find'], 'chain', [[0, 1]]),
    record('t5', 'test', 'check the weather in Cairo, then find a hotel room', ['weather_now', 'hotel_find'], 'parallel'),
    // Not asked: one tool only, and no request in words.
    record('t6', 'test', 'find the airport in Bonn', ['find_airport'], 'single'),
    record('t7', 'test', '', ['weather_now', 'hotel_find'], 'chain', [[0, 1]]),
  ];
  return { name: 'trips', dir: '/nowhere', tools, workflows };
}

describe('eval dag', () => {
  const results = evaluateDag(dataset());

  it('asks every test record of two tools or more that has a request, with both methods', () => {
    expect(results.map((r) => r.method)).toEqual(['chain', 'toolgraph']);
    for (const r of results) {
      expect(r.task).toBe('dag');
      expect(r.data).toBe('trips');
      expect(r.n).toBe(5);
    }
  });

  it('finds the two steps in their order where the records are this plain', () => {
    const toolgraph = results.find((r) => r.method === 'toolgraph')!;
    expect(toolgraph.meanNodes).toBe(2);
    expect(toolgraph.nodeF1).toBe(1);
    // Four chains right; the parallel record lists no edge, so its suggested one is wrong and
    // it adds no gold edge: precision 4 / 5, recall 4 / 4.
    expect(toolgraph.edgePrecision).toBeCloseTo(4 / 5, 12);
    expect(toolgraph.edgeRecall).toBe(1);
    expect(toolgraph.edgeF1).toBeCloseTo((2 * 0.8) / 1.8, 12);
    expect(toolgraph.okShare! + toolgraph.rejectShare!).toBeLessThanOrEqual(1);
    expect(toolgraph.stepLoss).toBeGreaterThan(0);
    // The baseline takes the same tools in search's rank order, which here puts the second step
    // first every time: every node right, every edge wrong.
    const chain = results.find((r) => r.method === 'chain')!;
    expect([chain.meanNodes, chain.nodeF1, chain.edgeF1]).toEqual([2, 1, 0]);
  });

  it('micro-averages: F1 is the harmonic mean of the summed precision and recall', () => {
    for (const r of results) {
      const f1 = (p: number, q: number): number => (p + q > 0 ? (2 * p * q) / (p + q) : 0);
      expect(r.nodeF1).toBeCloseTo(f1(r.nodePrecision, r.nodeRecall), 12);
      expect(r.edgeF1).toBeCloseTo(f1(r.edgePrecision, r.edgeRecall), 12);
    }
  });

  it('evaluates in folds over every record, test and train alike', () => {
    const folded = evaluateDag(dataset(), { folds: 3 });
    // Every record of two tools or more with a request is asked once, in the fold holding it.
    expect(folded.map((r) => r.n)).toEqual([29, 29]);
  });

  it('with validation, asks train\'s held-out quarter and never test', () => {
    const [split] = splitsOf(dataset().workflows, { validation: true });
    const heldOut = split!.test.filter((w) => w.tools.length >= 2 && w.intent !== '');
    expect(heldOut.length).toBeGreaterThan(0);
    expect(heldOut.every((w) => w.split === 'train')).toBe(true);
    expect(evaluateDag(dataset(), { validation: true }).map((r) => r.n)).toEqual([heldOut.length, heldOut.length]);
  });
});
