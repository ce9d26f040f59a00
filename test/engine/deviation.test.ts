import { describe, expect, it } from 'vitest';
import { detectTopicDeviation, stepDeviation } from '../../src/engine/deviation.js';

const objective = 'find cheap flights from Paris to London';

describe('detectTopicDeviation (spec 002 algorithm)', () => {
  // Objective words longer than three characters: find, cheap, flights, from, paris, london (6).
  it('is ON_TOPIC from 30% of the words, VAGUE from 10%, OFF_TOPIC below (hand-computed)', () => {
    // cheap, flights: 2/6 = 0.333.
    expect(detectTopicDeviation('the cheap flights are listed', objective, 'seed')).toEqual({ deviation: 'ON_TOPIC', matchRatio: 2 / 6, missing: ['find', 'from', 'paris', 'london'] });
    // flights: 1/6 = 0.167.
    expect(detectTopicDeviation('some flights', objective, 'seed').deviation).toBe('VAGUE');
    expect(detectTopicDeviation('the weather is nice', objective, 'seed').deviation).toBe('OFF_TOPIC');
  });

  it('seed: the response is searched as written, so capitals never match (the spec code as is)', () => {
    expect(detectTopicDeviation('Cheap Flights From Paris', objective, 'seed').matchRatio).toBe(0);
    // default folds the response's case: cheap, flights, from, paris = 4/6.
    expect(detectTopicDeviation('Cheap Flights From Paris', objective, 'default').matchRatio).toBeCloseTo(4 / 6, 12);
  });

  it("default strips the punctuation around the objective's words", () => {
    // Spec split keeps 'london.' as a word, which 'london' does not contain.
    expect(detectTopicDeviation('london', 'trains to london.', 'seed').matchRatio).toBe(0);
    expect(detectTopicDeviation('london', 'trains to london.', 'default').matchRatio).toBe(0.5);
  });

  it('counts an objective without long words as none matched (max(1, |words|))', () => {
    expect(detectTopicDeviation('anything', 'a to b', 'seed')).toEqual({ deviation: 'OFF_TOPIC', matchRatio: 0, missing: [] });
  });
});

describe("stepDeviation: the text's class and the graph's view", () => {
  it('takes the worse of the two', () => {
    expect(stepDeviation(null, true)).toBe('ON_TOPIC');
    expect(stepDeviation(null, false)).toBe('OFF_TOPIC');
    expect(stepDeviation('VAGUE', true)).toBe('VAGUE');
    expect(stepDeviation('VAGUE', false)).toBe('OFF_TOPIC');
    expect(stepDeviation('ON_TOPIC', false)).toBe('OFF_TOPIC');
  });
});
