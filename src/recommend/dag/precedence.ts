/**
 * Which of two tools tends to come first, learned from the recorded workflows: for every
 * recorded sequence and every pair of distinct tools in it, the earlier one's first occurrence
 * counts as "before". With a Laplace prior,
 *
 *   P(a before b) = (before(a, b) + 1) / (before(a, b) + before(b, a) + 2)
 *
 * so an unseen pair is a coin flip. Only pairs within WINDOW steps of each other count: that
 * bounds the index at O(length x WINDOW) per sequence, and far-apart steps say little about
 * how two tools relate.
 *
 * Built once per model (the first DAG request after a rebuild), then O(1) per pair.
 */
import type { RecommenderModel } from '../model.js';

export const WINDOW = 16;

export interface Precedence {
  /** before(a, b) by `a * n + b`. */
  readonly counts: ReadonlyMap<number, number>;
  readonly n: number;
}

const cache = new WeakMap<RecommenderModel, Precedence>();

export function precedenceOf(model: RecommenderModel): Precedence {
  let index = cache.get(model);
  if (index === undefined) {
    index = buildPrecedence(model.graph.n, model.text.memory.sequenceStart, model.text.memory.sequenceTools);
    cache.set(model, index);
  }
  return index;
}

export function buildPrecedence(n: number, start: Int32Array, tools: Int32Array): Precedence {
  const counts = new Map<number, number>();
  const first = new Map<number, number>();
  for (let j = 0; j + 1 < start.length; j++) {
    first.clear();
    for (let p = start[j]!; p < start[j + 1]!; p++) if (!first.has(tools[p]!)) first.set(tools[p]!, p);
    const entries = [...first].sort((x, y) => x[1] - y[1]);
    for (let x = 0; x < entries.length; x++) {
      for (let y = x + 1; y < entries.length && entries[y]![1] - entries[x]![1] <= WINDOW; y++) {
        const key = entries[x]![0] * n + entries[y]![0];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return { counts, n };
}

export function probabilityBefore(index: Precedence, a: number, b: number): number {
  const ab = index.counts.get(a * index.n + b) ?? 0;
  const ba = index.counts.get(b * index.n + a) ?? 0;
  return (ab + 1) / (ab + ba + 2);
}
