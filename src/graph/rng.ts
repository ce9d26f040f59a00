/**
 * Seeded pseudo-random numbers: mulberry32, uniform on [0, 1).
 *
 * State a (uint32): a += 0x6D2B79F5; t = a; t = (t ^ t>>>15) * (t | 1);
 * t ^= t + (t ^ t>>>7) * (t | 61); return (t ^ t>>>14) / 2^32.
 * O(1) time and space per draw; period 2^32.
 *
 * Reference: Tommy Ettinger, "mulberry32" (2017), as published in bryc/code,
 * jshash/PRNGs.md#mulberry32. Fast, passes gjrand's 1 GB tests and is ample for shuffles,
 * Louvain's visiting order and synthetic benchmarks; not for cryptography.
 */
import { ToolgraphError } from '../schema/errors.js';

/**
 * The seed of every random step when a caller gives none (Louvain's order, k-means, the sparse
 * SVD's start, the fit's subsampling, the CLI's --seed): one constant, so that a run that passes
 * nothing still reproduces, and one that passes it everywhere gets the same as one that passes
 * nothing anywhere.
 */
export const DEFAULT_SEED = 42;

/**
 * Returns a generator of uniform numbers in [0, 1), fully determined by `seed`.
 * The seed is an integer taken modulo 2^32 (negative integers wrap), so `-1` and `2^32 - 1`
 * give the same stream. Throws INVALID_INPUT for a non-integer seed, since silently
 * truncating 1.5 to 1 would make two "different" seeds collide.
 */
export function createRng(seed: number = DEFAULT_SEED): () => number {
  if (!Number.isSafeInteger(seed)) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `createRng: expected seed to be a safe integer, got ${String(seed)}`,
    );
  }
  // ToUint32 (`>>> 0`) is exact arithmetic modulo 2^32 for every safe integer.
  let state = seed >>> 0;
  return function next(): number {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
