/**
 * `toolgraph eval feedback`: does the feedback loop recover when tools start failing?
 *
 * Protocol (README, "Feedback loop"), on the dataset's train/test split, or with `validation`
 * inside train only (splits.ts), for design choices:
 *
 * 1. Train. Every train workflow is a successful trace, timestamped evenly over 90 days in file
 *    order. The default profile's weights are fitted on them (fit-weights.ts), once; every model
 *    below uses these weights.
 * 2. Undrifted. The trained model ranks every test position (context = the tools before it, the
 *    intent); Hit@1 against the recorded next tool.
 * 3. Drift. The distinct transitions a -> b at test positions that the training traces also
 *    contain (a learned transition can start failing; one never learned cannot) are shuffled
 *    with the seed and a third is drifted: b now fails after a, and an alternative b' works.
 *    `runner-up` (default): b' is the tool the undrifted model ranks first after a without
 *    intent, other than b and any drifted target of a: the model's own second choice, fixed
 *    before any drift trace exists. `random`: b' is drawn with the seed among the tools the
 *    training traces call, other than a, b and any drifted target of a: an alternative the
 *    intent text knows nothing about, the harder case.
 * 4. Replay, built from the training traces only (never from test): each train trace with a
 *    drifted transition gives a failure trace (its prefix up to the first drifted b, that step
 *    failed, the task failed) and a success trace (every drifted b replaced by its b'), both
 *    with the train trace's own intent, in a seeded order over the 30 days after training.
 * 5. Drifted truth. Each test sequence is rewritten by the same rule (every b after a drifted
 *    a -> b becomes b'); Hit@1 is measured on the rewritten contexts and targets.
 *
 * Methods, on the same drifted truth:
 *  - no-feedback: the replay ingested with its outcomes erased (every step and task a success):
 *    what a learner without a feedback loop sees, calls and no verdicts;
 *  - toolgraph: the replay ingested as recorded, reliability and exclusion in the ranking;
 *  - seed: the same graph, ranked by the seed profile with spec 003 section 3.3.
 * The rows `undrifted` give each profile's Hit@1 on the original test before any drift.
 */
import { createRng } from '../graph/rng.js';
import { TransitionGraph } from '../graph/transition-graph.js';
import { fitWeights, type FitReport } from '../recommend/fit-weights.js';
import { buildModel, type FittedWeights, type RecommenderModel } from '../recommend/model.js';
import { scoreAllTools, type ScoreMode } from '../recommend/score-all.js';
import type { Dataset } from '../schema/dataset.js';
import type { WorkflowRecord } from '../schema/trace.js';
import type { Trace } from '../schema/types.js';
import { rankOf } from './metrics.js';
import { splitsOf } from './splits.js';
import { buildUniverse, indicesOf, type Universe } from './universe.js';

const DAY_MS = 86_400_000;
/** Start of the replayed timeline (2024-01-01T00:00:00Z); any fixed origin gives the same results. */
const ORIGIN = Date.UTC(2024, 0, 1);
export const TRAIN_DAYS = 90;
export const DRIFT_DAYS = 30;
export const DRIFT_SHARE = 1 / 3;

export const FEEDBACK_METHODS = ['no-feedback', 'toolgraph', 'seed'] as const;
export type FeedbackMethod = (typeof FEEDBACK_METHODS)[number];
export const ALTERNATIVES = ['runner-up', 'random'] as const;
export type AlternativeRule = (typeof ALTERNATIVES)[number];

export interface FeedbackEvalOptions {
  readonly seed?: number;
  /** Hold out fold 0 of 4 of train instead of using test: for design choices, never test. */
  readonly validation?: boolean;
  /** Predict without the intent text. */
  readonly intent?: boolean;
  /** How the working alternative of a drifted transition is chosen (default runner-up). */
  readonly alternative?: AlternativeRule;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface FeedbackResult {
  readonly task: 'feedback';
  readonly data: string;
  /** `undrifted` rows: the original test; `drifted`: the rewritten one. */
  readonly phase: 'undrifted' | 'drifted';
  readonly method: FeedbackMethod;
  readonly alternative: AlternativeRule;
  /** Test positions ranked. */
  readonly n: number;
  /** Positions whose target the drift rewrote. */
  readonly nDrifted: number;
  readonly hit1: number;
  /** Hit@1 over the rewritten positions, and over the others. */
  readonly hit1Drifted: number;
  readonly hit1Stable: number;
  /** Drifted transitions, of the candidates (test transitions seen in training), and replayed traces. */
  readonly driftedTransitions: number;
  readonly candidateTransitions: number;
  readonly replayed: number;
}

interface Position {
  readonly context: number[];
  readonly target: number;
  readonly drifted: boolean;
  readonly intent: string | null;
}

/** Pair key of a -> b in a universe of n tools. */
function key(a: number, b: number, n: number): number {
  return a * n + b;
}

function shuffle<T>(items: T[], rng: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function trainTrace(w: WorkflowRecord, at: number): Trace {
  return { id: w.id, intent: w.intent, domain: w.domain, steps: w.tools.map((tool) => ({ tool, ok: true })), success: true, timestamp: at };
}

function buildGraph(universe: Universe, traces: readonly Trace[]): TransitionGraph {
  const graph = new TransitionGraph();
  for (const name of universe.names) graph.addTool(name);
  for (const t of traces) graph.ingest(t);
  return graph;
}

function model(universe: Universe, traces: readonly Trace[], weights: FittedWeights, seed: number | undefined): RecommenderModel {
  const m = buildModel(buildGraph(universe, traces), universe.catalog, weights, { seed });
  if (m.graph.n !== universe.names.length) throw new Error('feedback eval: model tool order differs from the universe');
  return m;
}

/** The drifted rewrite of a sequence of universe indices (-1 for unknown tools). */
function rewrite(ids: readonly number[], alternative: ReadonlyMap<number, number>, n: number): number[] {
  const out = ids.slice();
  for (let i = 1; i < ids.length; i++) {
    if (ids[i - 1]! < 0 || ids[i]! < 0) continue;
    const alt = alternative.get(key(ids[i - 1]!, ids[i]!, n));
    if (alt !== undefined) out[i] = alt;
  }
  return out;
}

function positions(test: readonly WorkflowRecord[], universe: Universe, alternative: ReadonlyMap<number, number> | null, useIntent: boolean): Position[] {
  const n = universe.names.length;
  const out: Position[] = [];
  for (const w of test) {
    if (!w.ordered) continue;
    const original = indicesOf(universe, w.tools);
    const ids = alternative === null ? original : rewrite(original, alternative, n);
    const intent = useIntent && w.intent !== '' ? w.intent : null;
    for (let i = 1; i < ids.length; i++) {
      out.push({ context: ids.slice(0, i).filter((c) => c >= 0), target: ids[i]!, drifted: ids[i] !== original[i], intent });
    }
  }
  return out;
}

function hits(m: RecommenderModel, mode: ScoreMode, ps: readonly Position[], onEach?: () => void): { all: number; drifted: number; stable: number; nDrifted: number } {
  const n = m.graph.n;
  const dense = new Float64Array(n);
  let all = 0;
  let drifted = 0;
  let stable = 0;
  let nDrifted = 0;
  for (const p of ps) {
    scoreAllTools(m, p.context, p.intent, mode, dense);
    const hit = rankOf([dense], n, p.target) <= 1 ? 1 : 0;
    all += hit;
    if (p.drifted) {
      nDrifted++;
      drifted += hit;
    } else {
      stable += hit;
    }
    onEach?.();
  }
  const d = (x: number, count: number): number => (count > 0 ? x / count : 0);
  return { all: d(all, ps.length), drifted: d(drifted, nDrifted), stable: d(stable, ps.length - nDrifted), nDrifted };
}

export interface DriftPlan {
  /** key(a, b) -> b' for every drifted transition. */
  readonly alternative: Map<number, number>;
  readonly candidates: number;
  /** Failure and success traces over the drift period. */
  readonly replay: Trace[];
}

/** Steps 3 and 4 of the protocol: which transitions drift, their alternatives, and the replay. */
export function planDrift(
  universe: Universe,
  train: readonly WorkflowRecord[],
  test: readonly WorkflowRecord[],
  undrifted: RecommenderModel,
  seed: number,
  rule: AlternativeRule = 'runner-up',
): DriftPlan {
  const n = universe.names.length;
  const learned = new Set<number>();
  for (const w of train) {
    const ids = indicesOf(universe, w.tools);
    for (let i = 1; i < ids.length; i++) learned.add(key(ids[i - 1]!, ids[i]!, n));
  }
  const candidates = new Set<number>();
  for (const w of test) {
    if (!w.ordered) continue;
    const ids = indicesOf(universe, w.tools);
    for (let i = 1; i < ids.length; i++) {
      if (ids[i - 1]! >= 0 && ids[i]! >= 0 && learned.has(key(ids[i - 1]!, ids[i]!, n))) candidates.add(key(ids[i - 1]!, ids[i]!, n));
    }
  }
  const rng = createRng(seed);
  const ordered = shuffle([...candidates].sort((x, y) => x - y), rng);
  const drifted = ordered.slice(0, Math.round(ordered.length * DRIFT_SHARE));
  const failingAfter = new Map<number, Set<number>>();
  for (const k of drifted) {
    const a = Math.floor(k / n);
    if (!failingAfter.has(a)) failingAfter.set(a, new Set());
    failingAfter.get(a)!.add(k % n);
  }
  const dense = new Float64Array(n);
  const alternative = new Map<number, number>();
  const called = [...new Set(train.flatMap((w) => indicesOf(universe, w.tools)))].sort((x, y) => x - y);
  for (const k of drifted) {
    const a = Math.floor(k / n);
    const b = k % n;
    const failing = failingAfter.get(a)!;
    let best = -1;
    if (rule === 'random') {
      const allowed = called.filter((c) => c !== a && c !== b && !failing.has(c));
      best = allowed[Math.floor(rng() * allowed.length)]!;
    } else {
      scoreAllTools(undrifted, [a], null, 'next', dense);
      for (let c = 0; c < n; c++) {
        if (c === b || failing.has(c)) continue;
        if (best < 0 || dense[c]! > dense[best]!) best = c;
      }
    }
    alternative.set(k, best);
  }

  const replay: Trace[] = [];
  for (const w of train) {
    const ids = indicesOf(universe, w.tools);
    const rewritten = rewrite(ids, alternative, n);
    const first = rewritten.findIndex((c, i) => c !== ids[i]);
    if (first < 0) continue;
    replay.push({
      id: `${w.id}#fail`,
      intent: w.intent,
      domain: w.domain,
      steps: w.tools.slice(0, first + 1).map((tool, i) => ({ tool, ok: i < first })),
      success: false,
      timestamp: 0,
    });
    replay.push({
      id: `${w.id}#alt`,
      intent: w.intent,
      domain: w.domain,
      steps: rewritten.map((c) => ({ tool: universe.names[c]!, ok: true })),
      success: true,
      timestamp: 0,
    });
  }
  shuffle(replay, rng);
  const start = ORIGIN + TRAIN_DAYS * DAY_MS;
  const step = replay.length > 0 ? (DRIFT_DAYS * DAY_MS) / replay.length : 0;
  return {
    alternative,
    candidates: candidates.size,
    replay: replay.map((t, i) => ({ ...t, timestamp: Math.round(start + i * step) })),
  };
}

/** Erases outcomes: what a learner without a feedback loop records. */
function withoutOutcomes(t: Trace): Trace {
  return { ...t, success: true, steps: t.steps.map((s) => ({ tool: s.tool, ok: true })) };
}

export function evaluateFeedback(dataset: Dataset, options: FeedbackEvalOptions = {}): { results: FeedbackResult[]; fit: FitReport } {
  const seed = options.seed ?? 42;
  const { train, test } = splitsOf(dataset.workflows, { validation: options.validation })[0]!;
  const universe = buildUniverse(dataset.tools, train);
  const step = train.length > 0 ? (TRAIN_DAYS * DAY_MS) / train.length : 0;
  const trainTraces = train.map((w, i) => trainTrace(w, Math.round(ORIGIN + i * step)));
  const fit = fitWeights(trainTraces, universe.catalog, { seed });
  const undrifted = model(universe, trainTraces, fit.weights, seed);

  const rule = options.alternative ?? 'runner-up';
  const plan = planDrift(universe, train, test, undrifted, seed, rule);
  const useIntent = options.intent ?? true;
  const before = positions(test, universe, null, useIntent);
  const after = positions(test, universe, plan.alternative, useIntent);
  const total = 2 * before.length + 3 * after.length;
  let done = 0;
  const tick = (): void => options.onProgress?.(++done, total);

  const common = { driftedTransitions: plan.alternative.size, candidateTransitions: plan.candidates, replayed: plan.replay.length };
  const row = (phase: FeedbackResult['phase'], method: FeedbackMethod, h: ReturnType<typeof hits>, n: number): FeedbackResult => ({
    task: 'feedback',
    data: dataset.name,
    phase,
    method,
    alternative: rule,
    n,
    nDrifted: h.nDrifted,
    hit1: h.all,
    hit1Drifted: h.drifted,
    hit1Stable: h.stable,
    ...common,
  });

  const results: FeedbackResult[] = [
    row('undrifted', 'toolgraph', hits(undrifted, 'next', before, tick), before.length),
    row('undrifted', 'seed', hits(undrifted, 'seed', before, tick), before.length),
  ];
  const blind = model(universe, [...trainTraces, ...plan.replay.map(withoutOutcomes)], fit.weights, seed);
  results.push(row('drifted', 'no-feedback', hits(blind, 'next', after, tick), after.length));
  const fed = model(universe, [...trainTraces, ...plan.replay], fit.weights, seed);
  results.push(row('drifted', 'toolgraph', hits(fed, 'next', after, tick), after.length));
  results.push(row('drifted', 'seed', hits(fed, 'seed', after, tick), after.length));
  return { results, fit };
}
