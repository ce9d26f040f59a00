/**
 * Per-tool reliability: how often calling a tool has worked, for ranking where no context tool
 * names an edge (tool search without context). A tool's evidence is that of the transitions into
 * it, summed:
 *
 *   alpha_c = alpha0 + sum over edges j = (a -> c) of (alpha_j - alpha0)
 *   beta_c  = beta0  + sum over edges j = (a -> c) of (beta_j  - beta0)
 *
 * with alpha_j, beta_j the edges' decayed posteriors (edge-reliability.ts), so every success and
 * failure into c counts once with its own age, and the same rules follow: factor_c =
 * min(1, mean_c / priorMean), excluded when P(success rate < 1/2) >= credibility. A tool seen
 * only in successes keeps factor 1; only failures outweighing successes pull it down.
 *
 * What a transition's outcome means is the graph's (transition-graph.ts): a transition of a failed
 * trace counts as a failure of its target even when that step itself went through, so a tool
 * that keeps company with failing ones loses some of its standing too, as a capability does
 * whose tools appear in failed tasks. A tool only ever called first in its traces has no
 * transition into it, hence no evidence, and keeps factor 1.
 *
 * O(m) over the CSR, plus one incomplete beta evaluation per tool whose mean is below the prior's.
 */
import { betaCdf } from '../scoring/beta-distribution.js';
import type { Csr } from './csr.js';
import type { EdgeReliability } from './edge-reliability.js';

export interface ToolReliability {
  /** Posterior Beta(alpha, beta) of each tool's success rate, by tool index. */
  readonly alpha: Float64Array;
  readonly beta: Float64Array;
  /** ln min(1, mean / priorMean), or -Infinity when excluded. */
  readonly logFactor: Float64Array;
  /** 1 when the tool's failure rate is credibly above 1/2. */
  readonly excluded: Uint8Array;
  /** Whether any tool has a factor below 1. */
  readonly anyPenalty: boolean;
}

/** `edges` is aligned with `out` (a snapshot's `reliability` and `out`). */
export function toolReliability(out: Csr, edges: EdgeReliability): ToolReliability {
  const n = out.n;
  const m = out.targets.length;
  if (edges.alpha.length !== m) throw new RangeError(`toolReliability: ${edges.alpha.length} edge posteriors for ${m} edges`);
  const a0 = edges.priorAlpha;
  const b0 = edges.priorBeta;
  const alpha = new Float64Array(n).fill(a0);
  const beta = new Float64Array(n).fill(b0);
  for (let j = 0; j < m; j++) {
    const c = out.targets[j]!;
    alpha[c]! += edges.alpha[j]! - a0;
    beta[c]! += edges.beta[j]! - b0;
  }
  const priorMean = a0 / (a0 + b0);
  const logFactor = new Float64Array(n);
  const excluded = new Uint8Array(n);
  let anyPenalty = false;
  for (let c = 0; c < n; c++) {
    const a = alpha[c]!;
    const b = beta[c]!;
    const mean = a / (a + b);
    if (mean >= priorMean) continue;
    anyPenalty = true;
    if (mean < 0.5 && betaCdf(0.5, a, b) >= edges.credibility) {
      excluded[c] = 1;
      logFactor[c] = -Infinity;
    } else {
      logFactor[c] = Math.log(mean / priorMean);
    }
  }
  return { alpha, beta, logFactor, excluded, anyPenalty };
}
