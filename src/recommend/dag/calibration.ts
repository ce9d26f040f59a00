/**
 * Platt scaling (Platt 1999; Niculescu-Mizil & Caruana 2005) of a workflow step's confidence:
 *
 *   calibrated(p) = sigmoid(a * logit(p) + b)
 *
 * fitted by maximum likelihood on held-out suggestions, each step labelled by whether the
 * recorded workflow holds its tool. A step's raw confidence is a search probability times the
 * workflow length, or a clause's share (suggest-dag.ts): it orders steps well but is no
 * probability (on validation, 32% of UltraTool's steps under 0.1 were right). Two parameters,
 * monotone: it changes no step, edge or ranking, only what the confidence and the status say.
 *
 * The targets are Platt's, (positives + 1) / (positives + 2) and 1 / (negatives + 2), instead of
 * 1 and 0: with them a separable sample still has a finite fit. Pure; O(steps) per iteration.
 */

export interface PlattScaling {
  readonly a: number;
  readonly b: number;
}

/** Fewer held-out steps than this say too little to move the confidences: none is fitted. */
export const MIN_CALIBRATION_STEPS = 30;

/** Confidences are clipped to [EPS, 1 - EPS] before the logit: a 0 or 1 would be infinite. */
const EPS = 1e-6;

function logit(p: number): number {
  const q = Math.min(1 - EPS, Math.max(EPS, p));
  return Math.log(q / (1 - q));
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

export function calibrate(p: number, s: PlattScaling): number {
  return sigmoid(s.a * logit(p) + s.b);
}

/** Cross-entropy of targets `t` against sigmoid(a z + b), summed. */
function loss(z: Float64Array, t: Float64Array, a: number, b: number): number {
  let sum = 0;
  for (let i = 0; i < z.length; i++) {
    const u = a * z[i]! + b;
    // log(1 + e^u) - t u, stably: the softplus of u.
    const softplus = u > 0 ? u + Math.log1p(Math.exp(-u)) : Math.log1p(Math.exp(u));
    sum += softplus - t[i]! * u;
  }
  return sum;
}

/**
 * The scaling that best predicts `correct` from `confidence` (parallel arrays), or null with fewer
 * than MIN_CALIBRATION_STEPS steps. Newton's method on (a, b) with step halving; the loss is
 * convex, so it converges from the identity (a = 1, b = 0).
 */
export function fitPlatt(confidence: ArrayLike<number>, correct: ArrayLike<boolean>): PlattScaling | null {
  const n = confidence.length;
  if (n < MIN_CALIBRATION_STEPS || correct.length !== n) return null;
  let positives = 0;
  for (let i = 0; i < n; i++) if (correct[i]) positives++;
  const hi = (positives + 1) / (positives + 2);
  const lo = 1 / (n - positives + 2);
  const z = new Float64Array(n);
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    z[i] = logit(confidence[i]!);
    t[i] = correct[i] ? hi : lo;
  }
  let a = 1;
  let b = 0;
  let current = loss(z, t, a, b);
  for (let iteration = 0; iteration < 100; iteration++) {
    let ga = 0, gb = 0, haa = 0, hab = 0, hbb = 0;
    for (let i = 0; i < n; i++) {
      const p = sigmoid(a * z[i]! + b);
      const r = p - t[i]!;
      const w = Math.max(p * (1 - p), 1e-12);
      ga += r * z[i]!;
      gb += r;
      haa += w * z[i]! * z[i]!;
      hab += w * z[i]!;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let step = 1;
    let next = loss(z, t, a - da, b - db);
    while (next > current && step > 1e-8) {
      step /= 2;
      next = loss(z, t, a - step * da, b - step * db);
    }
    if (next > current) break;
    a -= step * da;
    b -= step * db;
    const gain = current - next;
    current = next;
    if (gain < 1e-10 * Math.max(1, current)) break;
  }
  return Number.isFinite(a) && Number.isFinite(b) ? { a, b } : null;
}
