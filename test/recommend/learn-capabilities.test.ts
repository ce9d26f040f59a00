import { describe, expect, it } from 'vitest';
import { CapabilityLearner, learnCapabilities, learnedCapabilityId } from '../../src/recommend/learn-capabilities.js';
import { createRng } from '../../src/graph/rng.js';
import { trace } from '../helpers/traces.js';

const times = (n: number, tools: Parameters<typeof trace>[0], extra: Parameters<typeof trace>[1] = {}) => Array.from({ length: n }, () => trace(tools, extra));

describe('learnCapabilities', () => {
  it('promotes a tool set at its third successful run, not before (spec 003 cold start)', () => {
    expect(learnCapabilities(times(2, ['search', 'book']))).toEqual([]);
    const learned = learnCapabilities(times(3, ['search', 'book'], { intent: 'book a hotel' }));
    expect(learned).toHaveLength(1);
    expect(learned[0]).toMatchObject({ id: 'learned:book+search', tools: ['search', 'book'], ordered: true, source: 'learned', description: 'book a hotel' });
    expect(learned[0]!.examples).toEqual(['book a hotel', 'book a hotel', 'book a hotel']);
  });

  it('ignores failed traces and failed calls', () => {
    expect(learnCapabilities([...times(2, ['a', 'b']), ...times(5, ['a', 'b'], { success: false })])).toEqual([]);
    // The failed call to x is not part of the group: three successful a, b runs.
    const learned = learnCapabilities(times(3, ['a', { name: 'x', ok: false }, 'b']));
    expect(learned.map((c) => c.tools)).toEqual([['a', 'b']]);
  });

  it('deduplicates identical tool sets: two orders are one capability, unordered', () => {
    const learned = learnCapabilities([...times(2, ['a', 'b', 'c']), ...times(1, ['c', 'a', 'b'])], { windowMin: 0 });
    expect(learned).toHaveLength(1);
    expect(learned[0]!.tools).toEqual(['a', 'b', 'c']); // the order seen most often
    expect(learned[0]!.ordered).toBe(false);
    expect(learned[0]!.id).toBe(learnedCapabilityId(['c', 'b', 'a']));
  });

  it('promotes a sub-sequence that recurs inside longer traces, counted once per trace', () => {
    const traces = [trace(['x', 'a', 'b', 'y']), trace(['z', 'a', 'b']), trace(['a', 'b', 'w', 'a', 'b'])];
    const learned = learnCapabilities(traces);
    expect(learned.map((c) => c.id)).toEqual(['learned:a+b']);
    // Windows off: no whole trace repeats.
    expect(learnCapabilities(traces, { windowMin: 0 })).toEqual([]);
  });

  it('keeps a sub-sequence only when it recurs outside one larger group (closed sets)', () => {
    expect(learnCapabilities(times(3, ['a', 'b', 'c'])).map((c) => c.id)).toEqual(['learned:a+b+c']);
    const reused = learnCapabilities([...times(3, ['a', 'b', 'c']), trace(['a', 'b', 'd'])]);
    expect(reused.map((c) => c.id).sort()).toEqual(['learned:a+b', 'learned:a+b+c']);
    expect(reused.find((c) => c.id === 'learned:a+b')!.examples).toEqual([]);
  });

  it('collapses consecutive repeats and skips single-tool groups', () => {
    expect(learnCapabilities(times(3, ['a', 'a', 'a']))).toEqual([]);
    expect(learnCapabilities(times(3, ['a', 'a', 'b'])).map((c) => c.tools)).toEqual([['a', 'b']]);
  });

  it('gives long tool sets a hashed, bounded id', () => {
    const tools = Array.from({ length: 10 }, (_, i) => `a_very_long_tool_name_number_${i}_for_ids`);
    const [cap] = learnCapabilities(times(3, tools), { windowMin: 0 });
    expect(cap!.id.length).toBeLessThan(40);
    expect(cap!.id).toBe(learnedCapabilityId([...tools].reverse()));
  });

  it('learns the same fed in pieces as in one call, and never changes what it returned before', () => {
    const rng = createRng(3);
    const tools = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const traces = Array.from({ length: 400 }, (_, i) => {
      const length = 2 + Math.floor(rng() * 4);
      const names = Array.from({ length }, () => tools[Math.floor(rng() * 4 + (i % 3))]!);
      return trace(
        names.map((name) => ({ name, ok: rng() > 0.1 })),
        { success: rng() > 0.2, intent: `task ${i % 7}` },
      );
    });
    const learner = new CapabilityLearner();
    let from = 0;
    let earlier = learner.capabilities();
    for (const to of [1, 7, 50, 51, 200, 400]) {
      learner.add(traces.slice(0, to), from);
      from = to;
      const snapshot = structuredClone(earlier);
      const now = learner.capabilities();
      expect(now).toEqual(learnCapabilities(traces.slice(0, to)));
      expect(earlier).toEqual(snapshot); // the arrays handed out before were not touched
      earlier = now;
    }
    expect(earlier.length).toBeGreaterThan(5);
  });

  it('reports a capability anew only when its traces changed it', () => {
    const learner = new CapabilityLearner({ windowMin: 0 });
    learner.add(times(3, ['a', 'b'], { intent: 'pay' }));
    const [ab] = learner.capabilities();
    learner.add(times(3, ['c', 'd'], { intent: 'ship' }));
    const [abAgain, cd] = learner.capabilities();
    expect(abAgain).toBe(ab);
    learner.add([trace(['b', 'a'], { intent: 'pay back' })]);
    const [abChanged, cdAgain] = learner.capabilities();
    expect(cdAgain).toBe(cd);
    expect(abChanged).not.toBe(ab);
    expect(abChanged).toMatchObject({ ordered: false, examples: ['pay', 'pay', 'pay', 'pay back'] });
    expect(ab).toMatchObject({ ordered: true, examples: ['pay', 'pay', 'pay'] });
  });

  it('keeps a report while a run changes nothing it says, and not once another order leads', () => {
    const learner = new CapabilityLearner({ windowMin: 0 });
    const seen: ReturnType<CapabilityLearner['capabilities']>[] = [];
    const all: ReturnType<typeof trace>[] = [];
    const feed = (batch: ReturnType<typeof trace>[]) => {
      learner.add(batch);
      all.push(...batch);
      const now = learner.capabilities();
      expect(now).toEqual(learnCapabilities(all, { windowMin: 0 }));
      seen.push(now);
    };
    feed(times(20, ['a', 'b'], { intent: 'pay' })); // the examples are full (maxExamples 20)
    feed(times(1, ['a', 'b'], { intent: 'pay' }));
    expect(seen[1]![0]).toBe(seen[0]![0]);
    feed(times(1, ['b', 'a'])); // a second order: no longer `ordered`
    expect(seen[2]![0]).not.toBe(seen[1]![0]);
    feed(times(20, ['b', 'a'])); // 21 against 21: the order seen first still leads
    expect(seen[3]![0]).toBe(seen[2]![0]);
    feed(times(1, ['b', 'a']));
    expect(seen[4]![0]!.tools).toEqual(['b', 'a']);
    expect(seen[2]![0]!.tools).toEqual(['a', 'b']);
  });
});
