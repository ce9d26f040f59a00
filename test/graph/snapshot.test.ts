import { describe, expect, it } from 'vitest';
import { csrFromEdges, symmetrizeCsr } from '../../src/graph/csr.js';
import { createRng } from '../../src/graph/rng.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { ToolGraph } from '../../src/graph/tool-graph.js';
import { trace } from '../helpers/traces.js';

describe('buildSnapshot', () => {
  it("aligns every per-edge array with `out`, and builds the undirected view from the successful transitions only", () => {
    const rng = createRng(9);
    const graph = new ToolGraph();
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
  });
});
