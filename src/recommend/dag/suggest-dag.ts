/**
 * DAG suggestion: a workflow of tools for an intent, with dependencies and confidences.
 *
 * 1. How many steps: the weighted median length of the most similar past tasks
 *    (workflow-length.ts), else one per clause of the request; more when more clauses each
 *    pick a tool of their own (step 2), and exactly as many when every clause does (the
 *    request names all its steps); when two clauses or more pick one but not all do, those
 *    plus the steps similar tasks took beyond what their requests named; at most maxNodes.
 * 2. Which tools: first each clause's own best tool, where the search of the clause alone
 *    gives it a majority of the probability (among the intent's best 2 x length tools); then
 *    the hybrid search ranking of the intent (the fitted ranker of searchTools), best first,
 *    until the length is reached; a tool repeats as often as it typically does in
 *    the similar past tasks that use it. A node's confidence is its estimated probability of
 *    belonging to the workflow, min(1, L x P_search(tool)) with L the similar tasks'
 *    length: the search distribution spreads one unit of mass over a workflow's tools; or its
 *    clause's probability for it, where more. After a fit, both pass through the fitted isotonic
 *    calibration (calibration.ts), which makes them probabilities on held-out workflows.
 *    Tools already called (the context) are not suggested again, and count towards the
 *    length. Then the look-ups the chosen tools need: a declared producer of each identifier
 *    they take that nothing chosen or called returns (addLookups).
 * 3. In which order: step by step, the remaining tool most likely to precede all the others
 *    in the similar past tasks that hold both, else in all recorded workflows (precedence.ts);
 *    a tool whose declared inputs another chosen tool produces waits for it (data-flow.ts), as
 *    does a tool whose clause of the request names another's declared output, every word of it
 *    ("... then convert the profit": namedFlows; validation edge-F1 NESTFUL 0.541 -> 0.568,
 *    five folds of train 0.430 -> 0.464), unless that would deadlock, in which case the
 *    weakest precedence is dropped (acyclic.ts; weighed by the recorded order, so two tools
 *    that declare each other's inputs wait the way the data went before). Where the request names two of the tools in different
 *    clauses, that order adds its log-odds, learned from how often recorded requests named
 *    their tools in run order (clause-order.ts; validation edge-F1 UltraTool 0.490 -> 0.520,
 *    NESTFUL 0.385 -> 0.410, Seal-Tools 0.062 -> 0.071).
 *    On UltraTool's and NESTFUL's test splits the global order alone gave edge-F1 0.486 and
 *    0.242, against 0.311 and 0.220 for ordering by the next-tool ranker and 0.487 and 0.231
 *    for the two combined; the similar tasks' order first, 0.510 and 0.253.
 * 4. Dependencies: declared data flow from earlier steps (a field one tool returns names a
 *    parameter of another; each parameter from the earliest step that offers it and feeds no
 *    other parameter yet, data-flow.ts; and every earlier step whose output the step's clause
 *    names) with the confidence of a direct dependency; a step fed by no earlier step depends
 *    on the step before it (after a fit, the latest earlier one at even odds or more of
 *    belonging: a doubtful step carries no chain, CARRY_FLOOR), with the hop-correct confidence of
 *    the shortest learned path between the two tools (path-confidence.ts), times the transition's
 *    reliability factor (the feedback loop's Beta posterior) when it was observed directly;
 *    a transition credibly failing more than half the time is named in a warning; with no
 *    learned path within MAX_HOPS, no dependency (the step starts a branch). On the training
 *    workflows of NESTFUL (gold nodes and order), the rule before that last clause scored
 *    edge-F1 0.740 against 0.704 for a plain chain and 0.473 for data flow alone.
 * 5. Acyclic by construction: edges go forward in the order; nodes come out in topological
 *    order, grouped in layers that can run in parallel.
 *
 * The DAG's confidence is the geometric mean of its node and edge confidences: a typical
 * step's certainty, which does not shrink merely because a workflow is long. Spec 003's
 * thresholds (reject below 0.50, warn below 0.65; both configurable) apply to it: the status
 * says `reject` or `warn`, with a warning, and the nodes are still returned for review. A request
 * that search answers `no-match` (search-tools.ts: nothing covers enough of its words, or nobody
 * asked anything like it) gets `kind: 'no-match'` and `reject` with search's hint, whatever the
 * steps' confidences: they are calibrated on requests that fit, and a workflow of the nearest
 * tools is no answer to one that does not.
 * Dropping single nodes below the threshold was measured and lost: node-F1 0.811 -> 0.708 on
 * UltraTool, because membership confidence is spread across a workflow's tools.
 */
import { edgeIndex } from '../../graph/edge-reliability.js';
import { cycleHops, hopDistance, pathConfidence } from '../../graph/path-confidence.js';
import type { RecentTransitions } from '../../graph/recent-transitions.js';
import { clauseOrderEvidence, clauseOrderLogOdds, clausePositionsIn } from '../../text/clause-order.js';
import { clauseParts, type Clause } from '../../text/clauses.js';
import type { RecentIntents } from '../../text/recent-intents.js';
import { toolNameTokens } from '../../text/text-model.js';
import { tokenize } from '../../text/tokenize.js';
import type { RecommenderModel } from '../model.js';
import { DEFAULT_K } from '../predict-next.js';
import { scoreAllTools } from '../score-all.js';
import { searchTools } from '../search-tools.js';
import { createTopK, selectTopKDense } from '../top-k.js';
import { breakCycles, layers, type WeightedEdge } from './acyclic.js';
import { calibrate } from './calibration.js';
import { capabilityUnits, unitEdges } from './capability-nodes.js';
import { feeds, lookupParams, namedFlows, outputIndex, outputKeys, outputWords, producers, supplies, toolsFeeding } from './data-flow.js';
import { neighbourPrecedence, precedenceOf, probabilityBefore } from './precedence.js';
import { similarPastTasks, similarTaskLength, similarUnnamedSteps, weightedMedian, type PastTask } from './workflow-length.js';

export interface DagRequest {
  readonly intent: string;
  readonly context?: readonly string[];
  readonly maxNodes?: number;
  /** Keep a capability's tools as separate nodes instead of one capability node. */
  readonly expandCapabilities?: boolean;
  readonly thresholds?: { readonly reject?: number; readonly warn?: number };
}

export type DagNode =
  | { readonly id: string; readonly kind: 'tool'; readonly tool: string; readonly confidence: number }
  | {
      readonly id: string;
      readonly kind: 'capability';
      readonly capability: string;
      /** The capability's tools, in the order the workflow runs them. */
      readonly tools: readonly string[];
      readonly confidence: number;
    };

export interface DagEdge {
  readonly from: string;
  readonly to: string;
  readonly confidence: number;
  /** Why the dependency is there: declared data flow, or the learned order of steps. */
  readonly source: 'data-flow' | 'sequence';
}

export interface DagSuggestion {
  /** `no-match`: search finds nothing that fits the intent; the nodes are the nearest tools, for review. */
  readonly kind: 'workflow' | 'no-match';
  readonly nodes: readonly DagNode[];
  readonly edges: readonly DagEdge[];
  /** Node ids by layer: a layer's nodes depend only on earlier layers. */
  readonly layers: readonly (readonly string[])[];
  readonly confidence: number;
  /** `reject` below the reject threshold (or nothing fits), `warn` below the warn threshold. */
  readonly status: 'ok' | 'warn' | 'reject';
  readonly warnings: readonly string[];
  readonly version: number;
}

export const DAG_DEFAULTS = { maxNodes: 10, reject: 0.5, warn: 0.65 } as const;

/** A chosen tool and its confidence of belonging to the workflow. */
interface Step {
  readonly tool: number;
  readonly confidence: number;
}

/** Hops beyond which a learned path no longer counts as evidence of a dependency. */
const MAX_HOPS = 4;

/**
 * A step less likely in the workflow than out of it carries no chain: the step after it depends
 * on the one before it instead (the doubtful step still depends on its own predecessor, so it
 * ends a branch). Between A and B, a step X of probability p gives 2p right edges in
 * expectation (A -> X -> B right only if X belongs); bypassed (A -> X, A -> B) it gives one
 * whether X belongs or not. So X is bypassed below p = 1/2. That needs p to be a probability:
 * only calibrated confidences are read (calibration.ts; a fit provides them). The raw ones are
 * not (read in their place, validation edge-F1 UltraTool 0.526 -> 0.514). Calibrated,
 * validation edge-F1 UltraTool 0.526 -> 0.531, NESTFUL 0.589 -> 0.585; five folds of train
 * UltraTool 0.519 -> 0.522, NESTFUL 0.492 -> 0.500; Seal-Tools unchanged.
 */
const CARRY_FLOOR = 0.5;

/**
 * The step a sequence dependency of step j comes from: with calibrated confidences, the latest
 * earlier one at CARRY_FLOOR or above; else (or with none) j - 1.
 */
function carrier(steps: readonly Step[], j: number, calibrated: boolean): number {
  if (calibrated) for (let i = j - 1; i >= 0; i--) if (steps[i]!.confidence >= CARRY_FLOOR) return i;
  return j - 1;
}

/**
 * What the graph learned since the model counts at once, as in next-tool prediction and search:
 * `recentIntents`, the intents recorded since (recent-intents.ts), which the searches that choose
 * the tools read, and the similar past tasks whose length, repeats and order the workflow
 * takes; `recent`, the transitions learned since (recent-transitions.ts), which the paths behind
 * the dependencies follow. A tool newer than the model, which its arrays lack, joins a
 * workflow after the rebuild, as does a transition seen since only in failed traces.
 */
export function suggestDag(model: RecommenderModel, request: DagRequest, recent?: RecentTransitions, recentIntents?: RecentIntents): DagSuggestion {
  const { graph, catalog } = model;
  const maxNodes = request.maxNodes ?? DAG_DEFAULTS.maxNodes;
  const reject = request.thresholds?.reject ?? DAG_DEFAULTS.reject;
  const warn = request.thresholds?.warn ?? DAG_DEFAULTS.warn;
  const warnings: string[] = [];

  const context: number[] = [];
  // Context tools the live graph learned since the model: steps done, which count towards the
  // length, though the model has no row for them (nor suggests them) until the rebuild.
  let newerDone = 0;
  for (const name of request.context ?? []) {
    const index = graph.indexByName.get(name);
    if (index !== undefined) context.push(index);
    else if (recent?.liveIndex(name) !== undefined) newerDone++;
    else warnings.push(`unknown context tool ${JSON.stringify(name)} ignored`);
  }

  const tokens = tokenize(request.intent);
  const neighbours = similarPastTasks(model.text, tokens, model.scratch.similar, recentIntents);
  const learned = similarTaskLength(neighbours);
  // Split once: the length's fallback, each clause's own tool and the clause order read it.
  const clauses = clauseParts(request.intent);
  // The workflow's length counts the steps already done (the context): only the rest is suggested.
  const length = Math.min(maxNodes, Math.max(1, (learned ?? clauses.length) - context.length - newerDone));

  // 2. Which tools.
  const scores = new Float64Array(graph.n);
  const candidates = chooseTools(model, request.intent, clauses, neighbours, length, maxNodes, new Set(context), scores, recentIntents);

  // 3. Order. The confidences are calibrated once the fit has learned how (calibration.ts).
  const calibration = model.weights.stepCalibration;
  // Each candidate's clause, read by both the stated flows and the clause order.
  const clauseOf = stepClauses(model, candidates, clauses);
  const stated = statedFlows(model, candidates, clauses, clauseOf);
  const ordered = orderSteps(model, candidates, neighbours, clauseOf, stated, warnings);
  const steps = calibration === undefined ? ordered : ordered.map((s) => ({ tool: s.tool, confidence: calibrate(s.confidence, calibration) }));

  // 4. Dependencies: forward in that order, so acyclic by construction.
  const infos = steps.map((s) => catalog.get(graph.names[s.tool]!));
  const outputs = steps.map((s) => declaredOutputs(model).outputs[s.tool]!);
  const kept: (WeightedEdge & { source: DagEdge['source'] })[] = [];
  const hops = { dist: new Int32Array(graph.n).fill(-1), queue: new Int32Array(graph.n) };
  // Each step's producers: by the catalogue's names, then the earlier steps whose output the
  // request names in the step's clause.
  let statesFlow = false;
  const fedBy = steps.map((step, j) => {
    const from = j === 0 ? [] : producers(outputs.slice(0, j), infos[j]);
    for (let i = 0; i < j; i++) {
      if (!stated.has(flowKey(graph.n, steps[i]!.tool, step.tool))) continue;
      statesFlow = true;
      if (!from.includes(i)) from.push(i);
    }
    return from;
  });
  for (let j = 1; j < steps.length; j++) {
    for (const i of fedBy[j]!) kept.push({ from: i, to: j, confidence: pathConfidence(1), source: 'data-flow' });
    if (fedBy[j]!.length > 0) continue;
    // A request that says where some step's input comes from has said what depends on what: a
    // step it feeds from no other is a task of its own, not one that waits for the step before
    // it (validation edge-F1 NESTFUL 0.568 -> 0.587, five folds of train 0.464 -> 0.481).
    if (statesFlow) continue;
    const from = carrier(steps, j, calibration !== undefined);
    const a = steps[from]!.tool;
    const b = steps[j]!.tool;
    // A tool called again depends on its earlier call through a learned path back to itself
    // (a self-transition, or a cycle), not through the empty path.
    const h = a === b ? cycleHops(graph.out, a, MAX_HOPS, hops, recent) : hopDistance(graph.out, a, b, MAX_HOPS, hops, recent);
    // No learned path within MAX_HOPS: nothing says b waits for a, so b starts a branch of its
    // own (validation edge-F1: NESTFUL 0.333 -> 0.385, Seal-Tools 0.025 -> 0.062, UltraTool
    // 0.484 -> 0.490, against a dependency of confidence 0.50 for every such pair before).
    if (h < 0) continue;
    // A direct transition carries its outcomes (the feedback loop's Beta posterior): failures
    // lower the dependency's confidence by the same factor as in predictNext, and a pair whose
    // failure rate is credibly above 1/2 is flagged.
    const e = h === 1 ? edgeIndex(graph.out, a, b) : -1;
    const factor = e >= 0 ? Math.exp(graph.reliability.logFactor[e]!) : 1;
    if (e >= 0 && graph.reliability.excluded[e] === 1) {
      warnings.push(`${graph.names[a]} -> ${graph.names[b]} has been failing (failure rate credibly above 1/2)`);
    }
    kept.push({ from, to: j, confidence: pathConfidence(h) * factor, source: 'sequence' });
  }

  // 5. Capabilities (unless expanded), topological order and layers.
  const units = request.expandCapabilities === true ? steps.map((_, k) => ({ steps: [k], capability: -1 })) : capabilityUnits(steps.map((s) => s.tool), model.capabilities);
  const edgesOfUnits = unitEdges(units, kept, steps.length);
  const layered = layers(units.length, edgesOfUnits);
  const order = layered.flat();
  const idOf = new Array<string>(units.length);
  order.forEach((unit, k) => (idOf[unit] = `n${k + 1}`));
  const nodes: DagNode[] = order.map((u) => {
    const unit = units[u]!;
    const first = steps[unit.steps[0]!]!;
    if (unit.capability < 0) return { id: idOf[u]!, kind: 'tool', tool: graph.names[first.tool]!, confidence: first.confidence };
    // A capability is as certain as its least certain tool.
    const confidence = Math.min(...unit.steps.map((k) => steps[k]!.confidence));
    const tools = unit.steps.map((k) => graph.names[steps[k]!.tool]!);
    return { id: idOf[u]!, kind: 'capability', capability: model.capabilities!.capabilities[unit.capability]!.id, tools, confidence };
  });
  const edges = edgesOfUnits
    .map((e) => ({ from: idOf[e.from]!, to: idOf[e.to]!, confidence: e.confidence, source: e.source }))
    .sort((a, b) => idNumber(a.from) - idNumber(b.from) || idNumber(a.to) - idNumber(b.to));

  let logSum = 0;
  for (const n of nodes) logSum += Math.log(n.confidence);
  for (const e of edges) logSum += Math.log(e.confidence);
  const parts = nodes.length + edges.length;
  const confidence = parts > 0 ? Math.exp(logSum / parts) : 0;
  // The verdict search_tools gives the intent, from the same model and what it learned since: one
  // search more (about 0.4 ms at 10,000 tools, bench --case dag). The workflow's own ranking of
  // the intent could stand in for it, but would part from search's on newer and failing tools.
  const fits = searchTools(model, { query: request.intent, k: DEFAULT_K }, recent, recentIntents);
  const status: DagSuggestion['status'] = nodes.length === 0 || fits.kind === 'no-match' || confidence < reject ? 'reject' : confidence < warn ? 'warn' : 'ok';
  if (nodes.length === 0) warnings.push('no tool fits this intent');
  else if (fits.kind === 'no-match') warnings.push(fits.hint ?? 'no tool fits this intent');
  else if (status === 'reject') warnings.push(`confidence ${confidence.toFixed(2)} is below the reject threshold ${reject}: review before running`);
  else if (status === 'warn') warnings.push(`low confidence ${confidence.toFixed(2)} < ${warn}`);

  return {
    kind: fits.kind === 'no-match' ? 'no-match' : 'workflow',
    nodes,
    edges,
    layers: layered.map((layer) => layer.map((step) => idOf[step]!)),
    confidence,
    status,
    warnings,
    version: graph.version,
  };
}

/**
 * Every tool's name terms: the model's, and for a tool newer than the model (in a similar task
 * recorded since it) those its text will have after the rebuild.
 */
function nameTokensOf(model: RecommenderModel, recentIntents: RecentIntents | undefined): (tool: number) => readonly string[] {
  const known = model.text.nameTokens;
  return (tool) => known[tool] ?? toolNameTokens(recentIntents?.toolName(tool) ?? '');
}

function idNumber(id: string): number {
  return Number(id.slice(1));
}

/**
 * A clause's own best tool joins the workflow when the search of that clause alone gives it more
 * probability than every other tool together (validation split, train's held-out quarter:
 * thresholds 0.3, 0.5 and 0.7 gave NESTFUL node-F1 0.732 / 0.719 / 0.732, Seal-Tools 0.726 /
 * 0.727 / 0.727, UltraTool 0.782 / 0.792 / 0.792; 0.681, 0.665 and 0.790 without clauses).
 */
const CLAUSE_MAJORITY = 0.5;
/**
 * A clause chooses among the intent's best CLAUSE_REACH x length tools only: a clause is a
 * fragment, and over the whole catalogue its best tool was often one the request as a whole
 * does not support (Seal-Tools validation node-F1 0.504 unrestricted; reach 1.5 / 2 / 3: 0.717
 * / 0.727 / 0.723, NESTFUL 0.694 / 0.719 / 0.726, UltraTool 0.793 / 0.792 / 0.789).
 */
const CLAUSE_REACH = 2;
/**
 * Clauses searched one by one, the first ones: each is a search over every tool, so a long
 * request's cost is bounded (an intent may be 64 KiB). The longest request in ../shared/data
 * has 32 clauses.
 */
const MAX_CLAUSES = 32;

/**
 * The workflow's tools (with repeats) and their membership confidence: first the tools that
 * clauses of the request pick out on their own (a request that names several steps names them
 * clause by clause, and the whole request's ranking can put two tools for one clause above the
 * only tool for another), in clause order; then the request's ranking, best first. When more
 * clauses pick distinct tools than the similar past tasks' length, the request names more
 * steps than they had, and each gets one (up to maxNodes; validation node-F1 metatool 0.598 ->
 * 0.662, NESTFUL 0.719 -> 0.731, Seal-Tools 0.727 -> 0.760, UltraTool 0.792 -> 0.796). When
 * every clause picks a tool, those are the workflow; when two or more do, but not all, the
 * similar tasks' unnamed steps join them (similarUnnamedSteps). Last, the look-ups those steps
 * need (addLookups).
 */
function chooseTools(
  model: RecommenderModel,
  intent: string,
  clauses: readonly Clause[],
  neighbours: readonly PastTask[],
  similarLength: number,
  maxNodes: number,
  done: ReadonlySet<number>,
  scores: Float64Array,
  recentIntents: RecentIntents | undefined,
): Step[] {
  const n = model.graph.n;
  scoreAllTools(model, [], intent, 'search', scores, recentIntents);
  const { max, sum } = softmaxScale(scores, n);
  // Only the best tools not already done are read: select them, do not sort all n.
  const top = createTopK(Math.min(n, CLAUSE_REACH * similarLength + done.size));
  selectTopKDense(scores, n, top);
  const ranked: number[] = [];
  const membership = new Map<number, number>();
  for (let i = 0; i < top.size; i++) {
    const c = top.tools[i]!;
    if (done.has(c)) continue;
    ranked.push(c);
    membership.set(c, Math.min(1, (similarLength * Math.exp(scores[c]! - max)) / sum));
  }
  const picks = clausePicks(model, clauses, ranked, Math.min(maxNodes, ranked.length), scores, membership, recentIntents);
  const repeats = typicalRepeats(neighbours);
  // A request each of whose clauses picks a tool of its own has named all its steps: the
  // similar past tasks' length adds none (validation node-F1 / edge-F1 NESTFUL 0.731 / 0.443 ->
  // 0.741 / 0.462, UltraTool 0.796 / 0.521 -> 0.797 / 0.522, Seal-Tools node-F1 0.7597 ->
  // 0.7605, metatool unchanged; five folds of train, NESTFUL 0.728 / 0.391 -> 0.732 / 0.394,
  // UltraTool 0.805 / 0.516 either way).
  // Each named step with its typical repeats, so that a repeated tool takes no other's place.
  const named = clauses.length >= 2 && clauses.length <= MAX_CLAUSES && picks.length === clauses.length;
  let namedSteps = 0;
  for (const c of picks) namedSteps += repeats.get(c) ?? 1;
  // Where clauses pick two tools or more but not one each, the request named those steps and
  // may have taken others for granted: as many more as similar past tasks took beyond what their
  // requests named, within their length (validation node-F1 / edge-F1 NESTFUL 0.756 / 0.490 ->
  // 0.773 / 0.523, Seal-Tools 0.766 -> 0.796, UltraTool 0.796 / 0.518 -> 0.796 / 0.516).
  const unnamed = !named && picks.length >= 2 ? similarUnnamedSteps(nameTokensOf(model, recentIntents), neighbours) : null;
  const length = Math.min(
    maxNodes,
    named ? namedSteps : unnamed !== null ? Math.max(namedSteps, Math.min(similarLength, namedSteps + unnamed)) : Math.max(similarLength, picks.length),
  );
  const chosen: Step[] = [];
  const taken = new Set<number>();
  const take = (c: number): void => {
    taken.add(c);
    const times = Math.min(repeats.get(c) ?? 1, length - chosen.length);
    for (let k = 0; k < times; k++) chosen.push({ tool: c, confidence: membership.get(c)! });
  };
  for (const c of picks) {
    if (chosen.length >= length) break;
    if (!taken.has(c)) take(c);
  }
  for (const c of ranked) {
    if (chosen.length >= length) break;
    if (!taken.has(c)) take(c);
  }
  addLookups(model, intent, chosen, done, maxNodes, scores, recentIntents);
  return chosen;
}

interface DeclaredOutputs {
  /** outputKeys of each of the model's tools. */
  readonly outputs: readonly (readonly string[])[];
  /** The tools by output (outputIndex). */
  readonly index: ReadonlyMap<string, readonly number[]>;
}

/** Per model: every step's data flow and look-ups read these, normalised once, not per request. */
const outputsCache = new WeakMap<RecommenderModel, DeclaredOutputs>();

function declaredOutputs(model: RecommenderModel): DeclaredOutputs {
  let declared = outputsCache.get(model);
  if (declared === undefined) {
    const outputs = model.graph.names.map((name) => outputKeys(model.catalog.get(name)));
    outputsCache.set(model, (declared = { outputs, index: outputIndex(outputs) }));
  }
  return declared;
}

/**
 * The look-ups the chosen steps need: for each identifier a step needs (lookupParams:
 * `artistId`, `geoId`) that no other chosen step and no tool already called returns, the tool
 * that returns it and that the request's search ranks highest joins the workflow, as certain as
 * the step that needs it (it is needed if that step is). A request names the artist, not the
 * id: "find the names of the Weeknd's albums" needs the artist-id look-up before the album list,
 * which the request's words do not bring up. Only catalogues that declare outputs have them
 * (validation node-F1 / edge-F1 NESTFUL 0.773 / 0.587 -> 0.772 / 0.589, five folds of train
 * 0.739 / 0.481 -> 0.745 / 0.494; every needed parameter, not only identifiers: 0.617 / 0.261).
 * Appends to `chosen` (at most maxNodes steps); overwrites `scores` when a look-up is needed.
 */
function addLookups(
  model: RecommenderModel,
  intent: string,
  chosen: Step[],
  done: ReadonlySet<number>,
  maxNodes: number,
  scores: Float64Array,
  recentIntents: RecentIntents | undefined,
): void {
  const { outputs, index } = declaredOutputs(model);
  if (index.size === 0) return;
  const returns = (tool: number, param: string): boolean => outputs[tool]!.some((o) => supplies(o, param));
  const called = [...done];
  let scored = false;
  const steps = chosen.length;
  for (let s = 0; s < steps && chosen.length < maxNodes; s++) {
    const consumer = chosen[s]!;
    const info = model.catalog.get(model.graph.names[consumer.tool]!);
    if (info === undefined) continue;
    for (const param of lookupParams(info)) {
      if (chosen.some((step) => step.tool !== consumer.tool && returns(step.tool, param))) continue;
      if (called.some((tool) => returns(tool, param))) continue;
      const feeding = toolsFeeding(index, param).filter((tool) => tool !== consumer.tool);
      if (feeding.length === 0) continue;
      if (!scored) {
        // The whole request's scores: the clauses' searches have overwritten them.
        scoreAllTools(model, [], intent, 'search', scores, recentIntents);
        scored = true;
      }
      let best = feeding[0]!;
      for (const tool of feeding) if (scores[tool]! > scores[best]!) best = tool;
      chosen.push({ tool: best, confidence: consumer.confidence });
      if (chosen.length >= maxNodes) break;
    }
  }
}

/**
 * For each clause of a request of two or more (the first MAX_CLAUSES), its best tool
 * among `candidates` when the search of the clause alone gives that tool at least
 * CLAUSE_MAJORITY of the probability over all tools; distinct, in clause order, and no more
 * than `limit` (the most the workflow can take). Overwrites `scores`.
 *
 * A picked tool's `membership` (its node's confidence) rises to the clause's probability for it:
 * the whole request's ranking shares its probability among every step it names, so a named step
 * got a fraction of it (on validation 70% of Seal-Tools' nodes under 0.1 were right, and the
 * metatool workflows called `ok` were less often exact than those rejected; README, Workflow
 * suggestion).
 */
function clausePicks(
  model: RecommenderModel,
  clauses: readonly Clause[],
  candidates: readonly number[],
  limit: number,
  scores: Float64Array,
  membership: Map<number, number>,
  recentIntents: RecentIntents | undefined,
): number[] {
  if (clauses.length < 2) return [];
  const n = model.graph.n;
  const picks: number[] = [];
  for (const clause of clauses.slice(0, MAX_CLAUSES)) {
    scoreAllTools(model, [], clause.text, 'search', scores, recentIntents);
    let best = -1;
    for (const c of candidates) if (best < 0 || scores[c]! > scores[best]!) best = c;
    if (best < 0) break;
    const { max, sum } = softmaxScale(scores, n);
    const p = Math.exp(scores[best]! - max) / sum;
    if (p >= CLAUSE_MAJORITY && !picks.includes(best)) {
      picks.push(best);
      membership.set(best, Math.max(membership.get(best)!, p));
      if (picks.length >= limit) break;
    }
  }
  return picks;
}

/** The largest of scores[0..n) and the sum of exp(score - max): a tool's probability is exp(score - max) / sum. */
function softmaxScale(scores: Float64Array, n: number): { max: number; sum: number } {
  let max = -Infinity;
  for (let c = 0; c < n; c++) if (scores[c]! > max) max = scores[c]!;
  let sum = 0;
  for (let c = 0; c < n; c++) sum += Math.exp(scores[c]! - max);
  return { max, sum };
}

/**
 * How many times each tool typically occurs in the similar past tasks that use it: the
 * weighted median of its count there (1 unless the neighbours mostly repeat it).
 */
function typicalRepeats(neighbours: readonly PastTask[]): Map<number, number> {
  const countsByTool = new Map<number, { value: number; weight: number }[]>();
  for (const { tools, weight } of neighbours) {
    const counts = new Map<number, number>();
    for (let p = 0; p < tools.length; p++) counts.set(tools[p]!, (counts.get(tools[p]!) ?? 0) + 1);
    for (const [tool, value] of counts) {
      let list = countsByTool.get(tool);
      if (list === undefined) countsByTool.set(tool, (list = []));
      list.push({ value, weight });
    }
  }
  const result = new Map<number, number>();
  for (const [tool, list] of countsByTool) result.set(tool, weightedMedian(list)!);
  return result;
}

/**
 * The clause of the request that names each step (clause-order.ts), by step; null for a
 * request of one clause or one distinct tool, where it says nothing about their order.
 */
function stepClauses(model: RecommenderModel, steps: readonly Step[], clauses: readonly Clause[]): Int32Array | null {
  const tools = [...new Set(steps.map((s) => s.tool))];
  if (tools.length < 2 || clauses.length < 2) return null;
  const positions = clausePositionsIn(clauses, tools.map((t) => model.text.nameTokens[t]!));
  return Int32Array.from(steps, (s) => positions[tools.indexOf(s.tool)]!);
}

function flowKey(n: number, producer: number, consumer: number): number {
  return producer * n + consumer;
}

/**
 * The data flow the request states between the chosen tools (data-flow.ts namedFlows), as
 * flowKey(producer, consumer) of tool indices. Empty when no chosen tool declares an output
 * (UltraTool's, Seal-Tools' and metatool's catalogues declare none), or the request is one clause.
 */
function statedFlows(model: RecommenderModel, steps: readonly Step[], clauses: readonly Clause[], clauseOf: Int32Array | null): Set<number> {
  const flows = new Set<number>();
  if (clauseOf === null) return flows;
  const words = steps.map((s) => outputWords(model.catalog.get(model.graph.names[s.tool]!)));
  if (words.every((w) => w.length === 0)) return flows;
  const tokens = clauses.map((c) => c.tokens);
  // Steps of one tool share its clause and outputs: a pair of tools may come out more than once.
  for (const [p, c] of namedFlows(words, clauseOf, tokens)) {
    if (steps[p]!.tool !== steps[c]!.tool) flows.add(flowKey(model.graph.n, steps[p]!.tool, steps[c]!.tool));
  }
  return flows;
}

/**
 * Orders the chosen steps: repeatedly the remaining step most likely to precede the others
 * (the intent's similar past tasks first, then all recorded workflows; the request's clause
 * order as independent evidence where it names both), among the steps whose
 * in-workflow producers are placed. Producers come from declared data flow, by the catalogue's
 * names or as the request states it (`stated`); when they form a cycle the weakest is dropped
 * first: the least certain tools, and the direction the recorded workflows least often took (a
 * tie goes against the later-chosen producer).
 */
function orderSteps(
  model: RecommenderModel,
  steps: readonly Step[],
  neighbours: readonly PastTask[],
  clause: Int32Array | null,
  stated: ReadonlySet<number>,
  warnings: string[],
): Step[] {
  const m = steps.length;
  const infos = steps.map((s) => model.catalog.get(model.graph.names[s.tool]!));
  const outputs = steps.map((s) => declaredOutputs(model).outputs[s.tool]!);
  const precedence = precedenceOf(model);
  const near = neighbourPrecedence(model, neighbours, steps.map((s) => s.tool));
  const precedences: WeightedEdge[] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      const a = steps[i]!.tool;
      const b = steps[j]!.tool;
      if (i !== j && a !== b && (feeds(outputs[i]!, infos[j]) || stated.has(flowKey(model.graph.n, a, b)))) {
        // Two tools can each declare what the other takes (an artist's overview returns the
        // `name` an artist-id lookup takes, which returns the `artistId` the overview takes):
        // the recorded order says which way the data went, so it weighs the dependency that a
        // cycle keeps (validation edge-F1 NESTFUL 0.410 -> 0.436; the others unchanged).
        const before = probabilityBefore(precedence, steps[i]!.tool, steps[j]!.tool, near);
        precedences.push({ from: i, to: j, confidence: steps[i]!.confidence * steps[j]!.confidence * before });
      }
    }
  }
  const { kept, dropped } = breakCycles(m, precedences);
  for (const e of dropped) {
    warnings.push(`ignored that ${model.graph.names[steps[e.to]!.tool]} needs ${model.graph.names[steps[e.from]!.tool]}: they feed each other`);
  }
  const waiting = new Int32Array(m);
  for (const e of kept) waiting[e.to]!++;
  const placed = new Uint8Array(m);
  const clauseOdds = clause === null ? 0 : clauseOrderLogOdds(clauseOrderEvidence(model.text.records, model.text.intents, model.text.nameTokens));
  const result: Step[] = [];
  while (result.length < m) {
    // The step most likely to come before every other remaining step (sum of log P(before)),
    // among those whose producers are placed; ties go to the step chosen first (input order).
    let best = -1;
    let bestScore = -Infinity;
    for (let s = 0; s < m; s++) {
      if (placed[s] === 1 || waiting[s]! > 0) continue;
      let score = 0;
      for (let o = 0; o < m; o++) {
        if (o === s || placed[o] === 1 || steps[o]!.tool === steps[s]!.tool) continue;
        const p = probabilityBefore(precedence, steps[s]!.tool, steps[o]!.tool, near);
        // Where the request names the two in different clauses, its order is independent
        // evidence: the log-odds add (clause-order.ts).
        const said = clause === null || clause[s]! < 0 || clause[o]! < 0 || clause[s] === clause[o] ? 0 : clause[s]! < clause[o]! ? clauseOdds : -clauseOdds;
        score += said === 0 ? Math.log(p) : -Math.log1p(Math.exp(-(Math.log(p / (1 - p)) + said)));
      }
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    placed[best] = 1;
    result.push(steps[best]!);
    for (const e of kept) if (e.from === best) waiting[e.to]!--;
  }
  return result;
}
