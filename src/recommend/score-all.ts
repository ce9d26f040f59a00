/**
 * Dense scores of every tool for one query, in the model's tool index order: what the
 * evaluator ranks against. The ranking is the one predictNext and searchTools return (same
 * features, same profile), without the top-k cut. `recentIntents`: the intents recorded since
 * the model, read by the intent association (recent-intents.ts); tools newer than the model
 * have no place in the dense order and are left out.
 */
import { splitClauses } from '../text/clauses.js';
import type { RecentIntents } from '../text/recent-intents.js';
import { tokenize } from '../text/tokenize.js';
import { collectFeatures } from './features.js';
import type { RecommenderModel } from './model.js';
import { modeWeights, scoreTouchedRows, type ScoreMode } from './score-rows.js';

export type { ScoreMode };

export function scoreAllTools(
  model: RecommenderModel,
  context: readonly number[],
  intent: string | null,
  mode: ScoreMode,
  out: Float64Array,
  recentIntents?: RecentIntents,
): void {
  const { graph, scratch, rowScore } = model;
  const tokens = intent !== null && intent !== '' ? tokenize(intent) : null;
  const useIntent = tokens !== null && tokens.length > 0 ? tokens : null;
  const clauses = useIntent !== null && mode !== 'search' ? splitClauses(intent!) : undefined;
  const weights = modeWeights(model, mode, useIntent !== null);
  collectFeatures(
    graph,
    model.text,
    {
      context: mode === 'search' ? [] : context,
      intent: useIntent,
      ...(useIntent !== null && mode === 'search' ? { intentText: intent! } : {}),
      ...(clauses ? { clauses } : {}),
      ...(weights ? { weights } : {}),
      ...(recentIntents ? { recentIntents } : {}),
    },
    scratch,
  );
  try {
    const bg = scoreTouchedRows(model, mode, useIntent !== null);
    out.set(bg.score.subarray(0, graph.n));
    for (let r = 0; r < scratch.rows; r++) out[scratch.rowTool[r]!] = rowScore[r]!;
  } finally {
    scratch.reset();
  }
}
