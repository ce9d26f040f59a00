/**
 * The feedback loop's say in next-tool ranking: per-candidate adjustments from the edge
 * `last -> c` (and the pattern `(prev, last) -> c`) added to the profiles' row scores after the
 * signals are scored.
 *
 * default profile (log scores, so a factor multiplies the tool's probability before the softmax
 * renormalises):
 *
 *   s(c) += ln rho(last -> c) + ln(H(last -> c) / H0) + ln(H((prev, last) -> c) / H0)
 *
 *   rho = min(1, posterior mean / prior mean), -Infinity when the failure rate is credibly above
 *         1/2 (graph/edge-reliability.ts);
 *   H   = spec 004's human score of the pattern (scoring/human-score.ts), H0 = 0.5 its no-feedback
 *         value: an approval multiplies the probability by H / H0 (1.15 for the first), a
 *         rejection by 0.85.
 *
 * Neither factor has a fitted weight: the recorded traces the ranker is fitted on are successes
 * without human reviews, so no weight is identifiable from them. Both are probabilities of the
 * candidate working, multiplied in as a product of experts with unit weight.
 *
 * seed profile, spec 003 section 3.3 on the same posterior, for an edge with observations:
 *
 *   successRate = s / (s + f), failureRate = f / (s + f)      (decayed evidence, no prior)
 *   score += min(0.15, 0.2 * successRate) - min(0.15, 0.25 * failureRate)
 *   excluded (-Infinity) when the failure rate is credibly above 1/2 (the default's rule)
 *
 * O(deg(last)) per query; nothing when the model has no penalty and no human feedback.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import { pairKey } from '../graph/transition-graph.js';
import { HUMAN_PRIOR } from '../scoring/human-score.js';
import type { FeatureScratch } from './features.js';

/** Human feedback on one pattern: tool indices (2 for a transition, 3 for a second-order pattern) and its human score. */
export interface HumanPatternScore {
  readonly tools: readonly number[];
  readonly human: number;
}

export interface EdgeFeedback {
  /** ln(H / H0) per edge of `graph.out` (0 without feedback). */
  readonly first: Float64Array;
  /** pairKey(prev, last) -> (c -> ln(H / H0)). */
  readonly second: ReadonlyMap<number, ReadonlyMap<number, number>>;
  readonly any: boolean;
}

/** Aligns human scores with the snapshot; feedback on a transition never observed has no edge to move and is skipped. */
export function buildEdgeFeedback(graph: GraphSnapshot, patterns: readonly HumanPatternScore[]): EdgeFeedback {
  const first = new Float64Array(graph.out.targets.length);
  const second = new Map<number, Map<number, number>>();
  let any = false;
  for (const p of patterns) {
    const log = Math.log(Math.max(p.human, 1e-12) / HUMAN_PRIOR);
    if (log === 0) continue;
    if (p.tools.length === 2) {
      const [a, b] = p.tools as [number, number];
      const { offsets, targets } = graph.out;
      for (let j = offsets[a]!; j < offsets[a + 1]!; j++) {
        if (targets[j] === b) {
          first[j] = log;
          any = true;
        }
      }
    } else if (p.tools.length === 3) {
      const key = pairKey(p.tools[0]!, p.tools[1]!);
      let row = second.get(key);
      if (row === undefined) second.set(key, (row = new Map()));
      row.set(p.tools[2]!, log);
      any = true;
    }
  }
  return { first, second, any };
}

export const SEED_MAX_BOOST = 0.15;
export const SEED_BOOST_RATE = 0.2;
export const SEED_MAX_PENALTY = 0.15;
export const SEED_PENALTY_RATE = 0.25;

/** Spec 003 section 3.3's adjustment for decayed evidence s successes, f failures; null when excluded. */
export function seedEpisodicAdjustment(s: number, f: number, excluded: boolean): number | null {
  if (excluded) return null;
  const n = s + f;
  if (!(n > 0)) return 0;
  return Math.min(SEED_MAX_BOOST, (SEED_BOOST_RATE * s) / n) - Math.min(SEED_MAX_PENALTY, (SEED_PENALTY_RATE * f) / n);
}

/** Adds the feedback adjustments of the query in `scratch` to `rowScore`. */
export function applyEdgeAdjustments(
  graph: GraphSnapshot,
  feedback: EdgeFeedback,
  mode: 'next' | 'seed',
  scratch: FeatureScratch,
  rowScore: Float64Array,
): void {
  const last = scratch.last;
  if (last < 0) return;
  const rel = graph.reliability;
  const { offsets, targets } = graph.out;
  if (mode === 'seed') {
    for (let j = offsets[last]!; j < offsets[last + 1]!; j++) {
      const r = scratch.rowOf[targets[j]!]!;
      if (r < 0) continue;
      const adj = seedEpisodicAdjustment(rel.alpha[j]! - rel.priorAlpha, rel.beta[j]! - rel.priorBeta, rel.excluded[j] === 1);
      rowScore[r] = adj === null ? -Infinity : rowScore[r]! + adj;
    }
    return;
  }
  const human = feedback.any;
  if (rel.anyPenalty || human) {
    for (let j = offsets[last]!; j < offsets[last + 1]!; j++) {
      const r = scratch.rowOf[targets[j]!]!;
      if (r < 0) continue;
      rowScore[r]! += rel.logFactor[j]! + (human ? feedback.first[j]! : 0);
    }
  }
  if (feedback.any && scratch.prev >= 0) {
    const row = feedback.second.get(pairKey(scratch.prev, last));
    if (row !== undefined) {
      for (const [c, log] of row) {
        const r = scratch.rowOf[c]!;
        if (r >= 0) rowScore[r]! += log;
      }
    }
  }
}
