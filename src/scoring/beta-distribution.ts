/**
 * The Beta distribution's cumulative distribution function, for credible statements about a
 * success rate with a Beta(alpha, beta) posterior ("the failure rate is above 50% with
 * probability 0.95").
 *
 *   P(p <= x) = I_x(a, b) = B(x; a, b) / B(a, b)       (regularised incomplete beta function)
 *
 * evaluated by the continued fraction of Numerical Recipes (Press et al., 3rd ed., 2007, section
 * 6.4), modified Lentz's method, using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the
 * fraction converges fast (x < (a + 1) / (a + b + 2)). ln Gamma by Lanczos' approximation
 * (g = 7, 9 coefficients; Godfrey's coefficients), relative error below 1e-13 for a > 0.
 *
 * Parameters are real (decayed evidence makes pseudo-counts fractional). O(sqrt(max(a, b)))
 * iterations, at most 300.
 */

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Gamma(x) for x > 0. */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

const MAX_ITERATIONS = 300;
const EPS = 1e-15;
const TINY = 1e-300;

/** Continued fraction for I_x(a, b) (Numerical Recipes betacf). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** I_x(a, b) = P(p <= x) for p ~ Beta(a, b); a, b > 0, x in [0, 1]. */
export function betaCdf(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw new RangeError(`betaCdf: expected a, b > 0, got ${a}, ${b}`);
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}
