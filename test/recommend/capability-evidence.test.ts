import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { capabilityOutcomes, TraceToolSets } from '../../src/recommend/capability-evidence.js';
import { trace } from '../helpers/traces.js';

describe('capabilityOutcomes', () => {
  it('counts a trace for a capability when it called every one of its tools, in any order (hand-computed)', () => {
    const traces = [
      trace(['a', 'b', 'c'], { timestamp: 10 }),
      trace(['c', 'x', 'a'], { success: false, timestamp: 30 }),
      trace(['a'], { timestamp: 50 }),
      trace(['b', 'a'], { timestamp: 20 }),
    ];
    const out = capabilityOutcomes([{ tools: ['a', 'c'] }, { tools: ['a', 'b'] }, { tools: ['z'] }, { tools: [] }], traces);
    expect(Array.from(out.successes)).toEqual([1, 2, 0, 0]);
    expect(Array.from(out.failures)).toEqual([1, 0, 0, 0]);
    expect(Array.from(out.lastSeen)).toEqual([30, 20, 0, 0]);
  });

  it('gives the same outcomes when traces are indexed as they arrive, past every growth of the index', () => {
    const rng = createRng(5);
    const names = ['__proto__', 'constructor', ...Array.from({ length: 150 }, (_, i) => `t${i}`)];
    const pick = () => names[Math.floor(rng() * rng() * names.length)]!;
    const traces = Array.from({ length: 3_000 }, (_, i) =>
      trace(Array.from({ length: 1 + Math.floor(rng() * 6) }, pick), { success: rng() < 0.7, timestamp: Math.floor(rng() * 1e6) + i }),
    );
    const capabilities = Array.from({ length: 200 }, () => ({ tools: Array.from({ length: 1 + Math.floor(rng() * 3) }, pick) }));
    capabilities.push({ tools: ['never_called'] }, { tools: [] });
    // Reference: the definition, by brute force over sets.
    const expected = capabilities.map(({ tools }) => {
      let successes = 0;
      let failures = 0;
      let lastSeen = 0;
      for (const t of traces) {
        const set = new Set(t.steps.map((s) => s.tool));
        if (tools.length === 0 || !tools.every((tool) => set.has(tool))) continue;
        if (t.success) successes++;
        else failures++;
        lastSeen = Math.max(lastSeen, t.timestamp);
      }
      return [successes, failures, lastSeen];
    });
    const index = new TraceToolSets();
    const list: typeof traces = [];
    for (let from = 0; from < traces.length; from += 700) {
      list.push(...traces.slice(from, from + 700));
      index.add(list);
    }
    expect(index.size).toBe(traces.length);
    for (const out of [index.outcomes(capabilities), capabilityOutcomes(capabilities, traces)]) {
      expect(capabilities.map((_, c) => [out.successes[c], out.failures[c], out.lastSeen[c]])).toEqual(expected);
    }
  });

  it('counts only the traces indexed since its last call, and a tool first called later', () => {
    const rng = createRng(11);
    const names = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const pick = () => names[Math.floor(rng() * rng() * names.length)]!;
    const traces = Array.from({ length: 2_000 }, (_, i) =>
      trace(Array.from({ length: 1 + Math.floor(rng() * 5) }, pick), { success: rng() < 0.6, timestamp: Math.floor(rng() * 1e6) + i }),
    );
    // A tool only the last traces call: its capability runs nowhere until then.
    for (let i = 1_900; i < 2_000; i += 7) traces[i] = trace(['late', 't0', 't1'], { timestamp: 2e6 + i });
    const capabilities = [...Array.from({ length: 60 }, () => ({ tools: Array.from({ length: 1 + Math.floor(rng() * 3) }, pick) })), { tools: ['late', 't1'] }];
    const index = new TraceToolSets();
    const list: typeof traces = [];
    for (let from = 0; from < traces.length; from += 300) {
      list.push(...traces.slice(from, from + 300));
      index.add(list);
      // The same objects at every call: the counts carried over must equal a count from scratch.
      const out = index.outcomes(capabilities);
      const fresh = capabilityOutcomes(capabilities, list);
      expect(Array.from(out.successes)).toEqual(Array.from(fresh.successes));
      expect(Array.from(out.failures)).toEqual(Array.from(fresh.failures));
      expect(Array.from(out.lastSeen)).toEqual(Array.from(fresh.lastSeen));
    }
    expect(index.outcomes(capabilities).successes[60]).toBe(15);
  });
});
