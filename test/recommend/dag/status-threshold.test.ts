import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../../src/graph/transition-graph.js';
import { fitStatusThreshold, MIN_OK_WORKFLOWS, MIN_STATUS_WORKFLOWS, nodeF1, OK_NODE_F1, statusOf, type HeldOutDag } from '../../../src/recommend/dag/status-threshold.js';
import { suggestDag } from '../../../src/recommend/dag/suggest-dag.js';
import { fitWeights } from '../../../src/recommend/fit-weights.js';
import { buildModel, EXPERT_WEIGHTS } from '../../../src/recommend/model.js';
import { Toolgraph } from '../../../src/service/toolgraph.js';
import { expectCode } from '../../helpers/expect-code.js';
import type { ToolInfo } from '../../../src/schema/types.js';
import { trace } from '../../helpers/traces.js';

/** `n` DAGs of confidence `confidence`, each of two suggested and two recorded tools, `matched` right. */
const dags = (n: number, confidence: number, matched: number): HeldOutDag[] => Array.from({ length: n }, () => ({ confidence, matched, predicted: 2, gold: 2 }));

describe('the ok threshold of a DAG confidence', () => {
  it('is the least confidence from which the held-out DAGs reach the node-F1, with enough of them', () => {
    // 30 perfect DAGs at 0.9, 30 half-right at 0.7, 30 wrong at 0.6. From 0.9: F1 1; from 0.7:
    // 90 / 120 = 0.75 < 0.8; so 0.9.
    const fitted = fitStatusThreshold([...dags(30, 0.9, 2), ...dags(30, 0.7, 1), ...dags(30, 0.6, 0)], 0.5)!;
    expect(fitted).toEqual({ threshold: 0.9, target: OK_NODE_F1, nodeF1: 1, share: 1 / 3 });
    // 40 perfect at 0.9, 10 half-right at 0.7: from 0.7, (80 + 10) x 2 / 200 = 0.9 >= 0.8.
    const wider = fitStatusThreshold([...dags(40, 0.9, 2), ...dags(10, 0.7, 1), ...dags(10, 0.6, 0)], 0.5)!;
    expect(wider.threshold).toBe(0.7);
    expect(wider.nodeF1).toBeCloseTo(0.9, 12);
    expect(wider.share).toBeCloseTo(50 / 60, 12);
  });

  it('never goes below the floor, and says no DAG is ok when none keeps the promise', () => {
    // Every DAG perfect, but those under the floor (the reject threshold) are not candidates.
    expect(fitStatusThreshold([...dags(30, 0.8, 2), ...dags(30, 0.3, 2)], 0.5)!.threshold).toBe(0.8);
    expect(fitStatusThreshold(dags(60, 0.9, 1), 0.5)).toEqual({ threshold: 1, target: OK_NODE_F1, nodeF1: 0, share: 0 });
    // Right, but fewer than MIN_OK_WORKFLOWS above the threshold: the set must grow to 30.
    const few = fitStatusThreshold([...dags(MIN_OK_WORKFLOWS - 1, 0.95, 2), ...dags(5, 0.9, 2), ...dags(30, 0.6, 0)], 0.5)!;
    expect(few.threshold).toBe(0.9);
    // Too few held-out DAGs at all: no threshold.
    expect(fitStatusThreshold(dags(MIN_STATUS_WORKFLOWS - 1, 0.9, 2), 0.5)).toBeNull();
  });

  it('does not split DAGs of equal confidence', () => {
    // 30 at 0.8, 20 of them perfect, 10 wrong: F1 2/3 whatever their order.
    const mixed = [...dags(20, 0.8, 2), ...dags(10, 0.8, 0)];
    expect(fitStatusThreshold([...mixed, ...dags(10, 0.6, 2)], 0.5)!.threshold).toBe(1);
  });

  it('names the statuses by the thresholds, and F1 is 2 TP / (predicted + gold)', () => {
    expect([statusOf(0.4, 0.5, 0.7), statusOf(0.6, 0.5, 0.7), statusOf(0.7, 0.5, 0.7)]).toEqual(['reject', 'warn', 'ok']);
    expect(nodeF1(3, 4, 5)).toBeCloseTo(6 / 9, 12);
    expect(nodeF1(0, 0, 0)).toBe(0);
  });
});

const catalog: ToolInfo[] = ['search_flights', 'book_flight', 'get_weather', 'send_email', 'translate_text'].map((name) => ({ name, description: name.replace('_', ' '), params: [] }));
const tools = new Map(catalog.map((t) => [t.name, t]));

const CITIES = ['Rome', 'Paris', 'Oslo', 'Lima', 'Cairo', 'Tokyo', 'Quito', 'Dakar'];

/** Three kinds of task over a few cities, so that held-out requests resemble recorded ones (no-match.ts). */
function traces(): ReturnType<typeof trace>[] {
  const out: ReturnType<typeof trace>[] = [];
  for (let i = 0; i < 48; i++) {
    const city = CITIES[i % CITIES.length]!;
    out.push(trace(['search_flights', 'book_flight'], { id: `f${i}`, intent: `find and book a flight to ${city}` }));
    out.push(trace(['get_weather', 'send_email'], { id: `w${i}`, intent: `email me the weather forecast for ${city}` }));
    out.push(trace(['translate_text', 'send_email'], { id: `t${i}`, intent: `translate the note from ${city} and email it` }));
  }
  return out;
}

describe('the fitted ok threshold in suggestDag', () => {
  it('the fit sets it on its held-out workflows, stores it with the weights, and reports what each status holds', () => {
    const report = fitWeights(traces(), tools, { seed: 3 });
    const status = report.status;
    expect(status.workflows).toBe(144);
    expect(status.noMatch).toBeLessThan(status.workflows / 2);
    expect(status.calibration).not.toBeNull();
    expect(report.weights.dagStatus).toEqual(status.calibration);
    const c = status.calibration!;
    // Each kind of task is easy: every DAG search lets through is right, and ok.
    expect(c.share).toBe(1);
    expect(c.nodeF1).toBeGreaterThanOrEqual(OK_NODE_F1);
    expect(status.okNodeF1).toBeCloseTo(c.nodeF1, 12);
    expect(status.okWorkflows).toBe(status.workflows - status.noMatch);
    expect(status.okWorkflows + status.otherWorkflows).toBe(status.workflows);
  });

  it('decides ok and warn in place of spec 003\'s 0.65, unless the request sets its own warn threshold', () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (const t of traces()) g.ingest(t);
    const intent = 'find and book a flight to Rome';
    // Every signal counting (the product of experts), as a fitted ranker's.
    const plain = suggestDag(buildModel(g, tools, EXPERT_WEIGHTS), { intent });
    expect(plain.status).toBe('ok');
    const above = { threshold: Math.min(1, plain.confidence + 0.01), target: 0.8, nodeF1: 0.85, share: 0.5 };
    const strict = suggestDag(buildModel(g, tools, { ...EXPERT_WEIGHTS, dagStatus: above }), { intent });
    expect(strict.status).toBe('warn');
    expect(strict.warnings.some((w) => w.includes('node-F1 0.8'))).toBe(true);
    expect(suggestDag(buildModel(g, tools, { ...EXPERT_WEIGHTS, dagStatus: above }), { intent, thresholds: { warn: 0.6 } }).status).toBe('ok');
    const below = { ...above, threshold: Math.max(0.5, plain.confidence - 0.01) };
    expect(suggestDag(buildModel(g, tools, { ...EXPERT_WEIGHTS, dagStatus: below }), { intent }).status).toBe('ok');
  });

  it('reaches the facade: a request without its own warn threshold gets the fitted one', () => {
    const tg = new Toolgraph();
    tg.setWeights(EXPERT_WEIGHTS);
    tg.setTools(catalog);
    tg.ingest(traces().map((t) => ({ id: t.id, intent: t.intent, tools: t.steps.map((x) => x.tool) })));
    const intent = 'find and book a flight to Rome';
    const plain = tg.suggestDag({ intent });
    // Unfitted, spec 003's 0.65 decides; this workflow sits between the reject threshold and it.
    expect(plain.confidence).toBeGreaterThan(0.5);
    expect(plain.confidence).toBeLessThan(0.65);
    expect(plain.status).toBe('warn');
    const fitted = (threshold: number) => ({ ...EXPERT_WEIGHTS, dagStatus: { threshold, target: 0.8, nodeF1: 0.85, share: 0.5 } });
    tg.setWeights(fitted(0.5));
    tg.rebuild();
    expect(tg.suggestDag({ intent }).status).toBe('ok');
    expect(tg.suggestDag({ intent, thresholds: { reject: 0.1 } }).status).toBe('ok');
    expect(tg.suggestDag({ intent, thresholds: { warn: 0.65 } }).status).toBe('warn');
    tg.setWeights(fitted(0.9));
    tg.rebuild();
    expect(tg.suggestDag({ intent }).status).toBe('warn');
    // A reject threshold above the fitted one is the request's to set; reject above warn is not.
    expect(tg.suggestDag({ intent, thresholds: { reject: 0.999 } }).status).toBe('reject');
    expectCode(() => tg.suggestDag({ intent, thresholds: { reject: 0.9, warn: 0.5 } }), 'INVALID_INPUT', 'thresholds');
    tg.close();
  });
});
