/**
 * Memory of past tasks: the intents of recorded successful traces in a BM25 index, with each
 * trace's tool sequence, so a new intent can ask "in the most similar past tasks, which tools
 * were used, and which tool followed this one?".
 *
 *   sim_j       = BM25(query, intent_j) / max_j' BM25(query, intent_j'),  top K traces only
 *   similarTool(c)       = sum_j sim_j [c in trace j]           / sum_j sim_j
 *   similarNext(c | a)   = sum_j sim_j [a -> c in trace j]      / sum_j sim_j [a in trace j]
 *
 * This is k-nearest-neighbour collaborative evidence: unlike the intent association (which
 * scores each tool from the words alone) it keeps which tools went together and in what order
 * in one task. K = 10 neighbours: large enough to average over paraphrases, small enough to stay
 * specific; the fitted ranker decides how much the signal counts.
 *
 * Complexity: a query costs one BM25 pass over the intents (O(postings of the query terms)),
 * a top-K selection O(N), and O(K * trace length) to accumulate.
 */
import { buildBm25, scoreBm25, type Bm25Index } from './bm25.js';

export const NEIGHBOURS = 10;

export interface IntentMemory {
  readonly bm25: Bm25Index;
  /** Tool sequences of the remembered traces: sequenceTools[sequenceStart[j] .. sequenceStart[j+1]). */
  readonly sequenceStart: Int32Array;
  readonly sequenceTools: Int32Array;
}

export interface RememberedTask {
  readonly tokens: readonly string[];
  readonly sequence: readonly number[];
}

export function buildIntentMemory(tasks: readonly RememberedTask[]): IntentMemory {
  const sequenceStart = new Int32Array(tasks.length + 1);
  for (let j = 0; j < tasks.length; j++) sequenceStart[j + 1] = sequenceStart[j]! + tasks[j]!.sequence.length;
  const sequenceTools = new Int32Array(sequenceStart[tasks.length]!);
  tasks.forEach((task, j) => sequenceTools.set(task.sequence, sequenceStart[j]!));
  return { bm25: buildBm25(tasks.map((t) => t.tokens)), sequenceStart, sequenceTools };
}

/** Scratch for `similarTasks`: reuse one per model. */
export class SimilarScratch {
  readonly scores: Float64Array;
  readonly neighbours = new Int32Array(NEIGHBOURS);
  readonly weights = new Float64Array(NEIGHBOURS);
  count = 0;

  constructor(tasks: number) {
    this.scores = new Float64Array(tasks);
  }
}

/** Finds the K most similar remembered tasks; fills `scratch.neighbours/weights/count`. */
export function similarTasks(memory: IntentMemory, tokens: readonly string[], scratch: SimilarScratch): void {
  scratch.count = 0;
  const n = memory.bm25.nDocs;
  if (n === 0) return;
  scoreBm25(memory.bm25, tokens, scratch.scores);
  const { neighbours, weights, scores } = scratch;
  let count = 0;
  for (let j = 0; j < n; j++) {
    const s = scores[j]!;
    if (s <= 0) continue;
    if (count === NEIGHBOURS && s <= weights[count - 1]!) continue;
    let i = count < NEIGHBOURS ? count++ : NEIGHBOURS - 1;
    while (i > 0 && weights[i - 1]! < s) {
      weights[i] = weights[i - 1]!;
      neighbours[i] = neighbours[i - 1]!;
      i--;
    }
    weights[i] = s;
    neighbours[i] = j;
  }
  const max = count > 0 ? weights[0]! : 0;
  for (let i = 0; i < count; i++) weights[i] = weights[i]! / max;
  scratch.count = count;
}
