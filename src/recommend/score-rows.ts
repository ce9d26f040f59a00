/**
 * Which weights score a query, in one place: the seed formula, or the fitted log-linear ranker
 * for next tool (with or without an intent) or for search. Scores the touched rows of
 * `model.scratch` into `model.rowScore` and returns the matching background for the untouched
 * tools.
 */
import { scoreLinearRows, type LinearBackground } from './linear-profile.js';
import type { RecommenderModel } from './model.js';
import { scoreSeedRows } from './seed-profile.js';

export type ScoreMode = 'next' | 'seed' | 'search';

export function scoreTouchedRows(model: RecommenderModel, mode: ScoreMode, hasIntent: boolean): LinearBackground {
  const { scratch, rowScore } = model;
  if (mode === 'seed') {
    scoreSeedRows(model.graph, scratch, rowScore);
    return model.backgrounds.seed;
  }
  if (mode === 'search') {
    scoreLinearRows(scratch, model.weights.search, rowScore);
    return model.backgrounds.search;
  }
  if (hasIntent) {
    scoreLinearRows(scratch, model.weights.next, rowScore);
    return model.backgrounds.next;
  }
  scoreLinearRows(scratch, model.weights.nextNoIntent, rowScore);
  return model.backgrounds.nextNoIntent;
}
