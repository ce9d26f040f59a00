/**
 * Chooses the naive Bayes smoothing alpha of the intent association by K-fold cross-validation
 * on the recorded traces alone.
 *
 *   folds:  a seeded permutation of the examples, example at position i in fold i mod K
 *   for each alpha in the grid:
 *     MRR(alpha) = mean over held-out examples e of 1 / rank_e,
 *     rank_e     = 1 + #{tools scoring strictly above e's best-scoring gold tool}
 *   alpha* = argmax MRR (the smaller alpha on a tie)
 *
 * Why: alpha is the one constant naive Bayes is sensitive to. With thousands of tools and a few
 * traces each, Laplace's alpha = 1 drowns the evidence (the term alpha V dominates every tool's
 * denominator), while on a few well-covered tools a small alpha overfits. Measured on the public
 * train splits, the best alpha ranged from 0.01 to 0.05, and alpha = 1 cost 0.05-0.15 Hit@1.
 *
 * Complexity: O(|grid| x (fit + sum over examples of the scoring cost)).
 *
 * Reference: R. Kohavi, "A study of cross-validation and bootstrap for accuracy estimation and
 * model selection", IJCAI 1995; smoothing as in McCallum and Nigam 1998.
 */
import { ToolgraphError } from '../schema/errors.js';
import { DEFAULT_SEED } from '../graph/rng.js';
import {
  fitIntentAssociation,
  INTENT_DEFAULTS,
  scoreIntent,
  type IntentExample,
} from './intent-association.js';

export interface IntentSmoothingOptions {
  /** Candidate alphas, each finite and > 0. */
  readonly grid?: readonly number[];
  /** K, an integer >= 2; fewer examples than K lowers it to their number. Default 5. */
  readonly folds?: number;
  /** Seed of the fold permutation. Default 1. */
  readonly seed?: number;
}

export interface IntentSmoothingResult {
  /** The chosen alpha; the default when there are too few examples to cross-validate. */
  readonly smoothing: number;
  readonly folds: number;
  /** Held-out MRR per candidate, in grid order; empty when nothing was cross-validated. */
  readonly scores: readonly { readonly smoothing: number; readonly mrr: number }[];
}

export const INTENT_SMOOTHING_GRID: readonly number[] = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];

export function selectIntentSmoothing(
  nTools: number,
  examples: readonly IntentExample[],
  options: IntentSmoothingOptions = {},
): IntentSmoothingResult {
  const grid = options.grid ?? INTENT_SMOOTHING_GRID;
  const requestedFolds = options.folds ?? 5;
  const seed = options.seed ?? DEFAULT_SEED;
  if (grid.length === 0 || grid.some((a) => !Number.isFinite(a) || a <= 0)) {
    throw new ToolgraphError('INVALID_INPUT', 'selectIntentSmoothing: grid must be a non-empty list of finite numbers > 0');
  }
  if (!Number.isInteger(requestedFolds) || requestedFolds < 2) {
    throw new ToolgraphError('INVALID_INPUT', `selectIntentSmoothing: folds must be an integer >= 2, got ${requestedFolds}`);
  }
  if (!Number.isFinite(seed)) {
    throw new ToolgraphError('INVALID_INPUT', `selectIntentSmoothing: seed must be a finite number, got ${seed}`);
  }
  const usable = examples.filter((e) => e.tools.length > 0);
  const folds = Math.min(requestedFolds, usable.length);
  if (folds < 2) return { smoothing: INTENT_DEFAULTS.smoothing, folds: 0, scores: [] };

  const foldOf = new Int32Array(usable.length);
  const permutation = seededPermutation(usable.length, seed);
  for (let i = 0; i < usable.length; i++) foldOf[permutation[i]!] = i % folds;

  const out = new Float64Array(nTools);
  const gold = new Uint8Array(nTools);
  const scores: { smoothing: number; mrr: number }[] = [];
  for (const smoothing of grid) {
    let reciprocal = 0;
    for (let f = 0; f < folds; f++) {
      const train = usable.filter((_, i) => foldOf[i] !== f);
      const model = fitIntentAssociation(nTools, train, { smoothing });
      for (let i = 0; i < usable.length; i++) {
        if (foldOf[i] !== f) continue;
        const example = usable[i]!;
        scoreIntent(model, example.tokens, out);
        let bestGold = -Infinity;
        for (const tool of example.tools) {
          gold[tool] = 1;
          if (out[tool]! > bestGold) bestGold = out[tool]!;
        }
        let above = 0;
        for (let t = 0; t < nTools; t++) if (gold[t] === 0 && out[t]! > bestGold) above++;
        for (const tool of example.tools) gold[tool] = 0;
        reciprocal += 1 / (1 + above);
      }
    }
    scores.push({ smoothing, mrr: reciprocal / usable.length });
  }
  let best = scores[0]!;
  for (const s of scores) {
    if (s.mrr > best.mrr || (s.mrr === best.mrr && s.smoothing < best.smoothing)) best = s;
  }
  return { smoothing: best.smoothing, folds, scores };
}

/** Fisher-Yates with mulberry32: the same seed gives the same folds on every platform. */
function seededPermutation(n: number, seed: number): Int32Array {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const permutation = new Int32Array(n);
  for (let i = 0; i < n; i++) permutation[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const tmp = permutation[i]!;
    permutation[i] = permutation[j]!;
    permutation[j] = tmp;
  }
  return permutation;
}
