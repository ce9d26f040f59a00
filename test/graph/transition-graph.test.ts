import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { TransitionGraph, type TransitionStats } from '../../src/graph/transition-graph.js';
import { trace } from '../helpers/traces.js';

describe('TransitionGraph', () => {
  it('counts transitions, successes, failures and last seen', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b', 'c'], { timestamp: 10 }));
    g.ingest(trace(['a', 'b'], { timestamp: 30 }));
    g.ingest(trace(['a', 'b'], { success: false, timestamp: 20 }));
    const a = g.indexOf('a')!;
    const b = g.indexOf('b')!;
    const c = g.indexOf('c')!;
    expect(g.transition(a, b)).toMatchObject({ count: 3, success: 2, failure: 1, evidence: 2, lastSeen: 30 });
    expect(g.transition(b, c)).toMatchObject({ count: 1, success: 1, failure: 0, evidence: 1, lastSeen: 10 });
    expect(g.transition(b, a)).toBeUndefined();
    expect(g.edgeCount).toBe(2);
    expect(g.traces).toBe(3);
    expect(g.successfulTraces).toBe(2);
    expect(g.tool(a).name).toBe('a');
  });

  it('never strengthens an edge into a failed step', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', { name: 'b', ok: false }, 'c']));
    const [a, b, c] = ['a', 'b', 'c'].map((n) => g.indexOf(n)!);
    expect(g.transition(a!, b!)).toMatchObject({ count: 1, success: 0, failure: 1 });
    expect(g.transition(b!, c!)).toMatchObject({ count: 1, success: 1, failure: 0 });
    // A failed call does not count as a successful call of the tool.
    expect(g.tool(b!).calls).toBe(0);
    expect(g.tool(b!).seen).toBe(1);
  });

  it('weights success evidence by trace value', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b']), { value: 0.25 });
    g.ingest(trace(['a', 'b']), { value: 0.5 });
    expect(g.transition(g.indexOf('a')!, g.indexOf('b')!)!.evidence).toBeCloseTo(0.75, 12);
  });

  it('keeps second-order contexts (a, b) -> c', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b', 'c', 'd']));
    g.ingest(trace(['x', 'b', 'e']));
    const seen: string[] = [];
    g.forEachSecondOrder((a, b, c, s) => seen.push(`${g.names[a]}${g.names[b]}>${g.names[c]}:${s.count}`));
    expect(seen.sort()).toEqual(['ab>c:1', 'bc>d:1', 'xb>e:1']);
  });

  it('bumps the version on every change and not on lookups', () => {
    const g = new TransitionGraph();
    const v0 = g.version;
    g.addTool('a');
    const v1 = g.version;
    expect(v1).toBeGreaterThan(v0);
    g.addTool('a');
    g.indexOf('a');
    expect(g.version).toBe(v1);
    g.ingest(trace(['a', 'b']));
    expect(g.version).toBeGreaterThan(v1);
  });

  it('treats hostile and Unicode names as opaque strings', () => {
    const g = new TransitionGraph();
    const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', '🔧 tool', 'أداة', 'x'.repeat(1000)];
    g.ingest(trace(names));
    for (const name of names) expect(g.indexOf(name)).toBeTypeOf('number');
    expect(g.toolCount).toBe(names.length);
    expect(g.transition(g.indexOf('__proto__')!, g.indexOf('constructor')!)!.count).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'count')).toBe(false);
  });

  it('records intents of successful traces with their distinct tools', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b', 'a'], { intent: 'do a then b' }));
    g.ingest(trace(['a'], { intent: 'failed', success: false }));
    g.ingest(trace(['b']));
    // A successful trace that called no tool: nothing to credit, no record.
    g.ingest(trace([], { intent: 'just thinking' }));
    const [a, b] = [g.indexOf('a'), g.indexOf('b')];
    expect(g.intents()).toEqual([{ intent: 'do a then b', tools: [a, b], sequence: [a, b, a] }]);
    // A state written when such records were kept restores without them.
    const state = g.exportState();
    const older = { ...state, intents: ['just thinking', ...state.intents], intentOffsets: Int32Array.from([0, ...state.intentOffsets]) };
    expect(TransitionGraph.fromState(older).intents()).toEqual(g.intents());
  });

  it('gives every intent record its distinct tools in order of first use, short or long, ingested or restored', () => {
    const g = new TransitionGraph();
    const long = Array.from({ length: 20 }, (_, i) => `t${i % 7}`);
    const sequences = [['a', 'b', 'c'], ['c', 'a', 'c', 'b', 'a'], ['b', 'b'], long, Array.from({ length: 18 }, (_, i) => `u${i}`)];
    for (const tools of sequences) g.ingest(trace(tools, { intent: tools.join(' ') }));
    const expected = sequences.map((tools) => {
      const sequence = tools.map((t) => g.indexOf(t)!);
      return { intent: tools.join(' '), tools: [...new Set(sequence)], sequence };
    });
    expect(g.intents()).toEqual(expected);
    expect(TransitionGraph.fromState(g.exportState()).intents()).toEqual(expected);
  });

  it('keeps its counts current across interleaved reads and ingestion; a read is a copy', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'b']));
    expect(g.toolCount).toBe(2);
    expect(g.edgeCount).toBe(1);
    g.ingest(trace(['b', 'c', 'a']));
    g.ingest(trace(['a', 'b']));
    expect(g.toolCount).toBe(3);
    expect(g.edgeCount).toBe(3);
    const [a, b] = [g.indexOf('a')!, g.indexOf('b')!];
    const before = g.transition(a, b)!;
    expect(before.count).toBe(2);
    const outOfB: number[] = [];
    g.forEachTransition((from, to) => {
      if (from === b) outOfB.push(to);
    });
    expect(outOfB).toEqual([g.indexOf('c')]);
    for (let i = 0; i < 200; i++) g.ingest(trace(['a', 'b', `new${i}`]));
    expect(before.count).toBe(2);
    expect(g.transition(a, b)!.count).toBe(202);
    expect(g.edgeCount).toBe(203);
  });

  it('keeps exactly the statistics of one record per transition, through growth, restore and more ingestion', () => {
    // A reference with one object per transition and the documented update rule.
    const halfLifeMs = 1_000;
    const reference = new Map<string, TransitionStats>();
    const observe = (key: string, ok: boolean, value: number, at: number): void => {
      const s = reference.get(key) ?? { count: 0, success: 0, failure: 0, evidence: 0, lastSeen: 0, recentSuccess: 0, recentFailure: 0 };
      reference.set(key, s);
      s.count++;
      let weight = 1;
      if (at > s.lastSeen) {
        const decay = 2 ** (-(at - s.lastSeen) / halfLifeMs);
        s.recentSuccess *= decay;
        s.recentFailure *= decay;
        s.lastSeen = at;
      } else {
        weight = 2 ** (-(s.lastSeen - at) / halfLifeMs);
      }
      if (ok) {
        s.success++;
        s.evidence += value;
        s.recentSuccess += value * weight;
      } else {
        s.failure++;
        s.recentFailure += weight;
      }
    };
    const rng = createRng(9);
    let g = new TransitionGraph({ halfLifeMs });
    for (let t = 0; t < 3_000; t++) {
      const tools = Array.from({ length: 2 + Math.floor(rng() * 4) }, () => ({ name: `t${Math.floor(rng() * 40)}`, ok: rng() < 0.9 }));
      const success = rng() < 0.8;
      const value = Math.round(rng() * 4) / 4;
      // Out of order in time, so both branches of the decay are exercised.
      const timestamp = 10_000 + Math.floor(rng() * 5_000);
      g.ingest(trace(tools, { success, timestamp }), { value });
      for (let i = 1; i < tools.length; i++) {
        const ok = success && tools[i]!.ok;
        observe(`${tools[i - 1]!.name}>${tools[i]!.name}`, ok, value, timestamp);
        if (i >= 2) observe(`${tools[i - 2]!.name},${tools[i - 1]!.name}>${tools[i]!.name}`, ok, value, timestamp);
      }
      // Halfway, continue on a restored copy: its columns must grow from there.
      if (t === 1_500) g = TransitionGraph.fromState(g.exportState(), { halfLifeMs });
    }
    const got = new Map<string, Readonly<TransitionStats>>();
    g.forEachTransition((a, b, s) => got.set(`${g.names[a]}>${g.names[b]}`, s));
    g.forEachSecondOrder((a, b, c, s) => got.set(`${g.names[a]},${g.names[b]}>${g.names[c]}`, s));
    expect(got.size).toBe(reference.size);
    for (const [key, want] of reference) {
      const s = got.get(key)!;
      expect(s, key).toBeDefined();
      for (const field of Object.keys(want) as (keyof TransitionStats)[]) expect(s[field], `${key} ${field}`).toBeCloseTo(want[field], 9);
      const names = key.split(/[,>]/).map((n) => g.indexOf(n)!);
      expect(names.length === 2 ? g.transition(names[0]!, names[1]!) : g.secondOrder(names[0]!, names[1]!, names[2]!)).toEqual(s);
    }
    expect(g.edgeCount).toBe([...reference.keys()].filter((k) => !k.includes(',')).length);
    expect(g.secondOrder(g.indexOf('t0')!, g.indexOf('t0')!, 10_000)).toBeUndefined();
  });

  it('supports self-loops (a tool called twice in a row)', () => {
    const g = new TransitionGraph();
    g.ingest(trace(['a', 'a', 'a']));
    expect(g.transition(g.indexOf('a')!, g.indexOf('a')!)!.count).toBe(2);
  });
});
