/**
 * Which tools a suggested workflow takes, and how many (suggest-dag.ts, step 2): each clause's
 * own best tool, then the request's ranking, to the length the similar past tasks and the
 * clauses give; each with its typical repeats; then the look-ups the chosen steps need.
 */
import type { Clause } from '../../text/clauses.js';
import type { RecentIntents } from '../../text/recent-intents.js';
import { toolNameTokens } from '../../text/text-model.js';
import type { RecommenderModel } from '../model.js';
import { scoreAllTools } from '../score-all.js';
import { createTopK, selectTopKDense } from '../top-k.js';
import { lookupParams, supplies, toolsFeeding } from './data-flow.js';
import { declaredOutputs } from './declared-outputs.js';
import { similarUnnamedSteps, weightedMedian, type PastTask } from './workflow-length.js';

/** A chosen tool and its confidence of belonging to the workflow. */
export interface Step {
  readonly tool: number;
  readonly confidence: number;
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
export function chooseTools(
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

/**
 * Every tool's name terms: the model's, and for a tool newer than the model (in a similar task
 * recorded since it) those its text will have after the rebuild.
 */
function nameTokensOf(model: RecommenderModel, recentIntents: RecentIntents | undefined): (tool: number) => readonly string[] {
  const known = model.text.nameTokens;
  return (tool) => known[tool] ?? toolNameTokens(recentIntents?.toolName(tool) ?? '');
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
 * metatool workflows called `ok` were less often exact than those rejected; docs/decisions/dag/
 * what-the-status-is-worth.md).
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
