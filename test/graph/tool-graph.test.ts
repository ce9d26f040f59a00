import { describe, expect, it } from 'vitest';
import { ToolGraph } from '../../src/graph/tool-graph.js';
import { trace } from '../helpers/traces.js';

describe('ToolGraph', () => {
  it('counts transitions, successes, failures and last seen', () => {
    const g = new ToolGraph();
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
    // graphology, keyed by tool index, holds the same statistics objects.
    expect(g.graph.getEdgeAttributes(String(a), String(b)).success).toBe(2);
    expect(g.graph.getNodeAttribute(String(a), 'name')).toBe('a');
  });

  it('never strengthens an edge into a failed step', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', { name: 'b', ok: false }, 'c']));
    const [a, b, c] = ['a', 'b', 'c'].map((n) => g.indexOf(n)!);
    expect(g.transition(a!, b!)).toMatchObject({ count: 1, success: 0, failure: 1 });
    expect(g.transition(b!, c!)).toMatchObject({ count: 1, success: 1, failure: 0 });
    // A failed call does not count as a successful call of the tool.
    expect(g.tool(b!).calls).toBe(0);
    expect(g.tool(b!).seen).toBe(1);
  });

  it('weights success evidence by trace value', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', 'b']), { value: 0.25 });
    g.ingest(trace(['a', 'b']), { value: 0.5 });
    expect(g.transition(g.indexOf('a')!, g.indexOf('b')!)!.evidence).toBeCloseTo(0.75, 12);
  });

  it('keeps second-order contexts (a, b) -> c', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', 'b', 'c', 'd']));
    g.ingest(trace(['x', 'b', 'e']));
    const seen: string[] = [];
    g.forEachSecondOrder((a, b, c, s) => seen.push(`${g.names[a]}${g.names[b]}>${g.names[c]}:${s.count}`));
    expect(seen.sort()).toEqual(['ab>c:1', 'bc>d:1', 'xb>e:1']);
  });

  it('bumps the version on every change and not on lookups', () => {
    const g = new ToolGraph();
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
    const g = new ToolGraph();
    const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', '🔧 tool', 'أداة', 'x'.repeat(1000)];
    g.ingest(trace(names));
    for (const name of names) expect(g.indexOf(name)).toBeTypeOf('number');
    expect(g.toolCount).toBe(names.length);
    expect(g.transition(g.indexOf('__proto__')!, g.indexOf('constructor')!)!.count).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'count')).toBe(false);
  });

  it('records intents of successful traces with their distinct tools', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', 'b', 'a'], { intent: 'do a then b' }));
    g.ingest(trace(['a'], { intent: 'failed', success: false }));
    g.ingest(trace(['b']));
    const [a, b] = [g.indexOf('a'), g.indexOf('b')];
    expect(g.intents()).toEqual([{ intent: 'do a then b', tools: [a, b], sequence: [a, b, a] }]);
  });

  it('keeps the graphology view current across interleaved reads and ingestion', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', 'b']));
    expect(g.graph.order).toBe(2);
    expect(g.graph.size).toBe(1);
    g.ingest(trace(['b', 'c', 'a']));
    g.ingest(trace(['a', 'b']));
    expect(g.graph.order).toBe(3);
    expect(g.graph.size).toBe(3);
    const [a, b] = [g.indexOf('a')!, g.indexOf('b')!];
    expect(g.graph.getEdgeAttributes(String(a), String(b)).count).toBe(2);
    expect(g.graph.outNeighbors(String(b))).toEqual([String(g.indexOf('c'))]);
  });

  it('supports self-loops (a tool called twice in a row)', () => {
    const g = new ToolGraph();
    g.ingest(trace(['a', 'a', 'a']));
    expect(g.transition(g.indexOf('a')!, g.indexOf('a')!)!.count).toBe(2);
  });
});
