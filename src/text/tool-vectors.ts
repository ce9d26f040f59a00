/**
 * Tool vectors for embedding search, stored by dimension and sparse: for each dimension, the
 * tools whose unit vector is non-zero there, with that value (CSR over dimensions). A query then
 * costs one pass over the postings of its non-zero dimensions:
 *
 *   cos(q, c) = sum_{d : q_d != 0} unit(q)_d unit(v_c)_d
 *
 * The built-in hashed embedding of a short tool text is non-zero in a minority of its 384
 * dimensions and a query in about half, so skipping zeros on both sides is what keeps search at
 * 10,000 tools within its budget (measured 4.0 ms per query with dense columns, see README);
 * dense model embeddings fill every posting list and pay the full d x n.
 * Tools without a vector (an asynchronous embedder not yet prefetched) have no postings: cosine 0.
 */
import type { TextEmbedding } from './text-embedding.js';

export interface ToolVectors {
  readonly n: number;
  readonly dimensions: number;
  /** Postings of dimension i: tools[start[i] .. start[i+1]) with their values. */
  readonly start: Int32Array;
  readonly tools: Int32Array;
  readonly values: Float32Array;
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
  const units: (Float32Array | null)[] = texts.map((text) => {
    const v = embedding.tool(text);
    if (v === null) return null;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += v[i]! * v[i]!;
    if (norm === 0) return null;
    const inv = 1 / Math.sqrt(norm);
    const unit = new Float32Array(d);
    for (let i = 0; i < d; i++) unit[i] = v[i]! * inv;
    return unit;
  });
  const start = new Int32Array(d + 1);
  for (const unit of units) if (unit !== null) for (let i = 0; i < d; i++) if (unit[i] !== 0) start[i + 1]!++;
  for (let i = 0; i < d; i++) start[i + 1]! += start[i]!;
  const tools = new Int32Array(start[d]!);
  const values = new Float32Array(start[d]!);
  const cursor = start.slice(0, d);
  units.forEach((unit, c) => {
    if (unit === null) return;
    for (let i = 0; i < d; i++) {
      if (unit[i] === 0) continue;
      const p = cursor[i]!++;
      tools[p] = c;
      values[p] = unit[i]!;
    }
  });
  embedding.retain(texts);
  return { n, dimensions: d, start, tools, values };
}

/** out[c] = cos(query, tool c) for every tool; all zeros for a zero query. */
export function cosineAll(index: ToolVectors, query: Float32Array, out: Float32Array): void {
  const { n, dimensions, start, tools, values } = index;
  out.fill(0, 0, n);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += query[i]! * query[i]!;
  if (norm === 0) return;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) {
    const q = query[i]!;
    if (q === 0) continue;
    const w = q * inv;
    for (let p = start[i]!, end = start[i + 1]!; p < end; p++) out[tools[p]!]! += w * values[p]!;
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
