/**
 * Human score of a learned pattern (spec 004): what people said about it.
 *
 *   /reflect approved:            H = 0.95
 *   no approvals or rejections:   H = 0.5
 *   otherwise, from 0.5, each approval  H <- H + r (1 - H), then each rejection  H <- H - r H
 *     in closed form              H = (1 - 0.5 (1 - r)^a) (1 - r)^j,    r = 0.15
 *   /reflect rejected:            H = max(0, H - 0.30)
 *
 * Spec 004's loop applies all approvals before all rejections, so order within the counts does not
 * matter; the closed form is that loop (1 - H halves by (1 - r) per approval, H shrinks by (1 - r)
 * per rejection), and costs O(1) instead of O(a + j). Spec 004's formula knows only whether /reflect
 * approved; for a rejection it gives only the update rule `reflect_rejected: human -0.30`, which we
 * apply to the approval-based score, so both /reflect outcomes live in this one function.
 *
 * O(1).
 */
import { ToolgraphError } from '../schema/errors.js';

/** The latest /reflect review of the pattern. */
export type ReflectDecision = 'none' | 'approved' | 'rejected';

export interface HumanFeedback {
  readonly approvals: number;
  readonly rejections: number;
  readonly reflect: ReflectDecision;
}

export const HUMAN_LEARNING_RATE = 0.15;
export const REFLECT_APPROVED_SCORE = 0.95;
export const REFLECT_REJECTION_PENALTY = 0.3;
export const HUMAN_PRIOR = 0.5;

const REFLECT: ReadonlySet<string> = new Set(['none', 'approved', 'rejected']);

/** H in [0, 1]. INVALID_INPUT for counts that are not integers >= 0, or a rate outside (0, 1). */
export function humanScore(feedback: HumanFeedback, learningRate: number = HUMAN_LEARNING_RATE): number {
  const { approvals, rejections, reflect } = feedback;
  for (const [name, value] of [['approvals', approvals], ['rejections', rejections]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ToolgraphError('INVALID_INPUT', `humanScore: expected ${name} to be an integer >= 0, got ${String(value)}`);
    }
  }
  if (!REFLECT.has(reflect)) {
    throw new ToolgraphError('INVALID_INPUT', `humanScore: expected reflect to be none, approved or rejected, got ${String(reflect)}`);
  }
  if (!(learningRate > 0 && learningRate < 1)) {
    throw new ToolgraphError('INVALID_INPUT', `humanScore: expected learningRate in (0, 1), got ${String(learningRate)}`);
  }
  if (reflect === 'approved') return REFLECT_APPROVED_SCORE;
  const keep = 1 - learningRate;
  const score = approvals + rejections === 0 ? HUMAN_PRIOR : (1 - HUMAN_PRIOR * keep ** approvals) * keep ** rejections;
  return reflect === 'rejected' ? Math.max(0, score - REFLECT_REJECTION_PENALTY) : score;
}
