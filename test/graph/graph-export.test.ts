import { describe, expect, it } from 'vitest';
import { exportGraph, toGraphml } from '../../src/graph/graph-export.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { trace } from '../helpers/traces.js';

describe('graph export', () => {
  const g = new TransitionGraph();
  g.ingest(trace(['a<b>&"c"', 'nul\u0000here', 'a<b>&"c"'], { timestamp: 5 }));
  g.ingest(trace(['a<b>&"c"', { name: 'nul\u0000here', ok: false }], { timestamp: 9 }));
  const exported = exportGraph(g, buildSnapshot(g, { seed: 1 }));

  it('lists every tool with its signals and every transition with its statistics (hand-counted)', () => {
    expect(exported.tools.map((t) => [t.name, t.calls, t.seen])).toEqual([
      ['a<b>&"c"', 3, 3],
      ['nul\u0000here', 1, 2],
    ]);
    expect(exported.transitions).toEqual([
      { from: 'a<b>&"c"', to: 'nul\u0000here', count: 2, success: 1, failure: 1, evidence: 1, lastSeen: 9 },
      { from: 'nul\u0000here', to: 'a<b>&"c"', count: 1, success: 1, failure: 0, evidence: 1, lastSeen: 5 },
    ]);
    expect(exported.tools.reduce((s, t) => s + t.pagerank, 0)).toBeCloseTo(1, 9);
    // JSON keeps every name exactly.
    expect(JSON.parse(JSON.stringify(exported))).toEqual(exported);
  });

  it('writes GraphML with escaped names, XML-invalid characters replaced, one edge element per transition', () => {
    const xml = toGraphml(exported);
    expect(xml).toContain('<data key="name">a&lt;b&gt;&amp;&quot;c&quot;</data>');
    expect(xml).toContain('<data key="name">nul\ufffdhere</data>');
    expect(xml).not.toContain('\u0000');
    expect(xml.match(/<edge /g)).toHaveLength(2);
    expect(xml).toContain('<edge id="e0" source="n0" target="n1">');
  });

  it('refuses a snapshot of another graph version', () => {
    const snapshot = buildSnapshot(g);
    g.addTool('later');
    expect(() => exportGraph(g, snapshot)).toThrow(RangeError);
  });
});
