import { describe, expect, it } from 'vitest';
import { ToolGraph } from '../../../src/graph/tool-graph.js';
import { createRng } from '../../../src/graph/rng.js';
import { calibrate, fitPlatt, MIN_CALIBRATION_STEPS } from '../../../src/recommend/dag/calibration.js';
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

describe('Platt scaling of workflow steps', () => {
  it('recovers the scaling that generated the outcomes', () => {
    // Raw confidences too spread out: the truth is sigmoid(0.4 logit(p) + 1).
    const { confidence, correct } = outcomes(11, (p) => sigmoid(0.4 * logit(p) + 1));
    const s = fitPlatt(confidence, correct)!;
    expect(s.a).toBeCloseTo(0.4, 1);
    expect(s.b).toBeCloseTo(1, 1);
    expect(calibrate(0.01, s)).toBeCloseTo(sigmoid(0.4 * logit(0.01) + 1), 1);
  });

  it('leaves calibrated confidences as they are, and fits separable steps finitely', () => {
    const { confidence, correct } = outcomes(5, (p) => p);
    const s = fitPlatt(confidence, correct)!;
    expect(s.a).toBeCloseTo(1, 1);
    expect(s.b).toBeCloseTo(0, 1);
    // Every low step wrong, every high step right: Platt's targets keep the fit finite.
    const separable = fitPlatt([0.1, 0.2, 0.3, 0.7, 0.8, 0.9].flatMap((p) => Array<number>(10).fill(p)), [0.1, 0.2, 0.3, 0.7, 0.8, 0.9].flatMap((p) => Array<boolean>(10).fill(p > 0.5)))!;
    expect(Number.isFinite(separable.a) && Number.isFinite(separable.b)).toBe(true);
    expect(calibrate(0.9, separable)).toBeGreaterThan(0.9);
    expect(calibrate(0.1, separable)).toBeLessThan(0.1);
  });

  it('fits nothing on too few steps, and is monotone', () => {
    expect(fitPlatt(Array<number>(MIN_CALIBRATION_STEPS - 1).fill(0.5), Array<boolean>(MIN_CALIBRATION_STEPS - 1).fill(true))).toBeNull();
    const s = { a: 0.3, b: 0.8 };
    let last = 0;
    for (let p = 0; p <= 1; p += 0.01) {
      expect(calibrate(p, s)).toBeGreaterThanOrEqual(last);
      last = calibrate(p, s);
    }
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
    const g = new ToolGraph();
    for (const t of catalog) g.addTool(t.name);
    for (const t of traces()) g.ingest(t);
    const raw = suggestDag(buildModel(g, tools), { intent: 'book a flight to Rome' });
    // a = 0: every step gets sigmoid(b), whatever its raw confidence.
    const flat = suggestDag(buildModel(g, tools, { ...PRIOR_WEIGHTS, stepCalibration: { a: 0, b: logit(0.7) } }), { intent: 'book a flight to Rome' });
    expect(flat.nodes.map((n) => (n.kind === 'tool' ? n.tool : ''))).toEqual(raw.nodes.map((n) => (n.kind === 'tool' ? n.tool : '')));
    expect(flat.edges).toEqual(raw.edges);
    expect(raw.nodes.some((n) => Math.abs(n.confidence - 0.7) > 0.01)).toBe(true);
    for (const n of flat.nodes) expect(n.confidence).toBeCloseTo(0.7, 9);
  });

  it('the fit calibrates steps on its held-out workflows and lowers their cross-entropy', () => {
    const report = fitWeights(traces(), tools, { seed: 3 });
    expect(report.steps.workflows).toBe(120);
    expect(report.steps.steps).toBeGreaterThanOrEqual(MIN_CALIBRATION_STEPS);
    expect(report.steps.scaling).not.toBeNull();
    expect(report.weights.stepCalibration).toEqual(report.steps.scaling);
    expect(report.steps.lossAfter).toBeLessThanOrEqual(report.steps.lossBefore);
    expect(report.steps.correct).toBeGreaterThan(0);
  });

  it('the fit leaves steps raw when too few workflows were held out', () => {
    const report = fitWeights(traces().slice(0, 6), tools, { seed: 3 });
    expect(report.steps.steps).toBeLessThan(MIN_CALIBRATION_STEPS);
    expect(report.steps.scaling).toBeNull();
    expect(report.weights.stepCalibration).toBeUndefined();
  });
});
