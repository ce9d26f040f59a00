import { describe, expect, it } from 'vitest';
import { edgeIndex, edgeReliability, reliabilityReport } from '../../src/graph/edge-reliability.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { betaCdf } from '../../src/scoring/beta-distribution.js';
import { trace } from '../helpers/traces.js';

const DAY = 86_400_000;
const H = 14 * DAY;

function rel(s: number[], f: number[], seen: number[], now: number) {
  return edgeReliability(Float64Array.from(s), Float64Array.from(f), Float64Array.from(seen), { now, halfLifeMs: H });
}

describe('edgeReliability', () => {
  it('decays each edge to the newest trace and adds the Beta(1, 1) prior', () => {
    // Edge 0: 4 successes at day 0, now day 14: one half-life, alpha = 1 + 2, beta = 1.
    // Edge 1: 1 success and 3 failures at day 14 (now): alpha = 2, beta = 4.
    const r = rel([4, 1], [0, 3], [0, H], H);
    expect(r.alpha[0]).toBeCloseTo(3, 12);
    expect(r.beta[0]).toBeCloseTo(1, 12);
    expect(r.mean[0]).toBeCloseTo(0.75, 12);
    expect(r.logFactor[0]).toBe(0); // mean above the prior mean 1/2: no bonus
    expect(r.alpha[1]).toBe(2);
    expect(r.beta[1]).toBe(4);
    expect(r.mean[1]).toBeCloseTo(1 / 3, 12);
    // P(p < 1/2 | Beta(2, 4)) = I_0.5(2, 4) = 26/32 = 0.8125 < 0.95: penalised, not excluded.
    expect(r.excluded[1]).toBe(0);
    expect(r.logFactor[1]).toBeCloseTo(Math.log((1 / 3) / 0.5), 12);
    expect(r.anyPenalty).toBe(true);
  });

  it('excludes an edge whose failure rate is credibly above 1/2', () => {
    // Beta(1, 6): P(p < 1/2) = 1 - 0.5^6 = 0.984 >= 0.95. Beta(1, 4): 0.9375 < 0.95.
    const r = rel([0, 0], [5, 3], [0, 0], 0);
    expect(r.excluded[0]).toBe(1);
    expect(r.logFactor[0]).toBe(-Infinity);
    expect(r.excluded[1]).toBe(0);
    expect(reliabilityReport(r, 0).failureCredibility).toBeCloseTo(1 - 0.5 ** 6, 12);
    expect(reliabilityReport(r, 0).factor).toBe(0);
  });

  it('never lowers the mean when a success is added, and a lone success earns no bonus', () => {
    for (const f of [0, 1, 3, 10]) {
      const without = rel([2], [f], [0], 0);
      const with1 = rel([3], [f], [0], 0);
      expect(with1.mean[0]!).toBeGreaterThan(without.mean[0]!);
      expect(with1.logFactor[0]!).toBeGreaterThanOrEqual(without.logFactor[0]!);
    }
    expect(rel([1], [0], [0], 0).logFactor[0]).toBe(0);
    expect(rel([0], [0], [0], 0).logFactor[0]).toBe(0);
  });

  it('lets old successes fade against fresh failures', () => {
    // 20 successes 70 days (5 half-lives) before 6 failures: 20/32 = 0.625 effective successes.
    const r = rel([20 / 32], [6], [70 * DAY], 70 * DAY);
    expect(r.mean[0]).toBeCloseTo(1.625 / 8.625, 12);
    expect(r.excluded[0]).toBe(betaCdf(0.5, 1.625, 7) >= 0.95 ? 1 : 0);
    expect(r.excluded[0]).toBe(1);
    // Without decay the same counts would leave the edge reliable.
    expect(rel([20], [6], [0], 0).logFactor[0]).toBe(0);
  });
});

describe('TransitionGraph outcome evidence and the snapshot posterior', () => {
  it('keeps recent sums decayed to the last observation, out-of-order traces by their own time', () => {
    const g = new TransitionGraph({ halfLifeMs: H });
    g.ingest(trace(['a', 'b'], { timestamp: 0 }));
    g.ingest(trace(['a', { name: 'b', ok: false }], { timestamp: 2 * H }));
    g.ingest(trace(['a', 'b'], { timestamp: H }), { value: 0.5 }); // late: weighs 0.5 * 2^-1 at 2H
    const s = g.transition(g.indexOf('a')!, g.indexOf('b')!)!;
    expect(s.lastSeen).toBe(2 * H);
    expect(s.recentSuccess).toBeCloseTo(0.25 + 0.25, 12); // 1 * 2^-2 + 0.5 * 2^-1
    expect(s.recentFailure).toBeCloseTo(1, 12);
    expect(g.newest).toBe(2 * H);
  });

  it('counts a failed step, and every step of a failed trace, against its transition', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', { name: 'b', ok: false }, 'c'], { timestamp: 10 }));
    g.ingest(trace(['c', 'a'], { success: false, timestamp: 10 }));
    const [a, b, c] = ['a', 'b', 'c'].map((n) => g.indexOf(n)!) as [number, number, number];
    expect(g.transition(a, b)).toMatchObject({ success: 0, failure: 1, recentSuccess: 0, recentFailure: 1 });
    expect(g.transition(b, c)).toMatchObject({ success: 1, failure: 0, recentSuccess: 1, recentFailure: 0 });
    expect(g.transition(c, a)).toMatchObject({ success: 0, failure: 1, recentFailure: 1 });
  });

  it('aligns the posterior with the CSR and decays relative to the newest trace', () => {
    const g = new TransitionGraph({ halfLifeMs: H });
    g.ingest(trace(['a', 'b'], { timestamp: 0 }));
    g.ingest(trace(['a', 'b'], { timestamp: 0 }));
    g.ingest(trace(['a', { name: 'c', ok: false }], { timestamp: H }));
    const snap = buildSnapshot(g);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => snap.indexByName.get(n)!) as [number, number, number];
    const jb = edgeIndex(snap.out, a, b);
    const jc = edgeIndex(snap.out, a, c);
    expect(snap.out.targets[jb]).toBe(b);
    expect(snap.reliability.alpha[jb]).toBeCloseTo(1 + 2 * 0.5, 12);
    expect(snap.reliability.beta[jc]).toBeCloseTo(2, 12);
    expect(edgeIndex(snap.out, b, a)).toBe(-1);
    // Same traces, same snapshot: the wall clock plays no part.
    expect(buildSnapshot(g).reliability.mean).toEqual(snap.reliability.mean);
  });
});
