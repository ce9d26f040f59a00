import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { seedEpisodicAdjustment } from '../../src/recommend/edge-adjustment.js';
import { buildModel } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import type { Trace } from '../../src/schema/types.js';
import { trace } from '../helpers/traces.js';

function repeat(n: number, make: () => Trace): Trace[] {
  return Array.from({ length: n }, make);
}

describe('seedEpisodicAdjustment (spec 003 section 3.3)', () => {
  it('adds min(0.15, 0.2 successRate) - min(0.15, 0.25 failureRate)', () => {
    expect(seedEpisodicAdjustment(3, 1, false)).toBeCloseTo(0.15 - 0.0625, 12); // boost 0.15, penalty 0.0625
    expect(seedEpisodicAdjustment(2, 3, false)).toBeCloseTo(0.08 - 0.15, 12); // boost 0.08, penalty capped at 0.15
    expect(seedEpisodicAdjustment(1, 0, false)).toBeCloseTo(0.15, 12); // boost capped at 0.15
    expect(seedEpisodicAdjustment(0, 0, false)).toBe(0); // no episodic data
    expect(seedEpisodicAdjustment(9, 1, true)).toBeNull(); // excluded
  });
});

describe('the seed profile with episodic adjustments', () => {
  it('boosts, penalises and excludes against the same graph without failures', () => {
    const successes = [
      ...repeat(3, () => trace(['a', 'b'])),
      ...repeat(2, () => trace(['a', 'c'])),
      trace(['a', 'e']),
    ];
    const clean = new TransitionGraph();
    for (const t of successes) clean.ingest(t);
    const failing = new TransitionGraph();
    for (const t of successes) failing.ingest(t);
    // Same timestamp as the successes: no decay between them.
    failing.ingest(trace(['a', { name: 'b', ok: false }]));
    for (let i = 0; i < 3; i++) failing.ingest(trace(['a', { name: 'c', ok: false }]));
    for (let i = 0; i < 7; i++) failing.ingest(trace(['a', { name: 'e', ok: false }]));

    const score = (g: TransitionGraph) => {
      const items = predictNext(buildModel(g, new Map()), { context: ['a'], k: 10, profile: 'seed' }).items;
      return new Map(items.map((it) => [it.tool, it.score]));
    };
    const before = score(clean);
    const after = score(failing);
    // Without failures every edge's success rate is 1: +0.15. Failures leave the success-count
    // CSR (and so the spec 003 section 3 base score) unchanged; only the adjustment moves.
    // b: 3 successes, 1 failure: +0.15 - 0.0625.
    expect(after.get('b')! - (before.get('b')! - 0.15)).toBeCloseTo(0.0875, 12);
    // c: 2 successes, 3 failures: Beta(3, 4), P(p < 1/2) = 0.656, not excluded: +0.08 - 0.15.
    expect(after.get('c')! - (before.get('c')! - 0.15)).toBeCloseTo(-0.07, 12);
    // e: 1 success, 7 failures: Beta(2, 8), P(p < 1/2) = 1 - 10/512 = 0.980 >= 0.95: excluded.
    expect(before.has('e')).toBe(true);
    expect(after.has('e')).toBe(false);
  });
});
