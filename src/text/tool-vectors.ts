/**
 * Tool vectors for embedding search, stored twice and sparse: by dimension (for each dimension,
 * the tools whose unit vector is non-zero there, with that value) and by tool (each tool's
 * non-zero dimensions). The built-in hashed embedding of a short tool text is non-zero in a
 * minority of its 384 dimensions and a query in about a third, so both layouts skip most zeros;
 * dense model embeddings fill every list and pay the full d x n.
 *
 * A query needs two things (features.ts): the exact cosine of each touched candidate, a dot
 * product over the tool's own non-zeros (`cosine`), and its nearest tools, to touch the few
 * that no other signal found (`nearestTools`). Exact nearest tools cost one pass over the
 * postings of every non-zero query dimension: at 10,000 tools, 290,000 postings and 0.8-1.7 ms
 * per query, most of search's budget. So they are found approximately, then checked exactly:
 *
 *   1. probe the query's dimensions by decreasing |q_d| until they hold PROBE_SHARE of its
 *      squared norm, accumulating partial dot products over their postings;
 *   2. keep the CANDIDATES_PER_NEIGHBOUR * k tools of highest partial score;
 *   3. rescore those exactly (tool-major) and return the k best.
 *
 * A catalogue of at most that many tools is rescored whole, so small catalogues are exact.
 * Measured against the exact k = 32 nearest (docs/decisions/query-performance.md): the approximate set holds
 * 0.98-1.00 of the exact 8 nearest on the four public catalogues' training intents (Seal-Tools'
 * 4,076 tools the lowest) at about a quarter of the exact cost.
 * Tools without a vector (an asynchronous embedder not yet prefetched) have no postings: cosine 0.
 */
import type { StoredToolVectors } from '../graph/graph-codec.js';
import { grown } from '../graph/typed-arrays.js';
import type { TextEmbedding } from './text-embedding.js';

export interface ToolVectors {
  readonly n: number;
  readonly dimensions: number;
  /** Postings of dimension i: tools[start[i] .. start[i+1]) with their values. */
  readonly start: Int32Array;
  readonly tools: Int32Array;
  readonly values: Float32Array;
  /** Non-zeros of tool c: dims[rowStart[c] .. rowStart[c+1]) with their values. */
  readonly rowStart: Int32Array;
  readonly rowDims: Int32Array;
  readonly rowValues: Float32Array;
  /** Tools the embedding had no vector for yet (an asynchronous embedder still prefetching). */
  readonly missing: number;
}

/** Share of the query's squared norm whose dimensions are probed for nearest-tool candidates. */
export const PROBE_SHARE = 0.7;
/** Candidates rescored exactly per nearest tool asked for. */
export const CANDIDATES_PER_NEIGHBOUR = 4;

/** The text a tool is embedded from: its split name, description and parameters. */
export function toolText(name: string, description: string, params: readonly { name: string; description: string }[]): string {
  const parts = [name.replace(/[_\-.:/]+/g, ' '), description];
  for (const p of params) parts.push(p.name.replace(/[_\-.:/]+/g, ' '), p.description);
  return parts.filter((s) => s !== '').join('. ');
}

/** The by-tool half of a ToolVectors: all a later build reuses. */
export type ToolVectorRows = Pick<ToolVectors, 'dimensions' | 'missing' | 'rowStart' | 'rowDims' | 'rowValues'>;

/** The last build, for reuse: tool c keeps its row while `texts[c]` is unchanged. */
export interface PreviousToolVectors {
  readonly texts: readonly string[];
  readonly vectors: ToolVectorRows;
}

/**
 * Writes the unit vector of `v` (rounded to float32, as stored; a zero after rounding is no
 * posting) as non-zeros into dims/values from `q`, which have room for `d` more; returns the
 * next free position. A zero vector (or one with a NaN) writes nothing.
 */
function writeUnitRow(v: Float32Array, d: number, dims: Int32Array, values: Float32Array, q: number): number {
  let norm = 0;
  for (let i = 0; i < d; i++) norm += v[i]! * v[i]!;
  if (!(norm > 0)) return q;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < d; i++) {
    const value = Math.fround(v[i]! * inv);
    if (value === 0) continue;
    dims[q] = i;
    values[q++] = value;
  }
  return q;
}

/**
 * Builds the index; with `previous`, the rows of tools whose text is unchanged at the same index
 * are copied instead of normalised again (a rebuild after new tools were seen in traces would
 * otherwise redo every tool: 100 ms at 10,000 tools). A previous build that still missed some
 * vectors is not reused. Rows are built sparse, then transposed, so the cost is O(n d) only for
 * new tools and O(non-zeros) for the rest.
 */
export function buildToolVectors(texts: readonly string[], embedding: TextEmbedding, previous?: PreviousToolVectors): ToolVectors {
  const n = texts.length;
  const d = embedding.dimensions;
  const old = previous !== undefined && previous.vectors.missing === 0 && previous.vectors.dimensions === d ? previous : undefined;
  let missing = 0;
  // Pass 1: each tool's row (reused or normalised), written into growable row arrays.
  const rowStart = new Int32Array(n + 1);
  let rowDims = new Int32Array(Math.max(16, (old?.vectors.rowDims.length ?? 0) + 64));
  let rowValues = new Float32Array(rowDims.length);
  let q = 0;
  const reserve = (extra: number): void => {
    if (q + extra <= rowDims.length) return;
    const size = Math.max(q + extra, rowDims.length * 2);
    rowDims = grown(rowDims, size);
    rowValues = grown(rowValues, size);
  };
  for (let c = 0; c < n; c++) {
    const text = texts[c]!;
    if (old !== undefined && c < old.texts.length && old.texts[c] === text) {
      const from = old.vectors.rowStart[c]!;
      const to = old.vectors.rowStart[c + 1]!;
      reserve(to - from);
      rowDims.set(old.vectors.rowDims.subarray(from, to), q);
      rowValues.set(old.vectors.rowValues.subarray(from, to), q);
      q += to - from;
    } else {
      const v = embedding.tool(text);
      if (v === null) {
        missing++;
      } else {
        reserve(d);
        q = writeUnitRow(v, d, rowDims, rowValues, q);
      }
    }
    rowStart[c + 1] = q;
  }
  // Pass 2: the same non-zeros by dimension (tools ascending within a dimension).
  const start = new Int32Array(d + 1);
  for (let p = 0; p < q; p++) start[rowDims[p]! + 1]!++;
  for (let i = 0; i < d; i++) start[i + 1]! += start[i]!;
  const tools = new Int32Array(q);
  const values = new Float32Array(q);
  const cursor = start.slice(0, d);
  for (let c = 0; c < n; c++) {
    for (let p = rowStart[c]!; p < rowStart[c + 1]!; p++) {
      const slot = cursor[rowDims[p]!]!++;
      tools[slot] = c;
      values[slot] = rowValues[p]!;
    }
  }
  embedding.retain(texts);
  return { n, dimensions: d, start, tools, values, rowStart, rowDims: rowDims.slice(0, q), rowValues: rowValues.slice(0, q), missing };
}

/**
 * One query against a ToolVectors index: its unit vector, the plan, and buffers reused across
 * queries (nothing is allocated per query).
 *
 * `load` picks the cheaper of two exact ways to get the cosines a query needs, by counting the
 * postings each would read: a dense pass over the postings of every non-zero query dimension
 * (all n cosines at once; then the nearest tools are exact too), or one dot product per
 * candidate the caller expects to score (tool-major) plus the approximate nearest-tool probe.
 * A query that touches most of the catalogue through other signals takes the dense pass. Both
 * sum the same products in the same dimension order, so a cosine is the same either way.
 */
export class VectorQuery {
  /** The unit query, dense. */
  readonly unit: Float64Array;
  /** Its non-zero dimensions, by decreasing magnitude: dims[0 .. size). */
  readonly dims: Int32Array;
  size = 0;
  /** With `dense`, every tool's cosine; else the probe's partial dot products. */
  readonly scores: Float64Array;
  dense = false;
  private readonly candidateTools: Int32Array;
  private readonly candidateScores: Float64Array;

  constructor(
    readonly index: ToolVectors,
    maxNeighbours: number,
  ) {
    this.unit = new Float64Array(index.dimensions);
    this.dims = new Int32Array(index.dimensions);
    this.scores = new Float64Array(index.n);
    this.candidateTools = new Int32Array(maxNeighbours * CANDIDATES_PER_NEIGHBOUR);
    this.candidateScores = new Float64Array(maxNeighbours * CANDIDATES_PER_NEIGHBOUR);
  }

  /**
   * Loads `query` (length d) for a search of k nearest tools after which about `rows` tools will
   * need their cosine (k = 0: no nearest tools). False for the zero vector, which matches nothing
   * (every cosine 0).
   */
  load(query: Float32Array, k: number, rows: number): boolean {
    const { unit, dims, index } = this;
    const d = unit.length;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += query[i]! * query[i]!;
    this.size = 0;
    this.dense = false;
    if (norm === 0) return false;
    const inv = 1 / Math.sqrt(norm);
    let densePostings = 0;
    for (let i = 0; i < d; i++) {
      unit[i] = query[i]! * inv;
      if (query[i] === 0) continue;
      dims[this.size++] = i;
      densePostings += index.start[i + 1]! - index.start[i]!;
    }
    dims.subarray(0, this.size).sort((a, b) => Math.abs(unit[b]!) - Math.abs(unit[a]!) || a - b);
    const meanRow = index.n > 0 ? index.rowStart[index.n]! / index.n : 0;
    // With k = 0 no nearest tools are asked for: only the candidates' dot products.
    const probe = k > 0 ? this.probePostings() + index.n : 0;
    const sparse = probe + (rows + k * CANDIDATES_PER_NEIGHBOUR) * meanRow;
    if (densePostings <= sparse || (k > 0 && index.n <= k * CANDIDATES_PER_NEIGHBOUR)) {
      this.dense = true;
      const { start, tools, values } = index;
      const out = this.scores;
      out.fill(0);
      for (let i = 0; i < d; i++) {
        const w = unit[i]!;
        if (query[i] === 0) continue;
        for (let p = start[i]!, end = start[i + 1]!; p < end; p++) out[tools[p]!]! += w * values[p]!;
      }
    }
    return true;
  }

  /** cos(query, tool c), exact; 0 for a tool without a vector or a zero query. */
  cosine(c: number): number {
    if (this.size === 0) return 0;
    if (this.dense) return this.scores[c]!;
    const { rowStart, rowDims, rowValues } = this.index;
    const unit = this.unit;
    let s = 0;
    for (let p = rowStart[c]!, end = rowStart[c + 1]!; p < end; p++) s += unit[rowDims[p]!]! * rowValues[p]!;
    return s;
  }

  /**
   * The k tools of highest positive cosine, best first, into `tools` and `scores` (length >= k);
   * returns how many. Exact after a dense load, else approximate (the top of this file); the
   * scores are exact cosines either way. Ties break by tool index.
   */
  nearest(k: number, tools: Int32Array, scores: Float64Array): number {
    if (this.size === 0 || k <= 0) return 0;
    const n = this.index.n;
    if (this.dense) return topPositive(this.scores, n, k, tools, scores);
    const m = k * CANDIDATES_PER_NEIGHBOUR;
    if (m > this.candidateTools.length) throw new RangeError(`VectorQuery.nearest: k = ${k}, sized for ${this.candidateTools.length / CANDIDATES_PER_NEIGHBOUR}`);
    const { start, tools: postingTools, values } = this.index;
    const { unit, dims, scores: partial } = this;
    partial.fill(0);
    let probed = 0;
    for (let j = 0; j < this.size && probed < PROBE_SHARE; j++) {
      const d = dims[j]!;
      const w = unit[d]!;
      probed += w * w;
      for (let p = start[d]!, end = start[d + 1]!; p < end; p++) partial[postingTools[p]!]! += w * values[p]!;
    }
    const found = heapTopPositive(partial, n, m, this.candidateTools, this.candidateScores);
    let size = 0;
    for (let j = 0; j < found; j++) {
      const c = this.candidateTools[j]!;
      size = insertTop(c, this.cosine(c), k, size, tools, scores);
    }
    return size;
  }

  /** Postings the approximate probe reads. */
  private probePostings(): number {
    const { unit, dims, index } = this;
    let probed = 0;
    let postings = 0;
    for (let j = 0; j < this.size && probed < PROBE_SHARE; j++) {
      const d = dims[j]!;
      probed += unit[d]! * unit[d]!;
      postings += index.start[d + 1]! - index.start[d]!;
    }
    return postings;
  }
}

/** The k entries of highest positive value, best first; ties by index. O(n + m k). */
function topPositive(values: Float64Array, n: number, k: number, tools: Int32Array, scores: Float64Array): number {
  let size = 0;
  let floor = 0;
  for (let c = 0; c < n; c++) {
    // Most entries lose to the running k-th best; only the rest pay for the insertion.
    if (values[c]! <= floor) continue;
    size = insertTop(c, values[c]!, k, size, tools, scores);
    if (size === k) floor = scores[k - 1]!;
  }
  return size;
}

/**
 * The m entries of highest positive value, in no particular order, through a min-heap of size m
 * (ties: the higher index is the worse); returns how many. O(n + r log m), r the entries that
 * beat the running m-th best: the candidate list is too long for insertTop's shifting.
 */
function heapTopPositive(values: Float64Array, n: number, m: number, tools: Int32Array, scores: Float64Array): number {
  let size = 0;
  for (let c = 0; c < n; c++) {
    const s = values[c]!;
    if (s <= 0) continue;
    if (size < m) {
      // Sift up.
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(s, c, scores[parent]!, tools[parent]!)) break;
        scores[i] = scores[parent]!;
        tools[i] = tools[parent]!;
        i = parent;
      }
      scores[i] = s;
      tools[i] = c;
    } else if (worse(scores[0]!, tools[0]!, s, c)) {
      // Replace the root (the worst kept) and sift down.
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= m) break;
        if (child + 1 < m && worse(scores[child + 1]!, tools[child + 1]!, scores[child]!, tools[child]!)) child++;
        if (!worse(scores[child]!, tools[child]!, s, c)) break;
        scores[i] = scores[child]!;
        tools[i] = tools[child]!;
        i = child;
      }
      scores[i] = s;
      tools[i] = c;
    }
  }
  return size;
}

/** Whether (s, c) ranks below (t, d): a lower score, or the same score and a higher index. */
function worse(s: number, c: number, t: number, d: number): boolean {
  return s < t || (s === t && c > d);
}

/** Inserts (c, s) into the descending top-k list of `size` entries if s > 0 and it beats the k-th; returns the new size. */
function insertTop(c: number, s: number, k: number, size: number, tools: Int32Array, scores: Float64Array): number {
  if (s <= 0 || (size === k && worse(s, c, scores[k - 1]!, tools[k - 1]!))) return size;
  let i = size < k ? size++ : k - 1;
  while (i > 0 && worse(scores[i - 1]!, tools[i - 1]!, s, c)) {
    scores[i] = scores[i - 1]!;
    tools[i] = tools[i - 1]!;
    i--;
  }
  scores[i] = s;
  tools[i] = c;
  return size;
}

/**
 * The vectors of a model's tools (`texts`, from catalogueText) for a stored snapshot, or null
 * when some were missing (an asynchronous embedder still prefetching).
 */
export function storeToolVectors(texts: readonly string[], vectors: ToolVectors, embedding: TextEmbedding): StoredToolVectors | null {
  if (vectors.missing > 0 || texts.length !== vectors.n) return null;
  return { embedding: embedding.name, dimensions: vectors.dimensions, texts, rowStart: vectors.rowStart, rowDims: vectors.rowDims, rowValues: vectors.rowValues };
}

/** Stored rows embedded again to check them (evenly spread, first and last included). */
const CHECKED_TOOLS = 8;

/** The texts of the stored rows restoreToolVectors and storedVectorsMatch check. */
export function checkedTexts(stored: StoredToolVectors): string[] {
  const n = stored.texts.length;
  const checked = Math.min(n, CHECKED_TOOLS);
  return Array.from({ length: checked }, (_, i) => stored.texts[checked === n ? i : Math.round((i * (n - 1)) / (checked - 1))]!);
}

/**
 * True when `embedding` can be the one that made the stored rows: the same name and length,
 * and each checked row (checkedTexts) is the unit vector of the embedding's vector of its text,
 * to within `tolerance` per dimension (0: exactly, as stored). False when the embedding has no
 * vector for a checked text yet.
 */
export function storedVectorsMatch(stored: StoredToolVectors, embedding: TextEmbedding, tolerance = 0): boolean {
  const d = embedding.dimensions;
  if (stored.embedding !== embedding.name || stored.dimensions !== d) return false;
  const at = new Map(stored.texts.map((text, c) => [text, c] as const));
  const dims = new Int32Array(d);
  const values = new Float32Array(d);
  const want = new Float32Array(d);
  for (const text of checkedTexts(stored)) {
    const v = embedding.tool(text);
    if (v === null) return false;
    const size = writeUnitRow(v, d, dims, values, 0);
    const c = at.get(text)!;
    want.fill(0);
    for (let p = stored.rowStart[c]!; p < stored.rowStart[c + 1]!; p++) want[stored.rowDims[p]!] = stored.rowValues[p]!;
    let q = 0;
    for (let i = 0; i < d; i++) {
      const got = q < size && dims[q] === i ? values[q++]! : 0;
      if (!(Math.abs(got - want[i]!) <= tolerance)) return false;
    }
  }
  return true;
}

/**
 * Stored tool vectors as the previous build of `embedding`, for buildToolVectors to reuse their
 * rows, or null when they may not be its own (storedVectorsMatch, exactly: the checked rows are
 * embedded again, so a changed embedder is caught without a version number, mostly). An
 * embedding that cannot answer synchronously (one still prefetching) cannot be checked here:
 * null (see storedVectorsByText).
 */
export function restoreToolVectors(stored: StoredToolVectors, embedding: TextEmbedding): PreviousToolVectors | null {
  return storedVectorsMatch(stored, embedding) ? asPreviousBuild(stored) : null;
}

/** Stored rows as the previous build buildToolVectors reuses (checked by the caller). */
export function asPreviousBuild(stored: StoredToolVectors): PreviousToolVectors {
  return { texts: stored.texts, vectors: { dimensions: stored.dimensions, missing: 0, rowStart: stored.rowStart, rowDims: stored.rowDims, rowValues: stored.rowValues } };
}

/**
 * Every stored row as a dense unit vector by its text: what an asynchronous embedder adopts
 * (PrefetchingEmbedding.adoptTools) instead of embedding the catalogue again, once
 * storedVectorsMatch has checked a few. Unit vectors serve as well as the embedder's own: tool
 * vectors are only ever compared by cosine.
 */
export function* storedVectorsByText(stored: StoredToolVectors): Generator<readonly [string, Float32Array]> {
  for (let c = 0; c < stored.texts.length; c++) {
    const v = new Float32Array(stored.dimensions);
    for (let p = stored.rowStart[c]!; p < stored.rowStart[c + 1]!; p++) v[stored.rowDims[p]!] = stored.rowValues[p]!;
    yield [stored.texts[c]!, v];
  }
}
