import { describe, expect, it } from 'vitest';
import { currentStep, dropTemporary, gotoStep, insertMicro, markDone, pendingSteps, planFromDag, stepFor } from '../../src/engine/plan.js';

const dag = {
  kind: 'workflow' as const,
  nodes: [
    { id: 'n1', kind: 'tool' as const, tool: 'search', confidence: 0.9 },
    { id: 'n2', kind: 'capability' as const, capability: 'book', tools: ['hold', 'pay'], confidence: 0.8 },
    { id: 'n3', kind: 'tool' as const, tool: 'mail', confidence: 0.7 },
  ],
  edges: [
    { from: 'n1', to: 'n2', confidence: 0.9, source: 'sequence' as const },
    { from: 'n2', to: 'n3', confidence: 0.9, source: 'sequence' as const },
  ],
};

describe('plan', () => {
  it('lists the DAG steps in order, a capability as its tools, edges between their ends', () => {
    const plan = planFromDag(dag);
    expect(plan.steps.map((s) => `${s.id}:${s.tool}`)).toEqual(['n1:search', 'n2.1:hold', 'n2.2:pay', 'n3:mail']);
    expect(plan.edges).toEqual([
      { from: 'n2.1', to: 'n2.2' },
      { from: 'n1', to: 'n2.1' },
      { from: 'n2.2', to: 'n3' },
    ]);
    expect(plan.current).toBe('n1');
  });

  it('is empty for a no-match suggestion', () => {
    expect(planFromDag({ ...dag, kind: 'no-match' })).toEqual({ steps: [], edges: [], current: null });
  });

  it('moves on from the current step when it is done, and keeps the pointer when another is', () => {
    const plan = planFromDag(dag);
    const a = markDone(plan, 'n1');
    expect(a.current).toBe('n2.1');
    const b = markDone(a, 'n3');
    expect(b.current).toBe('n2.1');
    expect(pendingSteps(b).map((s) => s.id)).toEqual(['n2.1', 'n2.2']);
    const c = markDone(markDone(b, 'n2.1'), 'n2.2');
    expect(c.current).toBeNull();
  });

  it('finds the step a call does: the current one first, else the first pending one with the tool', () => {
    const plan = gotoStep(planFromDag({ ...dag, nodes: [...dag.nodes, { id: 'n4', kind: 'tool', tool: 'search', confidence: 0.5 }] }), 'n4')!;
    expect(stepFor(plan, 'search')!.id).toBe('n4');
    expect(stepFor(plan, 'pay')!.id).toBe('n2.2');
    expect(stepFor(plan, 'nope')).toBeNull();
  });

  it('goes only to a pending step', () => {
    const plan = markDone(planFromDag(dag), 'n1');
    expect(gotoStep(plan, 'n3')!.current).toBe('n3');
    expect(gotoStep(plan, 'n1')).toBeNull();
    expect(gotoStep(plan, 'zz')).toBeNull();
  });

  it('inserts a temporary step before the current one; it lasts one turn', () => {
    const plan = insertMicro(markDone(planFromDag(dag), 'n1'), 'lookup', 'm1');
    expect(plan.steps.map((s) => s.id)).toEqual(['n1', 'm1', 'n2.1', 'n2.2', 'n3']);
    expect(currentStep(plan)).toEqual({ id: 'm1', tool: 'lookup', done: false, temporary: true });
    const dropped = dropTemporary(plan);
    expect(dropped.steps.map((s) => s.id)).toEqual(['n1', 'n2.1', 'n2.2', 'n3']);
    expect(dropped.current).toBe('n2.1');
    // Done, it stays in the plan's history and the session moves on to the step it stood before.
    const taken = markDone(plan, 'm1');
    expect(taken.current).toBe('n2.1');
    expect(dropTemporary(taken).steps.map((s) => s.id)).toEqual(['n1', 'm1', 'n2.1', 'n2.2', 'n3']);
  });
});
