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
import type { IntentRecord } from '../../graph/tool-graph.js';
import { clausePositions } from '../../text/clause-order.js';
import { splitClauses } from '../../text/clauses.js';
import { similarTasks, type SimilarScratch } from '../../text/similar-intents.js';
import type { TextModel } from '../../text/text-model.js';

export interface PastTask {
  /** Index of the remembered task (its sequence in text.memory). */
  readonly task: number;
  readonly weight: number;
}

/** The most similar remembered tasks, best first, copied out of the shared scratch. */
export function similarPastTasks(text: TextModel, tokens: readonly string[], scratch: SimilarScratch): PastTask[] {
  if (tokens.length === 0) return [];
  similarTasks(text.intent.examples, tokens, scratch);
  return Array.from({ length: scratch.count }, (_, i) => ({ task: scratch.neighbours[i]!, weight: scratch.weights[i]! }));
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

export function similarTaskLength(text: TextModel, neighbours: readonly PastTask[]): number | null {
  const { sequenceStart } = text.memory;
  const median = weightedMedian(neighbours.map((n) => ({ value: sequenceStart[n.task + 1]! - sequenceStart[n.task]!, weight: n.weight })));
  return median === null ? null : Math.max(1, median);
}

/** Per recorded request, how many of its clauses name one of its tools (records only append: kept). */
const namedCounts = new WeakMap<IntentRecord, number>();

/**
 * How many distinct clauses of a recorded request name one of its tools: each tool placed in
 * the clause holding most of its own name terms (clause-order.ts), as the request's clause order
 * is read.
 */
function namedClauses(text: TextModel, record: IntentRecord): number {
  let count = namedCounts.get(record);
  if (count === undefined) {
    const positions = clausePositions(splitClauses(record.intent), record.tools.map((t) => text.nameTokens[t] ?? []));
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
export function similarUnnamedSteps(text: TextModel, neighbours: readonly PastTask[]): number | null {
  const records = text.records;
  return weightedMedian(neighbours.map(({ task, weight }) => ({ value: Math.max(0, records[task]!.tools.length - namedClauses(text, records[task]!)), weight })));
}
