/**
 * Listwise learning to rank: fits w of the log-linear ranker by minimising the softmax
 * cross-entropy of the true tool over all tools, plus an L2 penalty,
 *
 *   L(w) = mean_q [ -s_q(target) + ln sum_c exp s_q(c) ] + lambda * |w|^2,  s_q(c) = w . phi_q(c)
 *
 * with Adam on full batches. Each query stores only its touched candidates' transformed
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
  readonly iterations?: number;
  readonly learningRate?: number;
  readonly l2?: number;
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
  const iterations = options.iterations ?? 200;
  const lr = options.learningRate ?? 0.05;
  const l2 = options.l2 ?? 1e-3;
  const w = Float64Array.from(initial);
  const grad = new Float64Array(dims);
  const m = new Float64Array(dims);
  const v = new Float64Array(dims);
  const expected = new Float64Array(dims);
  const groupMax = new Float64Array(groups.length);
  const groupSum = new Float64Array(groups.length);
  const groupFeat = groups.map(() => new Float64Array(dims));
  const bgScores = groups.map((g) => new Float64Array(g.n));
  let maxRows = 0;
  for (const q of queries) maxRows = Math.max(maxRows, q.tools.length);
  const rowScore = new Float64Array(maxRows);

  const evaluate = (withGradient: boolean): number => {
    grad.fill(0);
    for (let g = 0; g < groups.length; g++) {
      const { background, n } = groups[g]!;
      const scores = bgScores[g]!;
      let max = -Infinity;
      for (let c = 0; c < n; c++) {
        let s = 0;
        for (let f = 0; f < dims; f++) s += w[f]! * background[c * dims + f]!;
        scores[c] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      const feat = groupFeat[g]!;
      feat.fill(0);
      for (let c = 0; c < n; c++) {
        const e = Math.exp(scores[c]! - max);
        sum += e;
        if (withGradient) for (let f = 0; f < dims; f++) feat[f]! += e * background[c * dims + f]!;
      }
      groupMax[g] = max;
      groupSum[g] = sum;
    }
    let loss = 0;
    for (const q of queries) {
      const { rows, tools } = q;
      const count = tools.length;
      const bgMax = groupMax[q.group]!;
      const scores = bgScores[q.group]!;
      const background = groups[q.group]!.background;
      let max = bgMax;
      for (let r = 0; r < count; r++) {
        let s = 0;
        for (let f = 0; f < dims; f++) s += w[f]! * rows[r * dims + f]!;
        rowScore[r] = s;
        if (s > max) max = s;
      }
      // Untouched mass: the group's total minus the touched tools' background terms.
      const shift = Math.exp(bgMax - max);
      let rest = groupSum[q.group]! * shift;
      for (let r = 0; r < count; r++) rest -= Math.exp(scores[tools[r]!]! - max);
      if (rest < 0) rest = 0;
      let z = rest;
      for (let r = 0; r < count; r++) z += Math.exp(rowScore[r]! - max);
      loss += max + Math.log(z) - rowScore[q.target]!;
      if (!withGradient) continue;
      const feat = groupFeat[q.group]!;
      for (let f = 0; f < dims; f++) expected[f] = feat[f]! * shift;
      for (let r = 0; r < count; r++) {
        const eb = Math.exp(scores[tools[r]!]! - max);
        const er = Math.exp(rowScore[r]! - max);
        const t = tools[r]!;
        for (let f = 0; f < dims; f++) expected[f]! += er * rows[r * dims + f]! - eb * background[t * dims + f]!;
      }
      const inv = 1 / z;
      for (let f = 0; f < dims; f++) grad[f]! += expected[f]! * inv - rows[q.target * dims + f]!;
    }
    const scale = queries.length > 0 ? 1 / queries.length : 0;
    let penalty = 0;
    for (let f = 0; f < dims; f++) {
      grad[f] = grad[f]! * scale + 2 * l2 * w[f]!;
      penalty += l2 * w[f]! * w[f]!;
    }
    return loss * scale + penalty;
  };

  const initialLoss = evaluate(false);
  const beta1 = 0.9;
  const beta2 = 0.999;
  for (let t = 1; t <= iterations; t++) {
    evaluate(true);
    for (let f = 0; f < dims; f++) {
      m[f] = beta1 * m[f]! + (1 - beta1) * grad[f]!;
      v[f] = beta2 * v[f]! + (1 - beta2) * grad[f]! * grad[f]!;
      const mHat = m[f]! / (1 - beta1 ** t);
      const vHat = v[f]! / (1 - beta2 ** t);
      w[f]! -= (lr * mHat) / (Math.sqrt(vHat) + 1e-8);
    }
  }
  return { weights: Array.from(w), loss: evaluate(false), initialLoss, iterations };
}
