/**
 * Which weights score a query, in one place: the seed formula, or the fitted log-linear ranker
 * for next tool (with or without an intent) or for search. Scores the touched rows of
 * `model.scratch` into `model.rowScore` and returns the matching background for the untouched
 * tools.
 */
import { applyEdgeAdjustments } from './edge-adjustment.js';
import { scoreLinearRows, type LinearBackground } from './linear-profile.js';
import type { RecommenderModel } from './model.js';
import { scoreSeedRows } from './seed-profile.js';

export type ScoreMode = 'next' | 'seed' | 'search';

/** The weight vector a query of this mode scores with; undefined for the seed formula, which uses every signal. */
export function modeWeights(model: RecommenderModel, mode: ScoreMode, hasIntent: boolean): readonly number[] | undefined {
  if (mode === 'seed') return undefined;
  if (mode === 'search') return model.weights.search;
  return hasIntent ? model.weights.next : model.weights.nextNoIntent;
}

/** `reliable`: search with each tool's reliability factor (searchTools without context). */
export function scoreTouchedRows(model: RecommenderModel, mode: ScoreMode, hasIntent: boolean, reliable = false): LinearBackground {
  const { scratch, rowScore } = model;
  if (mode === 'seed') {
    scoreSeedRows(model.graph, scratch, rowScore);
    applyEdgeAdjustments(model.graph, model.feedback, 'seed', scratch, rowScore);
    return model.backgrounds.seed;
  }
  if (mode === 'search') {
    const bg = reliable ? model.backgrounds.searchReliable : model.backgrounds.search;
    scoreLinearRows(scratch, model.weights.search, bg, rowScore);
    return bg;
  }
  const bg = hasIntent ? model.backgrounds.next : model.backgrounds.nextNoIntent;
  scoreLinearRows(scratch, hasIntent ? model.weights.next : model.weights.nextNoIntent, bg, rowScore);
  // Reliability and human feedback (edge-adjustment.ts): the last context tool's edges.
  applyEdgeAdjustments(model.graph, model.feedback, 'next', scratch, rowScore);
  return bg;
}
