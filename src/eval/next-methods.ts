/**
 * The methods compared by `toolgraph eval next`, all trained on the same split:
 *  - popularity: tools by call count in training;
 *  - markov1: the most frequent successor of the last tool, then popularity;
 *  - markov2: the most frequent successor of the last two tools, backing off to markov1;
 *  - seed: the recommender with spec 003's published formula;
 *  - unfitted: the recommender before any fit (PRIOR_WEIGHTS: what a store answers before its
 *    first fit), on the same graph;
 *  - toolgraph: the recommender with weights fitted on the training traces.
 * The baselines are written here from their definitions, independently of the product code.
 */
import { TransitionGraph } from '../graph/transition-graph.js';
import { fitWeights, type FitReport } from '../recommend/fit-weights.js';
import { buildModel, PRIOR_WEIGHTS, type RecommenderModel } from '../recommend/model.js';
import { scoreAllTools } from '../recommend/score-all.js';
import { workflowToTrace, type WorkflowRecord } from '../schema/trace.js';
import { hashedTextEmbedding } from '../text/text-embedding.js';
import type { Tiers } from './metrics.js';
import { indicesOf, type Universe } from './universe.js';

export const NEXT_METHODS = ['popularity', 'markov1', 'markov2', 'seed', 'unfitted', 'toolgraph'] as const;
export type NextMethod = (typeof NEXT_METHODS)[number];

export interface NextScorer {
  readonly tiers: Tiers;
  /** Fills `tiers` for a context of universe indices (unknown ones already removed). */
  score(context: readonly number[], intent: string | null): void;
}

/**
 * Builds the recommender for a split: fit weights on train, then the model on all of train;
 * `unfitted` builds the same graph's model with the weights a store has before any fit.
 */
export function trainToolgraph(
  universe: Universe,
  train: readonly WorkflowRecord[],
  seed?: number,
): { model: RecommenderModel; fit: FitReport; unfitted: () => RecommenderModel } {
  const traces = train.map(workflowToTrace);
  // One embedding for the fit's fold models and the final one: tool vectors are computed once.
  const embedding = hashedTextEmbedding();
  const fit = fitWeights(traces, universe.catalog, { seed, embedding });
  const graph = new TransitionGraph();
  for (const name of universe.catalog.keys()) graph.addTool(name);
  for (const t of traces) graph.ingest(t);
  const model = buildModel(graph, universe.catalog, fit.weights, { seed, embedding });
  if (model.graph.n !== universe.names.length || model.graph.names.some((name, i) => universe.names[i] !== name)) {
    throw new Error('trainToolgraph: model tool order differs from the evaluation universe');
  }
  return { model, fit, unfitted: () => buildModel(graph, universe.catalog, PRIOR_WEIGHTS, { seed, embedding }) };
}

export function nextScorers(universe: Universe, train: readonly WorkflowRecord[], model: RecommenderModel, unfitted: RecommenderModel): Map<NextMethod, NextScorer> {
  const n = universe.names.length;
  const pop = new Float64Array(n);
  const succ = new Map<number, Map<number, number>>();
  const succ2 = new Map<string, Map<number, number>>();
  const bump = <K>(table: Map<K, Map<number, number>>, key: K, c: number): void => {
    let row = table.get(key);
    if (row === undefined) table.set(key, (row = new Map()));
    row.set(c, (row.get(c) ?? 0) + 1);
  };
  for (const w of train) {
    const ids = indicesOf(universe, w.tools);
    for (let i = 0; i < ids.length; i++) {
      pop[ids[i]!]!++;
      if (i >= 1) bump(succ, ids[i - 1]!, ids[i]!);
      if (i >= 2) bump(succ2, `${ids[i - 2]} ${ids[i - 1]}`, ids[i]!);
    }
  }
  const fill = (target: Float64Array, row: Map<number, number> | undefined): void => {
    target.fill(0);
    if (row !== undefined) for (const [c, count] of row) target[c] = count;
  };

  const m1 = new Float64Array(n);
  const m2a = new Float64Array(n);
  const m2b = new Float64Array(n);
  const dense = new Float64Array(n);
  const seedDense = new Float64Array(n);
  const priorDense = new Float64Array(n);
  const last = (ctx: readonly number[]): number => (ctx.length > 0 ? ctx[ctx.length - 1]! : -1);

  return new Map<NextMethod, NextScorer>([
    ['popularity', { tiers: [pop], score: () => {} }],
    ['markov1', { tiers: [m1, pop], score: (ctx) => fill(m1, succ.get(last(ctx))) }],
    [
      'markov2',
      {
        tiers: [m2a, m2b, pop],
        score: (ctx) => {
          fill(m2a, ctx.length >= 2 ? succ2.get(`${ctx[ctx.length - 2]} ${last(ctx)}`) : undefined);
          fill(m2b, succ.get(last(ctx)));
        },
      },
    ],
    ['seed', { tiers: [seedDense], score: (ctx, intent) => scoreAllTools(model, ctx, intent, 'seed', seedDense) }],
    ['unfitted', { tiers: [priorDense], score: (ctx, intent) => scoreAllTools(unfitted, ctx, intent, 'next', priorDense) }],
    ['toolgraph', { tiers: [dense], score: (ctx, intent) => scoreAllTools(model, ctx, intent, 'next', dense) }],
  ]);
}
