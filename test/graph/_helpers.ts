/**
 * Shared by the test/graph suites: error assertions and seeded random graphs. Lives here
 * rather than in test/helpers because the graph suites are its only users.
 */
import { expect } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { isToolgraphError } from '../../src/schema/errors.js';

/** Asserts that `fn` throws ToolgraphError INVALID_INPUT whose message starts with `caller: `. */
export function expectInvalidInput(fn: () => unknown, caller: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(isToolgraphError(thrown), `expected ${caller} to throw a ToolgraphError`).toBe(true);
  if (isToolgraphError(thrown)) {
    expect(thrown.code).toBe('INVALID_INPUT');
    expect(thrown.message.startsWith(`${caller}: `)).toBe(true);
  }
}

export interface EdgeList {
  n: number;
  sources: number[];
  targets: number[];
  weights: number[];
}

/**
 * A seeded random directed edge list: `m` draws of (s, t) uniform over n x n, so duplicates and
 * self-loops occur (the CSR builder must handle them). Nodes >= `activeNodes` never appear,
 * which leaves isolated nodes; integer weights in 1..5 when `weighted`, else all 1.
 */
export function randomEdges(
  seed: number,
  n: number,
  m: number,
  options: { weighted?: boolean; activeNodes?: number; selfLoops?: boolean } = {},
): EdgeList {
  const rng = createRng(seed);
  const active = options.activeNodes ?? n;
  const sources: number[] = [];
  const targets: number[] = [];
  const weights: number[] = [];
  while (sources.length < m) {
    const s = Math.floor(rng() * active);
    const t = Math.floor(rng() * active);
    if (s === t && options.selfLoops === false) continue;
    sources.push(s);
    targets.push(t);
    weights.push(options.weighted ? 1 + Math.floor(rng() * 5) : 1);
  }
  return { n, sources, targets, weights };
}

/** A seeded permutation of 0..n-1 (Fisher-Yates). */
export function randomPermutation(seed: number, n: number): Int32Array {
  const rng = createRng(seed);
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = tmp;
  }
  return perm;
}
