import { describe, expect, it } from 'vitest';
import { apply, checkCommand, decide, type PlannerInput } from '../../src/engine/planner.js';
import { markDone, planFromDag } from '../../src/engine/plan.js';
import { parseAdaptCommand } from '../../src/schema/session-requests.js';
import { expectCode } from '../helpers/expect-code.js';

const plan = planFromDag({
  kind: 'workflow',
  nodes: [
    { id: 'n1', kind: 'tool', tool: 'search', confidence: 0.9 },
    { id: 'n2', kind: 'tool', tool: 'book', confidence: 0.9 },
    { id: 'n3', kind: 'tool', tool: 'pay', confidence: 0.9 },
  ],
  edges: [],
});
const atN2 = markDone(plan, 'n1');

function input(over: Partial<PlannerInput>): PlannerInput {
  return {
    plan: atN2,
    tool: 'search',
    failed: false,
    repeats: 0,
    deviation: 'ON_TOPIC',
    missing: [],
    next: [{ tool: 'book', score: 0.9 }],
    answeredBy: 'graph',
    graphSure: true,
    modelCommand: null,
    withoutModel: null,
    microUsed: 0,
    limits: { maxRepeats: 2, maxMicroSteps: 1 },
    ...over,
  };
}

describe('AdaptCommand schema (spec 002)', () => {
  it('takes the spec shape', () => {
    expect(parseAdaptCommand({ op: 'goto', targetAskCode: 'n2', note: 'x', reason: 'OFF_TOPIC' })).toEqual({ op: 'goto', targetAskCode: 'n2', note: 'x', reason: 'OFF_TOPIC' });
    expect(parseAdaptCommand({ op: 'hint' })).toEqual({ op: 'hint' });
  });

  it('rejects an unknown op, an unknown reason, a stray key, a wrong type', () => {
    expectCode(() => parseAdaptCommand({ op: 'delete' }), 'INVALID_INPUT', 'op');
    expectCode(() => parseAdaptCommand({ op: 'hint', reason: 'BORED' }), 'INVALID_INPUT', 'reason');
    expectCode(() => parseAdaptCommand({ op: 'hint', step: 'n1' }), 'INVALID_INPUT');
    expectCode(() => parseAdaptCommand({ op: 'goto', targetAskCode: 3 }), 'INVALID_INPUT', 'targetAskCode');
    expectCode(() => parseAdaptCommand('goto'), 'INVALID_INPUT');
  });
});

describe('decide: at most one command, by precedence', () => {
  it('repeats a failed step, then moves on past maxRepeats', () => {
    expect(decide(input({ failed: true, repeats: 1, tool: 'book' }))).toMatchObject({ op: 'repeat', targetAskCode: 'n2' });
    expect(decide(input({ failed: true, repeats: 3, tool: 'book' }))).toMatchObject({ op: 'goto', targetAskCode: 'n3' });
  });

  it('goes back to the plan on OFF_TOPIC, at the pending step the answer ranks first', () => {
    expect(decide(input({ deviation: 'OFF_TOPIC', tool: 'weather', next: [{ tool: 'pay', score: 0.3 }, { tool: 'book', score: 0.2 }] }))).toMatchObject({ op: 'goto', targetAskCode: 'n3', reason: 'OFF_TOPIC' });
  });

  it('reasks a VAGUE step with the words it lacks', () => {
    const c = decide(input({ deviation: 'VAGUE', missing: ['paris', 'london'] }))!;
    expect(c).toMatchObject({ op: 'reask', reason: 'SEM_LOW' });
    expect(c.note).toContain('paris, london');
  });

  it("takes the model's command when it checks out, with reason THINKER_ESCALATION", () => {
    expect(decide(input({ answeredBy: 'thinker', modelCommand: { op: 'goto', targetAskCode: 'n3' } }))).toEqual({ op: 'goto', targetAskCode: 'n3', reason: 'THINKER_ESCALATION' });
    // A goto to a step that is done is no command; the answer's own rule applies instead.
    expect(decide(input({ answeredBy: 'thinker', next: [{ tool: 'book', score: 0.2 }], modelCommand: { op: 'goto', targetAskCode: 'n1' } }))).toBeNull();
  });

  it('goes to a later plan step the answer names, or inserts a temporary step the plan lacks', () => {
    expect(decide(input({ next: [{ tool: 'pay', score: 0.9 }] }))).toMatchObject({ op: 'goto', targetAskCode: 'n3' });
    expect(decide(input({ next: [{ tool: 'lookup', score: 0.9 }] }))).toMatchObject({ op: 'insert_micro', targetAskCode: 'n2', note: 'lookup' });
    expect(decide(input({ next: [{ tool: 'lookup', score: 0.9 }], microUsed: 1 }))).toBeNull();
    // The graph unsure and no model asked: no move, a hint.
    expect(decide(input({ graphSure: false, next: [{ tool: 'lookup', score: 0.2 }] }))).toBeNull();
  });

  it('hints the graph\'s answer when no model answered, BUDGET_LIMIT when the budget kept it out', () => {
    expect(decide(input({ graphSure: false, next: [{ tool: 'pay', score: 0.2 }], withoutModel: 'degraded' }))).toMatchObject({ op: 'hint', targetAskCode: 'n3', reason: 'BUDGET_LIMIT' });
    const c = decide(input({ graphSure: false, next: [{ tool: 'pay', score: 0.2 }], withoutModel: 'deterministic' }))!;
    expect(c.op).toBe('hint');
    expect(c.reason).toBeUndefined();
  });

  it('emits nothing when the answer is the current step', () => {
    expect(decide(input({}))).toBeNull();
  });
});

describe('checkCommand and apply: each op changes the session', () => {
  it('refuses a target outside the plan, a goto without one, a micro step without a tool or past the cap', () => {
    expect(checkCommand({ op: 'goto', targetAskCode: 'n9' }, atN2, 1)).toMatch(/no step of the plan/);
    expect(checkCommand({ op: 'goto' }, atN2, 1)).toMatch(/needs a targetAskCode/);
    expect(checkCommand({ op: 'goto', targetAskCode: 'n1' }, atN2, 1)).toMatch(/already done/);
    expect(checkCommand({ op: 'insert_micro' }, atN2, 1)).toMatch(/note must be the tool/);
    expect(checkCommand({ op: 'insert_micro', note: 'x' }, atN2, 0)).toMatch(/used all/);
    expect(checkCommand({ op: 'repeat', targetAskCode: 'n1' }, atN2, 0)).toBeNull();
  });

  it('goto moves the current step, insert_micro adds one, reask records the words, repeat and hint keep the plan', () => {
    expect(apply({ op: 'goto', targetAskCode: 'n3' }, atN2, 0, []).plan.current).toBe('n3');
    const micro = apply({ op: 'insert_micro', note: 'lookup', targetAskCode: 'n2' }, atN2, 0, []);
    expect(micro.microUsed).toBe(1);
    expect(micro.plan.current).toBe('m1');
    expect(micro.plan.steps.map((s) => s.id)).toEqual(['n1', 'm1', 'n2', 'n3']);
    expect(apply({ op: 'reask' }, atN2, 0, ['paris']).reask).toEqual(['paris']);
    expect(apply({ op: 'repeat' }, atN2, 0, []).plan).toBe(atN2);
    expect(apply({ op: 'hint' }, atN2, 0, []).plan).toBe(atN2);
  });
});
