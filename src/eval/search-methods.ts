/**
 * The methods compared by `toolgraph eval search`:
 *  - bm25: Okapi BM25 of the intent against each tool's catalogue document;
 *  - learned: the intent-to-tool association learned from training intents, alone;
 *  - unfitted: the recommender's search ranking before any fit (PRIOR_WEIGHTS: a store before
 *    `toolgraph fit`), on the same graph;
 *  - toolgraph: the recommender's fitted search ranking (no context).
 */
import { scoreAllTools } from '../recommend/score-all.js';
import type { RecommenderModel } from '../recommend/model.js';
import { scoreBm25 } from '../text/bm25.js';
import { scoreIntent } from '../text/intent-association.js';
import { tokenize } from '../text/tokenize.js';
import type { Tiers } from './metrics.js';

export const SEARCH_METHODS = ['bm25', 'learned', 'unfitted', 'toolgraph'] as const;
export type SearchMethod = (typeof SEARCH_METHODS)[number];

export interface SearchScorer {
  readonly tiers: Tiers;
  /** The first tier is a log-linear ranker's scores: a tool's probability is its softmax over all tools. */
  readonly logLinear?: boolean;
  score(intent: string): void;
}

export function searchScorers(model: RecommenderModel, unfitted: RecommenderModel): Map<SearchMethod, SearchScorer> {
  const n = model.graph.n;
  const lexical = new Float64Array(n);
  const learned = new Float64Array(n);
  const prior = new Float64Array(n);
  const dense = new Float64Array(n);
  const pop = model.graph.calls;
  return new Map<SearchMethod, SearchScorer>([
    ['bm25', { tiers: [lexical], score: (intent) => scoreBm25(model.text.bm25, tokenize(intent), lexical) }],
    // Ties (tools the association never saw) fall back on popularity, as any baseline would.
    ['learned', { tiers: [learned, pop], score: (intent) => scoreIntent(model.text.intent, tokenize(intent), learned) }],
    ['unfitted', { tiers: [prior], logLinear: true, score: (intent) => scoreAllTools(unfitted, [], intent, 'search', prior) }],
    ['toolgraph', { tiers: [dense], logLinear: true, score: (intent) => scoreAllTools(model, [], intent, 'search', dense) }],
  ]);
}
