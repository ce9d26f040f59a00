/**
 * A learned pattern as the facade reports it: what the traces say (observations, successes,
 * failures, the edge's reliability posterior) and what people said (approvals, rejections),
 * with its composite confidence (spec 004) derived from both at a given time.
 *
 * The confidence is replayed, not stored: a PatternConfidence is created from the graph's counts
 * (observations, and successes / failures as positive / negative applications) at the pattern's
 * last observation, then every recorded human decision is applied in time order as spec 004's
 * `user_accepted` / `user_corrected` event, then the weekly decay owed at `now` is settled
 * (scoring/pattern-confidence.ts, scoring/decay.ts). Decisions older than the registry's history
 * are folded into the created evidence. Pure: the same inputs give the same view.
 */
import type { EdgeReliabilityReport } from '../graph/edge-reliability.js';
import type { TransitionStats } from '../graph/transition-graph.js';
import type { PatternConfidence } from '../scoring/confidence-state.js';
import { decayConfidence } from '../scoring/decay.js';
import type { LifecycleTier, PatternStatus } from '../scoring/lifecycle.js';
import { applyConfidenceEvent, createPatternConfidence } from '../scoring/pattern-confidence.js';
import { patternId, patternKind, type PatternFeedbackEntry, type PatternRecord, type RegisteredPatternKind } from './pattern-registry.js';

export interface PatternConfidenceView {
  readonly frequency: number;
  readonly effectiveness: number;
  readonly human: number;
  readonly composite: number;
  readonly tier: LifecycleTier;
  readonly status: PatternStatus;
}

export interface PatternView {
  readonly id: string;
  readonly kind: RegisteredPatternKind;
  readonly tools: readonly string[];
  /** Times observed in any trace; successes and failures among them. */
  readonly observations: number;
  readonly successes: number;
  readonly failures: number;
  readonly approvals: number;
  readonly rejections: number;
  /** The edge's Beta posterior in the current model (transitions only; null when not in it). */
  readonly reliability: EdgeReliabilityReport | null;
  readonly confidence: PatternConfidenceView;
}

/** One pattern with what people said of it, verdict by verdict (the newest FEEDBACK_HISTORY_LIMIT). */
export interface PatternDetail extends PatternView {
  readonly feedback: readonly PatternFeedbackEntry[];
}

export function patternConfidence(
  tools: readonly string[],
  stats: Readonly<TransitionStats> | undefined,
  record: PatternRecord | undefined,
  now: number,
): PatternConfidence {
  const id = patternId(tools);
  const history = [...(record?.feedback ?? [])].sort((x, y) => x.at - y.at);
  const approvalsInHistory = history.filter((e) => e.decision === 'approve').length;
  const rejectionsInHistory = history.length - approvalsInHistory;
  const created = stats !== undefined && stats.count > 0 ? stats.lastSeen : (history[0]?.at ?? now);
  let state = createPatternConfidence({
    id,
    kind: patternKind(tools),
    now: Math.min(created, now),
    evidence: {
      observations: stats?.count ?? 0,
      applications: { positive: stats?.success ?? 0, negative: stats?.failure ?? 0, neutral: 0 },
      approvals: Math.max(0, (record?.approvals ?? 0) - approvalsInHistory),
      rejections: Math.max(0, (record?.rejections ?? 0) - rejectionsInHistory),
    },
  });
  for (const entry of history) {
    state = applyConfidenceEvent(state, entry.decision === 'approve' ? 'user_accepted' : 'user_corrected', Math.min(entry.at, now));
  }
  return decayConfidence(state, now).state;
}

export function patternView(
  tools: readonly string[],
  stats: Readonly<TransitionStats> | undefined,
  record: PatternRecord | undefined,
  reliability: EdgeReliabilityReport | null,
  now: number,
): PatternView {
  const state = patternConfidence(tools, stats, record, now);
  return {
    id: state.id,
    kind: patternKind(tools),
    tools: [...tools],
    observations: stats?.count ?? 0,
    successes: stats?.success ?? 0,
    failures: stats?.failure ?? 0,
    approvals: record?.approvals ?? 0,
    rejections: record?.rejections ?? 0,
    reliability,
    confidence: {
      frequency: state.dimensions.frequency,
      effectiveness: state.dimensions.effectiveness,
      human: state.dimensions.human,
      composite: state.composite,
      tier: state.tier,
      status: state.status,
    },
  };
}
