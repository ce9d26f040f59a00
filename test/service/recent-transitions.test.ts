/**
 * Traces count in next-tool predictions before the model is rebuilt: the transition signals read
 * the live graph's successes since the snapshot beside it (recent-transitions.ts, features.ts).
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

/** Seeded traces over `tools` tools named t0.., some failing, some with a failed step. */
function traces(seed: number, count: number, tools: number, prefix: string): unknown[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) => {
    const length = 2 + Math.floor(rng() * 4);
    const names = Array.from({ length }, () => `t${Math.floor(rng() * tools)}`);
    const success = rng() > 0.15;
    if (rng() < 0.2) {
      // A step that failed in a successful trace: its incoming edge gains no success.
      return { id: `${prefix}${i}`, success, tools: names.map((name, j) => ({ name, ok: j !== 1 })) };
    }
    return { id: `${prefix}${i}`, tools: names, success };
  });
}

/** Each tool's transition and second-order signals after `context`, every tool ranked. */
function transitionSignals(tg: Toolgraph, context: string[]): Map<string, [number, number]> {
  const prediction = tg.predictNext({ context, k: 1_000 });
  const out = new Map<string, [number, number]>();
  for (const item of prediction.items) {
    if (item.kind === 'tool') out.set(item.tool, [item.signals.transition, item.signals.secondOrder]);
  }
  return out;
}

/** The probabilities of every ranked tool: the newer tools share the model's normaliser. */
function sumOfScores(tg: Toolgraph, context: string[]): number {
  return tg.predictNext({ context, k: 1_000 }).items.reduce((sum, item) => sum + item.score, 0);
}

/** A model of three traces (search, read twice; book, pay), rebuilds then held off. */
function modelOfThree(): Toolgraph {
  const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
  tg.ingest([
    { id: '1', tools: ['search', 'read'] },
    { id: '2', tools: ['search', 'read'] },
    { id: '3', tools: ['book', 'pay'] },
  ]);
  tg.rebuild();
  return tg;
}

describe('recent transitions', () => {
  it('gives the transition signals a rebuilt model would, before the rebuild', () => {
    const before = traces(1, 300, 30, 'a');
    // Later traces reach five tools the first model does not have.
    const after = traces(2, 200, 35, 'b');
    const live = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    live.ingest(before);
    live.rebuild();
    live.ingest(after);
    const version = live.stats().version;
    const fresh = expert({ learnCapabilities: false });
    fresh.ingest([...before, ...after]);
    fresh.rebuild();

    let changedContexts = 0;
    let compared = 0;
    let asked = 0;
    let newerRanked = 0;
    // Contexts with a tool the first model lacks (t30..t34), last or before the last: its
    // transitions are all recent.
    for (let a = 0; a < 35; a++) {
      const contexts = [[`t${a}`], ...Array.from({ length: 35 }, (_, b) => [`t${b}`, `t${a}`])];
      for (const context of contexts) {
        asked++;
        const got = transitionSignals(live, context);
        const want = transitionSignals(fresh, context);
        for (const [tool, signals] of got) {
          expect(signals[0]).toBeCloseTo(want.get(tool)![0], 12);
          expect(signals[1]).toBeCloseTo(want.get(tool)![1], 12);
          compared++;
        }
        // Tools the first model lacks are ranked where a live transition reaches them.
        const reached = [...want].filter(([tool, signals]) => Number(tool.slice(1)) >= 30 && signals[0] > 0);
        for (const [tool] of reached) expect(got.has(tool)).toBe(true);
        expect(got.size).toBe(30 + reached.length);
        newerRanked += reached.length;
        expect(sumOfScores(live, context)).toBeCloseTo(1, 12);
        if ([...got].some(([tool, s]) => s[0] !== 0 && want.get(tool)![0] !== 0)) changedContexts++;
      }
    }
    expect(compared).toBe(asked * 30 + newerRanked);
    expect(asked).toBe(35 * 36);
    expect(changedContexts).toBeGreaterThan(30);
    expect(newerRanked).toBeGreaterThan(50);
    // A new last tool is not unknown: the live graph has it.
    expect(live.predictNext({ context: ['t0', 't33'] }).unknownContext).toEqual([]);
    expect(transitionSignals(live, ['t33']).size).toBeGreaterThanOrEqual(30);
    expect([...transitionSignals(live, ['t0', 't33'])].some(([, s]) => s[0] > 0 && s[1] > 0)).toBe(true);
    // Answered by the first model all along.
    expect(live.stats().modelVersion).toBeLessThan(version);
    live.close();
    fresh.close();
  });

  it('ranks a transition seen only since the last rebuild', () => {
    const tg = modelOfThree();
    expect(tg.predictNext({ context: ['search'] }).items[0]!.tool).toBe('read');
    tg.ingest([1, 2, 3].map((i) => ({ id: `later${i}`, tools: ['search', 'pay'] })));
    const prediction = tg.predictNext({ context: ['search'] });
    expect(prediction.items[0]!.tool).toBe('pay');
    const pay = prediction.items[0]!;
    expect(pay.kind === 'tool' && pay.signals.transition).toBeCloseTo(3 / 5, 12);
    // The model that answered is still the one built before those traces.
    expect(prediction.version).toBeLessThan(tg.stats().version);
    // A failed trace adds no success: the signal stays.
    tg.ingest({ id: 'failed', tools: ['search', 'book'], success: false });
    const after = tg.predictNext({ context: ['search'] }).items.find((i) => i.kind === 'tool' && i.tool === 'pay')!;
    expect(after.kind === 'tool' && after.signals.transition).toBeCloseTo(3 / 5, 12);
    tg.close();
  });

  it('ranks a tool newer than the model where its live transitions reach it', () => {
    const tg = modelOfThree();
    tg.ingest([1, 2, 3].map((i) => ({ id: `new${i}`, tools: ['book', 'search', 'fresh'] })));
    const prediction = tg.predictNext({ context: ['book', 'search'], k: 2 });
    expect(prediction.version).toBeLessThan(tg.stats().version);
    expect(prediction.items.map((i) => i.tool)).toEqual(['fresh', 'read']);
    const fresh = prediction.items[0]!;
    expect(fresh.kind === 'tool' && [fresh.signals.transition, fresh.signals.secondOrder, fresh.signals.intent]).toEqual([3 / 5, 1, 0]);
    // Its probability comes out of the same normaliser as the model's tools'.
    const all = tg.predictNext({ context: ['book', 'search'], k: 10 }).items;
    expect(all).toHaveLength(5);
    expect(all.reduce((sum, item) => sum + item.score, 0)).toBeCloseTo(1, 12);
    // The seed formula scores it by its co-occurrence term alone (its community boost waits).
    const seed = tg.predictNext({ context: ['search'], k: 10, profile: 'seed' }).items.find((i) => i.tool === 'fresh');
    expect(seed?.score).toBeCloseTo(0.5 * (3 / 5 + 0.05 * Math.log2(3 + 1)), 12);
    expect(tg.predictNext({ context: ['search'], k: 1, profile: 'seed' }).items).toHaveLength(1);
    // Its popularity is read live, against the model's busiest tool (two calls).
    expect(fresh.signals.popularity).toBe(1);
    tg.ingest({ id: 'once', tools: ['pay', 'rare'] });
    expect(tg.predictNext({ context: ['pay'], k: 10 }).items.find((i) => i.tool === 'rare')?.signals.popularity).toBe(1 / 2);
    // A name that is a JavaScript object key is a tool like any other.
    tg.ingest({ id: 'proto', tools: ['read', '__proto__'] });
    expect(tg.predictNext({ context: ['read'] }).items[0]).toMatchObject({ tool: '__proto__', signals: { transition: 1 } });
    // A failed trace into a new tool adds no success, so nothing ranks it.
    tg.ingest({ id: 'failed', tools: ['pay', 'other'], success: false });
    expect(tg.predictNext({ context: ['pay'], k: 10 }).items.map((i) => i.tool)).not.toContain('other');
    // Once rebuilt, the model has it as any other tool.
    tg.rebuild();
    expect(tg.predictNext({ context: ['book', 'search'], k: 1 }).items[0]!.tool).toBe('fresh');
    tg.close();
  });

  it('reads no second order across a context tool known nowhere', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.ingest([
      ...[1, 2, 3].map((i) => ({ id: `a${i}`, tools: ['a', 'b', 'c'] })),
      ...[1, 2, 3].map((i) => ({ id: `x${i}`, tools: ['x', 'b', 'd'] })),
    ]);
    tg.rebuild();
    const signals = (context: string[]) =>
      tg.predictNext({ context, k: 10 }).items.map((i) => [i.tool, i.kind === 'tool' && i.signals.transition, i.kind === 'tool' && i.signals.secondOrder]);
    expect(signals(['a', 'b'])[0]).toEqual(['c', 1 / 2, 1]);
    // `a, never, b` is not the pair `a, b`: the unknown tool sits between them.
    const gap = tg.predictNext({ context: ['a', 'never', 'b'], k: 10 });
    expect(gap.unknownContext).toEqual(['never']);
    expect(signals(['a', 'never', 'b'])).toEqual(signals(['b']).map(([tool, transition]) => [tool, transition, 0]));
    // A tool newer than the model before the last: the pair is read live.
    tg.ingest([1, 2].map((i) => ({ id: `n${i}`, tools: ['new', 'b', 'd'] })));
    expect(signals(['new', 'b']).find(([tool]) => tool === 'd')).toEqual(['d', 5 / 8, 1]);
    // Search with context reads a context alike, a newer last tool included.
    const search = tg.searchTools({ query: 'anything', context: ['new'], k: 10 });
    expect(search.items.find((i) => i.tool === 'b')?.signals.transition).toBe(1);
    expect(search.unknownContext).toEqual([]);
    expect(tg.searchTools({ query: 'anything', context: ['a', 'never', 'b'] }).unknownContext).toEqual(['never']);
    tg.close();
  });

  it('counts them in a search with context too', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.setTools(['search', 'read', 'pay', 'book'].map((name) => ({ name, description: `${name} things` })));
    tg.ingest([
      { id: '1', tools: ['search', 'read'] },
      { id: '2', tools: ['book', 'pay'] },
    ]);
    tg.rebuild();
    tg.ingest({ id: '3', tools: ['search', 'pay'] });
    const pay = tg.searchTools({ query: 'things', context: ['search'], k: 4 }).items.find((i) => i.tool === 'pay');
    expect(pay?.signals.transition).toBeCloseTo(1 / 2, 12);
    tg.close();
  });

  it('predict from the first traces a model built before any reads live: no cold start then', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.setTools(['search', 'read', 'pay'].map((name) => ({ name, description: `${name} things` })));
    tg.rebuild();
    expect(tg.predictNext({ context: ['search'] }).kind).toBe('cold-start');
    tg.ingest([
      { id: '1', tools: ['search', 'pay'] },
      { id: '2', tools: ['search', 'pay'] },
      { id: '3', tools: ['search', 'read'] },
    ]);
    const live = tg.predictNext({ context: ['search'] });
    expect(live.version).toBeLessThan(tg.stats().version);
    expect(live.kind).toBe('prediction');
    expect(live.items[0]).toMatchObject({ tool: 'pay', signals: { transition: 2 / 3 } });
    // Search with context takes the graph's path as well.
    expect(tg.searchTools({ query: 'things', context: ['search'] }).items.find((i) => i.tool === 'pay')?.signals.transition).toBeCloseTo(2 / 3, 12);
    tg.close();
  });

  it('forgets what an installed model holds', () => {
    const tg = expert({ rebuildDelayMs: 60_000, learnCapabilities: false });
    tg.ingest([{ id: '1', tools: ['a', 'b', 'c'] }]);
    tg.rebuild();
    tg.ingest([{ id: '2', tools: ['a', 'c', 'b'] }]);
    expect(tg.stats().recentTransitions).toBe(3);
    tg.rebuild();
    expect(tg.stats().recentTransitions).toBe(0);
    const item = tg.predictNext({ context: ['a'] }).items.find((i) => i.kind === 'tool' && i.tool === 'c')!;
    expect(item.kind === 'tool' && item.signals.transition).toBeCloseTo(1 / 2, 12);
    tg.close();
  });
});
