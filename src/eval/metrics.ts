/**
 * Ranking metrics of the evaluation protocol (shared/data/README.md). Ranks are 1-based over
 * dense scores with ties broken by tool index, the same rule the recommender uses, so a
 * baseline with many tied scores gets no free hits.
 */

/**
 * Scores in tiers compared lexicographically: back-off baselines rank by their first tier and
 * break ties with the next ones (a most-frequent-successor falls back on popularity) without
 * mixing magnitudes. Single-score methods use one tier.
 */
export type Tiers = readonly Float64Array[];

function compare(tiers: Tiers, a: number, b: number): number {
  for (const t of tiers) {
    const d = t[a]! - t[b]!;
    if (d !== 0) return d;
  }
  return b - a;
}

/** 1-based rank of `target` (higher scores first, ties by index); Infinity when target < 0. */
export function rankOf(tiers: Tiers, n: number, target: number): number {
  if (target < 0 || target >= n) return Infinity;
  let rank = 1;
  for (let c = 0; c < n; c++) if (c !== target && compare(tiers, c, target) > 0) rank++;
  return rank;
}

/** Tool indices of the best `k`, best first. */
export function topIndices(tiers: Tiers, n: number, k: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => compare(tiers, b, a));
  return order.slice(0, k);
}

export interface NextMetrics {
  n: number;
  hit1: number;
  hit3: number;
  hit5: number;
  mrr: number;
}

export class NextAccumulator {
  private count = 0;
  private h1 = 0;
  private h3 = 0;
  private h5 = 0;
  private rr = 0;

  add(rank: number): void {
    this.count++;
    if (rank <= 1) this.h1++;
    if (rank <= 3) this.h3++;
    if (rank <= 5) this.h5++;
    if (Number.isFinite(rank)) this.rr += 1 / rank;
  }

  result(): NextMetrics {
    const d = this.count || 1;
    return { n: this.count, hit1: this.h1 / d, hit3: this.h3 / d, hit5: this.h5 / d, mrr: this.rr / d };
  }
}

export interface SearchMetrics {
  n: number;
  hit1: number;
  recall5: number;
  recall10: number;
  ndcg10: number;
  mrr: number;
  /**
   * Methods whose scores are probabilities: the mean negative log-likelihood, in nats, of the
   * request's gold tools (each known one in turn), as the fits' cross-entropy counts it. A ranker
   * sure of one tool where the request wanted three pays for the other two.
   */
  nll?: number;
}

/** ln of the normaliser of softmax(scores[0..n)): a tool's log-probability is its score minus this. */
export function logNormaliser(scores: Float64Array, n: number): number {
  let max = -Infinity;
  for (let c = 0; c < n; c++) if (scores[c]! > max) max = scores[c]!;
  if (max === -Infinity) return 0;
  let sum = 0;
  for (let c = 0; c < n; c++) sum += Math.exp(scores[c]! - max);
  return max + Math.log(sum);
}

export class SearchAccumulator {
  private count = 0;
  private h1 = 0;
  private r5 = 0;
  private r10 = 0;
  private ndcg = 0;
  private rr = 0;
  private nllSum = 0;
  private nllCount = 0;

  /**
   * `ranked`: best-first tool indices (at least 10 when available); `firstRank`: rank of the best
   * gold tool; `goldLogProbabilities`: the method's log-probability of each known gold tool, when it has them.
   */
  add(ranked: readonly number[], gold: ReadonlySet<number>, firstRank: number, goldLogProbabilities?: readonly number[]): void {
    this.count++;
    if (goldLogProbabilities !== undefined) {
      for (const lp of goldLogProbabilities) this.nllSum -= lp;
      this.nllCount += goldLogProbabilities.length;
    }
    const size = gold.size || 1;
    let in5 = 0;
    let in10 = 0;
    let dcg = 0;
    for (let i = 0; i < Math.min(10, ranked.length); i++) {
      if (!gold.has(ranked[i]!)) continue;
      if (i < 5) in5++;
      in10++;
      dcg += 1 / Math.log2(i + 2);
    }
    let ideal = 0;
    for (let i = 0; i < Math.min(10, gold.size); i++) ideal += 1 / Math.log2(i + 2);
    if (ranked.length > 0 && gold.has(ranked[0]!)) this.h1++;
    this.r5 += in5 / size;
    this.r10 += in10 / size;
    this.ndcg += ideal > 0 ? dcg / ideal : 0;
    if (Number.isFinite(firstRank)) this.rr += 1 / firstRank;
  }

  result(): SearchMetrics {
    const d = this.count || 1;
    return {
      n: this.count,
      hit1: this.h1 / d,
      recall5: this.r5 / d,
      recall10: this.r10 / d,
      ndcg10: this.ndcg / d,
      mrr: this.rr / d,
      ...(this.nllCount > 0 ? { nll: this.nllSum / this.nllCount } : {}),
    };
  }
}
