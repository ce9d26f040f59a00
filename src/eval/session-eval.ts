/**
 * `toolgraph eval session`: the `test` workflows with `ordered: true` and two tools or more,
 * replayed as workflow sessions through the engine (src/engine/session.ts) over a recommender
 * trained on `train` (trainToolgraph: the weights fitted on train, as `eval next` has them).
 *
 * The escalation threshold is calibrated on train alone (engine/confidence-threshold.ts: folds
 * of train by a stable hash, held-out answers, target precision 0.95); test only reports it.
 *
 * The model tier is a stated stand-in, here only (the product calls a real endpoint): asked at
 * a step, it names the true next tool with probability p (default 0.9) when that tool is among
 * the candidates it is shown, else the best candidate that is not; it is charged at the tier's
 * price for the real prompt's size (tiers.ts, estimateTokens: four characters a token) plus its
 * answer's. Each step's draw is a stable hash of (seed, workflow id, position): every budget and
 * every policy meets the same model on the same step.
 *
 * Every step of a workflow is reported, the last one too (a gateway does not know the task is
 * over); a step is scored when a next tool follows it: right when the session's first answer
 * (`next[0]`) is that tool.
 *
 * Reported:
 *  - method 'budget', per budget (0, 10, 50, 100 cents): step accuracy, escalations and cents
 *    per session, the most a session spent, and sessions that spent past their budget;
 *  - method 'graph-only': the graph's answers alone, their risk-coverage curve (by confidence):
 *    AURC, and the coverage at 95% precision; with the calibrated threshold's coverage and
 *    precision on test;
 *  - method 'policy': accuracy at equal escalation rates of never, always, random (escalates a
 *    random share of the steps, the graph answering the others: its expected accuracy over every
 *    such choice, exactly), AutoTool-style inertia (Jia et
 *    al., AAAI 2026: escalates the steps whose last tool's most frequent successor in train has
 *    the lowest share; that successor answers the others) and toolgraph (escalates the steps of
 *    lowest confidence; the graph answers the others), at rates 0.1 .. 0.9 and at the calibrated
 *    threshold's own rate. Ties are broken by a stable hash, the same for every policy;
 *  - method 'deviation', where test workflows have step texts (UltraTool): the deviation rule,
 *    seed and default, on each workflow's own step texts (which should be ON_TOPIC) and on a
 *    step text of a workflow of another domain (which should be OFF_TOPIC).
 */
import { parseDagRequest, parsePredictRequest, parseSearchRequest } from '../schema/requests.js';
import { suggestDag } from '../recommend/dag/suggest-dag.js';
import { stableHash } from '../recommend/folds.js';
import { predictNext } from '../recommend/predict-next.js';
import { searchTools } from '../recommend/search-tools.js';
import type { RecommenderModel } from '../recommend/model.js';
import type { Dataset } from '../schema/dataset.js';
import { parseStartSessionRequest } from '../schema/session-requests.js';
import { workflowToTrace, type WorkflowRecord } from '../schema/trace.js';
import { hashedTextEmbedding } from '../text/text-embedding.js';
import { calibrateThreshold, heldOutAnswers, precisionCurve, type ThresholdCalibration } from '../engine/confidence-threshold.js';
import { detectTopicDeviation } from '../engine/deviation.js';
import type { ModelPort } from '../engine/escalation.js';
import { parseSessionOptions, type SessionOptions } from '../engine/options.js';
import { pendingSteps } from '../engine/plan.js';
import { startSession, stepSession, type EngineDeps, type Recommender } from '../engine/session.js';
import { estimateTokens } from '../engine/tiers.js';
import { trainToolgraph } from './next-methods.js';
import { splitsOf } from './splits.js';
import { buildUniverse } from './universe.js';

export const SESSION_BUDGETS = [0, 10, 50, 100] as const;
export const POLICY_RATES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] as const;
export const POLICIES = ['never', 'always', 'random', 'inertia', 'toolgraph'] as const;

export interface SessionEvalOptions {
  readonly seed?: number;
  readonly validation?: boolean;
  /** The stand-in model's accuracy p. */
  readonly modelAccuracy?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

interface Base {
  readonly task: 'session';
  readonly data: string;
}

export type SessionEvalResult =
  | (Base & { readonly method: 'budget'; readonly budgetCents: number; readonly sessions: number; readonly n: number; readonly accuracy: number; readonly escalationsPerSession: number; readonly centsPerSession: number; readonly maxCents: number; readonly overBudget: number; readonly threshold: number })
  | (Base & {
      readonly method: 'graph-only';
      readonly n: number;
      readonly accuracy: number;
      readonly aurc: number;
      readonly coverageAt95: number;
      readonly threshold: number;
      readonly thresholdSource: 'calibrated' | 'default';
      readonly calibrationPositions: number;
      readonly calibrationCoverage: number;
      readonly thresholdCoverage: number;
      readonly thresholdPrecision: number;
    })
  | (Base & { readonly method: 'policy'; readonly policy: (typeof POLICIES)[number]; readonly rate: number; readonly calibrated: boolean; readonly n: number; readonly accuracy: number })
  | (Base & { readonly method: 'deviation'; readonly profile: 'seed' | 'default'; readonly n: number; readonly ownOnTopic: number; readonly ownOffTopic: number; readonly foreignOffTopic: number; readonly foreignOnTopic: number });

/** One scored step: what each policy needs to answer it with or without the model. */
interface ScoredStep {
  readonly confidence: number;
  readonly graphRight: boolean;
  readonly modelRight: boolean;
  readonly inertiaShare: number;
  readonly inertiaRight: boolean;
  /** Stable tie-break. */
  readonly hash: number;
}

/** The stand-in's draw for a step, in [0, 1). */
function draw(seed: number, id: string, position: number): number {
  return stableHash(`${seed}:${id}:${position}`) / 4294967296;
}

/** The stand-in model tier: right with probability p when the truth is a candidate (see the file comment). */
class StandInModel implements ModelPort {
  truth: string | null = null;
  u = 1;
  constructor(private readonly p: number) {}

  async ask(request: Parameters<ModelPort['ask']>[0]): ReturnType<ModelPort['ask']> {
    const right = this.truth !== null && request.candidates.includes(this.truth) && this.u < this.p;
    const tool = right ? this.truth! : (request.candidates.find((c) => c !== this.truth) ?? request.candidates[0]!);
    const content = JSON.stringify({ tool });
    let prompt = 0;
    for (const m of request.messages) prompt += estimateTokens(m.content);
    return { ok: true, content, usage: { promptTokens: prompt, completionTokens: estimateTokens(content) }, ms: 0 };
  }
}

/** The trained model as a session's recommender, the plan and the intent's search kept per intent (the same for every budget). */
function recommenderOf(model: RecommenderModel): Recommender {
  const dags = new Map<string, ReturnType<typeof suggestDag>>();
  const searches = new Map<string, ReturnType<typeof searchTools>>();
  return {
    predictNext: async (request) => predictNext(model, parsePredictRequest(request)),
    searchTools: async (request) => {
      const key = JSON.stringify(request);
      let hit = searches.get(key);
      if (hit === undefined) searches.set(key, (hit = searchTools(model, parseSearchRequest(request))));
      return hit;
    },
    suggestDag: async (request) => {
      const key = JSON.stringify(request);
      let hit = dags.get(key);
      if (hit === undefined) dags.set(key, (hit = suggestDag(model, parseDagRequest(request))));
      return hit;
    },
  };
}

/** Successor counts of train: the inertia rule's answer and share after each tool. */
function successors(train: readonly WorkflowRecord[]): (last: string) => { tool: string | null; share: number } {
  const table = new Map<string, Map<string, number>>();
  for (const w of train) {
    for (let i = 1; i < w.tools.length; i++) {
      let row = table.get(w.tools[i - 1]!);
      if (row === undefined) table.set(w.tools[i - 1]!, (row = new Map()));
      row.set(w.tools[i]!, (row.get(w.tools[i]!) ?? 0) + 1);
    }
  }
  return (last) => {
    const row = table.get(last);
    if (row === undefined) return { tool: null, share: 0 };
    let best: string | null = null;
    let bestCount = 0;
    let total = 0;
    for (const [tool, count] of row) {
      total += count;
      if (count > bestCount || (count === bestCount && best !== null && tool < best)) [best, bestCount] = [tool, count];
    }
    return { tool: best, share: bestCount / total };
  };
}

/** AURC over answers sorted by confidence, equal confidences as one block (precisionCurve). */
function aurc(curve: ReturnType<typeof precisionCurve>): number {
  let sum = 0;
  let before = 0;
  for (let j = 0; j < curve.coverage.length; j++) {
    sum += (1 - curve.precision[j]!) * (curve.coverage[j]! - before);
    before = curve.coverage[j]!;
  }
  return sum;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Accuracy when the `m` steps first in `order` escalate and `answer` says whether the others are right. */
function accuracyAt(steps: readonly ScoredStep[], order: readonly number[], m: number, answer: (s: ScoredStep) => boolean): number {
  const escalated = new Set(order.slice(0, m));
  let right = 0;
  steps.forEach((s, i) => (right += (escalated.has(i) ? s.modelRight : answer(s)) ? 1 : 0));
  return steps.length === 0 ? 0 : right / steps.length;
}

function policyRows(data: string, steps: readonly ScoredStep[], calibration: ThresholdCalibration): SessionEvalResult[] {
  const n = steps.length;
  const ids = steps.map((_, i) => i);
  const by = (key: (s: ScoredStep) => number) => [...ids].sort((a, b) => key(steps[a]!) - key(steps[b]!) || steps[a]!.hash - steps[b]!.hash);
  const orders = { toolgraph: by((s) => s.confidence), inertia: by((s) => s.inertiaShare) };
  // Random escalation's expected accuracy over every choice of m steps of n: exact, where one
  // seeded draw would be a noisy sample of it (a few steps either way on NESTFUL's 106).
  const randomAt = (m: number): number => (n === 0 ? 0 : (m / n) * mean(steps.map((s) => (s.modelRight ? 1 : 0))) + (1 - m / n) * mean(steps.map((s) => (s.graphRight ? 1 : 0))));
  const rows: SessionEvalResult[] = [
    { task: 'session', data, method: 'policy', policy: 'never', rate: 0, calibrated: false, n, accuracy: round(accuracyAt(steps, [], 0, (s) => s.graphRight)) },
    { task: 'session', data, method: 'policy', policy: 'always', rate: 1, calibrated: false, n, accuracy: round(accuracyAt(steps, ids, n, (s) => s.graphRight)) },
  ];
  const calibratedM = steps.filter((s) => s.confidence < calibration.value).length;
  const rates: { rate: number; m: number; calibrated: boolean }[] = [
    ...POLICY_RATES.map((rate) => ({ rate, m: Math.round(rate * n), calibrated: false })),
    { rate: n === 0 ? 0 : calibratedM / n, m: calibratedM, calibrated: true },
  ];
  for (const { rate, m, calibrated } of rates) {
    rows.push(
      { task: 'session', data, method: 'policy', policy: 'random', rate: round(rate), calibrated, n, accuracy: round(randomAt(m)) },
      { task: 'session', data, method: 'policy', policy: 'inertia', rate: round(rate), calibrated, n, accuracy: round(accuracyAt(steps, orders.inertia, m, (s) => s.inertiaRight)) },
      { task: 'session', data, method: 'policy', policy: 'toolgraph', rate: round(rate), calibrated, n, accuracy: round(accuracyAt(steps, orders.toolgraph, m, (s) => s.graphRight)) },
    );
  }
  return rows;
}

/** A workflow's step texts: its informational `steps`, when they are a list of texts. */
function stepTexts(w: WorkflowRecord): string[] {
  return Array.isArray(w.steps) ? w.steps.filter((s): s is string => typeof s === 'string') : [];
}

/** The deviation rule on own and foreign step texts (workflows that carry them). */
function deviationRows(data: string, test: readonly WorkflowRecord[]): SessionEvalResult[] {
  const withTexts = test.filter((w) => stepTexts(w).length > 0 && w.intent !== '');
  if (withTexts.length < 2) return [];
  const byHash = [...withTexts].sort((a, b) => stableHash(a.id) - stableHash(b.id));
  return (['seed', 'default'] as const).map((profile) => {
    let own = 0;
    let ownOn = 0;
    let ownOff = 0;
    let foreign = 0;
    let foreignOff = 0;
    let foreignOn = 0;
    byHash.forEach((w, i) => {
      for (const text of stepTexts(w)) {
        const d = detectTopicDeviation(text, w.intent, profile).deviation;
        own++;
        if (d === 'ON_TOPIC') ownOn++;
        if (d === 'OFF_TOPIC') ownOff++;
      }
      // The next workflow in hash order from another domain lends its first step text.
      for (let k = 1; k < byHash.length; k++) {
        const other = byHash[(i + k) % byHash.length]!;
        if (other.domain === w.domain) continue;
        const d = detectTopicDeviation(stepTexts(other)[0]!, w.intent, profile).deviation;
        foreign++;
        if (d === 'OFF_TOPIC') foreignOff++;
        if (d === 'ON_TOPIC') foreignOn++;
        break;
      }
    });
    return { task: 'session' as const, data, method: 'deviation' as const, profile, n: own, ownOnTopic: round(ownOn / own), ownOffTopic: round(ownOff / own), foreignOffTopic: round(foreign === 0 ? 0 : foreignOff / foreign), foreignOnTopic: round(foreign === 0 ? 0 : foreignOn / foreign) };
  });
}

export async function evaluateSessions(dataset: Dataset, options: SessionEvalOptions = {}): Promise<SessionEvalResult[]> {
  const seed = options.seed ?? 42;
  const p = options.modelAccuracy ?? 0.9;
  const [split] = splitsOf(dataset.workflows, { validation: options.validation === true });
  const { train, test } = split!;
  const universe = buildUniverse(dataset.tools, train);
  const { model, fit } = trainToolgraph(universe, train, seed);
  const sessionOptions: SessionOptions = parseSessionOptions({});
  const calibration = calibrateThreshold(
    heldOutAnswers(train.map(workflowToTrace), universe.catalog, fit.weights, { seed, embedding: hashedTextEmbedding() }),
    sessionOptions.targetPrecision,
    sessionOptions.defaultThreshold,
  );
  const threshold = { value: calibration.value, source: calibration.source };
  const recommender = recommenderOf(model);
  const standIn = new StandInModel(p);
  const deps: EngineDeps = {
    recommender,
    model: standIn,
    options: sessionOptions,
    now: () => 0,
    describe: async (tools) => new Map(tools.map((t) => [t, universe.catalog.get(t)?.description ?? ''])),
  };
  const inertia = successors(train);
  const sessions = test.filter((w) => w.ordered && w.tools.length >= 2);
  const perBudget = SESSION_BUDGETS.map(() => ({ right: 0, n: 0, escalations: [] as number[], cents: [] as number[], over: 0 }));
  const scored: ScoredStep[] = [];
  let done = 0;
  for (const w of sessions) {
    options.onProgress?.(++done, sessions.length);
    for (const [b, budgetCents] of SESSION_BUDGETS.entries()) {
      const request = parseStartSessionRequest({ intent: w.intent === '' ? w.tools.join(' ') : w.intent, budgetCents });
      let { state } = await startSession(w.id, request, threshold, deps);
      const acc = perBudget[b]!;
      for (let i = 0; i < w.tools.length; i++) {
        const truth = i + 1 < w.tools.length ? w.tools[i + 1]! : null;
        standIn.truth = truth;
        standIn.u = draw(seed, w.id, i + 1);
        const stepped = await stepSession(state, { tool: w.tools[i]!, success: true }, deps);
        state = stepped.state;
        if (truth === null) continue;
        const right = stepped.result.next[0]?.tool === truth;
        acc.n++;
        if (right) acc.right++;
        if (budgetCents === 0) {
          // The graph alone answered: what every policy starts from.
          const candidates = new Set([...stepped.state.graphNext.map((g) => g.tool), ...pendingSteps(stepped.state.plan).map((s) => s.tool)]);
          const rule = inertia(w.tools[i]!);
          scored.push({
            confidence: stepped.result.confidence,
            graphRight: stepped.state.graphNext[0]?.tool === truth,
            modelRight: candidates.has(truth) && standIn.u < p,
            inertiaShare: rule.share,
            inertiaRight: rule.tool === truth,
            hash: stableHash(`${w.id}:${i + 1}`),
          });
        }
      }
      acc.escalations.push(state.budget.escalations);
      acc.cents.push(state.budget.centsSpent);
      if (state.budget.centsSpent > state.budget.budgetCents) acc.over++;
    }
  }
  const data = dataset.name;
  const rows: SessionEvalResult[] = SESSION_BUDGETS.map((budgetCents, b) => {
    const acc = perBudget[b]!;
    return {
      task: 'session' as const,
      data,
      method: 'budget' as const,
      budgetCents,
      sessions: sessions.length,
      n: acc.n,
      accuracy: round(acc.n === 0 ? 0 : acc.right / acc.n),
      escalationsPerSession: round(mean(acc.escalations)),
      centsPerSession: round(mean(acc.cents)),
      maxCents: round(Math.max(0, ...acc.cents)),
      overBudget: acc.over,
      threshold: round(threshold.value),
    };
  });
  const curve = precisionCurve(scored.map((s) => ({ confidence: s.confidence, correct: s.graphRight })));
  let coverageAt95 = 0;
  for (let j = 0; j < curve.coverage.length; j++) if (curve.precision[j]! >= 0.95) coverageAt95 = curve.coverage[j]!;
  const above = scored.filter((s) => s.confidence >= threshold.value);
  rows.push({
    task: 'session',
    data,
    method: 'graph-only',
    n: scored.length,
    accuracy: round(mean(scored.map((s) => (s.graphRight ? 1 : 0)))),
    aurc: round(aurc(curve)),
    coverageAt95: round(coverageAt95),
    threshold: round(threshold.value),
    thresholdSource: threshold.source,
    calibrationPositions: calibration.positions,
    calibrationCoverage: round(calibration.coverage),
    thresholdCoverage: round(scored.length === 0 ? 0 : above.length / scored.length),
    thresholdPrecision: round(mean(above.map((s) => (s.graphRight ? 1 : 0)))),
  });
  rows.push(...policyRows(data, scored, calibration), ...deviationRows(data, test));
  return rows;
}
