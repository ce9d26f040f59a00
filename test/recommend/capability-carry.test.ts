import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { buildCapabilityModel, type CapabilityModel } from '../../src/recommend/capability-model.js';
import type { Capability } from '../../src/schema/capability.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { trace } from '../helpers/traces.js';

const WORDS = ['report', 'sales', 'email', 'send', 'weather', 'city', 'book', 'flight', 'hotel', '__proto__', 'constructor', 'résumé'];

function graphOf(names: readonly string[]) {
  return { n: names.length, names, indexByName: new Map(names.map((t, i) => [t, i])) };
}

/** The parts of a capability model a carried-over build must get exactly as a build from nothing. */
function carriedParts(m: CapabilityModel) {
  return {
    ids: m.capabilities.map((c) => c.id),
    members: m.members,
    matrix: m.matrix,
    successes: Array.from(m.successes),
    failures: Array.from(m.failures),
    reliability: Array.from(m.reliability),
    excluded: Array.from(m.excluded),
    confidence: Array.from(m.confidence),
    centrality: Array.from(m.centrality),
    text: m.text,
  };
}

describe('capability model carried over from the previous one', () => {
  it('equals a build from nothing through rounds of changed, new, dropped and reordered capabilities, new tools and catalogue edits', () => {
    const rng = createRng(11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
    const sentence = (): string => Array.from({ length: 1 + Math.floor(rng() * 4) }, () => pick(WORDS)).join(' ');
    const names: string[] = Array.from({ length: 30 }, (_, i) => `tool_${i}`);
    const catalog = new Map<string, ToolInfo>(names.map((name) => [name, { name, description: sentence(), params: [] }]));
    let catalogVersion = 0;
    let serial = 0;
    const newCap = (id = `cap${serial++}`): Capability => {
      const size = 2 + Math.floor(rng() * 3);
      // Now and then a tool the graph does not know yet (members incomplete until it does).
      const tools = [...new Set(Array.from({ length: size }, () => (rng() < 0.1 ? `later_${Math.floor(rng() * 5)}` : pick(names))))];
      return { id, description: sentence(), tools, ordered: true, source: 'learned', successes: Math.floor(rng() * 3), failures: Math.floor(rng() * 2), examples: [sentence(), sentence()] };
    };
    let caps: Capability[] = Array.from({ length: 40 }, () => newCap());
    const traces: Trace[] = [];
    let previous: CapabilityModel | null = null;
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 20; i++) {
        const c = pick(caps);
        traces.push(trace(c.tools, { success: rng() < 0.7, timestamp: 1_000 + traces.length }));
      }
      if (round > 0) {
        caps = caps.filter(() => rng() > 0.05).map((c) => (rng() < 0.1 ? { ...newCap(c.id) } : c));
        for (let i = 0; i < 4; i++) caps.push(newCap());
        if (rng() < 0.3) caps.reverse();
        if (rng() < 0.4) names.push(`later_${names.filter((n) => n.startsWith('later_')).length}`);
        if (rng() < 0.5) {
          const tool = pick(names);
          catalog.set(tool, { name: tool, description: sentence(), params: [] });
          catalogVersion++;
        }
      }
      const graph = graphOf([...names]);
      const carried = buildCapabilityModel(graph, catalog, { capabilities: caps, traces, previous, catalogVersion });
      const fresh = buildCapabilityModel(graph, catalog, { capabilities: caps, traces });
      expect(carriedParts(carried), `round ${round}`).toEqual(carriedParts(fresh));
      previous = carried;
    }
  });

  it('reads the tools again when the graph numbers them differently (a restored graph)', () => {
    const caps: Capability[] = [
      { id: 'c1', description: 'send the report', tools: ['a', 'b'], ordered: true, source: 'learned', successes: 1, failures: 0, examples: [] },
      { id: 'c2', description: 'book a flight', tools: ['b', 'c'], ordered: true, source: 'learned', successes: 0, failures: 0, examples: [] },
    ];
    const catalog = new Map<string, ToolInfo>();
    const first = buildCapabilityModel(graphOf(['a', 'b', 'c']), catalog, { capabilities: caps, traces: [] });
    const reordered = graphOf(['c', 'b', 'a']);
    const next = buildCapabilityModel(reordered, catalog, { capabilities: caps, traces: [], previous: first });
    expect(next.members).toEqual([[2, 1], [1, 0]]);
    expect(carriedParts(next)).toEqual(carriedParts(buildCapabilityModel(reordered, catalog, { capabilities: caps, traces: [] })));
  });

  it('checks every document when no catalogue version is given, and scores afresh under another prior', () => {
    const caps: Capability[] = [{ id: 'c1', description: '', tools: ['a', 'b'], ordered: true, source: 'learned', successes: 3, failures: 1, examples: [] }];
    const graph = graphOf(['a', 'b']);
    const catalog = new Map<string, ToolInfo>([['a', { name: 'a', description: 'weather in a city', params: [] }]]);
    const first = buildCapabilityModel(graph, catalog, { capabilities: caps, traces: [] });
    catalog.set('a', { name: 'a', description: 'hotel booking', params: [] });
    const next = buildCapabilityModel(graph, catalog, { capabilities: caps, traces: [], previous: first, prior: { alpha: 2, beta: 5 } });
    expect(next.text.terms).toContain('hotel');
    expect(next.text.terms).not.toContain('weather');
    expect(next.reliability[0]).toBeCloseTo(5 / 11, 15); // Beta(2 + 3, 5 + 1)
    expect(next.reliability[0]).not.toBe(first.reliability[0]);
  });
});
