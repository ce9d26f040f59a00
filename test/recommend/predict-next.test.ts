import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { SIGNALS } from '../../src/recommend/features.js';
import { buildModel, PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import { scoreAllTools } from '../../src/recommend/score-all.js';
import type { ToolInfo } from '../../src/schema/types.js';
import { trace } from '../helpers/traces.js';

const tool = (name: string, description: string): ToolInfo => ({ name, description, params: [] });

function randomGraph(seed: number, tools = 40, traces = 300): TransitionGraph {
  const rng = createRng(seed);
  const g = new TransitionGraph();
  for (let t = 0; t < traces; t++) {
    const len = 2 + Math.floor(rng() * 4);
    const start = Math.floor(rng() * tools);
    const steps: string[] = [];
    for (let i = 0; i < len; i++) steps.push(`tool_${(start + Math.floor(rng() * 6) * (i + 1)) % tools}`);
    g.ingest(trace(steps, { intent: `task ${steps[0]} then ${steps[len - 1]}` }));
  }
  return g;
}

describe('predictNext', () => {
  it('answers cold-start from intent and catalogue alone', () => {
    const g = new TransitionGraph();
    const catalog = new Map([
      ['weather_get', tool('weather_get', 'Get the weather forecast for a city')],
      ['flight_search', tool('flight_search', 'Search flights between two airports')],
    ]);
    for (const name of catalog.keys()) g.addTool(name);
    const result = predictNext(buildModel(g, catalog), { context: [], intent: 'what is the weather forecast in Paris' });
    expect(result.kind).toBe('cold-start');
    expect(result.items[0]!.tool).toBe('weather_get');
    expect(result.items[0]!.signals.lexical).toBe(1);
  });

  it('ranks exactly as a dense sort of all tools, with probabilities that sum to one', () => {
    for (const seed of [1, 2, 3]) {
      const g = randomGraph(seed);
      const model = buildModel(g, new Map(), PRIOR_WEIGHTS, { seed });
      const dense = new Float64Array(model.graph.n);
      for (const [context, intent] of [
        [['tool_3'], null],
        [['tool_5', 'tool_11'], null],
        [['tool_7', 'tool_13'], 'task tool_7 then tool_19'],
        [[], 'task tool_2'],
      ] as const) {
        const result = predictNext(model, { context: [...context], ...(intent ? { intent } : {}), k: model.graph.n });
        scoreAllTools(model, context.map((c) => model.graph.indexByName.get(c)!), intent, 'next', dense);
        const order = Array.from({ length: model.graph.n }, (_, i) => i).sort((a, b) => dense[b]! - dense[a]! || a - b);
        expect(result.items.map((it) => it.tool)).toEqual(order.map((i) => model.graph.names[i]));
        const total = result.items.reduce((s, it) => s + it.score, 0);
        expect(total).toBeCloseTo(1, 9);
        for (let i = 1; i < result.items.length; i++) expect(result.items[i - 1]!.score).toBeGreaterThanOrEqual(result.items[i]!.score);
      }
    }
  });

  it('keeps every signal of the breakdown in [0, 1]', () => {
    const model = buildModel(randomGraph(4), new Map());
    const result = predictNext(model, { context: ['tool_1', 'tool_7'], intent: 'task tool_1 then tool_13', k: 40 });
    for (const item of result.items) {
      expect(Object.keys(item.signals).sort()).toEqual([...SIGNALS].sort());
      for (const v of Object.values(item.signals)) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
    }
  });

  it('follows the learned transition (hand-computed P1)', () => {
    const g = new TransitionGraph();
    for (let i = 0; i < 3; i++) g.ingest(trace(['a', 'b']));
    g.ingest(trace(['a', 'c']));
    const result = predictNext(buildModel(g, new Map()), { context: ['a'], k: 3 });
    expect(result.kind).toBe('prediction');
    expect(result.items[0]!.tool).toBe('b');
    // P1(b | a) = 3 / 4, P1(c | a) = 1 / 4.
    expect(result.items[0]!.signals.transition).toBeCloseTo(0.75, 12);
    expect(result.items.find((it) => it.tool === 'c')!.signals.transition).toBeCloseTo(0.25, 12);
  });

  it('scores the seed profile as spec 003 section 3 writes it', () => {
    const g = new TransitionGraph();
    for (let i = 0; i < 3; i++) g.ingest(trace(['a', 'b']));
    g.ingest(trace(['a', 'c']));
    const model = buildModel(g, new Map());
    const result = predictNext(model, { context: ['a'], k: 3, profile: 'seed' });
    const b = model.graph.indexByName.get('b')!;
    const a = model.graph.indexByName.get('a')!;
    const pr = model.graph.pagerank[b]!;
    const same = model.graph.communities[a] === model.graph.communities[b];
    // cooccurrence = min(0.95, 0.75 + min(0.05 * log2(3 + 1), 0.2)) = 0.85; AA(a, b) = 0 (no
    // common neighbour); community = min(0.95, 0.4 + min(2 pr, 0.2) + min(0.25 * 0.75, 0.25)).
    const community = same ? Math.min(0.95, 0.4 + Math.min(2 * pr, 0.2) + 0.1875) : 0;
    // Spec 003 section 3.3: a -> b has only successes, success rate 1: + min(0.15, 0.2 * 1) - 0.
    const expected = 0.5 * 0.85 + 0.25 * community + 0.15 * 0 + 0.1 * pr + 0.15;
    expect(result.profile).toBe('seed');
    expect(result.items[0]!.tool).toBe('b');
    expect(result.items[0]!.score).toBeCloseTo(expected, 12);
  });

  it('skips and reports context tools it has never seen', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['__proto__', 'constructor']));
    const result = predictNext(buildModel(g, new Map()), { context: ['never-seen', '__proto__'], k: 2 });
    expect(result.unknownContext).toEqual(['never-seen']);
    expect(result.items[0]!.tool).toBe('constructor');
  });

  it('treats an intent without content words as no intent', () => {
    const model = buildModel(randomGraph(5), new Map());
    const none = predictNext(model, { context: ['tool_3'], k: 10 });
    const empty = predictNext(model, { context: ['tool_3'], intent: 'the and of ... !', k: 10 });
    expect(empty.items).toEqual(none.items);
  });

  it('returns at most as many items as tools', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b']));
    expect(predictNext(buildModel(g, new Map()), { context: ['a'], k: 50 }).items).toHaveLength(2);
  });
});
