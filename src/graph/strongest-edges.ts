/**
 * The k strongest edges of a CSR: the positions of its k largest weights, strongest first, ties
 * by position (so by source, then target: deterministic). What a picture of a large graph keeps
 * when it cannot draw every edge.
 *
 * A bounded min-heap of k positions over the m weights: O(m log k) time, O(k) space, then the
 * heap sorted, O(k log k). Weights must not be NaN (a snapshot's counts never are).
 */
import { ToolgraphError } from '../schema/errors.js';

/** `a` is weaker than `b`: a smaller weight, or an equal weight at a later position. */
function weaker(weights: Float64Array, a: number, b: number): boolean {
  const wa = weights[a]!;
  const wb = weights[b]!;
  return wa < wb || (wa === wb && a > b);
}

function siftDown(heap: Int32Array, size: number, weights: Float64Array, i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) return;
    const r = l + 1;
    const c = r < size && weaker(weights, heap[r]!, heap[l]!) ? r : l;
    if (!weaker(weights, heap[c]!, heap[i]!)) return;
    const t = heap[i]!;
    heap[i] = heap[c]!;
    heap[c] = t;
    i = c;
  }
}

function siftUp(heap: Int32Array, weights: Float64Array, i: number): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!weaker(weights, heap[i]!, heap[p]!)) return;
    const t = heap[i]!;
    heap[i] = heap[p]!;
    heap[p] = t;
    i = p;
  }
}

/** Positions (into `weights`) of the `k` largest weights, strongest first. */
export function strongestEdges(weights: Float64Array, k: number): Int32Array {
  if (!Number.isSafeInteger(k) || k < 0) throw new ToolgraphError('INVALID_INPUT', `strongestEdges: expected k to be an integer >= 0, got ${String(k)}`);
  const m = weights.length;
  const size = Math.min(k, m);
  const heap = new Int32Array(size);
  if (size === 0) return heap;
  let filled = 0;
  for (let j = 0; j < m; j++) {
    if (filled < size) {
      heap[filled] = j;
      siftUp(heap, weights, filled++);
    } else if (weaker(weights, heap[0]!, j)) {
      heap[0] = j;
      siftDown(heap, size, weights, 0);
    }
  }
  // Pop the weakest to the back: the array ends strongest first.
  for (let end = size - 1; end > 0; end--) {
    const t = heap[0]!;
    heap[0] = heap[end]!;
    heap[end] = t;
    siftDown(heap, end, weights, 0);
  }
  return heap;
}
