import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { compositeConfidence } from '../../src/scoring/composite-confidence.js';
import type { PatternConfidence } from '../../src/scoring/confidence-state.js';
import { applyConfidenceEvent, createPatternConfidence, createPatternConfidenceSchema, NO_EVIDENCE, patternConfidenceOf } from '../../src/scoring/pattern-confidence.js';
import { CONFIDENCE_EVENTS, UPDATE_RULES, type ConfidenceEvent } from '../../src/scoring/update-rules.js';
import { wilsonLowerBound } from '../../src/scoring/wilson.js';
import { expectError } from './_helpers.js';

const T0 = Date.UTC(2025, 0, 6); // a fixed time: nothing reads the clock
const L11 = wilsonLowerBound(1, 1); // 1 / 4.8416 = 0.2065433

function fresh(rules: 'evidence' | 'seed' = 'evidence'): PatternConfidence {
  return createPatternConfidence({ id: 'search->fetch', kind: 'transition', now: T0, rules });
}

function apply(state: PatternConfidence, events: readonly ConfidenceEvent[], at = T0): PatternConfidence {
  return events.reduce((s, e) => applyConfidenceEvent(s, e, at), state);
}

function dims(state: PatternConfidence): [number, number, number] {
  return [state.dimensions.frequency, state.dimensions.effectiveness, state.dimensions.human];
}

function expectDims(state: PatternConfidence, expected: [number, number, number]): void {
  const got = dims(state);
  for (let i = 0; i < 3; i++) expect(got[i]).toBeCloseTo(expected[i]!, 12);
}

describe('createPatternConfidence', () => {
  it('equals patternConfidenceOf on the parsed input (the unvalidated path the capability model takes)', () => {
    for (const input of [
      { id: 'cap', kind: 'capability' as const, now: 1_000, evidence: { observations: 7, applications: { positive: 5, negative: 2 } } },
      { id: 'e', kind: 'transition' as const, now: 0, rules: 'seed' as const, evidence: { approvals: 2, causalLinks: 1, reflect: 'approved' as const } },
    ]) {
      expect(patternConfidenceOf(createPatternConfidenceSchema.parse(input))).toEqual(createPatternConfidence(input));
    }
    // The base those internal callers add their counts to: every count 0, nothing reflected.
    expect(NO_EVIDENCE).toEqual({ ...createPatternConfidence({ id: 'x', kind: 'capability', now: 0 }).evidence, observations: 0 });
  });

  it("starts at spec 004's column defaults: 0.30 / 0.50 / 0.50, composite 0.43, moderate", () => {
    const s = fresh();
    expect(s).toMatchObject({
      id: 'search->fetch',
      kind: 'transition',
      rules: 'evidence',
      status: 'active',
      tier: 'moderate',
      createdAt: T0,
      updatedAt: T0,
      decayedThrough: T0,
      deprecatedAt: null,
    });
    expectDims(s, [0.3, 0.5, 0.5]);
    expect(s.composite).toBeCloseTo(0.43, 12);
    expect(s.evidence).toEqual({
      observations: 1,
      contradictions: 0,
      causalLinks: 0,
      applications: { positive: 0, negative: 0, neutral: 0 },
      approvals: 0,
      rejections: 0,
      reflect: 'none',
    });
    expect(s.history).toEqual([{ at: T0, reason: 'created', frequency: 0.3, effectiveness: 0.5, human: 0.5, composite: s.composite }]);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('scores known evidence with the formulas', () => {
    // 7 observations -> 0.7; 3 positive / 1 negative -> 0.5 + (L(3,4) - L(1,4)) / 2 = 0.6275250;
    // 2 approvals -> 0.63875. Composite 0.245 + 0.2510100 + 0.1596875 = 0.6556975: strong.
    const s = createPatternConfidence({
      id: 'p',
      kind: 'second_order',
      now: T0,
      evidence: { observations: 7, applications: { positive: 3, negative: 1 }, approvals: 2 },
    });
    expectDims(s, [0.7, 0.5 + (wilsonLowerBound(3, 4) - wilsonLowerBound(1, 4)) / 2, 0.63875]);
    expect(s.composite).toBeCloseTo(0.7 * 0.35 + 0.627524995 * 0.4 + 0.63875 * 0.25, 8);
    expect(s.tier).toBe('strong');
  });

  it('is deprecated at birth when its evidence says so', () => {
    const s = createPatternConfidence({ id: 'p', kind: 'capability', now: T0, evidence: { contradictions: 3, reflect: 'rejected' } });
    // F = 0, E = 0.5, H = 0.2: (0 + 0.2 + 0.05) * 0.7 = 0.175.
    expect(s.composite).toBeCloseTo(0.175, 12);
    expect(s.status).toBe('deprecated');
    expect(s.deprecatedAt).toBe(T0);
    expect(s.history.map((h) => h.reason)).toEqual(['created', 'deprecated']);
  });

  it('rejects bad input with INVALID_INPUT, an overlong id with PAYLOAD_TOO_LARGE', () => {
    const ok = { id: 'p', kind: 'transition', now: T0 } as const;
    const bad: unknown[] = [
      { ...ok, id: '' },
      { ...ok, kind: 'edge' },
      { ...ok, now: -1 },
      { ...ok, now: Number.NaN },
      { ...ok, rules: 'literal' },
      { ...ok, evidence: { observations: -1 } },
      { ...ok, evidence: { observations: 1.5 } },
      { ...ok, evidence: { applications: { positive: -1 } } },
      { ...ok, evidence: { reflect: 'maybe' } },
      { ...ok, evidence: { typo: 1 } },
      { ...ok, extra: true },
      null,
    ];
    for (const input of bad) expectError(() => createPatternConfidence(input as never), 'INVALID_INPUT', 'createPatternConfidence');
    expectError(() => createPatternConfidence({ ...ok, id: 'x'.repeat(2000) }), 'PAYLOAD_TOO_LARGE', 'createPatternConfidence');
    expectError(() => createPatternConfidence(ok, { historyLimit: 0 }), 'INVALID_INPUT', 'createPatternConfidence');
    expectError(() => createPatternConfidence(ok, { weights: { frequency: 1, effectiveness: 1, human: 1 } }), 'INVALID_INPUT', 'createPatternConfidence');
    expectError(() => createPatternConfidence(ok, { unknown: 1 } as never), 'INVALID_INPUT', 'createPatternConfidence');
  });
});

describe('applyConfidenceEvent, evidence rules', () => {
  // From (F, E, H) = (0.3, 0.5, 0.5), one event each, by hand:
  const cases: Array<[ConfidenceEvent, [number, number, number]]> = [
    // 2 observations: still the 1-2 band.
    ['pattern_observed_again', [0.3, 0.5, 0.5]],
    // E = 0.5 + L(1,1)/2.
    ['applied_successfully', [0.3, 0.5 + L11 / 2, 0.5]],
    // E = 0.5 - L(1,1)/2.
    ['applied_failed', [0.3, 0.5 - L11 / 2, 0.5]],
    // Neutral only: both bounds 0.
    ['applied_neutral', [0.3, 0.5, 0.5]],
    // H = 0.575 (one approval); E +0.05 (the rule's residual).
    ['user_accepted', [0.3, 0.55, 0.575]],
    // H = 0.425 (one rejection); E -0.10.
    ['user_corrected', [0.3, 0.4, 0.425]],
    ['reflect_approved', [0.3, 0.5, 0.95]],
    // H = 0.5 - 0.30.
    ['reflect_rejected', [0.3, 0.5, 0.2]],
    // F +0.10 (no count in the frequency formula).
    ['causal_link_confirmed', [0.4, 0.5, 0.5]],
    // F = 0.3 - 0.1.
    ['pattern_contradicted', [0.2, 0.5, 0.5]],
  ];
  for (const [event, expected] of cases) {
    it(`${event}`, () => {
      const s = applyConfidenceEvent(fresh(), event, T0 + 1000);
      expectDims(s, expected);
      expect(s.composite).toBeCloseTo(compositeConfidence(s.dimensions), 15);
      expect(s.updatedAt).toBe(T0 + 1000);
      expect(s.history.at(-1)).toMatchObject({ at: T0 + 1000, reason: event, composite: s.composite });
    });
  }

  it('covers every event', () => {
    expect(cases.map((c) => c[0]).sort()).toEqual([...CONFIDENCE_EVENTS].sort());
  });

  it('moves frequency by whole bands as observations accumulate', () => {
    let s = fresh();
    const seen: number[] = [];
    for (let i = 0; i < 22; i++) {
      s = applyConfidenceEvent(s, 'pattern_observed_again', T0);
      seen.push(s.dimensions.frequency);
    }
    // Observations 2..23.
    expect(seen.slice(0, 4)).toEqual([0.3, 0.5, 0.5, 0.5]);
    expect(seen[4]).toBe(0.7); // 6
    expect(seen[9]).toBe(0.85); // 11
    expect(seen[19]).toBe(0.95); // 21
  });

  it('never lowers effectiveness or composite on a success, from any state (seeded random walks)', () => {
    const rng = createRng(42);
    for (let walk = 0; walk < 30; walk++) {
      let s = fresh();
      for (let step = 0; step < 40; step++) {
        const success = applyConfidenceEvent(s, 'applied_successfully', T0);
        expect(success.dimensions.effectiveness).toBeGreaterThanOrEqual(s.dimensions.effectiveness);
        expect(success.composite).toBeGreaterThanOrEqual(s.composite);
        const event = CONFIDENCE_EVENTS[Math.floor(rng() * CONFIDENCE_EVENTS.length)]!;
        s = applyConfidenceEvent(s, event, T0);
      }
    }
  });

  it('banks nothing past 1: a contradiction after many causal links is felt at once', () => {
    const links = apply(fresh(), new Array<ConfidenceEvent>(10).fill('causal_link_confirmed'));
    expect(links.dimensions.frequency).toBe(1);
    // base 0.3 -> 0.2, adjustment capped at 0.7 when it was added: 0.9.
    expect(applyConfidenceEvent(links, 'pattern_contradicted', T0).dimensions.frequency).toBeCloseTo(0.9, 12);
  });

  it('deprecates and reactivates with the evidence', () => {
    // Three contradictions: F = 0. A /reflect rejection: H = 0.2. (0 + 0.2 + 0.05) * 0.7 = 0.175.
    const down = apply(fresh(), ['pattern_contradicted', 'pattern_contradicted', 'pattern_contradicted', 'reflect_rejected'], T0 + 5);
    expect(down.composite).toBeCloseTo(0.175, 12);
    expect(down).toMatchObject({ status: 'deprecated', tier: 'deprecated', deprecatedAt: T0 + 5 });
    // A /reflect approval: H = 0.95. (0 + 0.2 + 0.2375) * 0.7 = 0.30625: tentative, active again.
    const up = applyConfidenceEvent(down, 'reflect_approved', T0 + 9);
    expect(up.composite).toBeCloseTo(0.30625, 12);
    expect(up).toMatchObject({ status: 'active', tier: 'tentative', deprecatedAt: null });
    expect(up.history.slice(-3).map((h) => h.reason)).toEqual(['deprecated', 'reflect_approved', 'reactivated']);
  });

  it('is a pure function of its inputs: replaying gives the same state, the input is not touched', () => {
    const events: ConfidenceEvent[] = ['applied_successfully', 'user_accepted', 'pattern_observed_again', 'applied_failed'];
    const start = fresh();
    const snapshot = JSON.parse(JSON.stringify(start));
    const a = events.reduce((s, e, i) => applyConfidenceEvent(s, e, T0 + i * 1000), start);
    const b = events.reduce((s, e, i) => applyConfidenceEvent(s, e, T0 + i * 1000), fresh());
    expect(a).toEqual(b);
    expect(start).toEqual(snapshot);
  });

  it('applies a late event without moving the clocks back', () => {
    const s = applyConfidenceEvent(fresh(), 'applied_successfully', T0 + 10_000);
    const late = applyConfidenceEvent(s, 'user_accepted', T0 + 5_000);
    expect(late.updatedAt).toBe(T0 + 10_000);
    expect(late.decayedThrough).toBe(T0 + 10_000);
    expect(late.evidence.approvals).toBe(1);
  });

  it('keeps the newest historyLimit entries', () => {
    const s = apply(fresh(), ['applied_successfully', 'applied_failed', 'user_accepted', 'user_corrected'].map((e) => e as ConfidenceEvent));
    expect(s.history.map((h) => h.reason)).toEqual(['created', 'applied_successfully', 'applied_failed', 'user_accepted', 'user_corrected']);
    const capped = applyConfidenceEvent(s, 'applied_neutral', T0, { historyLimit: 3 });
    expect(capped.history.map((h) => h.reason)).toEqual(['user_accepted', 'user_corrected', 'applied_neutral']);
  });

  it('takes other weights', () => {
    const s = applyConfidenceEvent(fresh(), 'reflect_approved', T0, { weights: { frequency: 0, effectiveness: 0, human: 1 } });
    expect(s.composite).toBeCloseTo(0.95, 12);
    expect(s.tier).toBe('core');
  });

  it('rejects bad events, times, states and options with INVALID_INPUT', () => {
    const s = fresh();
    expectError(() => applyConfidenceEvent(s, 'weekly_decay' as never, T0), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent(s, 'liked' as never, T0), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent(s, 'applied_failed', Number.NaN), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent(s, 'applied_failed', -1), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent(null as never, 'applied_failed', T0), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent({ ...s, status: 'gone' } as never, 'applied_failed', T0), 'INVALID_INPUT', 'applyConfidenceEvent');
    expectError(() => applyConfidenceEvent(s, 'applied_failed', T0, { learningRate: 2 }), 'INVALID_INPUT', 'applyConfidenceEvent');
  });
});

describe('applyConfidenceEvent, seed rules (spec 004 verbatim)', () => {
  for (const event of CONFIDENCE_EVENTS) {
    it(`${event} adds its delta from UPDATE_RULES`, () => {
      const rule = UPDATE_RULES[event];
      const s = applyConfidenceEvent(fresh('seed'), event, T0);
      expectDims(s, [0.3 + rule.frequency, 0.5 + rule.effectiveness, 0.5 + rule.human]);
      expect(s.rules).toBe('seed');
    });
  }

  it('clamps at 0 and 1, like GREATEST(0, ...)', () => {
    const low = apply(fresh('seed'), ['applied_failed', 'applied_failed', 'applied_failed', 'applied_failed']);
    expect(low.dimensions.effectiveness).toBe(0);
    const high = apply(fresh('seed'), ['reflect_approved', 'reflect_approved']);
    expect(high.dimensions.human).toBe(1);
    expect(applyConfidenceEvent(high, 'reflect_rejected', T0).dimensions.human).toBeCloseTo(0.7, 12);
  });

  it("starts from spec 004's formulas, whose Wilson bound drops on a first success", () => {
    const s = createPatternConfidence({ id: 'p', kind: 'transition', now: T0, rules: 'seed', evidence: { applications: { positive: 1 } } });
    expect(s.dimensions.effectiveness).toBeCloseTo(L11, 12);
  });
});
