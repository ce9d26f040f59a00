/**
 * Percentile ranks: each value's position among all values, scaled to [0, 1], so signals on
 * different scales (PageRank is ~1/N) can be combined with equal footing.
 *
 *   r(i) = mean 0-based rank of values[i] among the sorted values (ties share their mean rank)
 *   p(i) = r(i) / (n - 1)
 *
 * The smallest distinct value maps to 0 when it is unique, the largest to 1. When there is no
 * spread (n = 1, or every value equal) there is nothing to rank; every value maps to 1, the same
 * as a lone maximum, so a signal that cannot discriminate neither penalises nor favours anyone
 * relative to the others. -0 and +0 tie.
 *
 * Sorts a copy natively, then finds each value's run of equals by two binary searches:
 * O(n log n) time, O(n) space, no comparator closure.
 *
 * Reference: the "mean" tie method of scipy.stats.rankdata (average ranks), rescaled from
 * 1..n to [0, 1]; Hyndman & Fan, "Sample quantiles in statistical packages", The American
 * Statistician 50(4), 1996 (plotting position (k - 1)/(n - 1)).
 */
import { ToolgraphError } from '../schema/errors.js';

/** Percentile rank of every value, aligned with the input. Throws INVALID_INPUT on NaN. */
export function percentileRanks(values: Float64Array): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  if (n === 0) return out;
  const sorted = values.slice().sort();
  // NaN sorts last in a typed array; a NaN would have no meaningful rank.
  if (Number.isNaN(sorted[n - 1]!)) {
    throw new ToolgraphError('INVALID_INPUT', 'percentileRanks: expected values without NaN');
  }
  if (sorted[0] === sorted[n - 1]) return out.fill(1);
  const scale = 1 / (n - 1);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    // first index with sorted[k] >= v
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    const first = lo;
    // first index with sorted[k] > v
    hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! <= v) lo = mid + 1;
      else hi = mid;
    }
    out[i] = (first + lo - 1) * 0.5 * scale;
  }
  return out;
}
