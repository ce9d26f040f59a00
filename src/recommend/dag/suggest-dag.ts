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
 * says `reject` or `warn`, with a warning, and the nodes are still returned for review. After a
 * fit, `ok` starts at the fitted threshold instead of 0.65 (status-threshold.ts: held-out DAGs
 * at or above it reached node-F1 0.8), unless the request sets its own warn threshold. A request
 * that search answers `no-match` (search-tools.ts: nothing covers enough of its words, or nobody
 * asked anything like it) gets `kind: 'no-match'`, `reject`, no nodes and search's hint: the
 * steps' confidences are calibrated on requests that fit, and a workflow of the nearest tools is
 * no answer to one that does not (search_tools lists those tools, for review).
 * Dropping single nodes below the threshold was measured and lost: node-F1 0.811 -> 0.708 on
 * UltraTool, because membership confidence is spread across a workflow's tools.
 */
import { edgeIndex } from '../../graph/edge-reliability.js';
import { cycleHops, hopDistance, pathConfidence } from '../../graph/path-confidence.js';
import type { RecentTransitions } from '../../graph/recent-transitions.js';
import { clauseParts } from '../../text/clauses.js';
import type { RecentIntents } from '../../text/recent-intents.js';
import { tokenize } from '../../text/tokenize.js';
import { EMPTY_HINT, isEmptyStore } from '../empty-store.js';
import type { RecommenderModel } from '../model.js';
import { DEFAULT_K } from '../predict-next.js';
import { searchTools } from '../search-tools.js';
import { layers, type WeightedEdge } from './acyclic.js';
import { calibrate } from './calibration.js';
import { capabilityUnits, unitEdges } from './capability-nodes.js';
import { chooseTools, type Step } from './choose-tools.js';
import { statusOf } from './status-threshold.js';
import { producers } from './data-flow.js';
import { declaredOutputs } from './declared-outputs.js';
import { flowKey, orderSteps, statedFlows, stepClauses } from './order-steps.js';
import { similarPastTasks, similarTaskLength } from './workflow-length.js';

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
  /**
   * `no-match`: search finds nothing that fits the intent; `empty`: the store knows no tool at
   * all (empty-store.ts), and `hint` says how to fill it. Both: no nodes, edges or layers,
   * confidence 0, `reject`.
   */
  readonly kind: 'workflow' | 'no-match' | 'empty';
  readonly nodes: readonly DagNode[];
  readonly edges: readonly DagEdge[];
  /** Node ids by layer: a layer's nodes depend only on earlier layers. */
  readonly layers: readonly (readonly string[])[];
  readonly confidence: number;
  /**
   * `reject` below the reject threshold (or nothing fits), `warn` below the warn threshold: after
   * a fit, the confidence from which held-out workflows reached node-F1 0.8 (status-threshold.ts).
   */
  readonly status: 'ok' | 'warn' | 'reject';
  readonly warnings: readonly string[];
  readonly version: number;
  /** With `empty`: what the store lacks and how to fill it (EMPTY_HINT), also the one warning. */
  readonly hint?: string;
}

export const DAG_DEFAULTS = { maxNodes: 10, reject: 0.5, warn: 0.65 } as const;

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
  if (isEmptyStore(model, recent)) return { kind: 'empty', nodes: [], edges: [], layers: [], confidence: 0, status: 'reject', warnings: [EMPTY_HINT], version: graph.version, hint: EMPTY_HINT };
  const maxNodes = request.maxNodes ?? DAG_DEFAULTS.maxNodes;
  const reject = request.thresholds?.reject ?? DAG_DEFAULTS.reject;
  // `ok` from the fitted threshold (dag/status-threshold.ts) unless the request sets its own.
  const fitted = request.thresholds?.warn === undefined ? model.weights.dagStatus : undefined;
  const warn = request.thresholds?.warn ?? fitted?.threshold ?? DAG_DEFAULTS.warn;
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

  // The verdict search_tools gives the intent, from the same model and what it learned since: one
  // search more (about 0.4 ms at 10,000 tools, bench --case dag). The workflow's own ranking of
  // the intent could stand in for it, but would part from search's on newer and failing tools.
  // Nothing fits: no workflow of the nearest tools is suggested, only search's hint.
  const fits = searchTools(model, { query: request.intent, k: DEFAULT_K }, recent, recentIntents);
  if (fits.kind === 'no-match') {
    warnings.push(fits.hint ?? 'no tool fits this intent');
    return { kind: 'no-match', nodes: [], edges: [], layers: [], confidence: 0, status: 'reject', warnings, version: graph.version };
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
  const status: DagSuggestion['status'] = nodes.length === 0 ? 'reject' : statusOf(confidence, reject, warn);
  if (nodes.length === 0) warnings.push('no tool fits this intent');
  else if (status === 'reject') warnings.push(`confidence ${confidence.toFixed(2)} is below the reject threshold ${reject}: review before running`);
  else if (status === 'warn' && fitted !== undefined) {
    warnings.push(`low confidence ${confidence.toFixed(2)} < ${fitted.threshold.toFixed(2)}, from which held-out workflows reached node-F1 ${fitted.target}`);
  } else if (status === 'warn') warnings.push(`low confidence ${confidence.toFixed(2)} < ${warn}`);

  return {
    kind: 'workflow',
    nodes,
    edges,
    layers: layered.map((layer) => layer.map((step) => idOf[step]!)),
    confidence,
    status,
    warnings,
    version: graph.version,
  };
}

function idNumber(id: string): number {
  return Number(id.slice(1));
}
