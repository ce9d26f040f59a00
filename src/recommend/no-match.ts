/**
 * Does anything fit this request, once a fit has seen held-out in-domain requests: three readings
 * of an answer, each against its own distribution over those requests, combined into one.
 *
 *   coverage    the best share of the request's information one of the first MATCH_TOOLS
 *               tools explains (query-coverage.ts)
 *   similarity  how much the request resembles the nearest recorded request (intentSimilarity)
 *   confidence  the ranker's probability for its first tool
 *
 * Each reading x becomes its lower-tail p-value among the held-out requests' readings,
 * p(x) = (#{s <= x} + 1/2) / (m + 1), and the evidence that the request fits is Fisher's sum
 * sum log p. A request fits when its evidence is at least the NO_MATCH_QUANTILE quantile of the
 * held-out requests' own evidence, so the rule turns away about that share of in-domain requests
 * and asks nothing of out-of-domain data. A floor per reading (the rule before) turns a request
 * away for one low reading however typical the others; the sum weighs how unusual it is on all
 * three together, and a foreign request is often a little low on each (docs/decisions/results/no-match.md).
 *
 * The confidence is the context-free search's probability, the one the fit calibrates: a search
 * with context ranks with the next-tool weights, and the seed profile's scores are its formula's,
 * so those read the two word statistics alone, against their own quantile (`wordsThreshold`).
 *
 * A request that a tool nobody has asked for covers (to the coverage's own NO_MATCH_QUANTILE
 * quantile) is expected to resemble no recorded request: its similarity counts as typical (p = 1),
 * so the catalogue's new tools stay findable.
 */

export interface NoMatchCalibration {
  /** Held-out in-domain requests' readings, each ascending, at most NO_MATCH_SAMPLE of each. */
  readonly coverage: readonly number[];
  readonly similarity: readonly number[];
  readonly confidence: readonly number[];
  /** Least evidence (sum of the three log p-values) of a request that fits. */
  readonly threshold: number;
  /** The same over the coverage and the similarity alone. */
  readonly wordsThreshold: number;
}

/** What an answer says about whether it fits (searchTools computes it for every search). */
export interface MatchEvidence {
  readonly coverage: number;
  readonly similarity: number;
  readonly confidence: number;
  /** The best coverage among the returned tools no recorded request called (0: none). */
  readonly unaskedCoverage: number;
}

/**
 * In-domain requests the rule may turn away: the threshold is this quantile of the held-out
 * requests' evidence. The rule before, a floor per reading, had the same budget (2% for the
 * coverage, 0.5% for the similarity); on the validation split, with the readings of the fit's
 * four folds, 2% gave a mean foreign no-match rate of 0.605, this 0.630, the floors 0.564
 * (docs/decisions/results/no-match.md).
 */
export const NO_MATCH_QUANTILE = 0.025;

/**
 * Readings kept per statistic: evenly spaced order statistics of the held-out ones. A p-value
 * then moves in steps of about 1/512, well below the 2% the rule reads, and a stored model stays
 * small (metatool's fit sees 16,889 requests).
 */
export const NO_MATCH_SAMPLE = 512;

/**
 * How many of the ranking's first tools the coverage reads, whatever k the caller asks for: the
 * held-out readings are taken at this many, so a verdict read over fewer (k = 1) would turn away
 * more requests than the calibration allows, and one read over more would let more through.
 */
export const MATCH_TOOLS = 5;

/** (#{s <= x} + 1/2) / (m + 1) over an ascending sample: the lower-tail p-value of x. */
export function lowerTail(sample: readonly number[], x: number): number {
  let lo = 0;
  let hi = sample.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sample[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return (lo + 0.5) / (sample.length + 1);
}

/** The coverage at which a tool counts as covering the request (the unasked-for exception). */
export function coverageLevel(calibration: NoMatchCalibration): number {
  return quantileOfSorted(calibration.coverage, NO_MATCH_QUANTILE);
}

/**
 * The evidence that a request fits: the sum of its readings' log p-values; `words`: the
 * coverage's and the similarity's only.
 */
export function matchEvidence(calibration: NoMatchCalibration, e: MatchEvidence, words: boolean): number {
  const unasked = e.unaskedCoverage > 0 && e.unaskedCoverage >= coverageLevel(calibration);
  let sum = Math.log(lowerTail(calibration.coverage, e.coverage));
  if (!unasked) sum += Math.log(lowerTail(calibration.similarity, e.similarity));
  if (!words) sum += Math.log(lowerTail(calibration.confidence, e.confidence));
  return sum;
}

/** Whether the request fits under the calibration. */
export function fits(calibration: NoMatchCalibration, e: MatchEvidence, words: boolean): boolean {
  return matchEvidence(calibration, e, words) >= (words ? calibration.wordsThreshold : calibration.threshold);
}

/**
 * The readings of a request that fell short, least typical first: those whose p-value is under
 * 1/2 (the hint names what made the request look foreign).
 */
export function lowReadings(calibration: NoMatchCalibration, e: MatchEvidence, words: boolean): ('coverage' | 'similarity' | 'confidence')[] {
  const unasked = e.unaskedCoverage > 0 && e.unaskedCoverage >= coverageLevel(calibration);
  const readings: ['coverage' | 'similarity' | 'confidence', number][] = [['coverage', lowerTail(calibration.coverage, e.coverage)]];
  if (!unasked) readings.push(['similarity', lowerTail(calibration.similarity, e.similarity)]);
  if (!words) readings.push(['confidence', lowerTail(calibration.confidence, e.confidence)]);
  return readings
    .filter(([, p]) => p < 0.5)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

/**
 * The calibration from held-out in-domain requests' evidence, or null with none. The thresholds
 * are quantiles of the evidence read through the kept samples, as queries will read it.
 */
export function fitNoMatch(held: readonly MatchEvidence[]): NoMatchCalibration | null {
  if (held.length === 0) return null;
  const sample = (read: (e: MatchEvidence) => number): number[] => thin(held.map(read).sort((a, b) => a - b), NO_MATCH_SAMPLE);
  const base = { coverage: sample((e) => e.coverage), similarity: sample((e) => e.similarity), confidence: sample((e) => e.confidence), threshold: 0, wordsThreshold: 0 };
  const all = held.map((e) => matchEvidence(base, e, false)).sort((a, b) => a - b);
  const words = held.map((e) => matchEvidence(base, e, true)).sort((a, b) => a - b);
  return { ...base, threshold: quantileOfSorted(all, NO_MATCH_QUANTILE), wordsThreshold: quantileOfSorted(words, NO_MATCH_QUANTILE) };
}

/** Whether a stored calibration can be read: samples ascending in [0, 1], thresholds finite and at most 0 (any shape may come in from a store). */
export function validNoMatch(c: NoMatchCalibration): boolean {
  if (typeof c !== 'object' || c === null) return false;
  for (const sample of [c.coverage, c.similarity, c.confidence]) {
    if (!Array.isArray(sample) || sample.length === 0) return false;
    for (let i = 0; i < sample.length; i++) {
      if (!(sample[i]! >= 0 && sample[i]! <= 1)) return false;
      if (i > 0 && sample[i]! < sample[i - 1]!) return false;
    }
  }
  return Number.isFinite(c.threshold) && Number.isFinite(c.wordsThreshold) && c.threshold <= 0 && c.wordsThreshold <= 0;
}

/** The lower q-quantile of an ascending, non-empty array. */
function quantileOfSorted(sorted: readonly number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

/** At most `m` evenly spaced order statistics of an ascending array, its least and greatest among them. */
function thin(sorted: readonly number[], m: number): number[] {
  if (sorted.length <= m) return [...sorted];
  const out: number[] = [];
  for (let i = 0; i < m; i++) out.push(sorted[Math.round((i * (sorted.length - 1)) / (m - 1))]!);
  return out;
}
