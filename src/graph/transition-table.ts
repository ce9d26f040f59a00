/**
 * Outcome statistics of many transitions as growable typed columns, one row per transition in
 * the order they were first observed.
 *
 * Columns rather than an object per transition: a million transitions are seven Float64Arrays
 * that a snapshot reads directly and a cold start fills with one copy each, where objects cost
 * a heap allocation per transition to create, to restore and to walk.
 */
import { grown } from './typed-arrays.js';

/** Statistics of many transitions as columns, aligned by position. */
export interface TransitionColumns {
  readonly count: Float64Array;
  readonly success: Float64Array;
  readonly failure: Float64Array;
  readonly evidence: Float64Array;
  readonly lastSeen: Float64Array;
  readonly recentSuccess: Float64Array;
  readonly recentFailure: Float64Array;
}

/** Outcome statistics of one observed transition or second-order context. */
export interface TransitionStats {
  /** Times observed, whatever the outcome. */
  count: number;
  /** Observations in successful traces whose target step succeeded. */
  success: number;
  /** Observations in failed traces, or whose target step failed. */
  failure: number;
  /** Sum of the trace values of the successful observations. */
  evidence: number;
  /** Epoch ms of the latest observation. */
  lastSeen: number;
  /**
   * Success evidence (value-weighted) and failures, each observation decayed by
   * 2^(-(lastSeen - t) / halfLife) to the time `lastSeen`: exponentially weighted sums kept
   * incrementally, so reliability can weigh recent outcomes above old ones (edge-reliability.ts)
   * without storing every observation.
   */
  recentSuccess: number;
  recentFailure: number;
}

const COLUMN_NAMES = ['count', 'success', 'failure', 'evidence', 'lastSeen', 'recentSuccess', 'recentFailure'] as const;

/** Columns this table owns (and may grow). */
type OwnColumns = { [K in keyof TransitionColumns]: Float64Array<ArrayBuffer> };

function emptyColumns(m: number): OwnColumns {
  return {
    count: new Float64Array(m),
    success: new Float64Array(m),
    failure: new Float64Array(m),
    evidence: new Float64Array(m),
    lastSeen: new Float64Array(m),
    recentSuccess: new Float64Array(m),
    recentFailure: new Float64Array(m),
  };
}

/**
 * Runs of at least this many consecutive rows are copied a column at a time (a memcpy each)
 * rather than row by row.
 */
const RUN_COPY = 16;

/**
 * Rows perm[0], perm[1], ... of `c`, as new columns (`names`, default all). Where perm mostly
 * names consecutive rows, as it does for a graph restored from a snapshot (its rows already in
 * CSR order, new transitions merged in), each run is copied column by column: a memcpy per
 * column instead of a scattered read per row and column.
 */
export function gatherColumns<K extends keyof TransitionColumns = keyof TransitionColumns>(
  c: Pick<TransitionColumns, K>,
  perm: Int32Array,
  names: readonly K[] = COLUMN_NAMES as readonly (keyof TransitionColumns)[] as readonly K[],
): Pick<TransitionColumns, K> {
  const m = perm.length;
  const out = {} as { [P in K]: Float64Array };
  for (const name of names) out[name] = new Float64Array(m);
  const from = names.map((name) => c[name]);
  const to = names.map((name) => out[name]);
  let steps = 0;
  for (let j = 1; j < m; j++) if (perm[j] === perm[j - 1]! + 1) steps++;
  if (2 * steps < m) {
    // Mostly scattered (a graph's own order of first observation): one gathering pass per column.
    for (let k = 0; k < from.length; k++) {
      const source = from[k]!;
      const target = to[k]!;
      for (let j = 0; j < m; j++) target[j] = source[perm[j]!]!;
    }
    return out;
  }
  let j = 0;
  while (j < m) {
    const first = perm[j]!;
    let end = j + 1;
    while (end < m && perm[end] === first + (end - j)) end++;
    if (end - j >= RUN_COPY) {
      for (let k = 0; k < from.length; k++) to[k]!.set(from[k]!.subarray(first, first + (end - j)), j);
    } else {
      for (let k = 0; k < from.length; k++) {
        const source = from[k]!;
        const target = to[k]!;
        for (let i = j; i < end; i++) target[i] = source[perm[i]!]!;
      }
    }
    j = end;
  }
  return out;
}

/** A copy of `c`'s columns. */
export function copyColumns(c: TransitionColumns): TransitionColumns {
  return {
    count: c.count.slice(),
    success: c.success.slice(),
    failure: c.failure.slice(),
    evidence: c.evidence.slice(),
    lastSeen: c.lastSeen.slice(),
    recentSuccess: c.recentSuccess.slice(),
    recentFailure: c.recentFailure.slice(),
  };
}

export class TransitionTable {
  private cols: OwnColumns;
  private rows = 0;

  constructor(capacity = 64) {
    this.cols = emptyColumns(Math.max(1, capacity));
  }

  get size(): number {
    return this.rows;
  }

  /** Appends a row of zeros and returns its position. */
  add(): number {
    if (this.rows === this.cols.count.length) this.reserve(2 * this.rows);
    return this.rows++;
  }

  /**
   * Appends `source`'s first `m` rows (a restore), in order, leaving a quarter more room: a
   * restored graph goes on learning at once, and doubling a million rows at its first new
   * transition would cost as much as the copy.
   */
  append(source: TransitionColumns, m: number): void {
    this.reserve(this.rows + m + ((this.rows + m) >> 2));
    for (const name of COLUMN_NAMES) this.cols[name].set(source[name].subarray(0, m), this.rows);
    this.rows += m;
  }

  private reserve(capacity: number): void {
    if (capacity <= this.cols.count.length) return;
    const c = this.cols;
    this.cols = {
      count: grown(c.count, capacity),
      success: grown(c.success, capacity),
      failure: grown(c.failure, capacity),
      evidence: grown(c.evidence, capacity),
      lastSeen: grown(c.lastSeen, capacity),
      recentSuccess: grown(c.recentSuccess, capacity),
      recentFailure: grown(c.recentFailure, capacity),
    };
  }

  /** Views of the live columns over the rows so far: valid until the next row is added. */
  columns(): TransitionColumns {
    const c = this.cols;
    const m = this.rows;
    return {
      count: c.count.subarray(0, m),
      success: c.success.subarray(0, m),
      failure: c.failure.subarray(0, m),
      evidence: c.evidence.subarray(0, m),
      lastSeen: c.lastSeen.subarray(0, m),
      recentSuccess: c.recentSuccess.subarray(0, m),
      recentFailure: c.recentFailure.subarray(0, m),
    };
  }

  /** A copy of row `i`'s statistics. */
  stats(i: number): TransitionStats {
    const c = this.cols;
    return {
      count: c.count[i]!,
      success: c.success[i]!,
      failure: c.failure[i]!,
      evidence: c.evidence[i]!,
      lastSeen: c.lastSeen[i]!,
      recentSuccess: c.recentSuccess[i]!,
      recentFailure: c.recentFailure[i]!,
    };
  }

  /** One column's value at row `i` (for live views). */
  read(name: keyof TransitionColumns, i: number): number {
    return this.cols[name][i]!;
  }

  /**
   * Records one observation at time `at` in row `i`. `decayRate` is -ln 2 / halfLife, so
   * 2^(-dt / h) = exp(dt * decayRate).
   */
  observe(i: number, ok: boolean, value: number, at: number, decayRate: number): void {
    const c = this.cols;
    c.count[i]!++;
    // Bring the recent sums to the later of the two times, then add this observation decayed
    // to it: out-of-order traces are weighed by their own time, never by their arrival.
    let weight = 1;
    const last = c.lastSeen[i]!;
    if (at > last) {
      const decay = Math.exp((at - last) * decayRate);
      c.recentSuccess[i]! *= decay;
      c.recentFailure[i]! *= decay;
      c.lastSeen[i] = at;
    } else if (at < last) {
      weight = Math.exp((last - at) * decayRate);
    }
    if (ok) {
      c.success[i]!++;
      c.evidence[i]! += value;
      c.recentSuccess[i]! += value * weight;
    } else {
      c.failure[i]!++;
      c.recentFailure[i]! += weight;
    }
  }
}
