/**
 * Traces' intents count in next-tool predictions before the model is rebuilt: the intent signal
 * reads the association's counts of the traces since the model beside it (recent-intents.ts).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { EXPERT_WEIGHTS } from '../../src/recommend/model.js';

/**
 * A Toolgraph ranking with the product of experts, every signal counting: what these tests read
 * live is each signal, which the prior's simple rules leave out.
 */
function expert(options: ConstructorParameters<typeof Toolgraph>[0]): Toolgraph {
  const tg = new Toolgraph(options);
  tg.setWeights(EXPERT_WEIGHTS);
  return tg;
}

const WORDS = ['book', 'flight', 'hotel', 'rome', 'paris', 'weather', 'email', 'send', 'pay', 'invoice', 'cancel', 'refund'];
/** Words only the later traces use: the vocabulary grows with them. */
const LATER_WORDS = ['kayak', 'river', 'tent'];

/** Seeded traces with intents over `words` and `tools` tools named t0.., some failing, some without intent. */
function traces(seed: number, count: number, tools: number, words: readonly string[], prefix: string): unknown[] {
  const rng = createRng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const names = Array.from({ length: 1 + Math.floor(rng() * 3) }, () => `t${Math.floor(rng() * tools)}`);
    const intent = rng() < 0.1 ? '' : Array.from({ length: 1 + Math.floor(rng() * 4) }, () => pick(words)).join(' ');
    return { id: `${prefix}${i}`, intent, tools: names, success: rng() > 0.1 };
  });
}

/** Each ranked tool's intent signal for `intent` with no context, every tool ranked, by next-tool prediction or search. */
function intentSignals(tg: Toolgraph, intent: string, by: 'predict' | 'search' = 'predict'): Map<string, number> {
  const out = new Map<string, number>();
  const items = by === 'predict' ? tg.predictNext({ context: [], intent, k: 1_000 }).items : tg.searchTools({ query: intent, k: 1_000 }).items;
  for (const item of items) if (item.kind === 'tool') out.set(item.tool, item.signals.intent);
  return out;
}

/**
 * 300 traces, a model of them, and 200 later traces (five new tools, three new words) read live
 * beside it; and a model rebuilt on all 500.
 */
function liveAndRebuilt(): { before: unknown[]; after: unknown[]; live: Toolgraph; fresh: Toolgraph } {
  const before = traces(1, 300, 30, WORDS, 'a');
  const after = traces(2, 200, 35, [...WORDS, ...LATER_WORDS], 'b');
  const live = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
  live.ingest(before);
  live.rebuild();
  live.ingest(after);
  const fresh = expert({ learnCapabilities: false });
  fresh.ingest([...before, ...after]);
  fresh.rebuild();
  return { before, after, live, fresh };
}

describe('recent intents', () => {
  it('gives the intent signal a rebuilt model would, before the rebuild', () => {
    const { before, after, live, fresh } = liveAndRebuilt();

    const asked = [...WORDS, ...LATER_WORDS, 'book a kayak', 'river tent river', 'send the invoice', 'unknown words only', 'refund refund hotel tent'];
    let newerRanked = 0;
    for (const intent of asked) {
      const got = intentSignals(live, intent);
      const want = intentSignals(fresh, intent);
      for (const [tool, value] of got) expect(value).toBeCloseTo(want.get(tool)!, 12);
      // Every tool the rebuilt model gives some probability is ranked, the new ones included.
      for (const [tool, value] of want) if (value > 1e-10) expect(got.has(tool)).toBe(true);
      newerRanked += [...got.keys()].filter((tool) => Number(tool.slice(1)) >= 30).length;
    }
    expect(newerRanked).toBeGreaterThan(10);
    // A word only the later traces used moves the association already.
    expect([...intentSignals(live, 'kayak').values()].some((v) => v > 0.01)).toBe(true);
    // Answered by the first model all along, the later records read beside it (those with intent).
    expect(live.stats().modelVersion).toBeLessThan(live.stats().version);
    expect(live.stats().recentIntents).toBe(after.filter((t) => (t as { intent: string; success: boolean }).intent !== '' && (t as { success: boolean }).success).length);
    // A model holding the counted records drops them; later records are counted on top of it.
    live.rebuild();
    expect(live.stats().recentIntents).toBe(0);
    const later = traces(3, 60, 36, [...WORDS, ...LATER_WORDS, 'canoe'], 'c');
    live.ingest(later);
    const again = expert({ learnCapabilities: false });
    again.ingest([...before, ...after, ...later]);
    again.rebuild();
    for (const intent of ['kayak', 'canoe river', 'book a flight', 'tent']) {
      const want = intentSignals(again, intent);
      for (const [tool, value] of intentSignals(live, intent)) expect(value).toBeCloseTo(want.get(tool)!, 12);
    }
    live.close();
    fresh.close();
    again.close();
  });

  it('ranks the tool a new intent names first, before the rebuild and after it', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.ingest([
      { id: '1', intent: 'book a flight', tools: ['search', 'book'] },
      { id: '2', intent: 'check the weather', tools: ['weather'] },
    ]);
    tg.rebuild();
    tg.ingest([1, 2, 3].map((i) => ({ id: `k${i}`, intent: 'rent a kayak', tools: ['kayak_rental'] })));
    const prediction = tg.predictNext({ context: [], intent: 'kayak' });
    expect(prediction.version).toBeLessThan(tg.stats().version);
    expect(prediction.items[0]!.tool).toBe('kayak_rental');
    expect(prediction.items[0]!.kind === 'tool' && prediction.items[0]!.signals.intent).toBeGreaterThan(0.9);
    tg.rebuild();
    expect(tg.predictNext({ context: [], intent: 'kayak' }).items[0]!.tool).toBe('kayak_rental');
    tg.close();
  });

  it('count in search as in prediction: the same intent signals, and a new tool found by a new word', () => {
    const { live, fresh } = liveAndRebuilt();
    let newerRanked = 0;
    for (const intent of [...WORDS, ...LATER_WORDS, 'book a kayak', 'river tent river', 'refund refund hotel tent']) {
      const got = intentSignals(live, intent, 'search');
      const want = intentSignals(fresh, intent, 'search');
      for (const [tool, value] of got) expect(value).toBeCloseTo(want.get(tool)!, 12);
      for (const [tool, value] of want) if (value > 1e-10) expect(got.has(tool)).toBe(true);
      newerRanked += [...got.keys()].filter((tool) => Number(tool.slice(1)) >= 30).length;
      // Every tool ranked, the newer ones in the normaliser: the probabilities sum to 1.
      const all = live.searchTools({ query: intent, k: 1_000 }).items;
      expect(all.reduce((sum, item) => sum + item.score, 0)).toBeCloseTo(1, 12);
    }
    expect(newerRanked).toBeGreaterThan(10);
    expect(live.stats().modelVersion).toBeLessThan(live.stats().version);
    live.close();
    fresh.close();

    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.ingest([
      { id: '1', intent: 'book a flight', tools: ['search', 'book'] },
      { id: '2', intent: 'check the weather', tools: ['weather'] },
    ]);
    tg.rebuild();
    // A word the model has never seen: no match, until a trace's intent uses it.
    expect(tg.searchTools({ query: 'kayak' }).kind).toBe('no-match');
    tg.ingest([1, 2, 3].map((i) => ({ id: `k${i}`, intent: 'rent a kayak', tools: ['kayak_rental'] })));
    const found = tg.searchTools({ query: 'kayak' });
    expect(found.version).toBeLessThan(tg.stats().version);
    expect(found.kind).toBe('results');
    expect(found.coverage).toBe(1);
    expect(found.items[0]).toMatchObject({ tool: 'kayak_rental', reliability: 1, signals: { intent: expect.any(Number), popularity: 1, lexical: 0 } });
    expect(found.items[0]!.signals.intent).toBeGreaterThan(0.9);
    // Merged with the model's tools, a newer one keeps its place at every k, and the verdict and
    // coverage are read over the same first five tools whatever k (search-tools.ts, MATCH_TOOLS).
    const [one, ten] = [1, 10].map((k) => tg.searchTools({ query: 'a kayak flight', k }));
    expect(ten!.items.map((i) => i.tool)).toEqual(['kayak_rental', 'search', 'book', 'weather']);
    expect(one!.items).toEqual(ten!.items.slice(0, 1));
    expect(one).toMatchObject({ kind: ten!.kind, coverage: ten!.coverage });
    // Answered by the snapshot's formula alone, the seed profile ranks the model's tools only.
    expect(tg.searchTools({ query: 'kayak', profile: 'seed', k: 10 }).items.map((i) => i.tool)).not.toContain('kayak_rental');
    // With context, a newer tool that live transitions reach from it is ranked as well.
    tg.ingest({ id: 'x', intent: 'book a flight and a kayak', tools: ['book', 'kayak_rental'] });
    expect(tg.searchTools({ query: 'kayak', context: ['book'] }).items[0]).toMatchObject({ tool: 'kayak_rental', signals: { transition: 1 } });
    tg.rebuild();
    expect(tg.searchTools({ query: 'kayak' }).items[0]!.tool).toBe('kayak_rental');
    tg.close();
  });

  it('count in workflow suggestion: the searches that choose its tools read them', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.setTools(['search', 'book', 'weather', 'rent'].map((name) => ({ name, description: `${name} things` })));
    tg.ingest([
      { id: '1', intent: 'book a flight', tools: ['search', 'book'] },
      { id: '2', intent: 'check the weather', tools: ['weather'] },
      { id: '3', intent: 'hire a car', tools: ['rent'] },
    ]);
    tg.rebuild();
    const before = tg.suggestDag({ intent: 'kayak' });
    expect(before.nodes.map((n) => n.kind === 'tool' && n.tool)).not.toContain('rent');
    tg.ingest([1, 2, 3].map((i) => ({ id: `k${i}`, intent: 'rent a kayak', tools: ['rent'] })));
    const live = tg.suggestDag({ intent: 'kayak' });
    expect(live.version).toBeLessThan(tg.stats().version);
    expect(live.nodes[0]).toMatchObject({ kind: 'tool', tool: 'rent' });
    // A request of two clauses: each clause's own search reads them as well.
    const two = tg.suggestDag({ intent: 'book a flight, then a kayak' });
    expect(two.nodes.map((n) => n.kind === 'tool' && n.tool)).toEqual(expect.arrayContaining(['book', 'rent']));
    tg.rebuild();
    expect(tg.suggestDag({ intent: 'kayak' }).nodes[0]).toMatchObject({ kind: 'tool', tool: 'rent' });
    tg.close();
  });

  it('leave a trace that called no tool out of the similar tasks, before the rebuild and after it', () => {
    // A ReasoningTrace of thoughts only: successful, with an intent, and no tool to credit.
    const thinking = (id: string): unknown => ({
      id,
      metadata: { created_at: '2026-01-01T00:00:00Z', task_domain: 'x', success: true },
      task: { objective: 'book a kayak' },
      steps: [{ step_id: 0, type: 'thought', content: 'which river?' }],
      outcome: { result_summary: 'nothing booked', confidence: 1 },
    });
    const similarTool = (tg: Toolgraph): Record<string, number> =>
      Object.fromEntries(tg.predictNext({ context: [], intent: 'book a kayak', k: 10 }).items.flatMap((i) => (i.kind === 'tool' ? [[i.tool, i.signals.similarTool]] : [])));
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.ingest([thinking('r1'), { id: 'a', intent: 'send an email', tools: ['email'] }, { id: 'b', intent: 'book a kayak', tools: ['kayak', 'pay'] }]);
    tg.rebuild();
    // Indexed one place off, the kayak task's neighbour was the email task.
    expect(similarTool(tg)).toEqual({ kayak: 1, pay: 1, email: 0 });
    tg.ingest([thinking('r2'), { id: 'c', intent: 'book a kayak', tools: ['kayak'] }]);
    expect(similarTool(tg)).toMatchObject({ kayak: 1, email: 0 });
    tg.close();
  });

  it('count as similar past tasks in workflow suggestion: its length, order and repeats as a rebuilt model\'s', () => {
    const tools = ['search', 'book', 'weather', 'rent', 'pay'].map((name) => ({ name, description: `${name} things` }));
    const earlier = [1, 2, 3, 4].map((i) => ({ id: `p${i}`, intent: 'plan a trip', tools: ['search', 'book'] }));
    // Later: the same kind of request, three steps in an order no earlier trace took, one repeated.
    const later = [1, 2, 3].map((i) => ({ id: `k${i}`, intent: 'plan a kayak trip', tools: ['weather', 'rent', 'rent', 'pay'] }));
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.setTools(tools);
    tg.ingest(earlier);
    tg.rebuild();
    const shape = (dag: ReturnType<Toolgraph['suggestDag']>): { tools: string[]; edges: string[] } => {
      const toolOf = new Map(dag.nodes.map((n) => [n.id, n.kind === 'tool' ? n.tool : n.capability]));
      return { tools: dag.nodes.map((n) => toolOf.get(n.id)!), edges: dag.edges.map((e) => `${toolOf.get(e.from)}>${toolOf.get(e.to)}`) };
    };
    expect(shape(tg.suggestDag({ intent: 'plan a kayak trip' })).tools).toHaveLength(2);
    tg.ingest(later);
    const live = tg.suggestDag({ intent: 'plan a kayak trip' });
    expect(live.version).toBeLessThan(tg.stats().version);
    // The live graph's own transitions were learned from these traces too: the order is the
    // similar tasks', rent repeated as they repeat it.
    expect(shape(live)).toEqual({ tools: ['weather', 'rent', 'rent', 'pay'], edges: ['weather>rent', 'rent>rent', 'rent>pay'] });
    const fresh = expert({ learnCapabilities: false });
    fresh.setTools(tools);
    fresh.ingest([...earlier, ...later]);
    fresh.rebuild();
    expect(shape(live)).toEqual(shape(fresh.suggestDag({ intent: 'plan a kayak trip' })));
    // A context tool only the live graph knows is a step done: it shortens the workflow, as in
    // a rebuilt model, and is no unknown tool.
    const paddle = { id: 'w1', intent: 'wax the paddle', tools: ['paddle'] };
    tg.ingest([paddle]);
    fresh.ingest([paddle]);
    fresh.rebuild();
    const done = tg.suggestDag({ intent: 'plan a kayak trip', context: ['paddle'] });
    expect(done.warnings.join(' ')).not.toContain('unknown');
    expect(shape(done)).toEqual(shape(fresh.suggestDag({ intent: 'plan a kayak trip', context: ['paddle'] })));
    expect(done.nodes).toHaveLength(3);
    tg.rebuild();
    expect(shape(tg.suggestDag({ intent: 'plan a kayak trip' }))).toEqual(shape(live));
    tg.close();
    fresh.close();
  });

  it('count as similar past tasks: the similar-task signals a rebuilt model would give the model\'s tools', () => {
    const { before, after, live, fresh } = liveAndRebuilt();
    const similar = (tg: Toolgraph, context: readonly string[], intent: string): Map<string, [number, number]> => {
      const out = new Map<string, [number, number]>();
      for (const item of tg.predictNext({ context, intent, k: 1_000 }).items) {
        if (item.kind === 'tool') out.set(item.tool, [item.signals.similarTool, item.signals.similarNext]);
      }
      return out;
    };
    const asked: [readonly string[], string][] = [[[], 'book a kayak'], [['t3'], 'river tent river'], [['t1'], 'send the invoice'], [['t7'], 'refund hotel'], [[], 'weather'], [['t2'], 'cancel refund pay']];
    for (const [context, intent] of asked) {
      const got = similar(live, context, intent);
      const want = similar(fresh, context, intent);
      // The model's tools (t0..t29; the later traces add t30..t34, which have no row yet).
      for (const [tool, [similarTool, similarNext]] of got) {
        if (Number(tool.slice(1)) >= 30) continue;
        expect(similarTool).toBeCloseTo(want.get(tool)![0], 12);
        expect(similarNext).toBeCloseTo(want.get(tool)![1], 12);
      }
      for (const [tool, [similarTool]] of want) if (similarTool > 0 && Number(tool.slice(1)) < 30) expect(got.get(tool)?.[0]).toBeGreaterThan(0);
    }
    // A word only the later traces used finds them as similar tasks already.
    expect([...similar(live, [], 'kayak').values()].some(([similarTool]) => similarTool > 0)).toBe(true);
    // After an install drops what the model holds, later records count on top of it.
    live.rebuild();
    const later = traces(3, 60, 36, [...WORDS, ...LATER_WORDS, 'canoe'], 'c');
    live.ingest(later);
    const again = expert({ learnCapabilities: false });
    again.ingest([...before, ...after, ...later]);
    again.rebuild();
    for (const [context, intent] of [[['t4'], 'canoe river'], [[], 'book a flight'], [['t30'], 'tent']] as const) {
      const want = similar(again, context, intent);
      for (const [tool, [similarTool, similarNext]] of similar(live, context, intent)) {
        if (Number(tool.slice(1)) >= 35) continue;
        expect(similarTool).toBeCloseTo(want.get(tool)![0], 12);
        expect(similarNext).toBeCloseTo(want.get(tool)![1], 12);
      }
    }
    live.close();
    fresh.close();
    again.close();
  });
});
