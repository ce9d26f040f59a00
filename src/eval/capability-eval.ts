/**
 * `toolgraph eval capability`: can the capability ranking find the capability a task runs?
 *
 * Capabilities are learned from the `train` workflows (learn-capabilities.ts, each replayed as a
 * successful trace). A `test` workflow is a query when its tool set equals a learned
 * capability's (the gold); the query is its first tool (context) and its intent. Methods
 * (relevance, then whether the spectral boost SPEC_BOOST of the first tool's cluster applies):
 *  - semantic:       the intent alone (BM25 / max), no context, no boost;
 *  - semantic-boost: the intent alone, boosted by the first tool's cluster (spec 4.4's active search);
 *  - passive:        Jaccard of the first tool with the capability, no intent, no boost;
 *  - passive-boost:  the same, boosted (spec 4.4's passive suggestion);
 *  - overlap:        semantic x share of the context in the capability, no boost;
 *  - toolgraph:      the same, boosted.
 * Reported: Hit@1, Hit@5, MRR over matched workflows, how many matched, and the same overlap /
 * toolgraph MRR on the training set cross-fitted over 4 folds (learn on 3, query the 4th), which
 * is what decides whether the boost earns its place in the default.
 */
import { foldOf } from '../recommend/folds.js';
import { buildCapabilityModel, type CapabilityModel } from '../recommend/capability-model.js';
import { learnCapabilities } from '../recommend/learn-capabilities.js';
import { SPEC_BOOST, scoreCapabilities } from '../recommend/rank-capabilities.js';
import type { Dataset } from '../schema/dataset.js';
import { workflowToTraceAt, type WorkflowRecord } from '../schema/trace.js';
import { tokenize } from '../text/tokenize.js';
import { splitsOf } from './splits.js';
import { buildUniverse, type Universe } from './universe.js';

export const CAPABILITY_METHODS = ['semantic', 'semantic-boost', 'passive', 'passive-boost', 'overlap', 'toolgraph'] as const;
export type CapabilityMethod = (typeof CAPABILITY_METHODS)[number];

export interface CapabilityEvalResult {
  readonly task: 'capability';
  readonly data: string;
  readonly method: CapabilityMethod;
  /** Matched test workflows (the queries). */
  readonly n: number;
  /** Test workflows with two distinct tools or more (could match). */
  readonly candidates: number;
  /** Learned capabilities (summed over folds). */
  readonly capabilities: number;
  readonly hit1: number;
  readonly hit5: number;
  readonly mrr: number;
  /** MRR on train, cross-fitted over 4 folds (learn on 3, query the 4th). */
  readonly trainMrr: number;
  readonly trainN: number;
}

export interface CapabilityEvalOptions {
  readonly folds?: number;
  /** Hold out a quarter of train instead of reading test (splits.ts). */
  readonly validation?: boolean;
  readonly seed?: number;
  readonly boost?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

interface Acc {
  n: number;
  h1: number;
  h5: number;
  rr: number;
}

const empty = (): Acc => ({ n: 0, h1: 0, h5: 0, rr: 0 });

function setKey(tools: readonly string[]): string {
  return [...new Set(tools)].sort().join('\u0000');
}

function learnOn(train: readonly WorkflowRecord[], universe: Universe, seed: number | undefined): { model: CapabilityModel; byKey: Map<string, number> } {
  const traces = train.map((w) => workflowToTraceAt(w, 0));
  const learned = learnCapabilities(traces);
  const model = buildCapabilityModel({ n: universe.names.length, indexByName: universe.index }, universe.catalog, {
    capabilities: learned,
    traces,
    ...(seed === undefined ? {} : { seed }),
  });
  const byKey = new Map<string, number>();
  learned.forEach((c, i) => byKey.set(setKey(c.tools), i));
  return { model, byKey };
}

/** Scores the matched workflows of `test` into one accumulator per method; returns the number that could match. */
function query(
  model: CapabilityModel,
  byKey: Map<string, number>,
  universe: Universe,
  test: readonly WorkflowRecord[],
  boost: number,
  acc: Map<CapabilityMethod, Acc>,
  onEach?: () => void,
): number {
  let candidates = 0;
  for (const w of test) {
    onEach?.();
    if (new Set(w.tools).size < 2) continue;
    candidates++;
    const gold = byKey.get(setKey(w.tools));
    if (gold === undefined) continue;
    const first = universe.index.get(w.tools[0]!)!;
    const tokens = tokenize(w.intent);
    const words = tokens.length > 0 ? tokens : null;
    // [method, context, intent words, boost, relevance ignores the context]
    const runs: [CapabilityMethod, readonly number[], readonly string[] | null, number, boolean][] = [
      ['semantic', [], words, 0, false],
      ['semantic-boost', [first], words, boost, true],
      ['passive', [first], null, 0, false],
      ['passive-boost', [first], null, boost, false],
      ['overlap', [first], words, 0, false],
      ['toolgraph', [first], words, boost, false],
    ];
    for (const [method, context, query, b, semanticOnly] of runs) {
      const a = acc.get(method)!;
      const { ranked } = scoreCapabilities(model, context, query, b, semanticOnly);
      // Without intent words the semantic methods have nothing to go on: a miss.
      const position = method.startsWith('semantic') && words === null ? -1 : ranked.findIndex((r) => r.capability === gold);
      a.n++;
      if (position === 0) a.h1++;
      if (position >= 0 && position < 5) a.h5++;
      if (position >= 0) a.rr += 1 / (position + 1);
    }
  }
  return candidates;
}

export function evaluateCapabilities(dataset: Dataset, options: CapabilityEvalOptions = {}): CapabilityEvalResult[] {
  const boost = options.boost ?? SPEC_BOOST;
  const splits = splitsOf(dataset.workflows, options);
  const testAcc = new Map<CapabilityMethod, Acc>(CAPABILITY_METHODS.map((m) => [m, empty()]));
  const trainAcc = new Map<CapabilityMethod, Acc>(CAPABILITY_METHODS.map((m) => [m, empty()]));
  let candidates = 0;
  let capabilities = 0;
  const total = splits.reduce((s, sp) => s + sp.test.length + sp.train.length, 0);
  let done = 0;
  const tick = (): void => options.onProgress?.(++done, total);
  for (const split of splits) {
    const universe = buildUniverse(dataset.tools, split.train);
    const { model, byKey } = learnOn(split.train, universe, options.seed);
    capabilities += model.capabilities.length;
    candidates += query(model, byKey, universe, split.test, boost, testAcc, tick);
    // Cross-fitting on train: the boost is judged on data the test split never sees.
    const inner = 4;
    for (let f = 0; f < inner; f++) {
      const fit = split.train.filter((w) => foldOf(w.id, inner) !== f);
      const held = split.train.filter((w) => foldOf(w.id, inner) === f);
      const innerUniverse = buildUniverse(dataset.tools, fit);
      const learned = learnOn(fit, innerUniverse, options.seed);
      query(learned.model, learned.byKey, innerUniverse, held, boost, trainAcc, tick);
    }
  }
  return CAPABILITY_METHODS.map((method) => {
    const a = testAcc.get(method)!;
    const t = trainAcc.get(method)!;
    const d = a.n || 1;
    return {
      task: 'capability' as const,
      data: dataset.name,
      method,
      n: a.n,
      candidates,
      capabilities,
      hit1: a.h1 / d,
      hit5: a.h5 / d,
      mrr: a.rr / d,
      trainMrr: t.n > 0 ? t.rr / t.n : 0,
      trainN: t.n,
    };
  });
}
