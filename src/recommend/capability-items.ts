/**
 * Capabilities in predictNext's list. A capability is suggested when the next tool it needs is
 * one of the predicted tools:
 *
 *   next(c)  = the first tool of c, in c's order, that the context has not called yet
 *   s(c)     = passive-suggestion score of c (Jaccard with the context x (1 + boost) x reliability),
 *              divided by (1 + boost) so that it lies in [0, 1]
 *   P(c)     = P(next(c) | context) x s(c), kept when at least CAPABILITY_THRESHOLD
 *
 * The answer is one item per predicted tool, so `k` is the number of items and no tool appears
 * twice: a predicted tool that starts a kept capability is answered as that capability (the one
 * of highest P(c), ties by id), in the tool's place, with the tool's probability as `score` and
 * s(c) as `capabilityScore`. The tools keep their order and scores, and tool Hit@k (read through
 * each item's `tool`) is unchanged. CAPABILITY_THRESHOLD is 0.05: a capability suggested below
 * it would start with a tool the ranker itself gives little chance; capabilities fully done
 * already are not suggested. Each capability item carries the `tool` that starts it and that
 * tool's signals.
 *
 * Only capabilities whose next tool is a predicted one can be suggested, so only they are scored:
 * found through the predicted tools' rows of the tools x capabilities matrix, with
 * capability-score.ts's passive formula (a test checks the two agree). That keeps predictNext
 * independent of the number of tools and capabilities: O(sum over the k predicted tools of their
 * capabilities' sizes) per query.
 */
import type { SignalBreakdown } from './features.js';
import type { CapabilityModel } from './capability-model.js';
import { CAPABILITY_BOOST, toRanked, type RankedCapability } from './rank-capabilities.js';

/** A tool of a next-tool prediction: its probability and per-signal breakdown. */
export interface RankedTool {
  readonly tool: string;
  readonly kind: 'tool';
  readonly score: number;
  readonly signals: SignalBreakdown;
}

/** Least score for a capability to enter predictNext's list. */
export const CAPABILITY_THRESHOLD = 0.05;

export interface CapabilitySuggestion extends Omit<RankedCapability, 'kind'> {
  readonly kind: 'capability';
  /** The tool that starts what is left of the capability: the predicted next tool, whose place the item takes. */
  readonly tool: string;
  readonly signals: SignalBreakdown;
  /** The capability's own passive-suggestion score s(c); `score` is its tool's probability. */
  readonly capabilityScore: number;
}

export type PredictionItem = RankedTool | CapabilitySuggestion;

export interface CapabilityItemsOptions {
  readonly boost?: number;
  readonly threshold?: number;
}

/**
 * `tools`: predictNext's tool items (probabilities); `context`: context tool indexes; `names`:
 * tool names by index, `indexByName` the reverse.
 */
export function withCapabilities(
  model: CapabilityModel | null | undefined,
  names: readonly string[],
  indexByName: ReadonlyMap<string, number>,
  context: readonly number[],
  tools: readonly RankedTool[],
  options: CapabilityItemsOptions = {},
): PredictionItem[] {
  if (model == null || model.capabilities.length === 0 || context.length === 0 || tools.length === 0) return [...tools];
  const boost = options.boost ?? CAPABILITY_BOOST;
  const threshold = options.threshold ?? CAPABILITY_THRESHOLD;
  // A capability is suggested only through its next tool, so only capabilities holding a
  // predicted tool can be: scoring just those keeps this O(k) in capabilities scored.
  const predicted = new Map<number, RankedTool>();
  for (const t of tools) {
    // A tool newer than the model (newer-tools.ts) is in no capability yet.
    const index = indexByName.get(t.tool);
    if (index !== undefined && t.score >= threshold) predicted.set(index, t);
  }
  // The best kept capability of each predicted tool: the item that takes the tool's place.
  const best = new Map<string, { item: CapabilitySuggestion; product: number }>();
  for (const r of passiveScores(model, context, boost, predicted)) {
    const start = predicted.get(r.next)!;
    const own = r.score / (1 + boost);
    const product = start.score * own;
    if (product < threshold) continue;
    const id = model.capabilities[r.capability]!.id;
    const held = best.get(start.tool);
    if (held !== undefined && (held.product > product || (held.product === product && held.item.capability < id))) continue;
    const base = toRanked(model, names, r.capability, start.score, r.relevance, r.structuralBoost);
    best.set(start.tool, { item: { ...base, tool: start.tool, signals: start.signals, capabilityScore: own }, product });
  }
  return tools.map((t) => best.get(t.tool)?.item ?? t);
}

export interface PassiveScore {
  readonly capability: number;
  readonly score: number;
  readonly relevance: number;
  readonly structuralBoost: number;
  /** The first member, in the capability's order, the context has not called; -1 when all are done. */
  readonly next: number;
}

/**
 * capabilityScore's passive-suggestion score (Jaccard x (1 + boost x cluster share) x
 * reliability, the linear factor) of every capability sharing a tool with the context, excluded
 * ones left out; order unspecified. With `nextAmong`, only those whose next tool is one of its keys.
 */
export function passiveScores(model: CapabilityModel, context: readonly number[], boost: number, nextAmong?: ReadonlyMap<number, unknown>): PassiveScore[] {
  const done = new Set(context);
  const share = new Map<number, number>();
  let clustered = 0;
  for (const t of done) {
    const k = model.toolClusters[t]!;
    if (k < 0) continue;
    share.set(k, (share.get(k) ?? 0) + 1);
    clustered++;
  }
  const { offsets, columns } = model.matrix.toolsByCapabilities;
  const out: PassiveScore[] = [];
  const score = (c: number, next: number, common: number): void => {
    if (model.excluded[c] === 1 || common === 0) return;
    const relevance = common / (model.members[c]!.length + done.size - common);
    const cluster = model.capabilityClusters[c]!;
    const structuralBoost = cluster >= 0 && clustered > 0 ? boost * ((share.get(cluster) ?? 0) / clustered) : 0;
    const s = relevance * (1 + structuralBoost) * model.reliability[c]!;
    if (s > 0) out.push({ capability: c, score: s, relevance, structuralBoost, next });
  };
  if (nextAmong !== undefined) {
    // Each capability has one next tool, so it is met once: in that tool's row.
    for (const t of nextAmong.keys()) {
      if (done.has(t)) continue;
      for (let p = offsets[t]!; p < offsets[t + 1]!; p++) {
        const c = columns[p]!;
        const members = model.members[c]!;
        let common = 0;
        let next = -1;
        for (const m of members) {
          if (done.has(m)) common++;
          else if (next < 0) next = m;
        }
        if (next === t) score(c, next, common);
      }
    }
    return out;
  }
  const shared = new Map<number, number>();
  for (const t of done) for (let p = offsets[t]!; p < offsets[t + 1]!; p++) shared.set(columns[p]!, (shared.get(columns[p]!) ?? 0) + 1);
  for (const [c, common] of shared) score(c, model.members[c]!.find((m) => !done.has(m)) ?? -1, common);
  return out;
}
