import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { capabilityOutcomes, TraceToolIndex } from '../../src/recommend/capability-evidence.js';
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

  it('gives the same from an index fed in pieces as from the traces at once', () => {
    const rng = createRng(5);
    const tools = ['a', 'b', 'c', 'd', 'e', 'f'];
    const pick = () => tools[Math.floor(rng() * tools.length)]!;
    const traces = Array.from({ length: 300 }, (_, i) => trace([pick(), pick(), pick()], { success: rng() > 0.3, timestamp: i }));
    const caps = [{ tools: ['a', 'b'] }, { tools: ['c', 'd', 'e'] }, { tools: ['f'] }, { tools: ['a', 'f', 'b'] }];
    const index = new TraceToolIndex();
    let from = 0;
    for (const to of [0, 1, 99, 100, 300]) {
      index.add(traces.slice(0, to), from);
      from = to;
      expect(capabilityOutcomes(caps, index)).toEqual(capabilityOutcomes(caps, traces.slice(0, to)));
    }
    expect(capabilityOutcomes(caps, index).successes[0]).toBeGreaterThan(10);
  });
});
