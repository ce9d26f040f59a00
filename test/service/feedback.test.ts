import { describe, expect, it } from 'vitest';
import { decayConfidence, WEEK_MS } from '../../src/scoring/decay.js';
import { patternConfidence } from '../../src/service/pattern-view.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { expectCode } from '../helpers/expect-code.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function compact(tools: (string | { name: string; ok: boolean })[], timestamp: number, success = true) {
  return { tools, timestamp, success };
}

function ranks(tg: Toolgraph, context: string[]): string[] {
  // A tool that starts a capability is answered as that capability, in its place: its tool is the rank's.
  return tg.predictNext({ context, k: 10 }).items.map((it) => it.tool);
}

describe('the feedback loop through the facade', () => {
  it('drops a pair that starts failing below its alternative', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 5; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'c'], T0));
    tg.fit();
    expect(ranks(tg, ['a']).slice(0, 2)).toEqual(['b', 'c']);
    // 30 days later a -> b fails 8 times: its 5 old successes weigh 5 * 2^(-30/14) = 1.13.
    for (let i = 0; i < 8; i++) tg.ingest(compact(['a', { name: 'b', ok: false }], T0 + 30 * DAY, false));
    tg.rebuild();
    const rel = tg.reliability('a', 'b')!;
    expect(rel.alpha).toBeCloseTo(1 + 5 * 2 ** (-30 / 14), 9);
    expect(rel.beta).toBeCloseTo(9, 9);
    expect(rel.excluded).toBe(true);
    const after = ranks(tg, ['a']);
    expect(after[0]).toBe('c');
    expect(after).not.toContain('b');
    expect(tg.reliability('a', 'c')!.factor).toBe(1);
    expect(tg.reliability('c', 'a')).toBeNull();
  });

  it('penalises without excluding while the failure rate is not credibly above 1/2', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 4; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 4; i++) tg.ingest(compact(['a', 'c'], T0));
    const p0 = tg.predictNext({ context: ['a'], k: 3 }).items;
    tg.ingest(compact(['a', { name: 'b', ok: false }], T0 + 28 * DAY, false));
    tg.rebuild();
    // a -> b: Beta(1 + 4/4, 1 + 1) = Beta(2, 2)... mean 1/2, no penalty yet; two more failures tip it.
    expect(tg.reliability('a', 'b')!.mean).toBeCloseTo(0.5, 12);
    tg.ingest(compact(['a', { name: 'b', ok: false }], T0 + 28 * DAY, false));
    tg.rebuild();
    const rel = tg.reliability('a', 'b')!; // Beta(2, 3): mean 0.4, factor 0.8, P(p < 1/2) = 0.6875
    expect(rel.mean).toBeCloseTo(0.4, 12);
    expect(rel.factor).toBeCloseTo(0.8, 12);
    expect(rel.excluded).toBe(false);
    const p1 = tg.predictNext({ context: ['a'], k: 3 }).items;
    const ratio = (items: typeof p0) => items.find((it) => it.tool === 'b')!.score / items.find((it) => it.tool === 'c')!.score;
    // The factor multiplies b's probability before the softmax renormalises.
    expect(ratio(p1) / ratio(p0)).toBeCloseTo(0.8, 9);
  });

  it('never lowers a pattern confidence or reliability on one more success', () => {
    const tg = new Toolgraph();
    tg.ingest(compact(['a', { name: 'b', ok: false }], T0, false));
    tg.rebuild();
    let before = tg.pattern({ from: 'a', to: 'b' });
    for (let i = 0; i < 6; i++) {
      tg.ingest(compact(['a', 'b'], T0));
      tg.rebuild();
      const after = tg.pattern({ from: 'a', to: 'b' });
      expect(after.confidence.composite).toBeGreaterThanOrEqual(before.confidence.composite);
      expect(after.confidence.effectiveness).toBeGreaterThan(before.confidence.effectiveness);
      expect(after.reliability!.mean).toBeGreaterThan(before.reliability!.mean);
      before = after;
    }
    expect(before).toMatchObject({ observations: 7, successes: 6, failures: 1 });
  });

  it('decays confidence from the last update, idempotently', () => {
    const tg = new Toolgraph();
    tg.ingest(compact(['a', 'b'], T0));
    // The clock is the newest trace: five weeks later, elsewhere in the graph.
    tg.ingest(compact(['x', 'y'], T0 + 5 * WEEK_MS));
    tg.rebuild();
    const view = tg.pattern({ from: 'a', to: 'b' });
    // Frequency of one observation 0.30, minus 5 weekly decays of 0.02.
    expect(view.confidence.frequency).toBeCloseTo(0.3 - 5 * 0.02, 12);
    expect(tg.patterns()).toEqual(tg.patterns());
    const state = patternConfidence(['a', 'b'], { count: 1, success: 1, failure: 0, evidence: 1, lastSeen: T0, recentSuccess: 1, recentFailure: 0 }, undefined, T0 + 5 * WEEK_MS);
    const again = decayConfidence(state, T0 + 5 * WEEK_MS);
    expect(again.weeks).toBe(0);
    expect(again.state).toBe(state);
  });

  it('moves the ranking on approval and rejection, by H / 0.5', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'c'], T0));
    const p = () => new Map(tg.predictNext({ context: ['a'], k: 3 }).items.map((it) => [it.tool, it.score]));
    const tie = p();
    expect(tie.get('b')).toBeCloseTo(tie.get('c')!, 12);
    expect(ranks(tg, ['a'])[0]).toBe('b'); // ties break by tool index

    const approved = tg.patternFeedback({ from: 'a', to: 'c' }, 'approve', { at: T0 });
    expect(approved.approvals).toBe(1);
    expect(approved.confidence.human).toBeCloseTo(0.575, 12); // 0.5 + 0.15 * 0.5
    expect(ranks(tg, ['a'])[0]).toBe('c');
    const up = p();
    expect(up.get('c')! / up.get('b')!).toBeCloseTo(0.575 / 0.5, 12);

    tg.patternFeedback({ id: approved.id }, 'reject', { at: T0 });
    const rejected = tg.patternFeedback({ from: 'a', to: 'c' }, 'reject', { at: T0 });
    // (1 - 0.5 * 0.85) * 0.85^2 = 0.4154 < 0.5: below b again.
    expect(rejected.confidence.human).toBeCloseTo(0.575 * 0.85 ** 2, 12);
    expect(rejected.confidence.composite).toBeLessThan(approved.confidence.composite);
    expect(ranks(tg, ['a'])[0]).toBe('b');
    const down = p();
    expect(down.get('c')! / down.get('b')!).toBeCloseTo((0.575 * 0.85 ** 2) / 0.5, 12);
  });

  it('takes a verdict at once with traces pending, on the model as it is: no rebuild', () => {
    const tg = new Toolgraph({ rebuildDelayMs: 3_600_000 });
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'c'], T0));
    tg.rebuild();
    const built = tg.stats().modelVersion;
    tg.ingest(compact(['x', 'y'], T0));
    const p = () => new Map(tg.predictNext({ context: ['a'], k: 3 }).items.map((it) => [it.tool, it.score]));
    tg.patternFeedback({ from: 'a', to: 'c' }, 'approve', { at: T0 });
    // The model is the one built before the pending trace; only its feedback factors moved.
    expect(tg.stats().modelVersion).toBe(built);
    expect(tg.stats().version).toBeGreaterThan(built);
    const up = p();
    expect(up.get('c')! / up.get('b')!).toBeCloseTo(0.575 / 0.5, 12);
    // The rebuild keeps it.
    tg.rebuild();
    expect(tg.stats().modelVersion).toBe(tg.stats().version);
    const after = p();
    expect(after.get('c')! / after.get('b')!).toBeCloseTo(0.575 / 0.5, 12);
    tg.close();
  });

  it('gives a model built while a verdict lands that verdict as it is installed', async () => {
    const tg = new Toolgraph({ rebuildDelayMs: 3_600_000 });
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'c'], T0));
    tg.rebuild();
    tg.ingest(compact(['x', 'y'], T0));
    // Built in stages, the event loop turning between them: the verdict lands in between.
    const building = tg.rebuildInBackground();
    tg.patternFeedback({ from: 'a', to: 'c' }, 'approve', { at: T0 });
    await building;
    expect(tg.stats().modelVersion).toBe(tg.stats().version);
    const scores = new Map(tg.predictNext({ context: ['a'], k: 3 }).items.map((it) => [it.tool, it.score]));
    expect(scores.get('c')! / scores.get('b')!).toBeCloseTo(0.575 / 0.5, 12);
    tg.close();
  });

  it('applies feedback on a second-order pattern only after its context', () => {
    const tg = new Toolgraph();
    for (const mid of ['a', 'x']) {
      for (let i = 0; i < 2; i++) tg.ingest(compact([mid, 'm', 'b'], T0));
      for (let i = 0; i < 2; i++) tg.ingest(compact([mid, 'm', 'c'], T0));
    }
    tg.patternFeedback({ tools: ['a', 'm', 'c'] }, 'approve', { at: T0 });
    expect(ranks(tg, ['a', 'm'])[0]).toBe('c');
    expect(ranks(tg, ['x', 'm'])[0]).toBe('b');
    expect(tg.patterns().find((v) => v.kind === 'second_order')).toMatchObject({ tools: ['a', 'm', 'c'], approvals: 1, observations: 2 });
  });

  it('keeps human feedback as plain data that restores the same ranking', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'c'], T0));
    tg.patternFeedback({ from: 'a', to: 'c' }, 'approve', { at: T0 + 1 });
    const state = JSON.parse(JSON.stringify(tg.patternRegistryState()));
    const restored = new Toolgraph({ patterns: state });
    for (let i = 0; i < 3; i++) restored.ingest(compact(['a', 'b'], T0));
    for (let i = 0; i < 3; i++) restored.ingest(compact(['a', 'c'], T0));
    expect(ranks(restored, ['a'])).toEqual(ranks(tg, ['a']));
    expect(restored.pattern({ from: 'a', to: 'c' })).toEqual(tg.pattern({ from: 'a', to: 'c' }));
    expectCode(() => new Toolgraph({ patterns: { version: 1, patterns: [{ ...state.patterns[0], tools: ['a', 'b'] }] } }), 'INVALID_INPUT', 'does not match');
  });

  it('lists reviewed and most observed patterns, and rejects bad requests', () => {
    const tg = new Toolgraph();
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b', 'c'], T0));
    tg.ingest(compact(['a', 'c'], T0));
    const all = tg.patterns();
    expect(all.map((v) => v.tools)).toEqual([['a', 'b'], ['b', 'c'], ['a', 'c']]);
    expect(tg.patterns({ from: 'b' }).map((v) => v.tools)).toEqual([['b', 'c']]);
    expect(tg.patterns({ limit: 1 })).toHaveLength(1);
    expect(tg.pattern({ id: all[2]!.id }).tools).toEqual(['a', 'c']);
    expectCode(() => tg.patternFeedback({ from: 'a', to: 'zzz' }, 'approve'), 'UNKNOWN_TOOL', 'zzz');
    expectCode(() => tg.patternFeedback({ id: 'transition:nope' }, 'approve'), 'NOT_FOUND', 'patternFeedback');
    expectCode(() => tg.patternFeedback({ from: 'a', to: 'b' }, 'maybe'), 'INVALID_INPUT', 'decision');
    expectCode(() => tg.patternFeedback({ from: 'a' }, 'approve'), 'INVALID_INPUT', 'patternFeedback');
    expectCode(() => tg.patterns({ limit: -1 }), 'INVALID_INPUT', 'limit');
    expectCode(() => tg.patterns({ from: 'nope' }), 'UNKNOWN_TOOL', 'patterns');
  });

  it('refuses times more than a day ahead of the clock, which would age every other observation', () => {
    const tg = new Toolgraph();
    const now = Date.now();
    for (let i = 0; i < 3; i++) tg.ingest(compact(['a', 'b'], now - DAY));
    const before = tg.pattern({ from: 'a', to: 'b' });
    expect(before.confidence.status).toBe('active');
    expect(before.confidence.composite).toBeGreaterThan(0);
    // Accepted, a trace dated in 2999 made `now` for decay the year 2999: every pattern decayed
    // to composite 0 and was deprecated (and, stored, stayed so after a restart).
    expectCode(() => tg.ingest(compact(['a', 'c'], Date.UTC(2999, 0, 1))), 'INVALID_INPUT', 'timestamp');
    expectCode(() => tg.ingest({ tools: ['a', 'c'], timestamp: '2999-01-01T00:00:00Z' }), 'INVALID_INPUT', "a day after this machine's clock");
    expectCode(() => tg.patternFeedback({ from: 'a', to: 'b' }, 'approve', { at: 8.64e15 }), 'INVALID_INPUT', 'at');
    expect(tg.stats().traces).toBe(3);
    expect(tg.pattern({ from: 'a', to: 'b' })).toEqual(before);
    // Clock skew between hosts is not bad input.
    tg.ingest(compact(['a', 'b'], now + DAY / 2));
    tg.patternFeedback({ from: 'a', to: 'b' }, 'approve', { at: now + DAY / 2 });
    const after = tg.pattern({ from: 'a', to: 'b' });
    expect(after.confidence.status).toBe('active');
    expect(after.confidence.composite).toBeGreaterThan(0);
  });

  it('weights success evidence by the value of a scored ReasoningTrace', async () => {
    const tg = new Toolgraph({ embedder: null });
    const result = await tg.ingestScored([
      {
        '@type': 'ReasoningTrace',
        metadata: { created_at: '2026-01-01T00:00:00Z', task_domain: 'travel', success: true },
        task: { objective: 'book a hotel in Paris' },
        steps: [
          { step_id: 0, type: 'tool_call', tool: { name: 'search_hotels' } },
          { step_id: 1, type: 'tool_call', tool: { name: 'book_hotel' } },
        ],
        outcome: { result_summary: 'booked', confidence: 0.9 },
      },
      { tools: ['search_hotels', 'book_hotel'], timestamp: T0 },
    ]);
    expect(result.ingested).toBe(2);
    expect(result.values[1]).toBe(1);
    const value = result.values[0]!;
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(1);
    // Both successes at T0 (the ReasoningTrace's created_at): prior 1 + value + 1.
    expect(tg.reliability('search_hotels', 'book_hotel')!.alpha).toBeCloseTo(2 + value, 12);
  });
});
