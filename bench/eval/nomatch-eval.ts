/**
 * `toolgraph eval nomatch --data DIR --foreign DIR2`: how well searchTools says "nothing fits".
 * toolgraph is trained on DIR's train split; then DIR's test intents (in-domain: a no-match is
 * a miss) and every test intent of DIR2 (another domain: a no-match is right) are searched.
 * Reported: the no-match rate on each, in-domain Hit@1 and Recall@5 with the rule (a no-match
 * counts as a miss) and without it (the same ranking, always answered).
 */
import { searchTools } from '../../src/recommend/search-tools.js';
import type { Dataset } from '../../src/schema/dataset.js';
import { trainToolgraph } from './next-methods.js';
import { splitsOf } from './splits.js';
import { buildUniverse } from './universe.js';

export interface NoMatchResult {
  readonly task: 'nomatch';
  readonly data: string;
  readonly foreign: string;
  /** In-domain test intents, and foreign ones. */
  readonly n: number;
  readonly foreignN: number;
  readonly inDomainNoMatch: number;
  readonly foreignNoMatch: number;
  readonly hit1: number;
  readonly hit1Always: number;
  readonly recall5: number;
  readonly threshold: number | null;
}

/** With `validation`, both datasets' held-out quarters of train stand in for their test splits. */
export function evaluateNoMatch(dataset: Dataset, foreign: Dataset, seed?: number, validation = false): NoMatchResult {
  const split = splitsOf(dataset.workflows, { validation })[0]!;
  const universe = buildUniverse(dataset.tools, split.train);
  const { model } = trainToolgraph(universe, split.train, seed);
  let n = 0;
  let noMatch = 0;
  let hits = 0;
  let hitsAlways = 0;
  let recall = 0;
  for (const w of split.test) {
    if (w.intent === '') continue;
    const result = searchTools(model, { query: w.intent, context: [], k: 5 });
    const gold = new Set(w.tools);
    const top = result.items[0]?.tool;
    const hit = top !== undefined && gold.has(top);
    n++;
    if (hit) hitsAlways++;
    if (result.kind === 'no-match') {
      noMatch++;
      continue;
    }
    if (hit) hits++;
    recall += result.items.filter((it) => gold.has(it.tool)).length / gold.size;
  }
  let foreignN = 0;
  let foreignNoMatch = 0;
  for (const w of splitsOf(foreign.workflows, { validation })[0]!.test) {
    if (w.intent === '') continue;
    foreignN++;
    if (searchTools(model, { query: w.intent, context: [], k: 5 }).kind === 'no-match') foreignNoMatch++;
  }
  return {
    task: 'nomatch',
    data: dataset.name,
    foreign: foreign.name,
    n,
    foreignN,
    inDomainNoMatch: n > 0 ? noMatch / n : 0,
    foreignNoMatch: foreignN > 0 ? foreignNoMatch / foreignN : 0,
    hit1: n > 0 ? hits / n : 0,
    hit1Always: n > 0 ? hitsAlways / n : 0,
    recall5: n > 0 ? recall / n : 0,
    threshold: model.weights.noMatchCoverage ?? null,
  };
}
