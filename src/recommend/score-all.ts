/**
 * Dense scores of every tool for one query, in the model's tool index order: what the
 * evaluator ranks against. The ranking is the one predictNext and searchTools return (same
 * features, same profile), without the top-k cut.
 */
import { splitClauses } from '../text/clauses.js';
import { tokenize } from '../text/tokenize.js';
import { collectFeatures } from './features.js';
import { scoreLinearRows, type LinearBackground } from './linear-profile.js';
import type { RecommenderModel } from './model.js';
import { scoreSeedRows } from './seed-profile.js';

export type ScoreMode = 'next' | 'seed' | 'search';

export function scoreAllTools(
  model: RecommenderModel,
  context: readonly number[],
  intent: string | null,
  mode: ScoreMode,
  out: Float64Array,
): void {
  const { graph, scratch, rowScore } = model;
  const tokens = intent !== null && intent !== '' ? tokenize(intent) : null;
  const useIntent = tokens !== null && tokens.length > 0 ? tokens : null;
  const clauses = useIntent !== null && mode !== 'search' ? splitClauses(intent!) : undefined;
  collectFeatures(graph, model.text, { context: mode === 'search' ? [] : context, intent: useIntent, ...(clauses ? { clauses } : {}) }, scratch);
  try {
    let bg: LinearBackground;
    if (mode === 'seed') {
      bg = model.backgrounds.seed;
      scoreSeedRows(graph, scratch, rowScore);
    } else if (mode === 'search') {
      bg = model.backgrounds.search;
      scoreLinearRows(scratch, model.weights.search, rowScore);
    } else if (useIntent !== null) {
      bg = model.backgrounds.next;
      scoreLinearRows(scratch, model.weights.next, rowScore);
    } else {
      bg = model.backgrounds.nextNoIntent;
      scoreLinearRows(scratch, model.weights.nextNoIntent, rowScore);
    }
    out.set(bg.score.subarray(0, graph.n));
    for (let r = 0; r < scratch.rows; r++) out[scratch.rowTool[r]!] = rowScore[r]!;
  } finally {
    scratch.reset();
  }
}
