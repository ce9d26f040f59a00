import { describe, expect, it } from 'vitest';
import { csrFromEdges, symmetrizeCsr } from '../../src/graph/csr.js';
import { createRng } from '../../src/graph/rng.js';
import { pagerank } from '../../src/graph/pagerank.js';
import { buildSnapshot, secondOrderRow } from '../../src/graph/snapshot.js';
import { pairKey, TransitionGraph } from '../../src/graph/transition-graph.js';
import { trace } from '../helpers/traces.js';

describe('buildSnapshot', () => {
  it("aligns every per-edge array with `out`, and builds the undirected view from the successful transitions only", () => {
    const rng = createRng(9);
    const graph = new TransitionGraph();
    for (let i = 0; i < 400; i++) {
      const tools = Array.from({ length: 2 + Math.floor(rng() * 4) }, () => ({ name: `t${Math.floor(rng() * 30)}`, ok: rng() < 0.8 }));
      graph.ingest(trace(tools, { success: rng() < 0.7, timestamp: i }));
    }
    const snapshot = buildSnapshot(graph);
    const stats = new Map<string, { success: number; failure: number; count: number }>();
    const src: number[] = [];
    const dst: number[] = [];
    const w: number[] = [];
    graph.forEachTransition((a, b, s) => {
      stats.set(`${a} ${b}`, { success: s.success, failure: s.failure, count: s.count });
      if (s.success > 0) {
        src.push(a);
        dst.push(b);
        w.push(s.success);
      }
    });
    // Some transitions were seen only in failures: the case the undirected view must drop.
    expect([...stats.values()].some((s) => s.success === 0)).toBe(true);
    const { out } = snapshot;
    for (let u = 0; u < out.n; u++) {
      for (let j = out.offsets[u]!; j < out.offsets[u + 1]!; j++) {
        const s = stats.get(`${u} ${out.targets[j]}`)!;
        expect([out.weights[j], snapshot.outFailures[j], snapshot.outCounts[j]]).toEqual([s.success, s.failure, s.count]);
      }
    }
    expect(out.offsets[out.n]).toBe(stats.size);
    expect(snapshot.undirected).toEqual(symmetrizeCsr(csrFromEdges(graph.toolCount, src, dst, w)));
    expect(snapshot.edgeCount).toBe(src.length);
    // PageRank runs on the successful transitions (sharing their transpose with the undirected
    // view): the same scores, to the bit, as on every transition with its zero weights.
    expect(Array.from(snapshot.pagerank)).toEqual(Array.from(pagerank(out, { alpha: 0.85, weighted: true }).scores));
  });

  it('holds each successful second-order context row sorted by target, a hub pair with many successors included', () => {
    const rng = createRng(4);
    const graph = new TransitionGraph();
    // A hub context (h0, h1) followed by 60 different tools, in shuffled order, some only in failures.
    const successors = Array.from({ length: 60 }, (_, i) => `s${i}`).sort(() => rng() - 0.5);
    successors.forEach((tool, i) => graph.ingest(trace(['h0', 'h1', tool], { success: i % 7 !== 0, timestamp: i })));
    graph.ingest(trace(['f0', 'f1', 'f2'], { success: false }));
    for (let i = 0; i < 300; i++) {
      graph.ingest(trace(Array.from({ length: 3 + Math.floor(rng() * 3) }, () => `t${Math.floor(rng() * 12)}`), { success: rng() < 0.8, timestamp: 100 + i }));
    }
    const expected = new Map<number, { targets: number[]; weights: number[] }>();
    graph.forEachSecondOrder((a, b, c, stats) => {
      if (stats.success <= 0) return;
      const key = pairKey(a, b);
      const row = expected.get(key) ?? { targets: [], weights: [] };
      row.targets.push(c);
      row.weights.push(stats.success);
      expected.set(key, row);
    });
    const second = buildSnapshot(graph).second;
    expect(second.rows.size).toBe(expected.size);
    expect(second.offsets[second.rows.size]).toBe(second.targets.length);
    for (const [key, row] of expected) {
      const order = row.targets.map((_, i) => i).sort((x, y) => row.targets[x]! - row.targets[y]!);
      const got = secondOrderRow(second, Math.floor(key / 2 ** 26), key % 2 ** 26)!;
      expect(Array.from(got.targets)).toEqual(order.map((i) => row.targets[i]));
      expect(Array.from(got.weights)).toEqual(order.map((i) => row.weights[i]));
      expect(got.total).toBe(row.weights.reduce((x, y) => x + y, 0));
    }
    // Contexts seen only in failures, and pairs never seen, have no row.
    expect(graph.secondOrder(graph.indexOf('f0')!, graph.indexOf('f1')!, graph.indexOf('f2')!)!.failure).toBe(1);
    expect(secondOrderRow(second, graph.indexOf('f0')!, graph.indexOf('f1')!)).toBeUndefined();
    expect(secondOrderRow(second, graph.indexOf('h1')!, graph.indexOf('h0')!)).toBeUndefined();
    const hub = secondOrderRow(second, graph.indexOf('h0')!, graph.indexOf('h1')!)!;
    expect(hub.targets.length).toBe(60 - Math.ceil(60 / 7));
  });
});
