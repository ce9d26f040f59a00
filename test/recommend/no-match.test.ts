import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import {
  coverageLevel,
  fitNoMatch,
  fits,
  lowerTail,
  lowReadings,
  matchEvidence,
  NO_MATCH_QUANTILE,
  NO_MATCH_SAMPLE,
  validNoMatch,
  type MatchEvidence,
  type NoMatchCalibration,
} from '../../src/recommend/no-match.js';

const reading = (coverage: number, similarity: number, confidence: number, unaskedCoverage = 0): MatchEvidence => ({ coverage, similarity, confidence, unaskedCoverage });

/** n requests whose three readings are independent and uniform on [0, 1]. */
function uniform(n: number, seed = 5): MatchEvidence[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => reading(rng(), rng(), rng()));
}

describe('the no-match calibration', () => {
  it('reads a lower-tail p-value, half a count for the reading itself', () => {
    const sample = [0.1, 0.2, 0.2, 0.5];
    expect(lowerTail(sample, 0.05)).toBeCloseTo(0.5 / 5, 12);
    expect(lowerTail(sample, 0.2)).toBeCloseTo(3.5 / 5, 12);
    expect(lowerTail(sample, 0.3)).toBeCloseTo(3.5 / 5, 12);
    expect(lowerTail(sample, 1)).toBeCloseTo(4.5 / 5, 12);
    expect(lowerTail([], 0.4)).toBe(0.5);
  });

  it('keeps at most NO_MATCH_SAMPLE readings of each, the least and the greatest among them', () => {
    const held = uniform(5000);
    const c = fitNoMatch(held)!;
    for (const [name, sample] of [['coverage', c.coverage], ['similarity', c.similarity], ['confidence', c.confidence]] as const) {
      expect(sample).toHaveLength(NO_MATCH_SAMPLE);
      expect(sample[0]).toBe(Math.min(...held.map((e) => e[name])));
      expect(sample.at(-1)).toBe(Math.max(...held.map((e) => e[name])));
      for (let i = 1; i < sample.length; i++) expect(sample[i]).toBeGreaterThanOrEqual(sample[i - 1]!);
    }
    expect(validNoMatch(c)).toBe(true);
    expect(fitNoMatch([])).toBeNull();
  });

  it('turns away about its quantile of the requests it was fitted on, with all three readings or the words alone', () => {
    const held = uniform(4000);
    const c = fitNoMatch(held)!;
    const refused = held.filter((e) => !fits(c, e, false)).length / held.length;
    const refusedWords = held.filter((e) => !fits(c, e, true)).length / held.length;
    expect(refused).toBeLessThanOrEqual(NO_MATCH_QUANTILE);
    expect(refused).toBeGreaterThan(NO_MATCH_QUANTILE - 0.005);
    expect(refusedWords).toBeLessThanOrEqual(NO_MATCH_QUANTILE);
    expect(refusedWords).toBeGreaterThan(NO_MATCH_QUANTILE - 0.005);
    // Uniform readings: -sum log p is a Gamma(3, 1) variable, whose 2.5% upper tail starts
    // near 7.2 (and Gamma(2, 1)'s, for the words alone, near 5.6).
    expect(c.threshold).toBeGreaterThan(-7.8);
    expect(c.threshold).toBeLessThan(-6.8);
    expect(c.wordsThreshold).toBeGreaterThan(-6.1);
    expect(c.wordsThreshold).toBeLessThan(-5.1);
  });

  it('weighs how unusual a request is on all three readings together, not on one alone', () => {
    const c = fitNoMatch(uniform(4000))!;
    // Lowest of all in coverage, typical otherwise: a floor on the coverage would refuse it.
    expect(fits(c, reading(0.0001, 0.95, 0.95), false)).toBe(true);
    // A little low on each: no floor of 2% per reading would refuse it; together they do.
    expect(fits(c, reading(0.05, 0.05, 0.05), false)).toBe(false);
    expect(fits(c, reading(0.5, 0.5, 0.5), false)).toBe(true);
    expect(lowReadings(c, reading(0.05, 0.02, 0.3), false)).toEqual(['similarity', 'coverage', 'confidence']);
    expect(lowReadings(c, reading(0.05, 0.9, 0.02), false)).toEqual(['confidence', 'coverage']);
    // The words alone: the confidence is neither counted nor named.
    expect(matchEvidence(c, reading(0.3, 0.4, 0.0001), true)).toBe(matchEvidence(c, reading(0.3, 0.4, 0.99), true));
    expect(lowReadings(c, reading(0.05, 0.02, 0.01), true)).toEqual(['similarity', 'coverage']);
  });

  it('counts the similarity as typical when a tool nobody asked for covers the request', () => {
    const c = fitNoMatch(uniform(4000))!;
    const level = coverageLevel(c);
    expect(level).toBeGreaterThan(0.01);
    expect(level).toBeLessThan(0.04);
    // Nothing recorded resembles it, and a tool no recorded request called covers it: it fits.
    expect(fits(c, reading(0.3, 0, 0.3), false)).toBe(false);
    expect(fits(c, reading(0.3, 0, 0.3, 0.3), false)).toBe(true);
    expect(lowReadings(c, reading(0.2, 0, 0.3, 0.3), false)).toEqual(['coverage', 'confidence']);
    // Such a tool that covers less than the level does not excuse it.
    expect(fits(c, reading(0.3, 0, 0.3, level / 2), false)).toBe(false);
  });

  it('tells a readable stored calibration from a broken one', () => {
    const good: NoMatchCalibration = { coverage: [0.1, 0.4], similarity: [0, 1], confidence: [0.2], threshold: -7, wordsThreshold: -5 };
    expect(validNoMatch(good)).toBe(true);
    expect(validNoMatch({ ...good, coverage: [0.4, 0.1] })).toBe(false);
    expect(validNoMatch({ ...good, similarity: [0, 1.5] })).toBe(false);
    expect(validNoMatch({ ...good, confidence: [] })).toBe(false);
    expect(validNoMatch({ ...good, confidence: [Number.NaN] })).toBe(false);
    expect(validNoMatch({ ...good, threshold: 0.5 })).toBe(false);
    expect(validNoMatch({ ...good, wordsThreshold: Number.NEGATIVE_INFINITY })).toBe(false);
  });
});
