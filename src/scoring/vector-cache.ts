/**
 * VectorCache: the novelty memory of trace value scoring (spec 000, TTL from spec 001). A
 * fixed-capacity ring of vectors in one preallocated Float32Array, searched by brute force.
 *
 *   cos(q, v)              = q·v / (|q| |v|), and 0 when q or v is the zero vector
 *   maxCosineSimilarity(q) = max over live entries of cos(q, v); 0 when none is live (spec 000's SDK)
 *   search(q, k)           = the k live entries of highest cos(q, v), ties oldest first
 *   nearest(q, k)          = search(q, k) as {id, similarity} pairs (the top-k API of issue 3)
 *
 * Entries are stored unit-normalised on add, so a query costs one dot product per entry
 * (accumulated in doubles). When full, adding evicts the oldest entry. With a TTL, an entry added
 * at time t is live while now - t < ttlMs and is dropped at the first call that sees it expired.
 * Insertion times are made non-decreasing (max of the clock and the previous one), so a clock
 * stepping back can never strand an expired entry behind a live one: expired entries are always
 * the oldest, and expiry only ever pops from the head of the ring.
 *
 * Complexity: add O(d); maxCosineSimilarity O(n d); search and nearest O(n d + n k); size O(expired);
 * memory maxElements * dimensions * 4 bytes, allocated once (1000 x 384: 1.5 MB).
 *
 * A class rather than a pure function because spec 000 defines this API (`new VectorCache(...)`,
 * `add`, `maxCosineSimilarity`, `size`, `clear`) and the cache is state by nature. The clock is
 * injected (`now`), so tests drive the TTL without waiting.
 */
import { ToolgraphError } from '../schema/errors.js';
import { vectorCacheOptionsSchema, type VectorCacheOptions } from '../schema/factory-options.js';
import { parseWith } from '../schema/issues.js';

export type { VectorCacheOptions } from '../schema/factory-options.js';

/** One result of `nearest`. */
export interface VectorNeighbour {
  /** The id given to `add`, or null. */
  readonly id: string | null;
  /** Cosine between the query and the entry, in [-1, 1]. */
  readonly similarity: number;
}

/** One result of `search`. */
export interface VectorMatch {
  /** The id given to `add`, or null. */
  readonly id: string | null;
  readonly similarity: number;
  /** Insertion time (epoch ms, from the cache's clock). */
  readonly addedAt: number;
}

export const VECTOR_CACHE_DEFAULTS = { maxElements: 1000, dimensions: 384 } as const;

/** 2^27 floats = 512 MiB: a typo in maxElements must not take the process down. */
const MAX_FLOATS = 2 ** 27;

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', message);
}

export class VectorCache {
  readonly maxElements: number;
  readonly dimensions: number;
  /** null when entries never expire. */
  readonly ttlMs: number | null;
  readonly #now: () => number;
  readonly #data: Float32Array;
  readonly #addedAt: Float64Array;
  readonly #ids: (string | null)[];
  /** Scratch: the unit-length copy of the vector being added or queried. */
  readonly #query: Float64Array;
  /** Slot of the oldest entry. */
  #head = 0;
  #count = 0;
  #lastStamp = -Infinity;

  /**
   * Throws INVALID_INPUT for options it cannot use: not an object, an unknown key, a wrong type
   * (the schema, factory-options.ts, naming VectorCache and the option) or out of range.
   */
  constructor(input: VectorCacheOptions = {}) {
    // Each option's type and range is the schema's; what it cannot say is their product's bound.
    const options = parseWith(vectorCacheOptionsSchema, input, 'VectorCache');
    const maxElements = options.maxElements ?? VECTOR_CACHE_DEFAULTS.maxElements;
    const dimensions = options.dimensions ?? VECTOR_CACHE_DEFAULTS.dimensions;
    if (maxElements * dimensions > MAX_FLOATS) {
      throw invalid(`VectorCache: expected maxElements * dimensions <= ${MAX_FLOATS}, got ${maxElements * dimensions}`);
    }
    const ttl = options.ttlMs;
    this.maxElements = maxElements;
    this.dimensions = dimensions;
    this.ttlMs = ttl === undefined || ttl === Infinity ? null : ttl;
    this.#now = options.now ?? Date.now;
    this.#data = new Float32Array(maxElements * dimensions);
    this.#addedAt = new Float64Array(maxElements);
    this.#ids = new Array<string | null>(maxElements).fill(null);
    this.#query = new Float64Array(dimensions);
  }

  /** Live entries (expired ones are dropped first). */
  get size(): number {
    this.#expire();
    return this.#count;
  }

  /**
   * Adds a copy of `vector` (any length-`dimensions` array of finite numbers), evicting the
   * oldest entry when full. Throws INVALID_INPUT for a wrong length or a non-finite value.
   */
  add(vector: ArrayLike<number>, id?: string): void {
    this.#check(vector, 'add');
    if (id !== undefined && typeof id !== 'string') {
      throw invalid(`VectorCache.add: expected id to be a string, got ${typeof id}`);
    }
    this.#expire();
    const max = this.maxElements;
    let slot: number;
    if (this.#count === max) {
      slot = this.#head;
      this.#head = (this.#head + 1) % max;
    } else {
      slot = (this.#head + this.#count) % max;
      this.#count++;
    }
    const d = this.dimensions;
    normaliseInto(vector, this.#query);
    this.#data.set(this.#query, slot * d);
    this.#lastStamp = Math.max(this.#now(), this.#lastStamp);
    this.#addedAt[slot] = this.#lastStamp;
    this.#ids[slot] = id ?? null;
  }

  /** Highest cosine between `query` and a live entry; 0 when the cache holds none. */
  maxCosineSimilarity(query: ArrayLike<number>): number {
    this.#check(query, 'maxCosineSimilarity');
    this.#expire();
    if (this.#count === 0) return 0;
    const unit = normaliseInto(query, this.#query);
    let best = -Infinity;
    for (let i = 0; i < this.#count; i++) {
      const similarity = this.#dot(unit, (this.#head + i) % this.maxElements);
      if (similarity > best) best = similarity;
    }
    return best;
  }

  /**
   * The `k` live entries most similar to `query`, highest cosine first, ties oldest first; fewer
   * when fewer are live. Throws INVALID_INPUT unless k is a positive integer.
   */
  search(query: ArrayLike<number>, k: number): VectorMatch[] {
    this.#check(query, 'search');
    if (!Number.isSafeInteger(k) || k < 1) {
      throw invalid(`VectorCache.search: expected k to be a positive integer, got ${String(k)}`);
    }
    this.#expire();
    const unit = normaliseInto(query, this.#query);
    const size = Math.min(k, this.#count);
    // Sorted insertion into k slots: k is small next to n, and strict `>` keeps ties oldest first
    // because entries are visited oldest first.
    const slots = new Int32Array(size);
    const scores = new Float64Array(size);
    let filled = 0;
    for (let i = 0; i < this.#count; i++) {
      const slot = (this.#head + i) % this.maxElements;
      const score = this.#dot(unit, slot);
      if (filled === size && !(score > scores[size - 1]!)) continue;
      let j = filled < size ? filled++ : size - 1;
      while (j > 0 && score > scores[j - 1]!) {
        scores[j] = scores[j - 1]!;
        slots[j] = slots[j - 1]!;
        j--;
      }
      scores[j] = score;
      slots[j] = slot;
    }
    const out: VectorMatch[] = [];
    for (let j = 0; j < filled; j++) {
      const slot = slots[j]!;
      out.push({ id: this.#ids[slot] ?? null, similarity: scores[j]!, addedAt: this.#addedAt[slot]! });
    }
    return out;
  }

  /**
   * The `k` live entries nearest to `query` by cosine as `{id, similarity}`, best first, ties in
   * insertion order (oldest first), expired entries never returned; fewer when fewer are live.
   * `search` with the insertion time dropped. Throws INVALID_INPUT unless k is a positive integer.
   */
  nearest(query: ArrayLike<number>, k: number): VectorNeighbour[] {
    this.#check(query, 'nearest');
    if (!Number.isSafeInteger(k) || k < 1) {
      throw invalid(`VectorCache.nearest: expected k to be a positive integer, got ${String(k)}`);
    }
    return this.search(query, k).map((match) => ({ id: match.id, similarity: match.similarity }));
  }

  /** Removes every entry. The storage stays allocated. */
  clear(): void {
    this.#ids.fill(null);
    this.#head = 0;
    this.#count = 0;
  }

  #dot(unit: Float64Array, slot: number): number {
    const d = this.dimensions;
    const data = this.#data;
    const base = slot * d;
    let sum = 0;
    for (let i = 0; i < d; i++) sum += unit[i]! * data[base + i]!;
    return sum;
  }

  #expire(): void {
    if (this.ttlMs === null || this.#count === 0) return;
    const now = this.#now();
    while (this.#count > 0 && now - this.#addedAt[this.#head]! >= this.ttlMs) {
      this.#ids[this.#head] = null;
      this.#head = (this.#head + 1) % this.maxElements;
      this.#count--;
    }
  }

  #check(vector: ArrayLike<number>, method: string): void {
    if (vector === null || typeof vector !== 'object' || typeof vector.length !== 'number') {
      throw invalid(`VectorCache.${method}: expected an array of ${this.dimensions} numbers`);
    }
    if (vector.length !== this.dimensions) {
      throw invalid(`VectorCache.${method}: expected ${this.dimensions} dimensions, got ${vector.length}`);
    }
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i])) {
        throw invalid(`VectorCache.${method}: expected finite numbers, got ${String(vector[i])} at index ${i}`);
      }
    }
  }
}

/**
 * Writes v / |v| into `out` (all zeros for the zero vector, so its cosine with anything is 0) and
 * returns `out`. Scaled by the largest |v_i| first, so finite values near the double range
 * neither overflow nor underflow the sum of squares.
 */
function normaliseInto(v: ArrayLike<number>, out: Float64Array): Float64Array {
  const d = out.length;
  let largest = 0;
  for (let i = 0; i < d; i++) largest = Math.max(largest, Math.abs(v[i]!));
  if (largest === 0) return out.fill(0);
  let sum = 0;
  for (let i = 0; i < d; i++) {
    const x = v[i]! / largest;
    out[i] = x;
    sum += x * x;
  }
  const inverse = 1 / Math.sqrt(sum);
  for (let i = 0; i < d; i++) out[i]! *= inverse;
  return out;
}
