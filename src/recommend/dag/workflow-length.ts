/**
 * How many steps a workflow for an intent should have, from the evidence: the weighted median
 * length of the most similar past tasks (similar-intents.ts: BM25 over recorded intents, the
 * kNN weights). The median, not the mean, because lengths are counts with a long tail and one
 * unusually long neighbour should not add a step to every suggestion.
 *
 * The neighbours are found once per request (similarPastTasks) and read by both the length and
 * the typical repeats of each tool; the length is null when no past task shares a term with the
 * intent: then the caller falls back on what the request itself says (its clauses).
 */
import type { IntentRecord } from '../../graph/transition-graph.js';
import { clausePositionsIn } from '../../text/clause-order.js';
import { clauseParts } from '../../text/clauses.js';
import type { RecentIntents } from '../../text/recent-intents.js';
import { similarTasks, similarTasksWithRecent, type SimilarScratch } from '../../text/similar-intents.js';
import type { TextModel } from '../../text/text-model.js';

export interface PastTask {
  /** Its kNN weight (similar-intents.ts). */
  readonly weight: number;
  /** Its tool sequence, in live indexes (a tool newer than the model is past the model's own). */
  readonly tools: ArrayLike<number>;
  /** Its recorded request and distinct tools. */
  readonly record: IntentRecord;
}

/**
 * The most similar remembered tasks, best first, copied out of the shared scratch. With
 * `recent`, the records since the model are remembered tasks too (similarTasksWithRecent): a
 * trace's request shapes the next suggestion's length, order and repeats, as after a rebuild.
 */
export function similarPastTasks(text: TextModel, tokens: readonly string[], scratch: SimilarScratch, recent?: RecentIntents): PastTask[] {
  if (tokens.length === 0) return [];
  if (recent !== undefined) similarTasksWithRecent(text.intent.examples, recent, tokens, scratch);
  else similarTasks(text.intent.examples, tokens, scratch);
  const { sequenceStart, sequenceTools } = text.memory;
  const tasks = sequenceStart.length - 1;
  return Array.from({ length: scratch.count }, (_, i) => {
    const j = scratch.neighbours[i]!;
    const weight = scratch.weights[i]!;
    if (j >= tasks) return { weight, tools: recent!.sequenceOf(j - tasks), record: recent!.recordOf(j - tasks) };
    return { weight, tools: sequenceTools.subarray(sequenceStart[j]!, sequenceStart[j + 1]!), record: text.records[j]! };
  });
}

/** Weighted median of `values` (weights > 0), or null for none. */
export function weightedMedian(pairs: readonly { readonly value: number; readonly weight: number }[]): number | null {
  if (pairs.length === 0) return null;
  const sorted = [...pairs].sort((a, b) => a.value - b.value);
  const total = sorted.reduce((s, p) => s + p.weight, 0);
  let acc = 0;
  for (const p of sorted) {
    acc += p.weight;
    if (acc >= total / 2) return p.value;
  }
  return sorted[sorted.length - 1]!.value;
}

export function similarTaskLength(neighbours: readonly PastTask[]): number | null {
  const median = weightedMedian(neighbours.map((n) => ({ value: n.tools.length, weight: n.weight })));
  return median === null ? null : Math.max(1, median);
}

/** Per recorded request, how many of its clauses name one of its tools (records only append: kept). */
const namedCounts = new WeakMap<IntentRecord, number>();

/**
 * How many distinct clauses of a recorded request name one of its tools: each tool placed in
 * the clause holding most of its own name terms (clause-order.ts), as the request's clause order
 * is read. `nameTokens` gives every tool's, those newer than the model included, so that the
 * count kept is a rebuilt model's too.
 */
function namedClauses(nameTokens: (tool: number) => readonly string[], record: IntentRecord): number {
  let count = namedCounts.get(record);
  if (count === undefined) {
    // Ties at the earliest clause: placed apart, the count rose and node-F1 fell (five folds of
    // UltraTool's train 0.8019 -> 0.8015), while edge-F1 gained less than with the order alone.
    const positions = clausePositionsIn(clauseParts(record.intent), record.tools.map(nameTokens), 'earliest');
    count = new Set(Array.from(positions).filter((p) => p >= 0)).size;
    namedCounts.set(record, count);
  }
  return count;
}

/**
 * The steps similar past tasks took beyond those their requests named: the weighted median,
 * over the neighbours, of their distinct tools that no clause of theirs names (a look-up the
 * request took for granted, such as UltraTool's ticket query before a booking); null for none.
 * Where requests name every step (NESTFUL, Seal-Tools), it is 0.
 */
export function similarUnnamedSteps(nameTokens: (tool: number) => readonly string[], neighbours: readonly PastTask[]): number | null {
  return weightedMedian(neighbours.map(({ record, weight }) => ({ value: Math.max(0, record.tools.length - namedClauses(nameTokens, record)), weight })));
}
