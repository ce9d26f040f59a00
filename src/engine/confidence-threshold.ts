/**
 * The escalation threshold: a step escalates to a model tier when the graph's confidence (the
 * next-tool ranker's probability of its top candidate) is below it. It is calibrated on held-out
 * answers, never on what it is reported on, with the fit's discipline (fit-weights.ts): the
 * traces are split into K folds by a stable hash of their id; a model of the other folds'
 * traces, with the weights in force, answers every position of each fold's traces (context =
 * the tools before it, with the intent). The threshold is then the lowest held-out confidence
 * at which the answers at or above it are right at least `target` of the time:
 *
 *   t* = min { c : precision({i : c_i >= c}) >= target }        (1 when no c reaches it)
 *
 * so the graph answers alone exactly the share of steps it can answer at that precision
 * (coverage at the target precision), and a model only the rest. Answers of equal confidence
 * are taken or left together. The weights were fitted on held-out queries of the same folds,
 * as the fit's own step calibration is, so these answers are held out for the graph, not for
 * the weights (a score of some twenty numbers). At most `maxTraces` traces take part, a stable
 * sample by hash beyond that: K model builds of them, then one prediction per position.
 */
import { foldGraph } from '../recommend/fit-weights.js';
import { foldOf } from '../recommend/folds.js';
import { buildModel, type FittedWeights } from '../recommend/model.js';
import { predictNext } from '../recommend/predict-next.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { TextEmbedding } from '../text/text-embedding.js';

export interface HeldOutAnswer {
  readonly confidence: number;
  readonly correct: boolean;
}

export interface HeldOutOptions {
  readonly folds?: number;
  readonly seed?: number;
  readonly maxTraces?: number;
  /** The embedding the served model uses (its `embedding` signal), or null. */
  readonly embedding?: TextEmbedding | null;
}

export const HELD_OUT_DEFAULTS = { folds: 4, maxTraces: 5_000 } as const;

/** Fewer held-out positions than this say too little: the default threshold serves. */
export const MIN_CALIBRATION_POSITIONS = 30;

/** The successful traces that take part: all of them, or a stable sample of about `maxTraces`. */
function sample(traces: readonly Trace[], maxTraces: number): Trace[] {
  const usable = traces.filter((t) => t.success && t.steps.length > 0);
  if (usable.length <= maxTraces) return usable;
  const m = Math.ceil(usable.length / maxTraces);
  return usable.filter((t) => foldOf(`calibration:${t.id}`, m) === 0);
}

/**
 * The held-out answers, as stages: it yields after each fold's model is built and every 500
 * positions, so a caller can let its event loop turn in between (heldOutAnswers runs it at once).
 */
export function* heldOutStages(traces: readonly Trace[], catalog: ReadonlyMap<string, ToolInfo>, weights: FittedWeights, options: HeldOutOptions = {}): Generator<void, HeldOutAnswer[]> {
  const folds = options.folds ?? HELD_OUT_DEFAULTS.folds;
  const usable = sample(traces, options.maxTraces ?? HELD_OUT_DEFAULTS.maxTraces);
  const out: HeldOutAnswer[] = [];
  for (let k = 0; k < folds; k++) {
    const { graph, heldOut } = foldGraph(usable, catalog, folds, k);
    if (heldOut.length === 0 || graph.traces === 0) continue;
    const model = buildModel(graph, catalog, weights, { seed: options.seed, embedding: options.embedding ?? null });
    yield;
    for (const t of heldOut) {
      const tools = t.steps.map((s) => s.tool);
      for (let i = 1; i < tools.length; i++) {
        const prediction = predictNext(model, { context: tools.slice(0, i), ...(t.intent !== '' ? { intent: t.intent } : {}), k: 3 });
        // A capability item stands in its tool's place with the tool's probability.
        const top = prediction.items[0];
        out.push({ confidence: top?.score ?? 0, correct: top?.tool === tools[i] });
        if (out.length % 500 === 0) yield;
      }
    }
  }
  return out;
}

export function heldOutAnswers(traces: readonly Trace[], catalog: ReadonlyMap<string, ToolInfo>, weights: FittedWeights, options: HeldOutOptions = {}): HeldOutAnswer[] {
  const stages = heldOutStages(traces, catalog, weights, options);
  for (;;) {
    const step = stages.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Answers by confidence, highest first, cut where the confidence changes: `coverage[j]` of them
 * have confidence at least `confidence[j]`, and `precision[j]` of those are right.
 */
export function precisionCurve(answers: readonly HeldOutAnswer[]): { confidence: number[]; coverage: number[]; precision: number[] } {
  const sorted = [...answers].sort((a, b) => b.confidence - a.confidence);
  const confidence: number[] = [];
  const coverage: number[] = [];
  const precision: number[] = [];
  let right = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.correct) right++;
    if (i + 1 < sorted.length && sorted[i + 1]!.confidence === sorted[i]!.confidence) continue;
    confidence.push(sorted[i]!.confidence);
    coverage.push((i + 1) / sorted.length);
    precision.push(right / (i + 1));
  }
  return { confidence, coverage, precision };
}

export interface ThresholdCalibration {
  readonly value: number;
  readonly source: 'calibrated' | 'default';
  /** Held-out positions it was set on. */
  readonly positions: number;
  /** The share of them at or above it, and their precision (NaN-free: 0 when none). */
  readonly coverage: number;
  readonly precision: number;
}

export function calibrateThreshold(answers: readonly HeldOutAnswer[], target: number, fallback: number): ThresholdCalibration {
  if (answers.length < MIN_CALIBRATION_POSITIONS) return { value: fallback, source: 'default', positions: answers.length, coverage: 0, precision: 0 };
  const curve = precisionCurve(answers);
  let best = -1;
  for (let j = 0; j < curve.confidence.length; j++) if (curve.precision[j]! >= target) best = j;
  if (best < 0) return { value: 1, source: 'calibrated', positions: answers.length, coverage: 0, precision: 0 };
  return { value: curve.confidence[best]!, source: 'calibrated', positions: answers.length, coverage: curve.coverage[best]!, precision: curve.precision[best]! };
}
