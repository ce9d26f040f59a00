/**
 * Makes a weighted directed graph acyclic and layers it.
 *
 * breakCycles: while a cycle exists, drop its weakest edge (lowest confidence; on a tie the
 * edge that points backwards in the given node order, then the later-listed one). Each round
 * finds one cycle by depth-first search, so the cost is O(removed x (V + E)); suggested DAGs
 * have tens of nodes. Removing the weakest edge of each cycle keeps the strongest evidence:
 * a cycle among suggestions means two sources of evidence disagree on an order, and the
 * weaker one yields.
 *
 * layers: longest-path layering (layer(v) = 1 + max layer of its predecessors, sources at 0),
 * so every edge goes from a lower layer to a higher one and nodes of one layer can run in
 * parallel. Kahn's algorithm, O(V + E).
 *
 * Reference: Cormen, Leiserson, Rivest, Stein, "Introduction to Algorithms" (3rd ed.), 22.3
 * (depth-first search, back edges) and 22.4 (topological sort).
 */
export interface WeightedEdge {
  readonly from: number;
  readonly to: number;
  readonly confidence: number;
}

/** A cycle as the indices (into `edges`) of its edges, or null when the graph is acyclic. */
function findCycle(n: number, edges: readonly WeightedEdge[], alive: readonly boolean[]): number[] | null {
  const out: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((e, i) => {
    if (alive[i]) out[e.from]!.push(i);
  });
  const state = new Uint8Array(n); // 0 unseen, 1 on the stack, 2 done
  const viaEdge = new Int32Array(n).fill(-1);
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    const stack: { node: number; next: number }[] = [{ node: root, next: 0 }];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const list = out[top.node]!;
      if (top.next === list.length) {
        state[top.node] = 2;
        stack.pop();
        continue;
      }
      const e = list[top.next++]!;
      const to = edges[e]!.to;
      if (state[to] === 1) {
        // Back edge: the cycle is e plus the tree path from `to` down to top.node.
        const cycle = [e];
        for (let v = top.node; v !== to; v = edges[viaEdge[v]!]!.from) cycle.push(viaEdge[v]!);
        return cycle;
      }
      if (state[to] === 0) {
        state[to] = 1;
        viaEdge[to] = e;
        stack.push({ node: to, next: 0 });
      }
    }
  }
  return null;
}

/** The edges that remain (in their original order) and those dropped to break cycles. */
export function breakCycles(n: number, edges: readonly WeightedEdge[]): { kept: WeightedEdge[]; dropped: WeightedEdge[] } {
  const alive = edges.map((e) => e.from !== e.to);
  const dropped: WeightedEdge[] = edges.filter((e) => e.from === e.to);
  for (;;) {
    const cycle = findCycle(n, edges, alive);
    if (cycle === null) break;
    let weakest = cycle[0]!;
    for (const i of cycle) {
      const a = edges[i]!;
      const b = edges[weakest]!;
      const backwardA = a.from > a.to ? 1 : 0;
      const backwardB = b.from > b.to ? 1 : 0;
      if (a.confidence < b.confidence || (a.confidence === b.confidence && (backwardA > backwardB || (backwardA === backwardB && i > weakest)))) {
        weakest = i;
      }
    }
    alive[weakest] = false;
    dropped.push(edges[weakest]!);
  }
  return { kept: edges.filter((_, i) => alive[i]), dropped };
}

/** Longest-path layers of an acyclic graph: node indices per layer, in node order. */
export function layers(n: number, edges: readonly WeightedEdge[]): number[][] {
  const indegree = new Int32Array(n);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    indegree[e.to]!++;
    out[e.from]!.push(e.to);
  }
  const layer = new Int32Array(n);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (indegree[v] === 0) queue.push(v);
  let seen = 0;
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    seen++;
    for (const w of out[v]!) {
      layer[w] = Math.max(layer[w]!, layer[v]! + 1);
      if (--indegree[w]! === 0) queue.push(w);
    }
  }
  if (seen !== n) throw new RangeError('layers: the graph has a cycle; call breakCycles first');
  const result: number[][] = [];
  for (let v = 0; v < n; v++) (result[layer[v]!] ??= []).push(v);
  return result.filter((l) => l !== undefined);
}
