/**
 * Isotonic calibration (Zadrozny & Elkan 2002; Niculescu-Mizil & Caruana 2005) of a workflow
 * step's confidence: the non-decreasing step function of the raw confidence that best predicts
 * whether the step belongs, fitted on held-out suggestions, each step labelled by whether the
 * recorded workflow holds its tool. A step's raw confidence is a search probability times the
 * workflow length, or a clause's share (suggest-dag.ts): it orders steps well but is no
 * probability (on validation, 32% of UltraTool's steps under 0.1 were right). Monotone: it
 * changes no step, edge or ranking, only what the confidence and the status say.
 *
 * Pool-adjacent-violators over the steps sorted by raw confidence (equal ones pooled first),
 * then each block's rate smoothed as (right + 1/2) / (steps + 1) so that no block says 0 or 1 (a
 * certainty a held-out sample cannot give; its cross-entropy would be infinite). Platt scaling,
 * sigmoid(a logit(p) + b), was measured first and did worse on all four datasets (docs/decisions/dag/
 * calibrated-steps.md): the raw confidences have atoms (capped at 1, a clause's share) that one
 * slope cannot follow.
 * O(steps log steps) to fit, O(log blocks) to apply.
 */

export interface StepCalibration {
  /** Per block, the largest raw confidence in it, increasing. */
  readonly upper: readonly number[];
  /** Per block, its calibrated probability, non-decreasing. */
  readonly value: readonly number[];
}

/**
 * Whether each suggested step is right: the recorded workflow holds its tool, a tool counting as
 * often as it was recorded. The label the calibration is fitted on and evaluated against.
 */
export function stepsRight(suggested: readonly string[], recorded: readonly string[]): boolean[] {
  const left = new Map<string, number>();
  for (const tool of recorded) left.set(tool, (left.get(tool) ?? 0) + 1);
  return suggested.map((tool) => {
    const k = left.get(tool) ?? 0;
    if (k > 0) left.set(tool, k - 1);
    return k > 0;
  });
}

/** A step's cross-entropy, nats, with its confidence kept within [1e-6, 1 - 1e-6]: a wrong certainty costs much, not infinitely. */
export function stepLoss(p: number, right: boolean): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return -Math.log(right ? q : 1 - q);
}

/** Fewer held-out steps than this say too little to move the confidences: none is fitted. */
export const MIN_CALIBRATION_STEPS = 30;

/** The value of the first block whose upper bound reaches `p` (the last block beyond them all). */
export function calibrate(p: number, s: StepCalibration): number {
  let lo = 0;
  let hi = s.upper.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s.upper[mid]! < p) lo = mid + 1;
    else hi = mid;
  }
  return s.value[lo]!;
}

/** The calibration that best predicts `correct` from `confidence` (parallel arrays), or null with fewer than MIN_CALIBRATION_STEPS steps. */
export function fitCalibration(confidence: ArrayLike<number>, correct: ArrayLike<boolean>): StepCalibration | null {
  const n = confidence.length;
  if (n < MIN_CALIBRATION_STEPS || correct.length !== n) return null;
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => confidence[x]! - confidence[y]!);
  const upper: number[] = [];
  const right: number[] = [];
  const steps: number[] = [];
  const mean = (k: number): number => right[k]! / steps[k]!;
  for (const i of order) {
    const p = confidence[i]!;
    // Equal confidences are one block from the start: calibrate() gives each value one answer.
    if (upper.length > 0 && upper[upper.length - 1] === p) {
      right[right.length - 1]! += correct[i] ? 1 : 0;
      steps[steps.length - 1]!++;
    } else {
      upper.push(p);
      right.push(correct[i] ? 1 : 0);
      steps.push(1);
    }
    // Merge while the last block is not above the one before it: the fit must not decrease.
    while (upper.length > 1 && mean(upper.length - 2) >= mean(upper.length - 1)) {
      const last = upper.length - 1;
      upper[last - 1] = upper[last]!;
      right[last - 1]! += right[last]!;
      steps[last - 1]! += steps[last]!;
      upper.pop();
      right.pop();
      steps.pop();
    }
  }
  // Smoothed, a small block moves towards 1/2, which can undo the order by a little: each
  // value is at least the one before it.
  const value: number[] = [];
  for (let k = 0; k < upper.length; k++) value.push(Math.max((right[k]! + 0.5) / (steps[k]! + 1), k > 0 ? value[k - 1]! : 0));
  return { upper, value };
}
