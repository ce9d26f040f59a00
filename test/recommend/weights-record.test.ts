import { describe, expect, it } from 'vitest';
import { SIGNALS } from '../../src/recommend/features.js';
import { PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { weightsFromRecord, weightsRecord } from '../../src/recommend/weights-record.js';
import { expectCode } from '../helpers/expect-code.js';

describe('weights as named records', () => {
  it('round-trips every field, each vector by signal name', () => {
    const weights = {
      ...PRIOR_WEIGHTS,
      dagStatus: { threshold: 0.6, target: 0.8, nodeF1: 0.81, share: 0.7 },
      source: 'fitted' as const,
      fit: { traces: 30, fittedAt: 1_000, ms: 12, kept: { next: 'fitted' as const, nextNoIntent: 'backoff' as const, search: 'prior' as const } },
    };
    const record = weightsRecord(weights, 'test');
    expect(Object.keys(record.next)).toEqual([...SIGNALS]);
    expect(record.search['lexical']).toBe(PRIOR_WEIGHTS.search[SIGNALS.indexOf('lexical')]);
    expect(weightsFromRecord(JSON.parse(JSON.stringify(record)), 'test')).toEqual(weights);
  });

  it('refuses a missing, extra or renamed signal by name, and positional lists as such', () => {
    const record = JSON.parse(JSON.stringify(weightsRecord(PRIOR_WEIGHTS, 'test'))) as Record<string, Record<string, number>>;
    const { embedding: _dropped, ...missing } = record['search']!;
    expectCode(() => weightsFromRecord({ ...record, search: missing }, 'getWeights'), 'INVALID_INPUT', 'getWeights: the stored weights cannot be read: search.embedding');
    expectCode(() => weightsFromRecord({ ...record, next: { ...record['next'], novelty: 1 } }, 'getWeights'), 'INVALID_INPUT', 'next');
    const { lexical, ...rest } = record['search']!;
    expectCode(() => weightsFromRecord({ ...record, search: { ...rest, bm25: lexical } }, 'getWeights'), 'INVALID_INPUT', 'search');
    const positional = { next: [...PRIOR_WEIGHTS.next], nextNoIntent: [...PRIOR_WEIGHTS.nextNoIntent], search: [...PRIOR_WEIGHTS.search], source: 'prior' };
    expectCode(() => weightsFromRecord(positional, 'getWeights'), 'INVALID_INPUT', 'weights as positional lists (an older version wrote them)');
    expectCode(() => weightsRecord({ ...PRIOR_WEIGHTS, search: [1, 2] }, 'putWeights'), 'INVALID_INPUT', `putWeights: search holds 2 weights, there are ${SIGNALS.length} signals`);
    expectCode(() => weightsRecord({ ...PRIOR_WEIGHTS, next: PRIOR_WEIGHTS.next.map(() => Number.POSITIVE_INFINITY) }, 'putWeights'), 'INVALID_INPUT', 'next.transition');
  });
});
