/**
 * `toolgraph eval search --context`: search with the tools called so far. The positions are the
 * next-tool protocol's (each ordered test workflow, each i >= 1: context tools[0..i-1]), the
 * query is the workflow's intent and the target tools[i]; Hit@1/3/5 and MRR. Methods, trained on
 * the same split:
 *  - bm25: the intent against the catalogue documents, context ignored;
 *  - search: toolgraph's search without the context (the semantic side alone);
 *  - seed: searchTools' seed profile, spec 003 section 1 as written (adaptive alpha);
 *  - toolgraph: searchTools' default, the fitted next-tool weights over graph and text signals.
 * The two searchTools methods rank by the scores searchTools itself returns for every tool.
 */
import type { RecommenderModel } from '../recommend/model.js';
import { searchTools } from '../recommend/search-tools.js';
import type { Profile } from '../recommend/predict-next.js';
import type { Dataset } from '../schema/dataset.js';
import { scoreBm25 } from '../text/bm25.js';
import { tokenize } from '../text/tokenize.js';
import { NextAccumulator, rankOf, type NextMetrics, type Tiers } from './metrics.js';
import { trainToolgraph } from './next-methods.js';
import { splitsOf } from './splits.js';
import { buildUniverse, indicesOf } from './universe.js';
import { average, type EvalOptions } from './run-eval.js';

export const SEARCH_CONTEXT_METHODS = ['bm25', 'search', 'seed', 'toolgraph'] as const;
export type SearchContextMethod = (typeof SEARCH_CONTEXT_METHODS)[number];

export interface SearchContextResult extends NextMetrics {
  readonly task: 'search';
  readonly context: true;
  readonly data: string;
  readonly method: SearchContextMethod;
}

interface Scorer {
  readonly tiers: Tiers;
  score(context: readonly string[], intent: string): void;
}

/** searchTools' score of every tool (k = all); a tool it leaves out ranks last. */
function searchScorer(model: RecommenderModel, profile: Profile, withContext: boolean): Scorer {
  const n = model.graph.n;
  const dense = new Float64Array(n);
  return {
    tiers: [dense],
    score: (context, intent) => {
      dense.fill(-Infinity);
      const result = searchTools(model, { query: intent, context: withContext ? context : [], k: n, profile });
      for (const item of result.items) dense[model.graph.indexByName.get(item.tool)!] = item.score;
    },
  };
}

function scorers(model: RecommenderModel): Map<SearchContextMethod, Scorer> {
  const lexical = new Float64Array(model.graph.n);
  return new Map<SearchContextMethod, Scorer>([
    ['bm25', { tiers: [lexical], score: (_, intent) => scoreBm25(model.text.bm25, tokenize(intent), lexical) }],
    ['search', searchScorer(model, 'default', false)],
    ['seed', searchScorer(model, 'seed', true)],
    ['toolgraph', searchScorer(model, 'default', true)],
  ]);
}

export function evaluateSearchContext(dataset: Dataset, options: EvalOptions = {}): SearchContextResult[] {
  const splits = splitsOf(dataset.workflows, options);
  const perMethod = new Map<SearchContextMethod, NextMetrics[]>(SEARCH_CONTEXT_METHODS.map((m) => [m, []]));
  const total = splits.reduce((s, sp) => s + sp.test.length, 0);
  let done = 0;
  for (const split of splits) {
    const universe = buildUniverse(dataset.tools, split.train);
    const { model } = trainToolgraph(universe, split.train, options.seed);
    const methods = scorers(model);
    const acc = new Map<SearchContextMethod, NextAccumulator>(SEARCH_CONTEXT_METHODS.map((m) => [m, new NextAccumulator()]));
    const n = universe.names.length;
    for (const w of split.test) {
      options.onProgress?.(++done, total);
      if (!w.ordered || w.intent === '') continue;
      const ids = indicesOf(universe, w.tools);
      for (let i = 1; i < ids.length; i++) {
        const context = w.tools.slice(0, i).filter((_, j) => ids[j]! >= 0);
        for (const method of SEARCH_CONTEXT_METHODS) {
          const scorer = methods.get(method)!;
          scorer.score(context, w.intent);
          acc.get(method)!.add(rankOf(scorer.tiers, n, ids[i]!));
        }
      }
    }
    for (const m of SEARCH_CONTEXT_METHODS) perMethod.get(m)!.push(acc.get(m)!.result());
  }
  return SEARCH_CONTEXT_METHODS.map((method) => ({
    task: 'search' as const,
    context: true as const,
    data: dataset.name,
    method,
    ...average(perMethod.get(method)!),
  }));
}
