import { describe, expect, it } from 'vitest';
import { calibrateThreshold, heldOutAnswers, precisionCurve, type HeldOutAnswer } from '../../src/engine/confidence-threshold.js';
import { foldOf } from '../../src/recommend/folds.js';
import { PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';

const a = (confidence: number, correct: boolean): HeldOutAnswer => ({ confidence, correct });

describe('precisionCurve and calibrateThreshold', () => {
  it('cuts where the confidence changes, taking equal confidences together (hand-computed)', () => {
    const curve = precisionCurve([a(0.9, true), a(0.8, true), a(0.8, false), a(0.5, true)]);
    expect(curve).toEqual({ confidence: [0.9, 0.8, 0.5], coverage: [0.25, 0.75, 1], precision: [1, 2 / 3, 0.75] });
  });

  it('is the lowest confidence whose answers at or above it reach the target precision', () => {
    // 40 answers: 30 right at 0.9, then 10 at 0.4 of which 2 right.
    const answers = [...Array.from({ length: 30 }, () => a(0.9, true)), ...Array.from({ length: 10 }, (_, i) => a(0.4, i < 2))];
    expect(calibrateThreshold(answers, 0.95, 0.5)).toEqual({ value: 0.9, source: 'calibrated', positions: 40, coverage: 0.75, precision: 1 });
    // At a target of 0.8 every answer passes: 32/40 = 0.8.
    expect(calibrateThreshold(answers, 0.8, 0.5).value).toBe(0.4);
  });

  it('escalates everything (threshold 1) when no confidence reaches the target, and defaults with too few answers', () => {
    const wrong = Array.from({ length: 40 }, () => a(0.7, false));
    expect(calibrateThreshold(wrong, 0.95, 0.5).value).toBe(1);
    expect(calibrateThreshold(wrong.slice(0, 10), 0.95, 0.5)).toMatchObject({ value: 0.5, source: 'default' });
  });
});

describe('heldOutAnswers: cross-fitted by folds of a stable hash', () => {
  const catalog = new Map<string, ToolInfo>(['a', 'b', 'c', 'd'].map((name) => [name, { name, description: name, params: [] }]));
  const trace = (id: string, tools: string[]): Trace => ({ id, intent: '', domain: '', steps: tools.map((tool) => ({ tool, ok: true })), success: true, timestamp: 1 });

  it('answers every position of every fold with a model that never saw its trace', () => {
    const traces: Trace[] = [];
    for (let i = 0; i < 40; i++) traces.push(trace(`ab-${i}`, ['a', 'b']));
    // The only trace that goes c -> d: held out, the other folds have never seen c followed by anything.
    traces.push(trace('cd-0', ['c', 'd']));
    const answers = heldOutAnswers(traces, catalog, PRIOR_WEIGHTS, { folds: 4, seed: 1 });
    expect(answers).toHaveLength(41);
    // a -> b is learned from the other folds: right, and confident.
    expect(answers.filter((x) => x.correct)).toHaveLength(40);
    const fold = foldOf('cd-0', 4);
    expect(traces.filter((t) => foldOf(t.id, 4) === fold).length).toBeGreaterThan(0);
  });
});
