/**
 * Two attempts at the graph's coverage at 95% precision (`eval session`, method graph-only),
 * measured the way that evaluation measures it (docs/decisions/sessions.md), on a dataset's
 * test split, with the model trained on train as `eval session` trains it:
 *
 *  - learned: the confidence of the graph's answer is a logistic regression of whether it is
 *    right on features of the step (the ranker's top and runner-up probabilities as logits, the
 *    most frequent successor's share in train and whether it agrees, whether the plan still
 *    holds the answer and whether it is the plan's next step), fitted on held-out positions of
 *    train (cross-fitted: each fold's positions answered by a model of the other folds, their
 *    plans suggested by it), applied on test. The answers are the ranker's, unchanged.
 *  - plan: the answer is the best-ranked of the ranker's top five that the plan still holds (else
 *    its top), the confidence that candidate's probability: the plan as the source of truth.
 *
 * Run: npx tsx bench/eval/session-attempts.ts DIR [DIR...]; one JSON line per dataset and method.
 */
import { calibrateThreshold, precisionCurve, type HeldOutAnswer } from '../src/engine/confidence-threshold.js';
import { suggestDag } from '../src/recommend/dag/suggest-dag.js';
import { foldGraph } from '../src/recommend/fit-weights.js';
import { buildModel, type RecommenderModel } from '../src/recommend/model.js';
import { predictNext } from '../src/recommend/predict-next.js';
import { loadDataset } from '../src/schema/dataset.js';
import { parseDagRequest } from '../src/schema/requests.js';
import { workflowToTrace, type WorkflowRecord } from '../src/schema/trace.js';
import { hashedTextEmbedding } from '../src/text/text-embedding.js';
import { trainToolgraph } from '../src/eval/next-methods.js';
import { splitsOf } from '../src/eval/splits.js';
import { buildUniverse } from '../src/eval/universe.js';

interface Step {
  readonly features: number[];
  readonly right: boolean;
  readonly p1: number;
  readonly planRight: boolean;
  readonly planP: number;
}

const logit = (p: number): number => Math.log(Math.max(1e-6, p) / Math.max(1e-6, 1 - p));

function successors(train: readonly WorkflowRecord[]): (last: string) => { tool: string | null; share: number } {
  const table = new Map<string, Map<string, number>>();
  for (const w of train) {
    for (let i = 1; i < w.tools.length; i++) {
      const row = table.get(w.tools[i - 1]!) ?? new Map<string, number>();
      row.set(w.tools[i]!, (row.get(w.tools[i]!) ?? 0) + 1);
      table.set(w.tools[i - 1]!, row);
    }
  }
  return (last) => {
    const row = table.get(last);
    if (row === undefined) return { tool: null, share: 0 };
    let best: string | null = null;
    let count = 0;
    let total = 0;
    for (const [tool, c] of row) {
      total += c;
      if (c > count) [best, count] = [tool, c];
    }
    return { tool: best, share: count / total };
  };
}

/** The steps of `workflows` answered by `model`, with their features. */
function steps(model: RecommenderModel, workflows: readonly WorkflowRecord[], inertia: ReturnType<typeof successors>): Step[] {
  const out: Step[] = [];
  for (const w of workflows) {
    if (!w.ordered || w.tools.length < 2 || w.intent === '') continue;
    const dag = suggestDag(model, parseDagRequest({ intent: w.intent, expandCapabilities: true }));
    const planned = dag.kind === 'no-match' ? [] : dag.nodes.flatMap((n) => (n.kind === 'tool' ? [n.tool] : n.tools));
    for (let i = 1; i < w.tools.length; i++) {
      const items = predictNext(model, { context: w.tools.slice(0, i), intent: w.intent, k: 5 }).items.filter((x) => x.kind === 'tool');
      const left = [...planned];
      for (const t of w.tools.slice(0, i)) {
        const at = left.indexOf(t);
        if (at >= 0) left.splice(at, 1);
      }
      const top = items[0];
      const rule = inertia(w.tools[i - 1]!);
      const pick = items.find((x) => left.includes(x.tool)) ?? top;
      out.push({
        features: [1, logit(top?.score ?? 0), logit(items[1]?.score ?? 0), rule.share, rule.tool === top?.tool ? 1 : 0, top !== undefined && left.includes(top.tool) ? 1 : 0, left[0] === top?.tool ? 1 : 0],
        right: top?.tool === w.tools[i],
        p1: top?.score ?? 0,
        planRight: pick?.tool === w.tools[i],
        planP: pick?.score ?? 0,
      });
    }
  }
  return out;
}

/** Logistic regression by gradient descent, a small L2 penalty; the weights. */
function fitLogistic(rows: readonly Step[]): number[] {
  const d = rows[0]!.features.length;
  const w = new Array<number>(d).fill(0);
  for (let it = 0; it < 2_000; it++) {
    const g = new Array<number>(d).fill(0);
    for (const r of rows) {
      const z = r.features.reduce((a, x, j) => a + x * w[j]!, 0);
      const p = 1 / (1 + Math.exp(-z));
      for (let j = 0; j < d; j++) g[j]! += (p - (r.right ? 1 : 0)) * r.features[j]!;
    }
    for (let j = 0; j < d; j++) w[j]! -= 0.5 * (g[j]! / rows.length + 1e-3 * w[j]!);
  }
  return w;
}

function coverageAt95(answers: readonly HeldOutAnswer[]): number {
  const c = precisionCurve(answers);
  let best = 0;
  for (let j = 0; j < c.coverage.length; j++) if (c.precision[j]! >= 0.95) best = c.coverage[j]!;
  return Math.round(best * 1e4) / 1e4;
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

for (const dir of process.argv.slice(2)) {
  const dataset = await loadDataset(dir);
  const [split] = splitsOf(dataset.workflows, {});
  const { train, test } = split!;
  const universe = buildUniverse(dataset.tools, train);
  const { model, fit } = trainToolgraph(universe, train, 42);
  const inertia = successors(train);
  const traces = train.map(workflowToTrace);
  // Held-out train positions: each fold answered by a model of the others (the fit's folds).
  const heldOut: Step[] = [];
  for (let k = 0; k < 4; k++) {
    const { graph, heldOut: held } = foldGraph(traces.filter((t) => t.success && t.steps.length > 0), universe.catalog, 4, k);
    const ids = new Set(held.map((t) => t.id));
    const foldModel = buildModel(graph, universe.catalog, fit.weights, { seed: 42, embedding: hashedTextEmbedding() });
    heldOut.push(...steps(foldModel, train.filter((w) => ids.has(w.id)), inertia));
  }
  const weights = fitLogistic(heldOut);
  const score = (s: Step): number => s.features.reduce((a, x, j) => a + x * weights[j]!, 0);
  const tested = steps(model, test, inertia);
  const learnedThreshold = calibrateThreshold(heldOut.map((s) => ({ confidence: score(s), correct: s.right })), 0.95, 0);
  const above = tested.filter((s) => score(s) >= learnedThreshold.value);
  const line = (method: string, answers: HeldOutAnswer[], extra: Record<string, unknown> = {}): void => {
    process.stdout.write(`${JSON.stringify({ data: dataset.name, method, n: answers.length, accuracy: round(answers.filter((a) => a.correct).length / answers.length), coverageAt95: coverageAt95(answers), ...extra })}\n`);
  };
  line('ranker (as eval session)', tested.map((s) => ({ confidence: s.p1, correct: s.right })));
  line('learned confidence', tested.map((s) => ({ confidence: score(s), correct: s.right })), {
    heldOutPositions: heldOut.length,
    weights: weights.map(round),
    thresholdCoverageOnTest: round(above.length / tested.length),
    thresholdPrecisionOnTest: round(above.filter((s) => s.right).length / Math.max(1, above.length)),
  });
  line('plan-aware answer', tested.map((s) => ({ confidence: s.planP, correct: s.planRight })));
}
