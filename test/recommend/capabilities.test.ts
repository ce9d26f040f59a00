import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { CAPABILITY_THRESHOLD, passiveScores } from '../../src/recommend/capability-items.js';
import { createRng } from '../../src/graph/rng.js';
import { buildCapabilityModel, mergeCapabilities, type CapabilityModel } from '../../src/recommend/capability-model.js';
import { buildModel } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import { expandCapability, rankCapabilities, scoreCapabilities } from '../../src/recommend/rank-capabilities.js';
import type { Capability } from '../../src/schema/capability.js';
import type { ToolInfo } from '../../src/schema/types.js';
import { expectCode } from '../helpers/expect-code.js';
import { trace } from '../helpers/traces.js';

function cap(id: string, tools: readonly string[], extra: Partial<Capability> = {}): Capability {
  return { id, description: '', tools, ordered: true, source: 'registered', successes: 0, failures: 0, examples: [], ...extra };
}

/** Two groups of tools, a* and b*, and capabilities inside each group (two connected components). */
const TOOLS = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'b3', 'b4', 'lonely'];
const CAPS = [
  cap('a12', ['a1', 'a2', 'a3', 'a4', 'a5'], { description: 'read the sales report' }),
  cap('a23', ['a1', 'a2', 'a3'], { description: 'summarise the sales report' }),
  cap('a34', ['a1', 'a2', 'a4', 'a5']),
  cap('X', ['a1', 'a4', 'a5'], { description: 'archive the report' }),
  cap('Y', ['b1', 'b2'], { description: 'send an email' }),
  cap('b23', ['b1', 'b2', 'b3', 'b4']),
  cap('b34', ['b2', 'b3', 'b4'], { description: 'schedule a meeting by email' }),
];

function graphOf(tools: readonly string[]): TransitionGraph {
  const g = new TransitionGraph();
  for (const t of tools) g.addTool(t);
  return g;
}

function capModel(capabilities: readonly Capability[] = CAPS, previous: CapabilityModel | null = null, traces = [] as ReturnType<typeof trace>[]) {
  const g = graphOf(TOOLS);
  const graph = { n: g.toolCount, indexByName: new Map(TOOLS.map((t, i) => [t, i])), names: TOOLS };
  return { graph, model: buildCapabilityModel(graph, new Map<string, ToolInfo>(), { capabilities, traces, previous }) };
}

describe('capability model', () => {
  it('co-clusters tools with their capabilities; an isolated tool has no cluster', () => {
    const { model } = capModel();
    const cl = (id: string) => model.capabilityClusters[model.indexById.get(id)!]!;
    const tl = (t: string) => model.toolClusters[TOOLS.indexOf(t)]!;
    expect(tl('lonely')).toBe(-1);
    expect(new Set(['a1', 'a2', 'a3', 'a4', 'a5'].map(tl)).size).toBe(1);
    expect(new Set(['b1', 'b2', 'b3', 'b4'].map(tl)).size).toBe(1);
    expect(tl('a1')).not.toBe(tl('b1'));
    for (const id of ['a12', 'a23', 'a34', 'X']) expect(cl(id)).toBe(tl('a1'));
    for (const id of ['Y', 'b23', 'b34']) expect(cl(id)).toBe(tl('b1'));
  });

  it('carries the previous co-clustering over when asked: old items keep theirs, new ones join their majority', () => {
    const { model: first } = capModel();
    const a = first.toolClusters[TOOLS.indexOf('a1')]!;
    const b = first.toolClusters[TOOLS.indexOf('b1')]!;
    const added = [
      ...CAPS,
      cap('mostly-a', ['a1', 'a2', 'b1']),
      cap('tie', ['a3', 'b3']),
      cap('with-lonely', ['lonely', 'b2', 'b4']),
    ];
    const { model } = capModel(added, first);
    const reused = buildCapabilityModel(
      { n: TOOLS.length, indexByName: new Map(TOOLS.map((t, i) => [t, i])) },
      new Map<string, ToolInfo>(),
      { capabilities: added, traces: [], previous: first, reuseClusters: true },
    );
    const cl = (m: CapabilityModel, id: string) => m.capabilityClusters[m.indexById.get(id)!]!;
    for (const c of CAPS) expect(cl(reused, c.id)).toBe(cl(first, c.id));
    expect(Array.from(reused.toolClusters.slice(0, TOOLS.indexOf('lonely')))).toEqual(Array.from(first.toolClusters.slice(0, TOOLS.indexOf('lonely'))));
    expect(cl(reused, 'mostly-a')).toBe(a);
    expect(cl(reused, 'tie')).toBe(Math.min(a, b));
    expect(cl(reused, 'with-lonely')).toBe(b);
    // The tool that was in no capability joins the cluster of the one it is now in.
    expect(reused.toolClusters[TOOLS.indexOf('lonely')]).toBe(b);
    expect(reused.k).toBe(first.k);
    expect(reused.nextFreshId).toBe(first.nextFreshId);
    // Everything else is computed afresh, as in a full build.
    expect(Array.from(reused.reliability)).toEqual(Array.from(model.reliability));
    expect(reused.matrix).toEqual(model.matrix);
  });

  it('keeps cluster ids across rebuilds (stable labels), whatever ids the previous model used', () => {
    const { model: first } = capModel();
    // A previous model whose ids are 7 and 3 instead of 0 and 1.
    const rename = (v: number) => (v === -1 ? -1 : v === 0 ? 7 : 3);
    const previous: CapabilityModel = { ...first, toolClusters: first.toolClusters.map(rename), capabilityClusters: first.capabilityClusters.map(rename), nextFreshId: 8 };
    // The rebuild lists capabilities in another order and adds one.
    const reordered = [...CAPS].reverse().concat(cap('new', ['b1', 'b3', 'b4']));
    const { model } = capModel(reordered, previous);
    for (const c of CAPS) {
      expect(model.capabilityClusters[model.indexById.get(c.id)!]).toBe(previous.capabilityClusters[previous.indexById.get(c.id)!]);
    }
    expect(Array.from(model.toolClusters)).toEqual(Array.from(previous.toolClusters));
    expect(model.capabilityClusters[model.indexById.get('new')!]).toBe(3);
  });

  it('scores reliability from registered counts and the traces that ran each capability', () => {
    const traces = [trace(['a1', 'a2', 'a3']), trace(['a2', 'x', 'a3', 'a1']), trace(['a1', 'a2', 'a3'], { success: false }), trace(['a1', 'a2'])];
    const { model } = capModel(CAPS, null, traces);
    const c = model.indexById.get('a23')!;
    expect([model.successes[c], model.failures[c]]).toEqual([2, 1]);
    expect(model.reliability[c]).toBeCloseTo(3 / 5, 15); // Beta(1 + 2, 1 + 1)
    expect(model.confidence[c]).toBeGreaterThan(0);
    const y = model.indexById.get('Y')!;
    expect(model.reliability[y]).toBe(0.5);
    expect(Number.isNaN(model.confidence[y]!)).toBe(true);
  });

  it('merges registered and learned capabilities, dropping learned duplicates of a tool set', () => {
    const merged = mergeCapabilities([cap('mine', ['a', 'b'])], [cap('learned:a+b', ['b', 'a'], { source: 'learned' }), cap('learned:b+c', ['b', 'c'], { source: 'learned' })]);
    expect(merged.map((c) => c.id)).toEqual(['mine', 'learned:b+c']);
  });
});

describe('rankCapabilities', () => {
  it('follows the three modes of spec 003 section 4.4', () => {
    const { graph, model } = capModel();
    const active = rankCapabilities(model, graph, { intent: 'the sales report', k: 10 });
    expect(active.mode).toBe('active-search');
    expect(active.items.map((i) => i.capability).slice(0, 2).sort()).toEqual(['a12', 'a23']);
    const passive = rankCapabilities(model, graph, { context: ['b3'], k: 10 });
    expect(passive.mode).toBe('passive-suggestion');
    expect(passive.items.map((i) => i.capability)).toEqual(['b34', 'b23']);
    expect(passive.items[0]!.relevance).toBeCloseTo(1 / 3, 15); // Jaccard({b3}, {b2, b3, b4})
    const exploration = rankCapabilities(model, graph, { k: 10 });
    expect(exploration.mode).toBe('exploration');
    // Hubs of each cluster: both clusters are represented.
    expect(new Set(exploration.items.map((i) => i.cluster)).size).toBe(2);
  });

  it('the spectral boost changes the ranking when clusters match, and boost 0 changes it back', () => {
    const { graph, model } = capModel();
    // Context: three a-tools and one b-tool. Jaccard: Y {b1,b2} 1/5 = 0.2 beats X {a1,a4,a5} 1/6.
    const context = ['a1', 'a2', 'a3', 'b1'];
    const tl = (t: string) => model.toolClusters[TOOLS.indexOf(t)]!;
    expect(model.capabilityClusters[model.indexById.get('X')!]).toBe(tl('a1'));
    expect(model.capabilityClusters[model.indexById.get('Y')!]).toBe(tl('b1'));
    const order = (boost: number) => rankCapabilities(model, graph, { context, boost, k: 10 }).items.map((i) => i.capability).filter((id) => id === 'X' || id === 'Y');
    expect(order(0)).toEqual(['Y', 'X']);
    // boost 1: X 1/6 x (1 + 3/4) = 0.292 > Y 0.2 x (1 + 1/4) = 0.25.
    expect(order(1)).toEqual(['X', 'Y']);
    expect(order(0)).toEqual(['Y', 'X']);
    const boosted = rankCapabilities(model, graph, { context, boost: 1, k: 10 }).items.find((i) => i.capability === 'X')!;
    expect(boosted.structuralBoost).toBeCloseTo(0.75, 15);
    expect(boosted.score).toBeCloseTo((1 / 6) * 1.75 * 0.5, 15);
  });

  it('with intent and context, keeps only capabilities that explain the context', () => {
    const { graph, model } = capModel();
    // 'report' matches a12, a23 and X; a23 lacks a4.
    const items = rankCapabilities(model, graph, { intent: 'report', context: ['a4'], k: 10 }).items;
    expect(items.map((i) => i.capability).sort()).toEqual(['X', 'a12']);
  });

  it('never ranks a capability whose failure rate is credibly above 50%', () => {
    const failing = cap('Y', ['b1', 'b2'], { failures: 10 });
    const { graph, model } = capModel([...CAPS.filter((c) => c.id !== 'Y'), failing]);
    expect(rankCapabilities(model, graph, { context: ['b1'], k: 10 }).items.map((i) => i.capability)).not.toContain('Y');
  });

  it('handles degenerate inputs: isolated tools, unknown-tool capabilities, k above the rows, no capabilities', () => {
    const { graph, model } = capModel();
    expect(rankCapabilities(model, graph, { context: ['lonely'] }).items).toEqual([]);
    const unknown = rankCapabilities(model, graph, { context: ['nope', 'b1'] });
    expect(unknown.unknownContext).toEqual(['nope']);
    // One capability of two tools: k is clamped to the rank (1 cluster).
    const single = capModel([cap('only', ['a1', 'a2'])]).model;
    expect(single.k).toBe(1);
    // An empty matrix: no capability has a known tool.
    const empty = capModel([cap('ghost', ['not-a-tool'])]);
    expect(empty.model.k).toBe(0);
    expect(Array.from(empty.model.capabilityClusters)).toEqual([-1]);
    expect(rankCapabilities(empty.model, empty.graph, { context: ['a1'] }).items).toEqual([]);
    expect(rankCapabilities(empty.model, empty.graph, {}).items).toEqual([]);
    expect(rankCapabilities(null, graph, { intent: 'x' }).items).toEqual([]);
  });

  it('expandCapability gives the tools in run order, NOT_FOUND otherwise', () => {
    const { model } = capModel([cap('c', ['a3', 'a1', 'a2'], { code: 'run()', ordered: true })]);
    expect(expandCapability(model, 'c')).toEqual({ id: 'c', tools: ['a3', 'a1', 'a2'], ordered: true, description: '', code: 'run()', source: 'registered' });
    expectCode(() => expandCapability(model, 'missing'), 'NOT_FOUND', 'missing');
    expectCode(() => expandCapability(null, 'c'), 'NOT_FOUND');
  });
});

describe('passiveScores (predictNext\'s candidates only)', () => {
  it('equals capabilityScore\'s passive suggestion on random capabilities and contexts', () => {
    const rng = createRng(7);
    const pick = () => TOOLS[Math.floor(rng() * (TOOLS.length - 1))]!;
    const caps = Array.from({ length: 30 }, (_, i) => cap(`r${i}`, [...new Set([pick(), pick(), pick()])], { successes: Math.floor(rng() * 4), failures: i % 7 === 0 ? 9 : Math.floor(rng() * 3) }));
    const { model } = capModel(caps);
    expect(Array.from(model.excluded)).toContain(1);
    let compared = 0;
    for (let q = 0; q < 50; q++) {
      const context = [...new Set([pick(), pick()])].map((t) => TOOLS.indexOf(t));
      for (const boost of [0, 0.7]) {
        const expected = scoreCapabilities(model, context, null, boost).ranked;
        const got = passiveScores(model, context, boost).sort((a, b) => b.score - a.score || a.capability - b.capability);
        expect(got.map((r) => r.capability)).toEqual(expected.map((r) => r.capability));
        compared += got.length;
        got.forEach((r, i) => {
          expect(r.score).toBeCloseTo(expected[i]!.score, 14);
          expect(r.structuralBoost).toBeCloseTo(expected[i]!.structuralBoost, 14);
        });
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('restricted to some next tools, keeps exactly the capabilities whose next tool is one of them', () => {
    const rng = createRng(11);
    const pick = () => TOOLS[Math.floor(rng() * (TOOLS.length - 1))]!;
    const caps = Array.from({ length: 30 }, (_, i) => cap(`r${i}`, [...new Set([pick(), pick(), pick()])], { successes: 1 + Math.floor(rng() * 4) }));
    const { model } = capModel(caps);
    const key = (r: { capability: number }) => r.capability;
    let kept = 0;
    for (let q = 0; q < 50; q++) {
      const context = [...new Set([pick(), pick()])].map((t) => TOOLS.indexOf(t));
      const among = new Map([pick(), pick(), pick()].map((t) => [TOOLS.indexOf(t), true]));
      const all = passiveScores(model, context, 0.5);
      const expected = all.filter((r) => among.has(r.next)).sort((a, b) => key(a) - key(b));
      const got = passiveScores(model, context, 0.5, among).sort((a, b) => key(a) - key(b));
      expect(got).toEqual(expected);
      kept += got.length;
    }
    expect(kept).toBeGreaterThan(10);
  });
});

describe('predictNext with capabilities', () => {
  function chainGraph(): TransitionGraph {
    const g = new TransitionGraph();
    for (let i = 0; i < 8; i++) g.ingest(trace(['a', 'b', 'c']));
    for (let i = 0; i < 2; i++) g.ingest(trace(['a', 'd']));
    return g;
  }

  it('is unchanged when there are no capabilities', () => {
    const g = chainGraph();
    const plain = predictNext(buildModel(g, new Map()), { context: ['a'], k: 3 });
    const none = predictNext(buildModel(g, new Map(), undefined, { capabilities: { capabilities: [], traces: [] } }), { context: ['a'], k: 3 });
    expect(none).toEqual(plain);
    expect(plain.items.every((i) => i.kind === 'tool')).toBe(true);
  });

  it('answers a predicted tool that starts a capability as that capability, in its place, tools untouched', () => {
    const g = chainGraph();
    const plain = predictNext(buildModel(g, new Map()), { context: ['a'], k: 3 });
    const caps = [cap('abc', ['a', 'b', 'c']), cap('cd', ['c', 'd']), cap('ad', ['a', 'd'], { failures: 20 })];
    const model = buildModel(g, new Map(), undefined, { capabilities: { capabilities: caps, traces: [] } });
    const result = predictNext(model, { context: ['a'], k: 3 });
    // One item per predicted tool, in the same order with the same scores.
    expect(result.items.map((i) => [i.tool, i.score])).toEqual(plain.items.map((i) => [i.tool, i.score]));
    const capItems = result.items.filter((i) => i.kind === 'capability');
    // 'cd' does not overlap the context; 'ad' is excluded (failures); 'abc' continues with b.
    expect(capItems.map((i) => (i.kind === 'capability' ? i.capability : ''))).toEqual(['abc']);
    const item = capItems[0]!;
    const b = plain.items.find((i) => i.tool === 'b')!;
    expect(item.tool).toBe('b');
    expect(item.signals).toEqual(b.signals);
    expect(result.items.indexOf(item)).toBe(plain.items.indexOf(b));
    // Its own score: Jaccard({a}, {a, b, c}) x reliability 0.5 (no outcomes yet); kept since P(b | a) x that >= 0.05.
    expect(item.kind === 'capability' ? item.capabilityScore : 0).toBeCloseTo((1 / 3) * 0.5, 12);
    expect(b.score * (1 / 3) * 0.5).toBeGreaterThan(CAPABILITY_THRESHOLD);
  });

  it('keeps one item per tool when two capabilities start with the same tool: the higher, ties by id', () => {
    const g = chainGraph();
    const caps = [cap('abc', ['a', 'b', 'c']), cap('ab', ['a', 'b']), cap('zab', ['a', 'b'])];
    const model = buildModel(g, new Map(), undefined, { capabilities: { capabilities: caps, traces: [] } });
    const result = predictNext(model, { context: ['a'], k: 3 });
    expect(result.items.length).toBeLessThanOrEqual(3);
    expect(new Set(result.items.map((i) => i.tool)).size).toBe(result.items.length);
    // Jaccard({a}, {a, b}) = 1/2 beats 1/3; 'ab' and 'zab' tie, the id decides.
    const b = result.items.find((i) => i.tool === 'b')!;
    expect(b.kind === 'capability' ? b.capability : '').toBe('ab');
  });

  it('drops capabilities under the threshold and those already done', () => {
    const g = chainGraph();
    const caps = [cap('big', ['a', 'b', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8']), cap('done', ['a'])];
    for (const t of ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8']) g.addTool(t);
    const model = buildModel(g, new Map(), undefined, { capabilities: { capabilities: caps, traces: [] } });
    // big: P(b) x 1/10 x 0.5 < 0.05; done: nothing missing.
    expect(predictNext(model, { context: ['a'], k: 3 }).items.every((i) => i.kind === 'tool')).toBe(true);
  });
});
