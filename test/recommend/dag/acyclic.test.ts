import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/graph/rng.js';
import { breakCycles, layers, type WeightedEdge } from '../../../src/recommend/dag/acyclic.js';

/** True when a topological order exists (Kahn). */
function isAcyclic(n: number, edges: readonly WeightedEdge[]): boolean {
  const indegree = new Array<number>(n).fill(0);
  for (const e of edges) indegree[e.to]!++;
  const queue = indegree.flatMap((d, v) => (d === 0 ? [v] : []));
  let seen = 0;
  while (queue.length > 0) {
    const v = queue.pop()!;
    seen++;
    for (const e of edges) if (e.from === v && --indegree[e.to]! === 0) queue.push(e.to);
  }
  return seen === n;
}

describe('breakCycles and layers', () => {
  it('drops the weakest edge of a cycle and nothing else', () => {
    const edges = [
      { from: 0, to: 1, confidence: 0.9 },
      { from: 1, to: 2, confidence: 0.6 },
      { from: 2, to: 0, confidence: 0.5 },
      { from: 0, to: 3, confidence: 0.2 },
    ];
    const { kept, dropped } = breakCycles(4, edges);
    expect(dropped).toEqual([{ from: 2, to: 0, confidence: 0.5 }]);
    expect(kept).toEqual([edges[0], edges[1], edges[3]]);
    expect(layers(4, kept)).toEqual([[0], [1, 3], [2]]);
  });

  it('on a tie drops the edge that points backwards in node order', () => {
    const { dropped } = breakCycles(2, [
      { from: 1, to: 0, confidence: 0.95 },
      { from: 0, to: 1, confidence: 0.95 },
    ]);
    expect(dropped).toEqual([{ from: 1, to: 0, confidence: 0.95 }]);
  });

  it('leaves random graphs acyclic, keeps every edge of an acyclic one, and layers respect edges', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rng = createRng(seed);
      const n = 1 + Math.floor(rng() * 12);
      const m = Math.floor(rng() * n * 3);
      const edges: WeightedEdge[] = [];
      for (let i = 0; i < m; i++) {
        edges.push({ from: Math.floor(rng() * n), to: Math.floor(rng() * n), confidence: Math.round(rng() * 4) / 4 });
      }
      const { kept, dropped } = breakCycles(n, edges);
      expect(isAcyclic(n, kept)).toBe(true);
      expect(kept.length + dropped.length).toBe(edges.length);
      if (isAcyclic(n, edges.filter((e) => e.from !== e.to))) expect(dropped.every((e) => e.from === e.to)).toBe(true);
      const layerOf = new Map<number, number>();
      layers(n, kept).forEach((layer, l) => layer.forEach((v) => layerOf.set(v, l)));
      expect(layerOf.size).toBe(n);
      for (const e of kept) expect(layerOf.get(e.from)!).toBeLessThan(layerOf.get(e.to)!);
    }
  });

  it('refuses to layer a cyclic graph', () => {
    expect(() => layers(2, [{ from: 0, to: 1, confidence: 1 }, { from: 1, to: 0, confidence: 1 }])).toThrow(RangeError);
  });
});
