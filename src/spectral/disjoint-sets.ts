/**
 * Disjoint sets over 0..n-1 (union-find) with path halving; a union makes the smaller root the
 * parent, so the representative of a set is its smallest member and results are deterministic.
 * O(alpha(n)) amortised per operation in practice (path halving alone: O(log n) worst case).
 *
 * Reference: Tarjan, van Leeuwen, "Worst-case analysis of set union algorithms", JACM 31(2), 1984.
 */
export class DisjointSets {
  private readonly parent: Int32Array;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let v = 0; v < n; v++) this.parent[v] = v;
  }

  find(v: number): number {
    const parent = this.parent;
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}
