import { describe, expect, it } from 'vitest';
import type { PatternConfidence } from '../../src/scoring/confidence-state.js';
import { decayConfidence, WEEK_MS } from '../../src/scoring/decay.js';
import { DAY_MS } from '../../src/scoring/lifecycle.js';
import { applyConfidenceEvent, createPatternConfidence } from '../../src/scoring/pattern-confidence.js';
import { expectError } from './_helpers.js';

const T0 = Date.UTC(2025, 0, 6);

function fresh(rules: 'evidence' | 'seed' = 'evidence'): PatternConfidence {
  return createPatternConfidence({ id: 'a->b', kind: 'transition', now: T0, rules });
}

function expectDims(state: PatternConfidence, f: number, e: number, h: number, digits = 12): void {
  expect(state.dimensions.frequency).toBeCloseTo(f, digits);
  expect(state.dimensions.effectiveness).toBeCloseTo(e, digits);
  expect(state.dimensions.human).toBeCloseTo(h, digits);
}

describe('decayConfidence', () => {
  it('subtracts 0.02 / 0.01 / 0.005 per whole week since the last update', () => {
    const r = decayConfidence(fresh(), T0 + WEEK_MS);
    expect(r.weeks).toBe(1);
    expectDims(r.state, 0.28, 0.49, 0.495);
    // 0.28 * 0.35 + 0.49 * 0.40 + 0.495 * 0.25 = 0.098 + 0.196 + 0.12375 = 0.41775.
    expect(r.state.composite).toBeCloseTo(0.41775, 12);
    expect(r.state.decayedThrough).toBe(T0 + WEEK_MS);
    expect(r.state.updatedAt).toBe(T0); // decay is not an update
    expect(r.state.history.at(-1)).toMatchObject({ at: T0 + WEEK_MS, reason: 'weekly_decay' });
    expect(r).toMatchObject({ deprecated: false, due: false });
  });

  it('is idempotent: the second run at the same time changes nothing', () => {
    const once = decayConfidence(fresh(), T0 + 3 * WEEK_MS);
    const twice = decayConfidence(once.state, T0 + 3 * WEEK_MS);
    expect(twice.weeks).toBe(0);
    expect(twice.state).toBe(once.state);
    expect(twice).toMatchObject({ deprecated: false, due: false });
  });

  it('owes nothing before a whole week, and keeps the part week for the next run', () => {
    const early = decayConfidence(fresh(), T0 + 6 * DAY_MS);
    expect(early.weeks).toBe(0);
    const first = decayConfidence(early.state, T0 + 13 * DAY_MS);
    expect(first.weeks).toBe(1);
    expect(first.state.decayedThrough).toBe(T0 + WEEK_MS);
    // Day 14 completes the second week: the 6 days after the first were not lost.
    const second = decayConfidence(first.state, T0 + 14 * DAY_MS);
    expect(second.weeks).toBe(1);
    expectDims(second.state, 0.26, 0.48, 0.49);
  });

  it('gives the same scores run daily, weekly, or once: never compounded per run', () => {
    const horizon = 10 * WEEK_MS;
    let daily = fresh();
    for (let t = T0; t <= T0 + horizon; t += DAY_MS) daily = decayConfidence(daily, t).state;
    let weekly = fresh();
    for (let t = T0; t <= T0 + horizon; t += WEEK_MS) weekly = decayConfidence(weekly, t).state;
    const once = decayConfidence(fresh(), T0 + horizon).state;
    // 10 weeks: 0.3 - 0.2, 0.5 - 0.1, 0.5 - 0.05.
    for (const s of [daily, weekly, once]) expectDims(s, 0.1, 0.4, 0.45, 12);
    expect(daily.composite).toBeCloseTo(once.composite, 12);
  });

  it('floors every dimension at 0', () => {
    const r = decayConfidence(fresh(), T0 + 200 * WEEK_MS);
    expect(r.weeks).toBe(200);
    // Deprecated on the way: (0 + 0 + 0) -> composite 0.
    expectDims(r.state, 0, 0, 0);
    expect(r.state.composite).toBe(0);
  });

  it('settles the owed decay before an event, and the event restarts the clock', () => {
    const t = T0 + 10 * DAY_MS;
    const direct = applyConfidenceEvent(fresh(), 'applied_successfully', t);
    // One whole week owed at day 10: F 0.28, H 0.495; E = 0.5 + L(1,1)/2 - 0.01.
    expect(direct.history.map((h) => h.reason)).toEqual(['created', 'weekly_decay', 'applied_successfully']);
    expect(direct.dimensions.frequency).toBeCloseTo(0.28, 12);
    expect(direct.decayedThrough).toBe(t);
    expect(direct.updatedAt).toBe(t);
    // The result does not depend on whether the decay job ran first.
    const afterJob = applyConfidenceEvent(decayConfidence(fresh(), t).state, 'applied_successfully', t);
    expect(afterJob).toEqual(direct);
    // Six days after the event: nothing owed.
    expect(decayConfidence(direct, t + 6 * DAY_MS).weeks).toBe(0);
    expect(decayConfidence(direct, t + 7 * DAY_MS).weeks).toBe(1);
  });

  it('does not decay when the clock is behind the last decay', () => {
    const r = decayConfidence(fresh(), T0 - WEEK_MS * 3);
    expect(r.weeks).toBe(0);
  });

  it('deprecates when the composite falls below 0.2, then deletes 30 days later', () => {
    // After k weeks: F = 0.3 - 0.02k, E = 0.5 - 0.01k, H = 0.5 - 0.005k; F < 0.2 from k = 6 (x 0.7).
    // k = 11: (0.028 + 0.156 + 0.11125) * 0.7 = 0.206675, tentative.
    // k = 12: (0.021 + 0.152 + 0.110) * 0.7 = 0.1981, deprecated.
    let s = fresh();
    for (let k = 1; k <= 11; k++) s = decayConfidence(s, T0 + k * WEEK_MS).state;
    expect(s.composite).toBeCloseTo(0.206675, 12);
    expect(s.status).toBe('active');
    const at = T0 + 12 * WEEK_MS;
    const r = decayConfidence(s, at);
    expect(r.state.composite).toBeCloseTo(0.1981, 12);
    expect(r).toMatchObject({ deprecated: true, due: false });
    expect(r.state).toMatchObject({ status: 'deprecated', tier: 'deprecated', deprecatedAt: at });
    expect(r.state.history.slice(-2).map((h) => h.reason)).toEqual(['weekly_decay', 'deprecated']);
    // Deprecated patterns no longer decay; a second run reports no new deprecation.
    const later = decayConfidence(r.state, at + 2 * WEEK_MS);
    expect(later.weeks).toBe(0);
    expect(later.state).toBe(r.state);
    expect(later).toMatchObject({ deprecated: false, due: false });
    expect(decayConfidence(r.state, at + 30 * DAY_MS - 1).due).toBe(false);
    expect(decayConfidence(r.state, at + 30 * DAY_MS).due).toBe(true);
    expect(decayConfidence(r.state, at + DAY_MS, { deletionGraceMs: DAY_MS }).due).toBe(true);
  });

  it('decays seed-rule patterns the same way', () => {
    const r = decayConfidence(fresh('seed'), T0 + 2 * WEEK_MS);
    expectDims(r.state, 0.26, 0.48, 0.49);
  });

  it('rejects bad states, times and options with INVALID_INPUT', () => {
    const s = fresh();
    expectError(() => decayConfidence(null as never, T0), 'INVALID_INPUT', 'decayConfidence');
    expectError(() => decayConfidence({ ...s, history: 'none' } as never, T0), 'INVALID_INPUT', 'decayConfidence');
    expectError(() => decayConfidence(s, Number.POSITIVE_INFINITY), 'INVALID_INPUT', 'decayConfidence');
    expectError(() => decayConfidence(s, T0, { deletionGraceMs: -1 }), 'INVALID_INPUT', 'decayConfidence');
  });
});
