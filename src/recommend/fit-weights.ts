/**
 * Fits the default profile's weights on recorded traces by cross-fitting: the traces are split
 * into K folds by a stable hash of their id; for each fold, a model is built from the other
 * folds and every held-out position becomes a ranking query (context = the tools before it,
 * target = the tool at it; for search, the intent against each of the trace's tools). The
 * softmax ranker (`softmax-fit.ts`) is then fitted on all held-out queries at once. No query
 * ever sees a model that was built from its own trace. For next-tool weights, the back-off
 * Markov rule is kept instead unless the fitted ranker's held-out Hit@1 beats it by more than
 * one standard error (Hastie, Tibshirani & Friedman, The Elements of Statistical Learning,
 * 7.10: the one-standard-error rule).
 */
import { createRng, DEFAULT_SEED } from '../graph/rng.js';
import { TransitionGraph } from '../graph/transition-graph.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { splitClauses } from '../text/clauses.js';
import { tokenize } from '../text/tokenize.js';
import { collectFeatures, F, S_PAGERANK, S_POPULARITY, SIGNALS, type QueryInput } from './features.js';
import { foldOf } from './folds.js';
import { transform } from './linear-profile.js';
import type { TextEmbedding } from '../text/text-embedding.js';
import { buildModel, EXPERT_WEIGHTS, PRIOR_WEIGHTS, type FittedWeights, type KeptRule, type RecommenderModel } from './model.js';
import { calibrate, fitCalibration, stepLoss, stepsRight, type StepCalibration } from './dag/calibration.js';
import { DAG_DEFAULTS, suggestDag } from './dag/suggest-dag.js';
import { fitStatusThreshold, nodeF1, type DagStatusCalibration, type HeldOutDag } from './dag/status-threshold.js';
import { fitNoMatch, type MatchEvidence, type NoMatchCalibration } from './no-match.js';
import { searchEvidence } from './search-tools.js';
import { fitScale, fitSoftmax, topHits, type FitGroup, type FitQuery } from './softmax-fit.js';
import { BACKOFF_LEXICAL_WEIGHTS, BACKOFF_WEIGHTS, LEXICAL_WEIGHTS } from './simple-rules.js';

export interface FitOptions {
  readonly folds?: number;
  readonly seed?: number;
  /** Upper bound on queries per task; positions are subsampled (seeded) beyond it. */
  readonly maxQueries?: number;
  readonly iterations?: number;
  /** The embedding the fitted model will use (its `embedding` signal is fitted with it). */
  readonly embedding?: TextEmbedding | null;
}

export interface FitTaskReport {
  readonly queries: number;
  readonly initialLoss: number;
  readonly loss: number;
  /** Held-out Hit@1 of the fitted weights and of the back-off rule, and which was kept. */
  readonly hit1Fitted: number;
  readonly hit1Backoff: number;
  /** When the fit diverges (a non-finite loss or weight): 'backoff' where there is a rule, else 'prior'. */
  readonly selected: KeptRule;
  /**
   * The factor the kept lexical rule's weights were multiplied by so that its scores are
   * calibrated probabilities on the held-out searches (fitScale); 1 when the fitted weights, the
   * prior or the back-off rule (not scaled) are kept.
   */
  readonly ruleScale: number;
}

export interface FitReport {
  readonly weights: FittedWeights;
  readonly folds: number;
  readonly next: FitTaskReport;
  readonly nextNoIntent: FitTaskReport;
  readonly search: FitTaskReport;
  /** The never-called tools' weight in search, refitted alone (fitUnseen). */
  readonly searchUnseen: UnseenFitReport;
  /** The workflow steps behind the step calibration (stepCalibration), and how well it predicts them. */
  readonly steps: StepCalibrationReport;
  /** The held-out DAGs behind the `ok` threshold (dagStatus), and what each status holds. */
  readonly status: DagStatusReport;
  /** Held-out requests behind the no-match rule, and its calibration (null: none, any matched word is enough). */
  readonly noMatch: { readonly requests: number; readonly calibration: NoMatchCalibration | null };
}

export interface UnseenFitReport {
  /** Searches for tools the fold's traces never showed. */
  readonly queries: number;
  readonly initialLoss: number;
  readonly loss: number;
  /** Their Hit@1 with the search weights before and after the refit. */
  readonly hit1Before: number;
  readonly hit1After: number;
  /** False when there was nothing to refit: no such search, or search keeps the lexical rule or the prior. */
  readonly refitted: boolean;
}

export interface StepCalibrationReport {
  /** Held-out workflows suggested, and the steps they gave. */
  readonly workflows: number;
  readonly steps: number;
  /** Share of those steps whose tool the recorded workflow holds. */
  readonly correct: number;
  /** Mean cross-entropy of the steps' correctness, nats, under the raw and the calibrated confidences. */
  readonly lossBefore: number;
  readonly lossAfter: number;
  /** The calibration, or null: too few steps (MIN_CALIBRATION_STEPS), and the raw confidences serve. */
  readonly calibration: StepCalibration | null;
}

export interface DagStatusReport {
  /** Held-out workflows suggested, and those search turned away (no-match, never `ok`). */
  readonly workflows: number;
  readonly noMatch: number;
  /** The threshold, or null: too few held-out DAGs (MIN_STATUS_WORKFLOWS), and the warn threshold serves. */
  readonly calibration: DagStatusCalibration | null;
  /** Node-F1 of the held-out DAGs at or above the threshold and of the rest (no-match ones included), and how many each. */
  readonly okNodeF1: number;
  readonly okWorkflows: number;
  readonly otherNodeF1: number;
  readonly otherWorkflows: number;
}

interface FoldModel {
  readonly graph: TransitionGraph;
  readonly model: RecommenderModel;
  readonly heldOut: readonly Trace[];
}

interface Collected {
  readonly groups: FitGroup[];
  readonly next: FitQuery[];
  readonly nextNoIntent: FitQuery[];
  readonly search: FitQuery[];
}

export function fitWeights(
  traces: readonly Trace[],
  catalog: ReadonlyMap<string, ToolInfo>,
  options: FitOptions = {},
): FitReport {
  const folds = options.folds ?? 4;
  const maxQueries = options.maxQueries ?? 4000;
  const usable = traces.filter((t) => t.success && t.steps.length > 0);
  let positions = 0;
  let intents = 0;
  for (const t of usable) {
    positions += Math.max(0, t.steps.length - 1);
    if (t.intent !== '') intents++;
  }
  const rng = createRng(options.seed ?? DEFAULT_SEED);
  const keepNext = positions > maxQueries ? maxQueries / positions : 1;
  const keepSearch = intents > maxQueries ? maxQueries / intents : 1;

  const collected: Collected = { groups: [], next: [], nextNoIntent: [], search: [] };
  // Each fold's model and held-out traces, to calibrate workflow steps once the weights are known.
  const foldModels: FoldModel[] = [];
  for (let k = 0; k < folds; k++) {
    const { graph, heldOut } = foldGraph(usable, catalog, folds, k);
    if (heldOut.length === 0 || graph.traces === 0) continue;
    const model = buildModel(graph, catalog, EXPERT_WEIGHTS, { seed: options.seed, embedding: options.embedding ?? null });
    const group = collected.groups.length;
    collected.groups.push(backgroundGroup(model));
    foldModels.push({ graph, model, heldOut });
    for (const t of heldOut) {
      const ids = t.steps.map((s) => model.graph.indexByName.get(s.tool) ?? -1);
      const tokens = t.intent !== '' ? tokenize(t.intent) : null;
      const clauses = tokens !== null ? splitClauses(t.intent) : undefined;
      for (let i = 1; i < ids.length; i++) {
        const target = ids[i]!;
        if (target < 0 || rng() >= keepNext) continue;
        const context = ids.slice(0, i).filter((c) => c >= 0);
        if (tokens !== null) collected.next.push(...queries(model, group, { context, intent: tokens, ...(clauses ? { clauses } : {}), extra: [target] }, [target]));
        collected.nextNoIntent.push(...queries(model, group, { context, intent: null, extra: [target] }, [target]));
      }
      if (tokens !== null && rng() < keepSearch) {
        const gold = [...new Set(ids.filter((c) => c >= 0))];
        if (gold.length > 0) collected.search.push(...queries(model, group, { context: [], intent: tokens, intentText: t.intent, extra: gold }, gold));
      }
    }
  }

  const fit = (qs: FitQuery[], initial: readonly number[], backoff: readonly number[] | null, unfitted: readonly number[], scaleRule: boolean): { w: number[]; report: FitTaskReport } => {
    // No held-out query (traces without intents, say, for search): nothing was learned, and the
    // task keeps what a model without a fit ranks with.
    if (qs.length === 0) {
      return { w: unfitted.slice(), report: { queries: 0, initialLoss: 0, loss: 0, hit1Fitted: 0, hit1Backoff: 0, selected: 'prior', ruleScale: 1 } };
    }
    // A kept rule ranks as it is, its scores scaled to probabilities on the same held-out queries
    // where one factor can do that (scaleRule).
    const rule = (weights: readonly number[]): { w: number[]; ruleScale: number } => {
      const ruleScale = scaleRule ? fitScale(F, collected.groups, qs, weights) : 1;
      return { w: weights.map((x) => x * ruleScale), ruleScale };
    };
    const result = fitSoftmax(F, collected.groups, qs, initial, { iterations: options.iterations });
    // A handful of separable queries can drive Newton's method to infinite weights; such a fit
    // says nothing, and its scores would be NaN.
    if (!Number.isFinite(result.loss) || !result.weights.every(Number.isFinite)) {
      const kept = backoff !== null ? rule(backoff) : { w: initial.slice(), ruleScale: 1 };
      return {
        w: kept.w,
        report: { queries: qs.length, initialLoss: result.initialLoss, loss: result.loss, hit1Fitted: 0, hit1Backoff: 0, selected: backoff !== null ? 'backoff' : 'prior', ruleScale: kept.ruleScale },
      };
    }
    const fitted = topHits(F, collected.groups, qs, result.weights);
    const ruleHits = backoff !== null ? topHits(F, collected.groups, qs, backoff) : null;
    const hit1Fitted = mean(fitted);
    const hit1Backoff = ruleHits === null ? 0 : mean(ruleHits);
    // One-standard-error rule: the fitted ranker must beat the back-off rule by more than the
    // standard error of the paired difference, or the simpler rule is kept.
    const selected = ruleHits !== null && hit1Fitted - hit1Backoff <= pairedStandardError(fitted, ruleHits) ? 'backoff' : 'fitted';
    const kept = selected === 'backoff' && backoff !== null ? rule(backoff) : { w: result.weights, ruleScale: 1 };
    return {
      w: kept.w,
      report: { queries: qs.length, initialLoss: result.initialLoss, loss: result.loss, hit1Fitted, hit1Backoff, selected, ruleScale: kept.ruleScale },
    };
  };
  // The back-off rule is not scaled: one factor fitted over all positions is set by the
  // second-order tier, and at a first step, where only first-order counts are left, it flattened
  // them (NESTFUL: a factor of 9e-7 left first-order counts a weight of 0.0009), so that one
  // human approval outweighed a hundredfold count. The lexical rule has one ranking tier
  // (popularity only breaks ties) and one factor serves it.
  // With an intent, the rule the prior serves: where no transition speaks, the request's words.
  const next = fit(collected.next, EXPERT_WEIGHTS.next, BACKOFF_LEXICAL_WEIGHTS, PRIOR_WEIGHTS.next, false);
  const nextNoIntent = fit(collected.nextNoIntent, EXPERT_WEIGHTS.nextNoIntent, BACKOFF_WEIGHTS, PRIOR_WEIGHTS.nextNoIntent, false);
  const search = fit(collected.search, EXPERT_WEIGHTS.search, LEXICAL_WEIGHTS, PRIOR_WEIGHTS.search, true);
  const unseen = fitUnseen(collected, search.w, search.report.selected, { usable, folds, catalog, keep: keepSearch, options });
  const weights: FittedWeights = {
    next: next.w,
    nextNoIntent: nextNoIntent.w,
    search: unseen.w,
    // Marked fitted from no held-out query at all, they said more than was learned.
    source: [next, nextNoIntent, search].some((task) => task.report.queries > 0) ? 'fitted' : 'prior',
  };
  const modelOptions = { seed: options.seed, embedding: options.embedding ?? null };
  // The fold models again with the weights the fit serves: the fold's graph and text are reused,
  // only the weights and what is precomputed from them are new.
  const served = foldModels.map((fold) => buildModel(fold.graph, catalog, weights, { ...modelOptions, parts: { snapshot: fold.model.graph, text: fold.model.text, capabilities: null } }));
  const evidence = heldOutEvidence(usable, catalog, weights, { ...modelOptions, most: maxQueries });
  const noMatch = fitNoMatch(evidence);
  const steps = fitStepCalibration(foldModels, served, { seed: options.seed });
  const status = fitDagStatus(foldModels, served, steps, { ...weights, ...(noMatch !== null ? { noMatch } : {}) }, catalog, modelOptions);
  // Key order as the store writes it (sql-store.ts, putWeights), so that a read back compares equal.
  const { source, ...rest } = weights;
  return {
    weights: {
      ...rest,
      ...(noMatch !== null ? { noMatch } : {}),
      ...(steps.calibration !== null ? { stepCalibration: steps.calibration } : {}),
      ...(status.calibration !== null ? { dagStatus: status.calibration } : {}),
      source,
    },
    noMatch: { requests: evidence.length, calibration: noMatch },
    steps: steps.report,
    status,
    folds,
    next: next.report,
    nextNoIntent: nextNoIntent.report,
    search: search.report,
    searchUnseen: unseen.report,
  };
}

/**
 * Refits the weight of a never-called tool's lexical score (`lexicalUnseen`) alone, the other
 * search weights frozen, on searches for tools the fold's traces never showed (coldSearches).
 * The plain folds hardly ever ask for such a tool, so their fit leaves the weight where it
 * started or pushes it down (metatool: 0, and 3% of those searches found their tool). Fitting
 * all weights on the two kinds of search together cost NESTFUL's five-fold validation Hit@1
 * 0.834 -> 0.808; this one weight touches only tools without traces (docs/decisions/search/tools-no-trace-has-shown.md).
 * Only a fitted ranker is refitted: the lexical rule already ranks every tool by its words, so
 * the cold searches' models are built only once the search fit has been kept.
 */
function fitUnseen(
  collected: Collected,
  weights: number[],
  selected: FitTaskReport['selected'],
  data: { readonly usable: readonly Trace[]; readonly folds: number; readonly catalog: ReadonlyMap<string, ToolInfo>; readonly keep: number; readonly options: FitOptions },
): { w: number[]; report: UnseenFitReport } {
  const unchanged = (queries: number) => ({ w: weights, report: { queries, initialLoss: 0, loss: 0, hit1Before: 0, hit1After: 0, refitted: false } });
  if (selected !== 'fitted') return unchanged(0);
  const { usable, folds, catalog, options } = data;
  // Its own stream, so the cold searches leave the other queries' sampling as it was.
  const rng = createRng((options.seed ?? DEFAULT_SEED) + 1);
  const qs: FitQuery[] = [];
  for (let k = 0; k < folds; k++) {
    const training = usable.filter((t) => foldOf(t.id, folds) !== k);
    const heldOut = usable.filter((t) => foldOf(t.id, folds) === k);
    qs.push(...coldSearches(catalog, training, heldOut, k, collected, { seed: options.seed, embedding: options.embedding ?? null, keep: data.keep, rng }));
  }
  if (qs.length === 0) return unchanged(0);
  const free = SIGNALS.map((s) => s === 'lexicalUnseen');
  const result = fitSoftmax(F, collected.groups, qs, weights, { iterations: options.iterations, free });
  if (!Number.isFinite(result.loss) || !result.weights.every(Number.isFinite)) return unchanged(qs.length);
  return {
    w: result.weights,
    report: {
      queries: qs.length,
      initialLoss: result.initialLoss,
      loss: result.loss,
      hit1Before: mean(topHits(F, collected.groups, qs, weights)),
      hit1After: mean(topHits(F, collected.groups, qs, result.weights)),
      refitted: true,
    },
  };
}

/** Fold k of `folds`: a graph of the catalogue and every other fold's traces, and fold k's traces. */
export function foldGraph(usable: readonly Trace[], catalog: ReadonlyMap<string, ToolInfo>, folds: number, k: number): { graph: TransitionGraph; heldOut: Trace[] } {
  const graph = new TransitionGraph();
  for (const name of catalog.keys()) graph.addTool(name);
  const heldOut: Trace[] = [];
  for (const t of usable) {
    if (foldOf(t.id, folds) === k) heldOut.push(t);
    else graph.ingest(t);
  }
  return { graph, heldOut };
}

/**
 * Folds of the no-match rule's held-out requests, more than the weights' fit needs: each reading
 * (coverage, similarity, confidence) grows with the traces a model knows, and a fold model knows
 * (K - 1) / K of them where the served model knows all, so with the fit's four folds the rule
 * turned away less than its nominal share, of in-domain and of foreign requests alike (on
 * validation 1.0-1.7% of in-domain requests against 2.5%; docs/decisions/no-match/ten-folds.md).
 */
export const NO_MATCH_FOLDS = 10;

/**
 * What each held-out request's search says about whether it fits (no-match.ts): every usable
 * trace with an intent (at most `most`, sampled) searched in a model of the other
 * NO_MATCH_FOLDS - 1 folds, with the weights the fit serves: the readings the rule will take of
 * a new request, as near as cross-fitting gets.
 */
function heldOutEvidence(
  usable: readonly Trace[],
  catalog: ReadonlyMap<string, ToolInfo>,
  weights: FittedWeights,
  options: { readonly seed: number | undefined; readonly embedding: TextEmbedding | null; readonly most: number },
): MatchEvidence[] {
  const asked = usable.filter((t) => t.intent !== '');
  const keep = asked.length > options.most ? options.most / asked.length : 1;
  // Its own stream, so the other queries' sampling stays as it was.
  const rng = createRng((options.seed ?? DEFAULT_SEED) + 3);
  const chosen = new Set(asked.filter(() => rng() < keep));
  const out: MatchEvidence[] = [];
  for (let k = 0; k < NO_MATCH_FOLDS; k++) {
    const fold = foldGraph(usable, catalog, NO_MATCH_FOLDS, k);
    const graph = fold.graph;
    const heldOut = fold.heldOut.filter((t) => chosen.has(t));
    if (heldOut.length === 0 || graph.traces === 0) continue;
    const model = buildModel(graph, catalog, weights, { seed: options.seed, embedding: options.embedding });
    for (const t of heldOut) if (t.steps.some((s) => model.graph.indexByName.has(s.tool))) out.push(searchEvidence(model, t.intent));
  }
  return out;
}

/**
 * Held-out workflows suggested for the step calibration, at most, spread over the folds: one
 * function of one variable needs far fewer than the ranking fits, and each suggestion costs a
 * search per clause (with all 1,560 of Seal-Tools' workflows its fit took 2 min 57 s, with 1,000
 * 2 min 50 s, without any 2 min 38 s).
 */
const CALIBRATION_WORKFLOWS = 1000;

/**
 * Calibrates workflow steps (dag/calibration.ts): every fold's model, with the weights the fit
 * serves, suggests a workflow for each held-out intent of two tools or more (the evaluation's
 * case), and each step is labelled by whether the recorded workflow holds its tool (a tool as
 * often as it was recorded). The fold models' graph and text are reused; only the weights and
 * what is precomputed from them are new.
 */
function fitStepCalibration(
  folds: readonly FoldModel[],
  served: readonly RecommenderModel[],
  options: { readonly seed: number | undefined },
): StepSamples {
  const asked = folds.map((f) => f.heldOut.filter((t) => t.intent !== '' && t.steps.length >= 2));
  const total = asked.reduce((sum, a) => sum + a.length, 0);
  const keep = total > CALIBRATION_WORKFLOWS ? CALIBRATION_WORKFLOWS / total : 1;
  // Its own stream, so the other queries' sampling stays as it was.
  const rng = createRng((options.seed ?? DEFAULT_SEED) + 2);
  const confidence: number[] = [];
  const correct: boolean[] = [];
  const chosen: Trace[][] = folds.map(() => []);
  const foldOfStep: number[] = [];
  let workflows = 0;
  folds.forEach((_, k) => {
    for (const t of asked[k]!) {
      if (rng() >= keep) continue;
      workflows++;
      chosen[k]!.push(t);
      const nodes = suggestDag(served[k]!, { intent: t.intent, expandCapabilities: true }).nodes.flatMap((n) => (n.kind === 'tool' ? [n] : []));
      const right = stepsRight(
        nodes.map((n) => n.tool),
        t.steps.map((s) => s.tool),
      );
      nodes.forEach((node, i) => {
        confidence.push(node.confidence);
        correct.push(right[i]!);
        foldOfStep.push(k);
      });
    }
  });
  const calibration = fitCalibration(confidence, correct);
  const crossEntropy = (map: (p: number) => number): number => {
    let sum = 0;
    confidence.forEach((p, i) => (sum += stepLoss(map(p), correct[i]!)));
    return confidence.length > 0 ? sum / confidence.length : 0;
  };
  const before = crossEntropy((p) => p);
  return {
    calibration,
    chosen,
    confidence,
    correct,
    foldOfStep,
    report: {
      workflows,
      steps: confidence.length,
      correct: confidence.length > 0 ? correct.filter(Boolean).length / confidence.length : 0,
      lossBefore: before,
      lossAfter: calibration !== null ? crossEntropy((p) => calibrate(p, calibration)) : before,
      calibration,
    },
  };
}

/** The step calibration, its report, and what it was fitted on: the workflows chosen per fold and each step's fold. */
interface StepSamples {
  readonly calibration: StepCalibration | null;
  readonly report: StepCalibrationReport;
  readonly chosen: readonly (readonly Trace[])[];
  readonly confidence: readonly number[];
  readonly correct: readonly boolean[];
  readonly foldOfStep: readonly number[];
}

/**
 * Fits the `ok` threshold (dag/status-threshold.ts) on the step calibration's held-out workflows,
 * cross-fitted: each fold's workflows are suggested by its model with the weights the fit serves
 * (the no-match rule included) and a step calibration fitted on the other folds' steps only, so
 * that no DAG's confidence was calibrated on its own steps (the full calibration stands in where
 * the other folds hold too few). Each DAG is counted as `eval dag` counts it: expanded
 * capabilities, tools against the recorded ones. One suggestion more per workflow.
 */
function fitDagStatus(
  folds: readonly FoldModel[],
  served: readonly RecommenderModel[],
  steps: StepSamples,
  weights: FittedWeights,
  catalog: ReadonlyMap<string, ToolInfo>,
  modelOptions: { readonly seed: number | undefined; readonly embedding: TextEmbedding | null },
): DagStatusReport {
  const dags: HeldOutDag[] = [];
  const turnedAway: HeldOutDag[] = [];
  if (steps.calibration !== null) {
    folds.forEach((fold, k) => {
      if (steps.chosen[k]!.length === 0) return;
      const others = steps.confidence.flatMap((p, i) => (steps.foldOfStep[i] === k ? [] : [p]));
      const othersRight = steps.correct.filter((_, i) => steps.foldOfStep[i] !== k);
      const stepCalibration = fitCalibration(others, othersRight) ?? steps.calibration!;
      const model = buildModel(fold.graph, catalog, { ...weights, stepCalibration }, { ...modelOptions, parts: { snapshot: served[k]!.graph, text: served[k]!.text, capabilities: null } });
      for (const t of steps.chosen[k]!) {
        const dag = suggestDag(model, { intent: t.intent, expandCapabilities: true });
        const tools = dag.nodes.flatMap((n) => (n.kind === 'tool' ? [n.tool] : n.tools));
        const recorded = t.steps.map((s) => s.tool);
        const matched = stepsRight(tools, recorded).filter(Boolean).length;
        (dag.kind === 'no-match' ? turnedAway : dags).push({ confidence: dag.confidence, matched, predicted: tools.length, gold: recorded.length });
      }
    });
  }
  const calibration = fitStatusThreshold(dags, DAG_DEFAULTS.reject);
  const threshold = calibration?.threshold ?? DAG_DEFAULTS.warn;
  const ok = dags.filter((d) => d.confidence >= threshold);
  const other = [...dags.filter((d) => d.confidence < threshold), ...turnedAway];
  const f1 = (set: readonly HeldOutDag[]): number =>
    nodeF1(
      set.reduce((s, d) => s + d.matched, 0),
      set.reduce((s, d) => s + d.predicted, 0),
      set.reduce((s, d) => s + d.gold, 0),
    );
  return {
    workflows: dags.length + turnedAway.length,
    noMatch: turnedAway.length,
    calibration,
    okNodeF1: f1(ok),
    okWorkflows: ok.length,
    otherNodeF1: f1(other),
    otherWorkflows: other.length,
  };
}

function mean(values: Uint8Array): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length > 0 ? sum / values.length : 0;
}

/** Standard error of mean(a - b) over paired 0/1 outcomes. */
function pairedStandardError(a: Uint8Array, b: Uint8Array): number {
  const n = a.length;
  if (n < 2) return 0;
  let sum = 0;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    sum += d;
    sq += d * d;
  }
  const m = sum / n;
  return Math.sqrt(Math.max(0, sq / n - m * m) / (n - 1));
}

/** One tool in this many leaves a fold's training in coldSearches. */
const COLD_SHARE = 5;

/**
 * Searches for tools the traces never showed, as a growing catalogue brings them: a fifth of
 * the tools (a hash of the name, another fifth in every fold) leave the fold's training with
 * every trace that calls one, and the held-out intents that name one are asked of a model of
 * what is left. In the plain folds nearly every gold tool has traces, so the fit never sees a
 * gold tool whose intent evidence is 0.
 */
function coldSearches(
  catalog: ReadonlyMap<string, ToolInfo>,
  training: readonly Trace[],
  heldOut: readonly Trace[],
  fold: number,
  collected: Collected,
  options: { readonly seed: number | undefined; readonly embedding: TextEmbedding | null; readonly keep: number; readonly rng: () => number },
): FitQuery[] {
  const cold = (tool: string): boolean => foldOf(`cold:${fold}:${tool}`, COLD_SHARE) === 0;
  const asked = heldOut.filter((t) => t.intent !== '' && t.steps.some((s) => cold(s.tool)) && options.rng() < options.keep);
  if (asked.length === 0) return [];
  const graph = new TransitionGraph();
  for (const name of catalog.keys()) graph.addTool(name);
  // Registered, never called: a held-out tool missing from the catalogue (traces name tools the
  // catalogue need not list) would otherwise be no candidate at all, and its requests would ask
  // only for the tools the fold has seen.
  for (const t of asked) for (const s of t.steps) graph.addTool(s.tool);
  for (const t of training) if (!t.steps.some((s) => cold(s.tool))) graph.ingest(t);
  if (graph.traces === 0) return [];
  const model = buildModel(graph, catalog, EXPERT_WEIGHTS, { seed: options.seed, embedding: options.embedding });
  const group = collected.groups.length;
  collected.groups.push(backgroundGroup(model));
  const out: FitQuery[] = [];
  for (const t of asked) {
    const gold = [...new Set(t.steps.map((s) => model.graph.indexByName.get(s.tool) ?? -1).filter((c) => c >= 0))];
    if (gold.length > 0) out.push(...queries(model, group, { context: [], intent: tokenize(t.intent), intentText: t.intent, extra: gold }, gold));
  }
  return out;
}

/** Transformed static features of every tool: what an untouched candidate looks like. */
function backgroundGroup(model: RecommenderModel): FitGroup {
  const { graph } = model;
  const n = graph.n;
  const background = new Float64Array(n * F);
  for (let c = 0; c < n; c++) {
    for (let f = 0; f < F; f++) background[c * F + f] = transform(f, 0);
    background[c * F + S_PAGERANK] = transform(S_PAGERANK, graph.pagerankPercentile[c]!);
    background[c * F + S_POPULARITY] = transform(S_POPULARITY, graph.maxCalls > 0 ? graph.calls[c]! / graph.maxCalls : 0);
  }
  return { background, n };
}

/** One query per target, all sharing the touched rows of one feature collection. */
function queries(model: RecommenderModel, group: number, input: QueryInput, targets: readonly number[]): FitQuery[] {
  const { scratch } = model;
  collectFeatures(model.graph, model.text, input, scratch);
  try {
    const count = scratch.rows;
    const rows = new Float64Array(count * F);
    for (let r = 0; r < count; r++) {
      for (let f = 0; f < F; f++) rows[r * F + f] = transform(f, scratch.values[r * F + f]!);
    }
    const tools = scratch.rowTool.slice(0, count);
    return targets.map((t) => ({ group, rows, tools, target: scratch.rowOf[t]! }));
  } finally {
    scratch.reset();
  }
}
