import { describe, expect, it } from 'vitest';
import { csrFromEdges } from '../../src/graph/csr.js';
import { edgeReliability } from '../../src/graph/edge-reliability.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { toolReliability } from '../../src/graph/tool-reliability.js';
import { betaCdf } from '../../src/scoring/beta-distribution.js';
import { trace } from '../helpers/traces.js';

const H = 14 * 86_400_000;

describe('toolReliability', () => {
  it("sums the decayed evidence of the transitions into each tool, with the edges' prior once", () => {
    // Edges 0 -> 2 (3 successes), 1 -> 2 (4 failures, one half-life old), 2 -> 3 (1 success, 1 failure).
    const out = csrFromEdges(4, Int32Array.from([0, 1, 2]), Int32Array.from([2, 2, 3]));
    const edges = edgeReliability(Float64Array.from([3, 0, 1]), Float64Array.from([0, 4, 1]), Float64Array.from([H, 0, H]), { now: H, halfLifeMs: H });
    const r = toolReliability(out, edges);
    // Tool 2: alpha = 1 + 3, beta = 1 + 4 / 2.
    expect(r.alpha[2]).toBeCloseTo(4, 12);
    expect(r.beta[2]).toBeCloseTo(3, 12);
    expect(r.logFactor[2]).toBe(0); // mean 4/7 above the prior mean: no bonus
    // Tool 3: Beta(2, 2), mean 1/2: no penalty either.
    expect(r.alpha[3]).toBe(2);
    expect(r.beta[3]).toBe(2);
    expect(r.logFactor[3]).toBe(0);
    // Tools 0 and 1 have no transition into them: the prior, factor 1.
    expect([r.alpha[0], r.beta[0], r.alpha[1], r.beta[1]]).toEqual([1, 1, 1, 1]);
    expect(r.anyPenalty).toBe(false);
  });

  it('penalises a tool whose failures outweigh its successes, and excludes it once that is credible', () => {
    // Tool 1: 1 success, 3 failures: Beta(2, 4), P(p < 1/2) = 0.8125, penalised by mean / (1/2).
    // Tool 2: 0 successes, 6 failures over two edges: Beta(1, 7), P(p < 1/2) = 1 - 0.5^7, excluded.
    const out = csrFromEdges(3, Int32Array.from([0, 0, 1]), Int32Array.from([1, 2, 2]));
    const edges = edgeReliability(Float64Array.from([1, 0, 0]), Float64Array.from([3, 2, 4]), Float64Array.from([0, 0, 0]), { now: 0, halfLifeMs: H });
    const r = toolReliability(out, edges);
    expect(r.logFactor[1]).toBeCloseTo(Math.log(2 / 6 / 0.5), 12);
    expect(r.excluded[1]).toBe(0);
    expect(betaCdf(0.5, 1, 7)).toBeGreaterThanOrEqual(0.95);
    expect(r.excluded[2]).toBe(1);
    expect(r.logFactor[2]).toBe(-Infinity);
    expect(r.anyPenalty).toBe(true);
  });

  it("reads a snapshot's own reliability: a failing step counts against the tool it calls", () => {
    const g = new TransitionGraph();
    for (let i = 0; i < 3; i++) g.ingest(trace(['search', { name: 'book_broken', ok: false }], { timestamp: 1_000 + i }));
    g.ingest(trace(['search', 'book_ok'], { timestamp: 2_000 }));
    const snapshot = buildSnapshot(g);
    const r = toolReliability(snapshot.out, snapshot.reliability);
    const index = (name: string) => snapshot.indexByName.get(name)!;
    expect(r.logFactor[index('book_broken')]).toBeLessThan(0);
    expect(r.logFactor[index('book_ok')]).toBe(0);
    expect(r.logFactor[index('search')]).toBe(0);
  });

  it('refuses edge posteriors that do not line up with the CSR', () => {
    const out = csrFromEdges(2, Int32Array.from([0]), Int32Array.from([1]));
    const edges = edgeReliability(Float64Array.from([1, 1]), Float64Array.from([0, 0]), Float64Array.from([0, 0]), { now: 0, halfLifeMs: H });
    expect(() => toolReliability(out, edges)).toThrow(RangeError);
  });
});
