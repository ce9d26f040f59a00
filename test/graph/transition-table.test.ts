import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { gatherColumns, type TransitionColumns } from '../../src/graph/transition-table.js';

const NAMES = ['count', 'success', 'failure', 'evidence', 'lastSeen', 'recentSuccess', 'recentFailure'] as const;

function randomColumns(m: number, rng: () => number): TransitionColumns {
  const column = (): Float64Array => Float64Array.from({ length: m }, () => Math.floor(rng() * 1000) / 7);
  return { count: column(), success: column(), failure: column(), evidence: column(), lastSeen: column(), recentSuccess: column(), recentFailure: column() };
}

describe('gatherColumns', () => {
  it('gives row perm[j] of every column at j, whether perm runs over consecutive rows or jumps', () => {
    const rng = createRng(5);
    const m = 2_000;
    const c = randomColumns(m, rng);
    // A restored graph's order: long runs of consecutive rows with single rows merged in, runs
    // shorter and longer than the copy threshold, a run ending at the last row; then a shuffle.
    const merged: number[] = [];
    let next = 0;
    while (next < m - 200) {
      const run = 1 + Math.floor(rng() * 60);
      for (let k = 0; k < run && next < m - 200; k++) merged.push(next++);
      merged.push(m - 200 + (merged.length % 200));
    }
    const tail = new Set(merged.filter((e) => e >= m - 200));
    for (let e = m - 200; e < m; e++) if (!tail.has(e)) merged.push(e);
    const shuffled = Array.from({ length: m }, (_, i) => i);
    for (let i = m - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    for (const order of [merged, shuffled, Array.from({ length: m }, (_, i) => i), []]) {
      const perm = Int32Array.from(order);
      const out = gatherColumns(c, perm);
      for (const name of NAMES) {
        expect(out[name].length).toBe(perm.length);
        expect(Array.from(out[name])).toEqual(Array.from(perm, (e) => c[name][e]!));
      }
    }
  });
});
