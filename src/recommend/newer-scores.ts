/**
 * Scores of the tools newer than the model (newer-tools.ts) beside the model's own, for the two
 * rankers that meet them: next-tool prediction and search. A newer tool is scored as a row whose
 * only signals are the live ones (transitions, intent, popularity), joins the softmax's
 * normaliser, and is merged into the top k by its probability.
 */
import type { RecentTransitions } from '../graph/recent-transitions.js';
import { F, S_INTENT, S_POPULARITY, S_SECOND, S_TRANSITION, SIGNALS, type SignalBreakdown } from './features.js';
import { transform } from './linear-profile.js';
import type { NewerTools } from './newer-tools.js';
import { seedCooccurrence } from './seed-profile.js';

/**
 * The scores of the newer tools: `weights` for the log-linear profiles, every signal at zero but
 * the two transition signals, the intent and popularity, whose calls are read live against the
 * snapshot's busiest tool (at zero, a tool called a hundred times since the snapshot would rank
 * as one never called); undefined weights for the seed formula, whose co-occurrence term is all
 * such a tool has yet (its PageRank, of the order of 1/N, waits).
 */
export function scoreNewer(newer: NewerTools, recent: RecentTransitions, maxCalls: number, weights: readonly number[] | undefined): number[] {
  const scores: number[] = [];
  for (let i = 0; i < newer.size; i++) {
    newer.popularity[i] = maxCalls > 0 ? Math.min(1, recent.callsOf(newer.tools[i]!) / maxCalls) : 0;
    if (weights === undefined) {
      scores.push(0.5 * seedCooccurrence(newer.transition[i]!, newer.count[i]!));
      continue;
    }
    let s = 0;
    for (let f = 0; f < F; f++) {
      const x = f === S_TRANSITION ? newer.transition[i]! : f === S_SECOND ? newer.second[i]! : f === S_INTENT ? newer.intent[i]! : f === S_POPULARITY ? newer.popularity[i]! : 0;
      s += weights[f]! * transform(f, x);
    }
    scores.push(s);
  }
  return scores;
}

const NO_SIGNALS = Object.fromEntries(SIGNALS.map((name) => [name, 0])) as SignalBreakdown;

/** Newer tool i's signal breakdown: its live signals, every other one 0. */
export function newerSignals(newer: NewerTools, i: number): SignalBreakdown {
  return { ...NO_SIGNALS, transition: newer.transition[i]!, secondOrder: newer.second[i]!, intent: newer.intent[i]!, popularity: newer.popularity[i]! };
}

/**
 * Merges the newer tools into `items` (ranked by score) and keeps the first k; `logZ` null: raw
 * scores. `item` makes newer tool i's item with its score.
 */
export function mergeNewer<T extends { readonly score: number }>(items: T[], scores: readonly number[], size: number, item: (i: number, score: number) => T, k: number, logZ: number | null): void {
  for (let i = 0; i < size; i++) {
    const score = logZ === null ? scores[i]! : Math.exp(scores[i]! - logZ);
    // After the model's tools of equal score, as a tie between them goes to the lower index.
    let at = items.length;
    while (at > 0 && items[at - 1]!.score < score) at--;
    if (at < k) items.splice(at, 0, item(i, score));
  }
  if (items.length > k) items.length = k;
}

/** The normaliser `logZ` with the newer tools' scores added: log(exp(logZ) + sum exp(s)). */
export function withNewer(logZ: number, scores: readonly number[]): number {
  let z = logZ;
  for (const s of scores) {
    const max = Math.max(z, s);
    z = max === -Infinity ? -Infinity : max + Math.log(Math.exp(z - max) + Math.exp(s - max));
  }
  return z;
}
