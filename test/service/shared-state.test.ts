/**
 * The bookkeeping of what an instance has of the state other instances write (shared-state.ts);
 * the two-instance tests on a real PostgreSQL (durable-toolgraph.test.ts) drive it end to end.
 */
import { describe, expect, it } from 'vitest';
import { PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { SharedState } from '../../src/service/shared-state.js';

const zero = { tools: 0, capabilities: 0, weights: 0, feedback: 0 };

describe('SharedState', () => {
  it('says which kinds moved since they were read', () => {
    const shared = new SharedState({ ...zero, tools: 2 });
    expect(shared.moved({ ...zero, tools: 2 })).toEqual([]);
    expect(shared.moved({ ...zero, tools: 3, feedback: 1 })).toEqual(['tools', 'feedback']);
    shared.read('tools', 3);
    expect(shared.moved({ ...zero, tools: 3, feedback: 1 })).toEqual(['feedback']);
  });

  it('finds the catalogue entries and capabilities that differ by content, and not its own writes', () => {
    const shared = new SharedState(zero);
    const search = { name: 'search', description: 'find', params: [{ name: 'q', type: 'string', description: '', required: true }] };
    shared.noteTools([search]);
    const stored = [
      // Its own write coming back, as the store reads it (no outputs when there are none).
      { ...search, params: search.params.map((p) => ({ ...p })) },
      { name: '__proto__', description: 'new', params: [] },
    ];
    expect(shared.changedTools(stored).map((t) => t.name)).toEqual(['__proto__']);
    // Replaced in place: a parameter made optional.
    expect(shared.changedTools([{ ...search, params: [{ ...search.params[0]!, required: false }] }])).toHaveLength(1);
    // Or given a named type it returns (the data flow DAG suggestion reads).
    expect(shared.changedTools([{ ...search, outputTypes: ['Airport'] }])).toHaveLength(1);

    const cap = { id: 'c', description: '', tools: ['a', 'b'], ordered: true, successes: 0, failures: 0 };
    shared.noteCapabilities([cap]);
    expect(shared.changedCapabilities([{ ...cap, tools: [...cap.tools] }])).toEqual([]);
    expect(shared.changedCapabilities([{ ...cap, tools: ['b', 'a'] }])).toHaveLength(1);
    expect(shared.changedCapabilities([{ ...cap, code: 'f()' }])).toHaveLength(1);
  });

  it('tells new weights from the ones it has', () => {
    const shared = new SharedState(zero);
    const fitted = { ...PRIOR_WEIGHTS, source: 'fitted' as const };
    expect(shared.weightsChanged(fitted)).toBe(true);
    shared.noteWeights(fitted);
    expect(shared.weightsChanged({ ...fitted, next: [...fitted.next] })).toBe(false);
    expect(shared.weightsChanged({ ...fitted, search: fitted.search.map((w, f) => (f === 2 ? w + 0.5 : w)) })).toBe(true);
    // The same weights from another fit: its account differs, and stats report it.
    expect(shared.weightsChanged({ ...fitted, fit: { traces: 40, fittedAt: 1_000, ms: 5, kept: { next: 'fitted', nextNoIntent: 'backoff', search: 'fitted' } } })).toBe(true);
    expect(shared.weightsChanged({ ...fitted, noMatch: { coverage: [0.2], similarity: [0.1], confidence: [0.5], threshold: -7, wordsThreshold: -5 } })).toBe(true);
    expect(shared.weightsChanged({ ...fitted, stepCalibration: { upper: [1], value: [0.5] } })).toBe(true);
  });

  it("applies other instances' verdicts once each, never its own, and reads past every one", () => {
    const shared = new SharedState(zero);
    const verdict = (seq: number) => ({ seq, patternId: 'transition:a>b', tools: ['a', 'b'], decision: 'approve' as const, at: seq });
    expect(shared.newVerdicts([verdict(1), verdict(2)]).map((v) => v.seq)).toEqual([1, 2]);
    expect(shared.lastVerdict).toBe(2);
    shared.noteOwnVerdict(4);
    // Read again from an older position: what was applied is not applied twice.
    expect(shared.newVerdicts([verdict(2), verdict(3), verdict(4), verdict(5)]).map((v) => v.seq)).toEqual([3, 5]);
    expect(shared.lastVerdict).toBe(5);
    expect(shared.newVerdicts([verdict(4), verdict(5)])).toEqual([]);
  });
});
