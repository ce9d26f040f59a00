import { describe, expect, it } from 'vitest';
import { capabilityOutcomes } from '../../src/recommend/capability-evidence.js';
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
});
