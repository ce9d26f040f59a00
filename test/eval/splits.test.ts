import { describe, expect, it } from 'vitest';
import { splitsOf } from '../../src/eval/splits.js';
import { foldOf } from '../../src/recommend/folds.js';
import { parseWorkflowRecord, type WorkflowRecord } from '../../src/schema/trace.js';

function record(id: string, split: 'train' | 'test'): WorkflowRecord {
  return parseWorkflowRecord({ id, split, domain: 'd', source: 's', intent: `intent ${id}`, tools: ['a', 'b'], edges: [[0, 1]], structure: 'chain', ordered: true });
}

const workflows = Array.from({ length: 200 }, (_, i) => record(`w${i}`, i % 5 === 0 ? 'test' : 'train'));
const ids = (rs: readonly WorkflowRecord[]) => rs.map((r) => r.id);

describe('evaluation splits', () => {
  it('uses the split field by default', () => {
    const [split] = splitsOf(workflows);
    expect(ids(split!.test)).toEqual(ids(workflows.filter((w) => w.split === 'test')));
    expect(ids(split!.train)).toEqual(ids(workflows.filter((w) => w.split === 'train')));
  });

  it('with validation never reads the test split: a stable quarter of train is held out', () => {
    const [split] = splitsOf(workflows, { validation: true });
    const train = workflows.filter((w) => w.split === 'train');
    expect([...split!.train, ...split!.test].every((w) => w.split === 'train')).toBe(true);
    expect(ids(split!.test)).toEqual(ids(train.filter((w) => foldOf(w.id, 4) === 0)));
    expect(split!.train.length + split!.test.length).toBe(train.length);
    // Roughly a quarter, and the same quarter on every call.
    expect(split!.test.length).toBeGreaterThan(train.length * 0.15);
    expect(split!.test.length).toBeLessThan(train.length * 0.35);
    expect(ids(splitsOf(workflows, { validation: true })[0]!.test)).toEqual(ids(split!.test));
  });

  it('with folds and validation draws every fold from train alone, each record tested once', () => {
    const splits = splitsOf(workflows, { folds: 3, validation: true });
    expect(splits).toHaveLength(3);
    const tested = splits.flatMap((s) => ids(s.test)).sort();
    expect(tested).toEqual(ids(workflows.filter((w) => w.split === 'train')).sort());
    for (const s of splits) expect(s.train.length + s.test.length).toBe(160);
  });
});
