import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../../src/graph/transition-graph.js';
import { createRng } from '../../../src/graph/rng.js';
import { calibrate, fitCalibration, MIN_CALIBRATION_STEPS, stepLoss, stepsRight } from '../../../src/recommend/dag/calibration.js';
import { suggestDag } from '../../../src/recommend/dag/suggest-dag.js';
import { fitWeights } from '../../../src/recommend/fit-weights.js';
import { buildModel, PRIOR_WEIGHTS } from '../../../src/recommend/model.js';
import type { ToolInfo } from '../../../src/schema/types.js';
import { trace } from '../../helpers/traces.js';

const logit = (p: number): number => Math.log(p / (1 - p));
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** 20,000 confidences uniform on (0.001, 0.999), each right with probability truth(confidence). */
function outcomes(seed: number, truth: (p: number) => number): { confidence: number[]; correct: boolean[] } {
  const rng = createRng(seed);
  const confidence: number[] = [];
  const correct: boolean[] = [];
  for (let i = 0; i < 20_000; i++) {
    const p = 0.001 + 0.998 * rng();
    confidence.push(p);
    correct.push(rng() < truth(p));
  }
  return { confidence, correct };
}

describe('isotonic calibration of workflow steps', () => {
  it('labels a step right while the record still holds its tool, and keeps a wrong certainty finite', () => {
    // `a` was recorded twice, `b` once: a third `a` and a second `b` are wrong, `c` never recorded.
    expect(stepsRight(['a', 'b', 'a', 'a', 'b', 'c'], ['b', 'a', 'a'])).toEqual([true, true, true, false, false, false]);
    expect(stepLoss(0.8, true)).toBeCloseTo(-Math.log(0.8), 12);
    expect(stepLoss(0.8, false)).toBeCloseTo(-Math.log(0.2), 12);
    expect(stepLoss(1, false)).toBeCloseTo(-Math.log(1e-6), 6);
    expect(stepLoss(0, true)).toBeCloseTo(-Math.log(1e-6), 6);
  });

  it('recovers the function that generated the outcomes', () => {
    // Raw confidences too spread out: the truth is sigmoid(0.4 logit(p) + 1).
    const truth = (p: number): number => sigmoid(0.4 * logit(p) + 1);
    const { confidence, correct } = outcomes(11, truth);
    const c = fitCalibration(confidence, correct)!;
    for (const p of [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]) expect(Math.abs(calibrate(p, c) - truth(p))).toBeLessThan(0.05);
    expect(c.value.length).toBeGreaterThan(10);
    for (let k = 1; k < c.value.length; k++) {
      expect(c.value[k]!).toBeGreaterThanOrEqual(c.value[k - 1]!);
      expect(c.upper[k]!).toBeGreaterThan(c.upper[k - 1]!);
    }
    // Calibrated already: left about as it is.
    const same = fitCalibration(...Object.values(outcomes(5, (p) => p)) as [number[], boolean[]])!;
    for (const p of [0.1, 0.3, 0.5, 0.7, 0.9]) expect(Math.abs(calibrate(p, same) - p)).toBeLessThan(0.05);
  });

  it('pools equal confidences and what a higher score does not beat, and never says 0 or 1', () => {
    // Half the steps at exactly 1 (a capped confidence) right 60% of the time, the rest spread
    // below and right 90% of the time: the best non-decreasing fit is one level for all.
    const confidence: number[] = [];
    const correct: boolean[] = [];
    for (let i = 0; i < 100; i++) {
      confidence.push(1, 0.2 + 0.006 * i);
      correct.push(i % 10 < 6, i % 10 < 9);
    }
    const c = fitCalibration(confidence, correct)!;
    expect(c.value.length).toBe(1); // 150 right of 200, pooled: a higher raw score is not more often right here
    expect(calibrate(1, c)).toBeCloseTo(150.5 / 201, 9);
    // Separable: every low step wrong, every high one right; still strictly inside (0, 1).
    const separable = fitCalibration([...Array<number>(20).fill(0.1), ...Array<number>(20).fill(0.9)], [...Array<boolean>(20).fill(false), ...Array<boolean>(20).fill(true)])!;
    expect(calibrate(0.1, separable)).toBeCloseTo(0.5 / 21, 9);
    expect(calibrate(0.9, separable)).toBeCloseTo(20.5 / 21, 9);
    // Below the first block and beyond the last: the nearest block.
    expect(calibrate(0, separable)).toBe(calibrate(0.1, separable));
    expect(calibrate(0.95, separable)).toBe(calibrate(0.9, separable));
  });

  it('fits nothing on too few steps', () => {
    expect(fitCalibration(Array<number>(MIN_CALIBRATION_STEPS - 1).fill(0.5), Array<boolean>(MIN_CALIBRATION_STEPS - 1).fill(true))).toBeNull();
  });
});

const catalog: ToolInfo[] = [
  { name: 'search_flights', description: 'Search flights between two cities', params: [] },
  { name: 'book_flight', description: 'Book a flight', params: [] },
  { name: 'get_weather', description: 'Weather forecast for a city', params: [] },
  { name: 'send_email', description: 'Send an email message', params: [] },
  { name: 'translate_text', description: 'Translate a text', params: [] },
];
const tools = new Map(catalog.map((t) => [t.name, t]));

function traces(): ReturnType<typeof trace>[] {
  const out: ReturnType<typeof trace>[] = [];
  for (let i = 0; i < 40; i++) {
    out.push(trace(['search_flights', 'book_flight'], { id: `f${i}`, intent: `find and book a flight to city ${i}` }));
    out.push(trace(['get_weather', 'send_email'], { id: `w${i}`, intent: `email me the weather forecast for city ${i}` }));
    out.push(trace(['translate_text', 'send_email'], { id: `t${i}`, intent: `translate note ${i} and email it` }));
  }
  return out;
}

describe('calibrated workflow steps', () => {
  it('suggestDag reports each step through the fitted scaling, and changes no step', () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (const t of traces()) g.ingest(t);
    const raw = suggestDag(buildModel(g, tools), { intent: 'book a flight to Rome' });
    // One level: every step gets 0.7, whatever its raw confidence.
    const flat = suggestDag(buildModel(g, tools, { ...PRIOR_WEIGHTS, stepCalibration: { upper: [1], value: [0.7] } }), { intent: 'book a flight to Rome' });
    expect(flat.nodes.map((n) => (n.kind === 'tool' ? n.tool : ''))).toEqual(raw.nodes.map((n) => (n.kind === 'tool' ? n.tool : '')));
    expect(flat.edges).toEqual(raw.edges);
    expect(raw.nodes.some((n) => Math.abs(n.confidence - 0.7) > 0.01)).toBe(true);
    for (const n of flat.nodes) expect(n.confidence).toBeCloseTo(0.7, 9);
  });

  it('the fit calibrates steps on its held-out workflows and lowers their cross-entropy', () => {
    const report = fitWeights(traces(), tools, { seed: 3 });
    expect(report.steps.workflows).toBe(120);
    expect(report.steps.steps).toBeGreaterThanOrEqual(MIN_CALIBRATION_STEPS);
    expect(report.steps.calibration).not.toBeNull();
    expect(report.weights.stepCalibration).toEqual(report.steps.calibration);
    expect(report.steps.lossAfter).toBeLessThanOrEqual(report.steps.lossBefore);
    expect(report.steps.correct).toBeGreaterThan(0);
  });

  it('the fit leaves steps raw when too few workflows were held out', () => {
    const report = fitWeights(traces().slice(0, 6), tools, { seed: 3 });
    expect(report.steps.steps).toBeLessThan(MIN_CALIBRATION_STEPS);
    expect(report.steps.calibration).toBeNull();
    expect(report.weights.stepCalibration).toBeUndefined();
  });
});
