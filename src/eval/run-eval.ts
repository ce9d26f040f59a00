/**
 * Runs the evaluation protocol of shared/data/README.md on one dataset folder: every method
 * trained on the same split and scored on the same queries, per fold, then averaged over folds.
 */
import type { Dataset } from '../schema/dataset.js';
import { logNormaliser, NextAccumulator, rankOf, SearchAccumulator, topIndices, type NextMetrics, type SearchMetrics } from './metrics.js';
import { NEXT_METHODS, nextScorers, trainToolgraph, type NextMethod } from './next-methods.js';
import { SEARCH_METHODS, searchScorers, type SearchMethod } from './search-methods.js';
import { splitsOf, withColdTools } from './splits.js';
import { buildUniverse, indicesOf } from './universe.js';

export interface EvalOptions {
  readonly folds?: number;
  /** Hold out a quarter of train instead of reading test (splits.ts). */
  readonly validation?: boolean;
  readonly intent?: boolean;
  readonly seed?: number;
  /** search: tools the traces never showed (splits.ts, withColdTools). */
  readonly coldTools?: boolean;
  /** Called with (done, total) as test workflows are processed. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface NextResult extends NextMetrics {
  readonly task: 'next';
  readonly data: string;
  readonly method: NextMethod;
}

export interface SearchResult extends SearchMetrics {
  readonly task: 'search';
  readonly data: string;
  readonly method: SearchMethod;
}

/**
 * Averages metrics over the folds that evaluated a query; `n` (query count) is summed. A fold
 * with none reports zeros for want of data, not because its model missed: counted, it would pull
 * the mean toward 0 (with many small folds, by half or more). With no such fold at all the
 * result is the first fold's zeros, n = 0.
 */
export function average<T extends { readonly n: number }>(parts: readonly T[]): T {
  const scored = parts.filter((p) => p.n > 0);
  if (scored.length <= 1) return scored[0] ?? parts[0]!;
  const out: Record<string, number> = {};
  for (const key of Object.keys(scored[0]!)) {
    const values = scored.map((p) => (p as unknown as Record<string, number>)[key]!);
    const sum = values.reduce((a, b) => a + b, 0);
    out[key] = key === 'n' ? sum : sum / values.length;
  }
  return out as T;
}

export function evaluateNext(dataset: Dataset, options: EvalOptions = {}): NextResult[] {
  const splits = splitsOf(dataset.workflows, options);
  const useIntent = options.intent ?? true;
  const perMethod = new Map<NextMethod, NextMetrics[]>(NEXT_METHODS.map((m) => [m, []]));
  const total = splits.reduce((s, sp) => s + sp.test.length, 0);
  let done = 0;
  for (const split of splits) {
    const universe = buildUniverse(dataset.tools, split.train);
    const { model, unfitted } = trainToolgraph(universe, split.train, options.seed);
    const scorers = nextScorers(universe, split.train, model, unfitted());
    const acc = new Map<NextMethod, NextAccumulator>(NEXT_METHODS.map((m) => [m, new NextAccumulator()]));
    const n = universe.names.length;
    for (const w of split.test) {
      options.onProgress?.(++done, total);
      if (!w.ordered) continue;
      const ids = indicesOf(universe, w.tools);
      const intent = useIntent && w.intent !== '' ? w.intent : null;
      for (let i = 1; i < ids.length; i++) {
        const context = ids.slice(0, i).filter((c) => c >= 0);
        for (const method of NEXT_METHODS) {
          const scorer = scorers.get(method)!;
          scorer.score(context, intent);
          acc.get(method)!.add(rankOf(scorer.tiers, n, ids[i]!));
        }
      }
    }
    for (const m of NEXT_METHODS) perMethod.get(m)!.push(acc.get(m)!.result());
  }
  return NEXT_METHODS.map((method) => ({
    task: 'next' as const,
    data: dataset.name,
    method,
    ...average(perMethod.get(method)!),
  }));
}

export function evaluateSearch(dataset: Dataset, options: EvalOptions = {}): SearchResult[] {
  const splits = splitsOf(dataset.workflows, options).map((split) => (options.coldTools === true ? withColdTools(split) : split));
  const perMethod = new Map<SearchMethod, SearchMetrics[]>(SEARCH_METHODS.map((m) => [m, []]));
  const total = splits.reduce((s, sp) => s + sp.test.length, 0);
  let done = 0;
  for (const split of splits) {
    const universe = buildUniverse(dataset.tools, split.train);
    const { model, unfitted } = trainToolgraph(universe, split.train, options.seed);
    const scorers = searchScorers(model, unfitted());
    const acc = new Map<SearchMethod, SearchAccumulator>(SEARCH_METHODS.map((m) => [m, new SearchAccumulator()]));
    const n = universe.names.length;
    for (const w of split.test) {
      options.onProgress?.(++done, total);
      if (w.intent === '' || w.tools.length === 0) continue;
      const gold = new Set(indicesOf(universe, w.tools));
      const known = [...gold].filter((c) => c >= 0);
      gold.delete(-1);
      for (const method of SEARCH_METHODS) {
        const scorer = scorers.get(method)!;
        scorer.score(w.intent);
        const firstRank = known.length > 0 ? Math.min(...known.map((c) => rankOf(scorer.tiers, n, c))) : Infinity;
        // Recall counts every gold tool, known or not: an unknown one is a miss.
        const goldAll = new Set<number>(known);
        const missing = new Set(w.tools).size - known.length;
        for (let i = 0; i < missing; i++) goldAll.add(-2 - i);
        const logZ = scorer.logLinear === true ? logNormaliser(scorer.tiers[0]!, n) : 0;
        acc.get(method)!.add(topIndices(scorer.tiers, n, 10), goldAll, firstRank, scorer.logLinear === true ? known.map((c) => scorer.tiers[0]![c]! - logZ) : undefined);
      }
    }
    for (const m of SEARCH_METHODS) perMethod.get(m)!.push(acc.get(m)!.result());
  }
  return SEARCH_METHODS.map((method) => ({
    task: 'search' as const,
    data: dataset.name,
    method,
    ...average(perMethod.get(method)!),
  }));
}
