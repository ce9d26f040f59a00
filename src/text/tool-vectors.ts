/**
 * Tool vectors for embedding search, stored dimension-major so that one query costs
 * O(nnz(query) x tools) sequential multiply-adds rather than a gather per tool:
 *
 *   byDimension[d * n + c] = unit(v_c)[d],   cos(q, c) = sum_{d : q_d != 0} unit(q)_d byDimension[d * n + c]
 *
 * The built-in hashed embedding of a short query has non-zeros in roughly a third of its
 * dimensions, so skipping zeros of the query matters; dense model embeddings pay the full d x n.
 * Tools without a vector (an asynchronous embedder not yet prefetched) are zero rows: cosine 0.
 */
import type { TextEmbedding } from './text-embedding.js';

export interface ToolVectors {
  readonly n: number;
  readonly dimensions: number;
  readonly byDimension: Float32Array;
}

/** The text a tool is embedded from: its split name, description and parameters. */
export function toolText(name: string, description: string, params: readonly { name: string; description: string }[]): string {
  const parts = [name.replace(/[_\-.:/]+/g, ' '), description];
  for (const p of params) parts.push(p.name.replace(/[_\-.:/]+/g, ' '), p.description);
  return parts.filter((s) => s !== '').join('. ');
}

export function buildToolVectors(texts: readonly string[], embedding: TextEmbedding): ToolVectors {
  const n = texts.length;
  const d = embedding.dimensions;
  const byDimension = new Float32Array(n * d);
  for (let c = 0; c < n; c++) {
    const v = embedding.tool(texts[c]!);
    if (v === null) continue;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += v[i]! * v[i]!;
    if (norm === 0) continue;
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < d; i++) byDimension[i * n + c] = v[i]! * inv;
  }
  embedding.retain(texts);
  return { n, dimensions: d, byDimension };
}

/**
 * out[c] = cos(query, tool c) for every tool; all zeros for a zero query. Accumulates in
 * float32 over one column view at a time: measured 1.7x faster than float64 accumulation with
 * indexed reads, and cosines need no more precision than the vectors carry.
 */
export function cosineAll(index: ToolVectors, query: Float32Array, out: Float32Array): void {
  const { n, dimensions, byDimension } = index;
  out.fill(0, 0, n);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += query[i]! * query[i]!;
  if (norm === 0) return;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) {
    const q = query[i]!;
    if (q === 0) continue;
    const w = q * inv;
    const column = byDimension.subarray(i * n, i * n + n);
    for (let c = 0; c < n; c++) out[c]! += w * column[c]!;
  }
}

/**
 * The k tools of highest positive cosine, best first, into `tools` (length >= k); returns how
 * many. Ties break by tool index. O(n + m k) where m is how many beat the running k-th best.
 */
export function nearestTools(cosines: Float32Array, n: number, k: number, tools: Int32Array, scores: Float64Array): number {
  let size = 0;
  for (let c = 0; c < n; c++) {
    const s = cosines[c]!;
    if (s <= 0 || (size === k && s <= scores[k - 1]!)) continue;
    let i = size < k ? size++ : k - 1;
    while (i > 0 && s > scores[i - 1]!) {
      scores[i] = scores[i - 1]!;
      tools[i] = tools[i - 1]!;
      i--;
    }
    scores[i] = s;
    tools[i] = c;
  }
  return size;
}
