/**
 * In which order a suggested workflow's steps run (suggest-dag.ts, step 3): the clause that names
 * each step, the data flow the request states, and the order itself, from the similar past
 * tasks, all recorded workflows, the request's clauses and declared data flow.
 */
import { clauseOrderEvidence, clauseOrderLogOdds, clausePositionsIn } from '../../text/clause-order.js';
import type { Clause } from '../../text/clauses.js';
import type { RecommenderModel } from '../model.js';
import { breakCycles, type WeightedEdge } from './acyclic.js';
import type { Step } from './choose-tools.js';
import { feeds, namedFlows, outputWords } from './data-flow.js';
import { declaredOutputs } from './declared-outputs.js';
import { neighbourPrecedence, precedenceOf, probabilityBefore } from './precedence.js';
import type { PastTask } from './workflow-length.js';

/**
 * The clause of the request that names each step (clause-order.ts), by step; null for a
 * request of one clause or one distinct tool, where it says nothing about their order.
 */
export function stepClauses(model: RecommenderModel, steps: readonly Step[], clauses: readonly Clause[]): Int32Array | null {
  const tools = [...new Set(steps.map((s) => s.tool))];
  if (tools.length < 2 || clauses.length < 2) return null;
  const positions = clausePositionsIn(clauses, tools.map((t) => model.text.nameTokens[t]!));
  return Int32Array.from(steps, (s) => positions[tools.indexOf(s.tool)]!);
}

export function flowKey(n: number, producer: number, consumer: number): number {
  return producer * n + consumer;
}

/**
 * The data flow the request states between the chosen tools (data-flow.ts namedFlows), as
 * flowKey(producer, consumer) of tool indices. Empty when no chosen tool declares an output
 * (UltraTool's, Seal-Tools' and metatool's catalogues declare none), or the request is one clause.
 */
export function statedFlows(model: RecommenderModel, steps: readonly Step[], clauses: readonly Clause[], clauseOf: Int32Array | null): Set<number> {
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
export function orderSteps(
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
