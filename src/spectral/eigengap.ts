/**
 * The number of clusters from the eigengap heuristic on singular values sorted descending:
 *
 *   k = argmax_{kMin <= k <= kMax} (sigma_k - sigma_{k+1}),   sigma_{len+1} = 0
 *
 * (1-based), ties going to the smallest k. With k well-separated groups, the normalised
 * bipartite matrix has k singular values near 1 and the rest well below, so the largest drop
 * marks k. The range is clamped to the values available: kMax to their count, kMin to kMax, so a
 * matrix with fewer dimensions than asked for is an outcome (`clamped: true`), not an error.
 * O(kMax) time.
 *
 * Reference: von Luxburg, "A tutorial on spectral clustering", Statistics and Computing 17(4),
 * 2007, section 8.3.
 */
import { ToolgraphError } from '../schema/errors.js';

export interface EigengapOptions {
  /** Smallest k considered; integer >= 1; default 2. */
  readonly kMin?: number;
  /** Largest k considered; integer >= kMin; default 16. */
  readonly kMax?: number;
}

export interface EigengapResult {
  /** Chosen k; 0 only when there are no values. */
  readonly k: number;
  /** sigma_k - sigma_{k+1} at the chosen k. */
  readonly gap: number;
  /** gaps[i] = sigma_{kMin+i} - sigma_{kMin+i+1} over the clamped range. */
  readonly gaps: readonly number[];
  /** True when the range had to shrink to the values available. */
  readonly clamped: boolean;
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `eigengap: ${message}`);
}

export function eigengap(values: ArrayLike<number>, options: EigengapOptions = {}): EigengapResult {
  const kMin = options.kMin ?? 2;
  const kMax = options.kMax ?? 16;
  if (!Number.isInteger(kMin) || kMin < 1) throw invalid(`expected kMin to be an integer >= 1, got ${String(kMin)}`);
  if (!Number.isInteger(kMax) || kMax < kMin) throw invalid(`expected kMax to be an integer >= kMin (${kMin}), got ${String(kMax)}`);
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (!(v >= 0) || v === Number.POSITIVE_INFINITY) throw invalid(`expected finite non-negative values, got ${String(v)} at ${i}`);
    if (i > 0 && v > values[i - 1]! * (1 + 1e-9) + 1e-12) throw invalid(`expected values sorted descending, got ${values[i - 1]} then ${v} at ${i}`);
  }
  if (n === 0) return { k: 0, gap: 0, gaps: [], clamped: true };
  const hi = Math.min(kMax, n);
  const lo = Math.min(kMin, hi);
  const gaps: number[] = [];
  let best = lo;
  let bestGap = Number.NEGATIVE_INFINITY;
  for (let k = lo; k <= hi; k++) {
    const gap = values[k - 1]! - (k < n ? values[k]! : 0);
    gaps.push(gap);
    if (gap > bestGap) {
      bestGap = gap;
      best = k;
    }
  }
  return { k: best, gap: bestGap, gaps, clamped: hi !== kMax || lo !== kMin };
}
