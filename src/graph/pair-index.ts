/**
 * A hash index from pairs of non-negative int32 (two tool indices, or a context id and a tool)
 * to int32 positions: open addressing with linear probing over three typed arrays.
 *
 * Why not a `Map`: a learned graph holds millions of pairs, and a `Map` spends a heap entry per
 * pair, about 80 bytes, where this spends 16 to 32; restoring a stored graph inserts
 * every pair again, which in a `Map` was most of a cold start's restore. No maintained npm
 * package offers an integer-pair hash over typed arrays (mnemonist's maps are keyed by one
 * value and store keys in plain arrays), so it is written here.
 *
 * Keys are never removed: transitions are only ever learned. The table doubles when three
 * quarters full: linear probing then averages about 2.5 probes for a pair present and 8.5 for
 * one absent, all in adjacent slots, and a million pairs fit 2^21 slots (24 MB). O(1) expected
 * per operation.
 *
 * An index can start from pairs already sorted (PairIndex.sorted: a graph restored from a
 * snapshot, whose transitions are stored in CSR order), each at its position. Those are found by
 * a binary search in their first element's row instead of being hashed: a cold start restoring a
 * million transitions spent 100-250 ms inserting them into the table, and 24 MB holding it;
 * the sorted pairs take one pass and 4 bytes per pair. Pairs added later go to the table.
 */

const EMPTY = -1;

/** Entries per slot at which the table doubles. */
const MAX_LOAD = 0.75;

/** A PairIndex as plain data (PairIndex.parts, PairIndex.fromParts). */
export interface PairIndexParts {
  readonly first: Int32Array;
  readonly second: Int32Array;
  readonly values: Int32Array;
  readonly count: number;
  readonly baseStart: Int32Array | null;
  readonly baseSecond: Int32Array | null;
  readonly baseCount: number;
}

export class PairIndex {
  private first: Int32Array;
  private second: Int32Array;
  private values: Int32Array;
  private mask: number;
  private count = 0;
  /** Sorted pairs at positions 0..baseCount-1: baseSecond[baseStart[a] .. baseStart[a+1]) are a's, ascending. */
  private baseStart: Int32Array | null = null;
  private baseSecond: Int32Array | null = null;
  private baseCount = 0;

  constructor(expected = 0) {
    let capacity = 16;
    // Room for a quarter more than expected before the first doubling.
    while (capacity * MAX_LOAD < expected + (expected >> 2)) capacity *= 2;
    this.first = new Int32Array(capacity).fill(EMPTY);
    this.second = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /**
   * An index holding pair i = (first[i], second[i]) at position i, when the pairs are strictly
   * increasing (by first, then second; so no pair repeats) and every first element is in
   * [0, span); null otherwise. O(span + pairs); the pairs are copied.
   */
  static sorted(first: Int32Array, second: Int32Array, span: number): PairIndex | null {
    const m = first.length;
    if (second.length !== m) return null;
    const start = new Int32Array(span + 1);
    let pa = -1;
    let pb = 0;
    for (let i = 0; i < m; i++) {
      const a = first[i]!;
      const b = second[i]!;
      if (!(a >= 0 && a < span) || a < pa || (a === pa && b <= pb)) return null;
      start[a + 1]!++;
      pa = a;
      pb = b;
    }
    for (let a = 0; a < span; a++) start[a + 1]! += start[a]!;
    const index = new PairIndex();
    index.baseStart = start;
    index.baseSecond = second.slice();
    index.baseCount = m;
    return index;
  }

  get size(): number {
    return this.baseCount + this.count;
  }

  /** The index's arrays and counters, as plain data another thread can receive (snapshot-transfer.ts). */
  parts(): PairIndexParts {
    return {
      first: this.first,
      second: this.second,
      values: this.values,
      count: this.count,
      baseStart: this.baseStart,
      baseSecond: this.baseSecond,
      baseCount: this.baseCount,
    };
  }

  /** The index `parts` came from (its arrays taken over, not copied), after a check of their shape. */
  static fromParts(parts: PairIndexParts): PairIndex {
    const { first, second, values, count, baseStart, baseSecond, baseCount } = parts;
    const capacity = first.length;
    if (
      capacity < 16 ||
      (capacity & (capacity - 1)) !== 0 ||
      second.length !== capacity ||
      values.length !== capacity ||
      !(count >= 0 && count <= capacity * MAX_LOAD) ||
      (baseStart === null) !== (baseSecond === null) ||
      baseCount !== (baseSecond?.length ?? 0)
    ) {
      throw new RangeError('PairIndex.fromParts: inconsistent parts');
    }
    const index = new PairIndex();
    index.first = first;
    index.second = second;
    index.values = values;
    index.mask = capacity - 1;
    index.count = count;
    index.baseStart = baseStart;
    index.baseSecond = baseSecond;
    index.baseCount = baseCount;
    return index;
  }

  /** The position stored for (a, b), or -1. */
  get(a: number, b: number): number {
    if (this.baseStart !== null) {
      const p = this.inBase(a, b);
      if (p >= 0) return p;
    }
    const first = this.first;
    const mask = this.mask;
    for (let slot = hash(a, b) & mask; ; slot = (slot + 1) & mask) {
      const k = first[slot]!;
      if (k === EMPTY) return -1;
      if (k === a && this.second[slot] === b) return this.values[slot]!;
    }
  }

  /**
   * The position stored for (a, b); when there is none, stores `value` and returns -1 - value
   * (negative: the caller learns in one probe whether it just added the pair).
   */
  getOrAdd(a: number, b: number, value: number): number {
    if (this.baseStart !== null) {
      const p = this.inBase(a, b);
      if (p >= 0) return p;
    }
    if (this.count + 1 > this.first.length * MAX_LOAD) this.grow();
    const first = this.first;
    const mask = this.mask;
    for (let slot = hash(a, b) & mask; ; slot = (slot + 1) & mask) {
      const k = first[slot]!;
      if (k === EMPTY) {
        first[slot] = a;
        this.second[slot] = b;
        this.values[slot] = value;
        this.count++;
        return -1 - value;
      }
      if (k === a && this.second[slot] === b) return this.values[slot]!;
    }
  }

  /** The position of (a, b) among the sorted pairs, or -1: a binary search in a's row. */
  private inBase(a: number, b: number): number {
    const start = this.baseStart!;
    if (!(a >= 0 && a < start.length - 1)) return -1;
    const second = this.baseSecond!;
    let lo = start[a]!;
    let hi = start[a + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const x = second[mid]!;
      if (x === b) return mid;
      if (x < b) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private grow(): void {
    const { first, second, values } = this;
    const capacity = first.length * 2;
    this.first = new Int32Array(capacity).fill(EMPTY);
    this.second = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let old = 0; old < first.length; old++) {
      const a = first[old]!;
      if (a === EMPTY) continue;
      let slot = hash(a, second[old]!) & this.mask;
      while (this.first[slot] !== EMPTY) slot = (slot + 1) & this.mask;
      this.first[slot] = a;
      this.second[slot] = second[old]!;
      this.values[slot] = values[old]!;
    }
  }
}

/** Mixes two int32 into one well-spread int32 (multiply-xorshift, as in MurmurHash3's finaliser). */
function hash(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
