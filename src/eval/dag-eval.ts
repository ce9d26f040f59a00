/**
 * `toolgraph eval dag`: for each test workflow with two tools or more, the intent goes in and a
 * DAG of tools comes out (shared/data/README.md, "dag"). Methods:
 *  - chain: the top search results in rank order, linked as a chain;
 *  - toolgraph: suggestDag.
 * Both take the same number of steps where they can (the weighted median length of similar
 * past tasks, else the request's clause count), so the comparison is about which tools, and
 * which dependencies, not about how many. suggestDag may stop earlier on a doubtful step.
 *
 * node-F1 compares tool multisets; edge-F1 compares (from tool, to tool) multisets against the
 * record's `edges` (a chain without listed edges: its consecutive pairs). Micro-averaged: true
 * positives, predictions and gold items are summed over the test set before dividing.
 */
import { stepLoss, stepsRight } from '../recommend/dag/calibration.js';
import type { DagStatusCalibration } from '../recommend/dag/status-threshold.js';
import { suggestDag, type DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { similarPastTasks, similarTaskLength } from '../recommend/dag/workflow-length.js';
import type { RecommenderModel } from '../recommend/model.js';
import { scoreAllTools } from '../recommend/score-all.js';
import type { Dataset } from '../schema/dataset.js';
import type { WorkflowRecord } from '../schema/trace.js';
import { splitClauses } from '../text/clauses.js';
import { tokenize } from '../text/tokenize.js';
import { trainToolgraph } from './next-methods.js';
import { splitsOf } from './splits.js';
import { buildUniverse } from './universe.js';

export const DAG_METHODS = ['chain', 'toolgraph'] as const;
export type DagMethod = (typeof DAG_METHODS)[number];

export interface DagResult {
  readonly task: 'dag';
  readonly data: string;
  readonly method: DagMethod;
  readonly n: number;
  readonly nodeF1: number;
  readonly edgeF1: number;
  readonly nodePrecision: number;
  readonly nodeRecall: number;
  readonly edgePrecision: number;
  readonly edgeRecall: number;
  /** Mean number of nodes suggested. */
  readonly meanNodes: number;
  /**
   * What the suggestion's status is worth (toolgraph only: `chain` has none): the share of
   * workflows called `ok`, `warn` and `reject` and node-F1 over each, and over every workflow
   * not `ok`; `ok` from the threshold each split's fit set (dag/status-threshold.ts), listed in
   * `okThresholds`, with the node-F1 its held-out workflows reached at or above it.
   */
  readonly okShare?: number;
  readonly okNodeF1?: number;
  readonly warnShare?: number;
  readonly warnNodeF1?: number;
  readonly rejectShare?: number;
  readonly rejectNodeF1?: number;
  readonly notOkNodeF1?: number;
  readonly okThresholds?: readonly (number | null)[];
  readonly okValidationNodeF1?: readonly (number | null)[];
  /**
   * What a step's confidence is worth as a probability that the recorded workflow holds its tool
   * (toolgraph only; a tool counts as often as it was recorded): mean cross-entropy, nats, and
   * Brier score, over all suggested steps.
   */
  readonly stepLoss?: number;
  readonly stepBrier?: number;
}

export interface DagEvalOptions {
  readonly folds?: number;
  /** Hold out a quarter of train instead of reading test (splits.ts). */
  readonly validation?: boolean;
  readonly seed?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

interface Predicted {
  readonly tools: readonly string[];
  readonly edges: readonly (readonly [string, string])[];
  readonly status?: DagSuggestion['status'];
  /** Per tool of `tools`, its node's confidence. */
  readonly confidences?: readonly number[];
}

/** Cross-entropy and squared error of step confidences against whether the record holds each step. */
class StepScore {
  steps = 0;
  loss = 0;
  brier = 0;

  add(tools: readonly string[], confidences: readonly number[], recordedTools: readonly string[]): void {
    stepsRight(tools, recordedTools).forEach((right, i) => {
      const p = confidences[i]!;
      this.loss += stepLoss(p, right);
      this.brier += ((right ? 1 : 0) - Math.min(1 - 1e-6, Math.max(1e-6, p))) ** 2;
      this.steps++;
    });
  }
}

/** Counts of matched, predicted and gold items, summed over queries. */
/** Micro-averaged F1 of multisets: true positives, predictions and gold items summed over calls. */
export class F1Counter {
  tp = 0;
  predicted = 0;
  gold = 0;

  add(predicted: readonly string[], gold: readonly string[]): void {
    const left = new Map<string, number>();
    for (const g of gold) left.set(g, (left.get(g) ?? 0) + 1);
    for (const p of predicted) {
      const k = left.get(p) ?? 0;
      if (k > 0) {
        this.tp++;
        left.set(p, k - 1);
      }
    }
    this.predicted += predicted.length;
    this.gold += gold.length;
  }

  get precision(): number {
    return this.predicted > 0 ? this.tp / this.predicted : 0;
  }

  get recall(): number {
    return this.gold > 0 ? this.tp / this.gold : 0;
  }

  get f1(): number {
    const p = this.precision;
    const r = this.recall;
    return p + r > 0 ? (2 * p * r) / (p + r) : 0;
  }
}

/** Gold edges as `from\u0000to` tool pairs. */
export function goldEdges(record: WorkflowRecord): string[] {
  if (record.edges.length > 0) return record.edges.map(([i, j]) => pairKey(record.tools[i]!, record.tools[j]!));
  if (record.structure !== 'chain') return [];
  return record.tools.slice(1).map((t, i) => pairKey(record.tools[i]!, t));
}

export function pairKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

function chainDag(model: RecommenderModel, intent: string, scores: Float64Array): Predicted {
  const tokens = tokenize(intent);
  const learned = similarTaskLength(similarPastTasks(model.text, tokens, model.scratch.similar));
  const length = Math.min(model.graph.n, learned ?? Math.max(1, splitClauses(intent).length));
  scoreAllTools(model, [], intent, 'search', scores);
  const order = Array.from({ length: model.graph.n }, (_, c) => c).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const tools = order.slice(0, length).map((c) => model.graph.names[c]!);
  return { tools, edges: tools.slice(1).map((t, i) => [tools[i]!, t] as const) };
}

function toolgraphDag(model: RecommenderModel, intent: string): Predicted {
  // Expanded: the gold workflows are tools, so capabilities are scored by their tools.
  const dag = suggestDag(model, { intent, expandCapabilities: true });
  const toolOf = new Map(dag.nodes.map((n) => [n.id, n.kind === 'tool' ? n.tool : n.tools.join('+')]));
  return {
    tools: dag.nodes.flatMap((n) => (n.kind === 'tool' ? [n.tool] : n.tools)),
    edges: dag.edges.map((e) => [toolOf.get(e.from)!, toolOf.get(e.to)!] as const),
    status: dag.status,
    confidences: dag.nodes.flatMap((n) => (n.kind === 'tool' ? [n.confidence] : n.tools.map(() => n.confidence))),
  };
}

export function evaluateDag(dataset: Dataset, options: DagEvalOptions = {}): DagResult[] {
  const splits = splitsOf(dataset.workflows, options);
  const counters = new Map(DAG_METHODS.map((m) => [m, { nodes: new F1Counter(), edges: new F1Counter(), queries: 0 }]));
  const byStatus = new Map<DagSuggestion['status'], { nodes: F1Counter; queries: number }>();
  const notOk = new F1Counter();
  const fitted: (DagStatusCalibration | null)[] = [];
  const stepScore = new StepScore();
  const total = splits.reduce((s, sp) => s + sp.test.length, 0);
  let done = 0;
  for (const split of splits) {
    const universe = buildUniverse(dataset.tools, split.train);
    const { model } = trainToolgraph(universe, split.train, options.seed);
    fitted.push(model.weights.dagStatus ?? null);
    const scores = new Float64Array(model.graph.n);
    for (const w of split.test) {
      options.onProgress?.(++done, total);
      if (w.tools.length < 2 || w.intent === '') continue;
      const gold = goldEdges(w);
      for (const method of DAG_METHODS) {
        const predicted = method === 'chain' ? chainDag(model, w.intent, scores) : toolgraphDag(model, w.intent);
        const c = counters.get(method)!;
        c.nodes.add(predicted.tools, w.tools);
        c.edges.add(predicted.edges.map(([a, b]) => pairKey(a, b)), gold);
        c.queries++;
        if (predicted.confidences !== undefined) stepScore.add(predicted.tools, predicted.confidences, w.tools);
        if (predicted.status !== undefined) {
          let s = byStatus.get(predicted.status);
          if (s === undefined) byStatus.set(predicted.status, (s = { nodes: new F1Counter(), queries: 0 }));
          s.nodes.add(predicted.tools, w.tools);
          s.queries++;
          if (predicted.status !== 'ok') notOk.add(predicted.tools, w.tools);
        }
      }
    }
  }
  return DAG_METHODS.map((method) => {
    const c = counters.get(method)!;
    return {
      task: 'dag' as const,
      data: dataset.name,
      method,
      n: c.queries,
      nodeF1: c.nodes.f1,
      edgeF1: c.edges.f1,
      nodePrecision: c.nodes.precision,
      nodeRecall: c.nodes.recall,
      edgePrecision: c.edges.precision,
      edgeRecall: c.edges.recall,
      meanNodes: c.queries > 0 ? c.nodes.predicted / c.queries : 0,
      ...(method === 'toolgraph' && c.queries > 0
        ? {
            okShare: (byStatus.get('ok')?.queries ?? 0) / c.queries,
            okNodeF1: byStatus.get('ok')?.nodes.f1 ?? 0,
            warnShare: (byStatus.get('warn')?.queries ?? 0) / c.queries,
            warnNodeF1: byStatus.get('warn')?.nodes.f1 ?? 0,
            rejectShare: (byStatus.get('reject')?.queries ?? 0) / c.queries,
            rejectNodeF1: byStatus.get('reject')?.nodes.f1 ?? 0,
            notOkNodeF1: notOk.f1,
            okThresholds: fitted.map((f) => f?.threshold ?? null),
            okValidationNodeF1: fitted.map((f) => f?.nodeF1 ?? null),
            stepLoss: stepScore.steps > 0 ? stepScore.loss / stepScore.steps : 0,
            stepBrier: stepScore.steps > 0 ? stepScore.brier / stepScore.steps : 0,
          }
        : {}),
    };
  });
}
