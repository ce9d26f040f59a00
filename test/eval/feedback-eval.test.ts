import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateFeedback, planDrift } from '../../src/eval/feedback-eval.js';
import { splitsOf } from '../../src/eval/splits.js';
import { buildUniverse, indicesOf } from '../../src/eval/universe.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { buildModel } from '../../src/recommend/model.js';
import { loadDataset } from '../../src/schema/dataset.js';
import { workflowToTraceAt } from '../../src/schema/trace.js';

const SAMPLE = fileURLToPath(new URL('../../samples/nestful', import.meta.url));

describe('the feedback evaluation protocol', () => {
  it('drifts a seeded third of learned test transitions and replays only training traces', async () => {
    const dataset = await loadDataset(SAMPLE);
    const { train, test } = splitsOf(dataset.workflows)[0]!;
    const universe = buildUniverse(dataset.tools, train);
    const graph = new TransitionGraph();
    for (const name of universe.names) graph.addTool(name);
    for (const w of train) graph.ingest(workflowToTraceAt(w, 0));
    const model = buildModel(graph, universe.catalog);
    const plan = planDrift(universe, train, test, model, 42);
    const n = universe.names.length;

    expect(plan.alternative.size).toBe(Math.round(plan.candidates / 3));
    const learned = new Set<number>();
    for (const w of train) {
      const ids = indicesOf(universe, w.tools);
      for (let i = 1; i < ids.length; i++) learned.add(ids[i - 1]! * n + ids[i]!);
    }
    for (const [key, alt] of plan.alternative) {
      const [a, b] = [Math.floor(key / n), key % n];
      expect(learned.has(key)).toBe(true); // a transition the system had learned
      expect(alt).not.toBe(b);
      expect(plan.alternative.has(a * n + alt)).toBe(false); // the alternative does not fail too
    }
    // Every replayed trace is a training trace's: a failed prefix, or the trace with alternatives.
    const byId = new Map(train.map((w) => [w.id, w]));
    expect(plan.replay.length % 2).toBe(0);
    for (const t of plan.replay) {
      const source = byId.get(t.id.replace(/#(fail|alt)$/, ''))!;
      expect(source).toBeDefined();
      expect(t.intent).toBe(source.intent);
      if (t.id.endsWith('#fail')) {
        expect(t.success).toBe(false);
        expect(t.steps.map((s) => s.tool)).toEqual(source.tools.slice(0, t.steps.length));
        expect(t.steps.map((s) => s.ok)).toEqual(t.steps.map((_, i) => i < t.steps.length - 1));
      } else {
        expect(t.success).toBe(true);
        expect(t.steps).toHaveLength(source.tools.length);
        expect(t.steps.some((s, i) => s.tool !== source.tools[i])).toBe(true);
      }
    }
    // Seeded: the same seed gives the same plan.
    expect([...planDrift(universe, train, test, model, 42).alternative]).toEqual([...plan.alternative]);
  });

  it('reports undrifted and drifted Hit@1 for every method in one run', async () => {
    const dataset = await loadDataset(SAMPLE);
    const { results } = evaluateFeedback(dataset, { seed: 42 });
    expect(results.map((r) => `${r.phase}/${r.method}`)).toEqual([
      'undrifted/toolgraph',
      'undrifted/seed',
      'drifted/no-feedback',
      'drifted/toolgraph',
      'drifted/seed',
    ]);
    const [undrifted, , blind, fed] = results;
    expect(undrifted!.nDrifted).toBe(0);
    expect(blind!.n).toBe(undrifted!.n);
    expect(blind!.nDrifted).toBeGreaterThan(0);
    for (const r of results) {
      expect(r.hit1).toBeCloseTo((r.hit1Drifted * r.nDrifted + r.hit1Stable * (r.n - r.nDrifted)) / r.n, 12);
    }
    // Recorded outcomes never leave the model worse at the drifted truth than erasing them.
    expect(fed!.hit1Drifted).toBeGreaterThanOrEqual(blind!.hit1Drifted);
  });
});
