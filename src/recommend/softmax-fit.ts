/**
 * Listwise learning to rank: fits w of the log-linear ranker by minimising the softmax
 * cross-entropy of the true tool over all tools, plus an L2 penalty,
 *
 *   L(w) = mean_q [ -s_q(target) + ln sum_c exp s_q(c) ] + lambda * |w|^2,  s_q(c) = w . phi_q(c)
 *
 * by Newton's method with a backtracking line search: the loss is convex in w, there are only a
 * handful of signals, and the exact Hessian (the softmax covariance of the features) costs
 * O(rows * dims^2) per pass, so it converges in a few passes where first-order methods need
 * hundreds. Each query stores only its touched candidates' transformed
 * features; the untouched tools of a group share static features, so their share of the
 * normaliser and of the gradient is a per-group sum minus the touched tools' background terms:
 * exact, and O(touched) per query. Reference: Cao et al., "Learning to Rank: From Pairwise
 * Approach to Listwise Approach" (ListNet, ICML 2007), top-one probability form.
 */

/** Candidates that share one set of untouched tools (one fold's model). */
export interface FitGroup {
  /** Transformed background features of every tool, row-major n x F. */
  readonly background: Float64Array;
  readonly n: number;
}

export interface FitQuery {
  readonly group: number;
  /** Transformed features of the touched rows, row-major rows x F. */
  readonly rows: Float64Array;
  /** Tool index of each row (to remove its background term). */
  readonly tools: Int32Array;
  /** Row index of the true tool. */
  readonly target: number;
}

export interface SoftmaxFitOptions {
  /** Newton iterations at most (default 30). */
  readonly iterations?: number;
  /** L2 penalty (default 1e-3). */
  readonly l2?: number;
  /** Stop when the largest gradient entry falls below this (default 1e-7). */
  readonly tolerance?: number;
  /** Which weights move (default all); the others stay at `initial`. */
  readonly free?: readonly boolean[];
}

export interface SoftmaxFitResult {
  readonly weights: number[];
  readonly loss: number;
  readonly initialLoss: number;
  readonly iterations: number;
}

export function fitSoftmax(
  dims: number,
  groups: readonly FitGroup[],
  queries: readonly FitQuery[],
  initial: readonly number[],
  options: SoftmaxFitOptions = {},
): SoftmaxFitResult {
  const maxIterations = options.iterations ?? 30;
  const l2 = options.l2 ?? 1e-3;
  const tolerance = options.tolerance ?? 1e-7;
  const free = options.free;
  const d2 = dims * dims;
  let w = Float64Array.from(initial);
  const grad = new Float64Array(dims);
  const hess = new Float64Array(d2);
  const mean = new Float64Array(dims);
  const groupMax = new Float64Array(groups.length);
  const groupSum = new Float64Array(groups.length);
  const groupFeat = groups.map(() => new Float64Array(dims));
  const groupOuter = groups.map(() => new Float64Array(d2));
  const bgScores = groups.map((g) => new Float64Array(g.n));
  const sets = rowSets(queries);
  let maxRows = 0;
  for (const q of sets) maxRows = Math.max(maxRows, q.tools.length);
  const rowScore = new Float64Array(maxRows);
  // Each touched row's exp(score - max), as its own row and as the background it replaces:
  // the normaliser computes them, the gradient and the Hessian read them again.
  const rowExp = new Float64Array(maxRows);
  const bgExp = new Float64Array(maxRows);
  // The rows' loops run over the features some row or background holds: a search without
  // context never fills the transition signals, and each skipped product was an exact zero
  // added, so the sums, and the weights, are the same to the bit (Seal-Tools' search: 9 of 15).
  const active = activeFeatures(dims, groups, queries);
  const na = active.length;
  const packed = new Float64Array(na * na);
  const gathered = new Float64Array(na);
  const gatheredBg = new Float64Array(na);

  /** Loss at `weights`; with `order` 1 also the gradient, with 2 also the Hessian. */
  const evaluate = (weights: Float64Array, order: 0 | 1 | 2): number => {
    grad.fill(0);
    hess.fill(0);
    for (let g = 0; g < groups.length; g++) {
      const { background, n } = groups[g]!;
      const scores = bgScores[g]!;
      let max = -Infinity;
      for (let c = 0; c < n; c++) {
        let s = 0;
        for (let a = 0; a < na; a++) s += weights[active[a]!]! * background[c * dims + active[a]!]!;
        scores[c] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      const feat = groupFeat[g]!;
      const outer = groupOuter[g]!;
      feat.fill(0);
      outer.fill(0);
      for (let c = 0; c < n; c++) {
        const e = Math.exp(scores[c]! - max);
        sum += e;
        if (order === 0) continue;
        const base = c * dims;
        for (let a = 0; a < na; a++) {
          const f = active[a]!;
          const x = e * background[base + f]!;
          feat[f]! += x;
          if (order === 2) {
            const at = f * dims;
            for (let b = 0; b <= a; b++) outer[at + active[b]!]! += x * background[base + active[b]!]!;
          }
        }
      }
      groupMax[g] = max;
      groupSum[g] = sum;
    }
    let loss = 0;
    for (const q of sets) {
      const { rows, tools, targets } = q;
      const m = targets.length;
      const count = tools.length;
      const bgMax = groupMax[q.group]!;
      const scores = bgScores[q.group]!;
      const background = groups[q.group]!.background;
      let max = bgMax;
      for (let r = 0; r < count; r++) {
        let s = 0;
        for (let a = 0; a < na; a++) s += weights[active[a]!]! * rows[r * dims + active[a]!]!;
        rowScore[r] = s;
        if (s > max) max = s;
      }
      // Untouched mass: the group's total minus the touched tools' background terms.
      const shift = Math.exp(bgMax - max);
      let rest = groupSum[q.group]! * shift;
      for (let r = 0; r < count; r++) {
        bgExp[r] = Math.exp(scores[tools[r]!]! - max);
        rest -= bgExp[r]!;
      }
      if (rest < 0) rest = 0;
      let z = rest;
      for (let r = 0; r < count; r++) {
        rowExp[r] = Math.exp(rowScore[r]! - max);
        z += rowExp[r]!;
      }
      loss += m * (max + Math.log(z));
      for (const t of targets) loss -= rowScore[t]!;
      if (order === 0) continue;

      // E[phi] and E[phi phi^T] under the query's softmax, with the same subtraction trick.
      const feat = groupFeat[q.group]!;
      const outer = groupOuter[q.group]!;
      for (let f = 0; f < dims; f++) mean[f] = feat[f]! * shift;
      // The second moment over the active features only, packed (na x na, lower triangle), and
      // each row's active features gathered first: the inner loop then reads three short
      // contiguous arrays. The same products are summed in the same order as over all features.
      if (order === 2) {
        for (let a = 0; a < na; a++) for (let b = 0; b <= a; b++) packed[a * na + b] = outer[active[a]! * dims + active[b]!]! * shift;
      }
      for (let r = 0; r < count; r++) {
        const eb = bgExp[r]!;
        const er = rowExp[r]!;
        const rb = r * dims;
        const tb = tools[r]! * dims;
        for (let a = 0; a < na; a++) {
          gathered[a] = rows[rb + active[a]!]!;
          gatheredBg[a] = background[tb + active[a]!]!;
        }
        for (let a = 0; a < na; a++) {
          // (er * x) * y is what er * x * y computes: the products are hoisted, not changed.
          const wr = er * gathered[a]!;
          const wb = eb * gatheredBg[a]!;
          mean[active[a]!]! += wr - wb;
          if (order === 2) {
            const at = a * na;
            for (let b = 0; b <= a; b++) packed[at + b]! += wr * gathered[b]! - wb * gatheredBg[b]!;
          }
        }
      }
      const inv = 1 / z;
      for (let f = 0; f < dims; f++) {
        mean[f] = mean[f]! * inv;
        grad[f]! += m * mean[f]!;
        for (const t of targets) grad[f]! -= rows[t * dims + f]!;
      }
      // An inactive feature's entries would add 0 * inv - 0 * 0: nothing. The softmax's
      // covariance is the same for every target of the set: counted m times.
      if (order === 2) {
        for (let a = 0; a < na; a++) {
          const f = active[a]!;
          for (let b = 0; b <= a; b++) hess[f * dims + active[b]!]! += m * (packed[a * na + b]! * inv - mean[f]! * mean[active[b]!]!);
        }
      }
    }
    const scale = queries.length > 0 ? 1 / queries.length : 0;
    let penalty = 0;
    for (let f = 0; f < dims; f++) {
      grad[f] = grad[f]! * scale + 2 * l2 * weights[f]!;
      penalty += l2 * weights[f]! * weights[f]!;
      for (let h = 0; h <= f; h++) {
        const v = hess[f * dims + h]! * scale + (f === h ? 2 * l2 : 0);
        hess[f * dims + h] = v;
        hess[h * dims + f] = v;
      }
    }
    return loss * scale + penalty;
  };

  const initialLoss = evaluate(w, 0);
  let loss = initialLoss;
  let iterations = 0;
  const step = new Float64Array(dims);
  const trial = new Float64Array(dims);
  for (; iterations < maxIterations; iterations++) {
    loss = evaluate(w, 2);
    if (free !== undefined) freeze(free, grad, hess, dims);
    let gmax = 0;
    for (let f = 0; f < dims; f++) gmax = Math.max(gmax, Math.abs(grad[f]!));
    if (gmax < tolerance) break;
    solveSpd(hess, grad, dims, step);
    let slope = 0;
    for (let f = 0; f < dims; f++) slope += grad[f]! * step[f]!;
    // Backtracking (Armijo): halve the Newton step until the loss decreases enough.
    let t = 1;
    let accepted = false;
    for (let tries = 0; tries < 30; tries++, t /= 2) {
      for (let f = 0; f < dims; f++) trial[f] = w[f]! - t * step[f]!;
      const trialLoss = evaluate(trial, 0);
      if (trialLoss <= loss - 1e-4 * t * slope) {
        w = Float64Array.from(trial);
        loss = trialLoss;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
  }
  // `loss` is the loss at w: every accepted step set both, and the loss part of an evaluation is
  // the same sums whatever its order. (Evaluated again, it cost fitScale half its time.)
  return { weights: Array.from(w), loss, initialLoss, iterations };
}

/** Queries that share one feature collection (the same `rows`): one softmax, several targets. */
interface RowSet {
  readonly group: number;
  readonly rows: Float64Array;
  readonly tools: Int32Array;
  readonly targets: number[];
}

/**
 * The queries grouped by their rows: a search for a workflow's intent is one query per gold tool
 * (fit-weights.ts), all over one collection, whose normaliser, expected features and covariance
 * are the same for each. Computed once per set and counted once per target, they cost a set what
 * one query costs: the same loss, gradient and Hessian, summed in another order.
 */
function rowSets(queries: readonly FitQuery[]): RowSet[] {
  const byRows = new Map<Float64Array, RowSet>();
  const out: RowSet[] = [];
  for (const q of queries) {
    let set = byRows.get(q.rows);
    if (set === undefined || set.group !== q.group) {
      set = { group: q.group, rows: q.rows, tools: q.tools, targets: [] };
      byRows.set(q.rows, set);
      out.push(set);
    }
    set.targets.push(q.target);
  }
  return out;
}

/**
 * The features any group's background or any query's row holds a non-zero value of, ascending.
 * The scan stops once every feature is seen: fitScale's one-signal problems, fitted dozens of
 * times over millions of rows, are settled by their first non-zero value.
 */
function activeFeatures(dims: number, groups: readonly FitGroup[], queries: readonly FitQuery[]): Int32Array {
  const seen = new Uint8Array(dims);
  let unseen = dims;
  const mark = (values: Float64Array): void => {
    for (let i = 0; i < values.length && unseen > 0; i++) {
      if (values[i] !== 0 && seen[i % dims] === 0) {
        seen[i % dims] = 1;
        unseen--;
      }
    }
  };
  for (const g of groups) mark(g.background);
  for (const q of queries) mark(q.rows);
  const out: number[] = [];
  for (let f = 0; f < dims; f++) if (seen[f] === 1) out.push(f);
  return Int32Array.from(out);
}

/**
 * Temperature scaling (Guo, Pleiss, Sun & Weinberger, "On Calibration of Modern Neural
 * Networks", ICML 2017): the factor s > 0 whose ranker s w has the least held-out
 * cross-entropy. A positive factor changes no ranking by the weights alone, only how sure the
 * ranker says it is, and so how much what multiplies a probability (a tool's reliability)
 * weighs against it. The rules the fits fall back on (fit-weights.ts) weigh their signals 1e3
 * and 1e6 apart so as to act lexicographically, which as probabilities says "certain" of nearly
 * every first tool. One factor suits a rule with one ranking tier (the lexical rule, whose
 * second tier only breaks ties).
 *
 * The loss along the ray is convex in s, so unimodal in ln s: a golden-section search over
 * ln s, SCALE_NATS either side of the s that makes the largest score one nat in size, each step
 * fitSoftmax's own loss of the one-signal ranker (the rule's score) at that factor. Newton's
 * method in one dimension kept halving its steps where the rule separates most queries by a
 * wide margin, and took minutes on Seal-Tools.
 * Returns 1 when there is nothing to fit.
 */
export function fitScale(dims: number, groups: readonly FitGroup[], queries: readonly FitQuery[], weights: readonly number[]): number {
  if (queries.length === 0) return 1;
  const project = (features: Float64Array, rows: number): Float64Array => {
    const out = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let f = 0; f < dims; f++) s += weights[f]! * features[r * dims + f]!;
      out[r] = s;
    }
    return out;
  };
  const scored = groups.map((g) => ({ background: project(g.background, g.n), n: g.n }));
  // Projected once per collection, so that queries sharing rows still share them (rowSets).
  const projections = new Map<Float64Array, Float64Array>();
  const projected = queries.map((q) => {
    let rows = projections.get(q.rows);
    if (rows === undefined) projections.set(q.rows, (rows = project(q.rows, q.tools.length)));
    return { group: q.group, rows, tools: q.tools, target: q.target };
  });
  let spread = 0;
  for (const g of scored) for (let c = 0; c < g.n; c++) spread = Math.max(spread, Math.abs(g.background[c]!));
  for (const q of projected) for (let r = 0; r < q.rows.length; r++) spread = Math.max(spread, Math.abs(q.rows[r]!));
  if (spread === 0) return 1;
  // The rule's score is the one signal; fitSoftmax without steps evaluates its loss.
  const loss = (scale: number): number => fitSoftmax(1, scored, projected, [scale], { iterations: 0, l2: 0 }).loss;
  // Golden section over ln s.
  const ratio = (Math.sqrt(5) - 1) / 2;
  let lo = -Math.log(spread) - SCALE_NATS;
  let hi = -Math.log(spread) + SCALE_NATS;
  let a = hi - ratio * (hi - lo);
  let b = lo + ratio * (hi - lo);
  let la = loss(Math.exp(a));
  let lb = loss(Math.exp(b));
  for (let i = 0; i < SCALE_STEPS; i++) {
    if (la <= lb) {
      hi = b;
      b = a;
      lb = la;
      a = hi - ratio * (hi - lo);
      la = loss(Math.exp(a));
    } else {
      lo = a;
      a = b;
      la = lb;
      b = lo + ratio * (hi - lo);
      lb = loss(Math.exp(b));
    }
  }
  return Math.exp((lo + hi) / 2);
}

/** How far, in ln s, fitScale looks either side of its start; and its golden-section steps (the bracket shrinks to 24 x 0.618^40, about 1e-7). */
const SCALE_NATS = 12;
const SCALE_STEPS = 40;

/**
 * Restricts a Newton step to the free weights: a frozen weight's gradient is 0 and its Hessian
 * row and column are those of the identity, so its step is 0 and the others solve their block.
 */
function freeze(free: readonly boolean[], grad: Float64Array, hess: Float64Array, dims: number): void {
  for (let f = 0; f < dims; f++) {
    if (free[f]) continue;
    grad[f] = 0;
    for (let h = 0; h < dims; h++) {
      hess[f * dims + h] = 0;
      hess[h * dims + f] = 0;
    }
    hess[f * dims + f] = 1;
  }
}

/**
 * Solves H x = g for a symmetric positive (semi-)definite H by Cholesky, adding a growing ridge
 * when H is singular (a signal that is constant over every query has a zero row).
 */
function solveSpd(h: Float64Array, g: Float64Array, n: number, x: Float64Array): void {
  const l = new Float64Array(n * n);
  for (let ridge = 0; ; ridge = ridge === 0 ? 1e-9 : ridge * 10) {
    let ok = true;
    for (let i = 0; i < n && ok; i++) {
      for (let j = 0; j <= i; j++) {
        let sum = h[i * n + j]! + (i === j ? ridge : 0);
        for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!;
        if (i === j) {
          if (sum <= 1e-300) {
            ok = false;
            break;
          }
          l[i * n + i] = Math.sqrt(sum);
        } else {
          l[i * n + j] = sum / l[j * n + j]!;
        }
      }
    }
    if (ok) break;
    if (ridge > 1e6) {
      x.set(g);
      return;
    }
  }
  for (let i = 0; i < n; i++) {
    let sum = g[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * n + k]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
}

/**
 * Per query, 1 when the true tool ranks first over all tools under `weights` (ties count
 * against it), else 0. Untouched tools compete through the best background score of a tool the
 * query did not touch.
 */
export function topHits(dims: number, groups: readonly FitGroup[], queries: readonly FitQuery[], weights: readonly number[]): Uint8Array {
  const orders = groups.map(({ background, n }) => {
    const scores = new Float64Array(n);
    for (let c = 0; c < n; c++) {
      let s = 0;
      for (let f = 0; f < dims; f++) s += weights[f]! * background[c * dims + f]!;
      scores[c] = s;
    }
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
    return { scores, order };
  });
  const hits = new Uint8Array(queries.length);
  const touched = new Set<number>();
  queries.forEach((q, i) => {
    const { rows, tools } = q;
    let target = 0;
    let best = -Infinity;
    touched.clear();
    for (let r = 0; r < tools.length; r++) {
      touched.add(tools[r]!);
      let s = 0;
      for (let f = 0; f < dims; f++) s += weights[f]! * rows[r * dims + f]!;
      if (r === q.target) target = s;
      else best = Math.max(best, s);
    }
    const { scores, order } = orders[q.group]!;
    for (const c of order) {
      if (touched.has(c)) continue;
      best = Math.max(best, scores[c]!);
      break;
    }
    hits[i] = target > best ? 1 : 0;
  });
  return hits;
}
