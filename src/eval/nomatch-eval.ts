/**
 * `toolgraph eval nomatch --data DIR --foreign DIR2`: how well searchTools says "nothing fits".
 * toolgraph is trained on DIR's train split; then DIR's test intents (in-domain: a no-match is
 * a miss) and every test intent of DIR2 (another domain: a no-match is right) are searched.
 * Reported: the no-match rate on each, in-domain Hit@1 and Recall@5 with the rule (a no-match
 * counts as a miss) and without it (the same ranking, always answered), and the share of each
 * whose suggested workflow (suggestDag) comes back `reject`.
 */
import { realpathSync } from 'node:fs';
import { suggestDag } from '../recommend/dag/suggest-dag.js';
import { searchTools } from '../recommend/search-tools.js';
import type { Dataset } from '../schema/dataset.js';
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
  /** The share of in-domain intents, and of foreign ones, whose suggested workflow is `reject`. */
  readonly dagReject: number;
  readonly foreignDagReject: number;
  /** The fitted rule's least evidence of a request that fits (no-match.ts; null: no fit). */
  readonly threshold: number | null;
  /**
   * What calibration could buy: with the threshold at the q-quantile of these in-domain
   * queries' own coverage (so about q of them are turned away), the in-domain Hit@1 and the
   * foreign no-match rate. Descriptive: set on the evaluated queries themselves, never used to
   * choose the shipped threshold (that is fitted on train, fit-weights.ts).
   */
  readonly curve: readonly CurvePoint[];
}

export interface CurvePoint {
  readonly quantile: number;
  readonly threshold: number;
  readonly inDomainNoMatch: number;
  readonly hit1: number;
  readonly foreignNoMatch: number;
}

export const CURVE_QUANTILES = [0.02, 0.05, 0.1, 0.2] as const;

/**
 * One model per dataset, trained once, and its in-domain searches run once; then each foreign
 * dataset is searched against it, skipping the same folder (by its real path: `--foreign` may
 * name the folder of all the datasets `--data` names, and a copy elsewhere is the user's to
 * ask for). With `validation`, every dataset's held-out quarter of train stands in for its test
 * split.
 */
export function evaluateNoMatch(dataset: Dataset, foreigns: readonly Dataset[], seed?: number, validation = false): NoMatchResult[] {
  const split = splitsOf(dataset.workflows, { validation })[0]!;
  const universe = buildUniverse(dataset.tools, split.train);
  const { model } = trainToolgraph(universe, split.train, seed);
  let n = 0;
  let noMatch = 0;
  let hits = 0;
  let hitsAlways = 0;
  let recall = 0;
  let dagRejects = 0;
  const inDomain: { coverage: number; hit: boolean }[] = [];
  for (const w of split.test) {
    if (w.intent === '') continue;
    const result = searchTools(model, { query: w.intent, context: [], k: 5 });
    const gold = new Set(w.tools);
    const top = result.items[0]?.tool;
    const hit = top !== undefined && gold.has(top);
    n++;
    inDomain.push({ coverage: result.coverage, hit });
    if (suggestDag(model, { intent: w.intent }).status === 'reject') dagRejects++;
    if (hit) hitsAlways++;
    if (result.kind === 'no-match') {
      noMatch++;
      continue;
    }
    if (hit) hits++;
    recall += result.items.filter((it) => gold.has(it.tool)).length / gold.size;
  }
  const sorted = inDomain.map((q) => q.coverage).sort((a, b) => a - b);
  const thresholds = sorted.length === 0 ? [] : CURVE_QUANTILES.map((quantile) => ({ quantile, threshold: sorted[Math.floor(quantile * (sorted.length - 1))]! }));
  const own = realpathSync(dataset.dir);
  return foreigns
    .filter((foreign) => realpathSync(foreign.dir) !== own)
    .map((foreign) => {
      let foreignN = 0;
      let foreignNoMatch = 0;
      let foreignDagRejects = 0;
      const foreignCoverage: number[] = [];
      for (const w of splitsOf(foreign.workflows, { validation })[0]!.test) {
        if (w.intent === '') continue;
        foreignN++;
        const result = searchTools(model, { query: w.intent, context: [], k: 5 });
        foreignCoverage.push(result.coverage);
        if (result.kind === 'no-match') foreignNoMatch++;
        if (suggestDag(model, { intent: w.intent }).status === 'reject') foreignDagRejects++;
      }
      const curve: CurvePoint[] = thresholds.map(({ quantile, threshold }) => ({
        quantile,
        threshold,
        inDomainNoMatch: inDomain.filter((q) => q.coverage < threshold).length / n,
        hit1: inDomain.filter((q) => q.hit && q.coverage >= threshold).length / n,
        foreignNoMatch: foreignN > 0 ? foreignCoverage.filter((c) => c < threshold).length / foreignN : 0,
      }));
      return {
        task: 'nomatch' as const,
        data: dataset.name,
        foreign: foreign.name,
        n,
        foreignN,
        inDomainNoMatch: n > 0 ? noMatch / n : 0,
        foreignNoMatch: foreignN > 0 ? foreignNoMatch / foreignN : 0,
        hit1: n > 0 ? hits / n : 0,
        hit1Always: n > 0 ? hitsAlways / n : 0,
        recall5: n > 0 ? recall / n : 0,
        dagReject: n > 0 ? dagRejects / n : 0,
        foreignDagReject: foreignN > 0 ? foreignDagRejects / foreignN : 0,
        threshold: model.weights.noMatch?.threshold ?? null,
        curve,
      };
    });
}
