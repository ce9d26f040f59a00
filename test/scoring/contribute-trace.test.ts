import { describe, expect, it } from 'vitest';
import { contributeTrace, DEFAULT_CONTRIBUTION_THRESHOLD } from '../../src/scoring/contribute-trace.js';
import { evaluateValueDetailed } from '../../src/scoring/evaluate-value.js';
import { VectorCache } from '../../src/scoring/vector-cache.js';
import { expectRejection, manualClock, reasoningTrace } from './_helpers.js';

// A rich trace: 8 steps, 4 types, 3 recoveries, 3 tools, success, confidence 0.9, no cache:
// C = 0.88, N = 0.5, D = 1, O = 0.9; composite = 0.22 + 0.175 + 0.15 + 0.225 = 0.77, +0.1 bonus = 0.87.
const RICH = reasoningTrace({
  id: 'rich-1',
  objective: 'Book the cheapest flight from Paris to Tokyo',
  confidence: 0.9,
  steps: [
    { type: 'thought', content: 'search flights first' },
    { type: 'tool_call', tool: 'flight_search' },
    { type: 'error_recovery', content: 'timeout, retry with smaller window' },
    { type: 'tool_call', tool: 'price_compare' },
    { type: 'error_recovery', content: 'currency mismatch, convert to EUR' },
    { type: 'tool_call', tool: 'book_flight' },
    { type: 'error_recovery', content: 'seat taken, pick the next one' },
    { type: 'observation', content: 'booked' },
  ],
});

// A poor trace: a single thought, fixed at 0.1.
const POOR = reasoningTrace({ id: 'poor-1', steps: [{ type: 'thought', content: 'hmm' }] });

describe('contributeTrace', () => {
  it('contributes a trace whose value meets the threshold, and caches its vector under its id', async () => {
    const cache = new VectorCache();
    const result = await contributeTrace(RICH, { cache });
    expect(result.breakdown.score).toBeCloseTo(0.87, 12);
    expect(result.breakdown.dimensions.novelty).toBe(0.5); // measured before the trace was added
    expect(result).toMatchObject({ contributed: true, cached: true, reason: 'threshold' });
    expect(DEFAULT_CONTRIBUTION_THRESHOLD).toBe(0.75);
    expect(cache.size).toBe(1);
    expect(cache.search(new Float32Array(384).fill(1), 1)[0]!.id).toBe('rich-1');
  });

  it('leaves the cache alone below the threshold', async () => {
    const cache = new VectorCache();
    const result = await contributeTrace(POOR, { cache });
    expect(result).toMatchObject({ contributed: false, cached: false, reason: 'below-threshold' });
    expect(result.breakdown.score).toBe(0.1);
    expect(cache.size).toBe(0);
  });

  it('contributes at equality and honours a caller threshold', async () => {
    const score = (await evaluateValueDetailed(RICH)).score;
    const cache = new VectorCache();
    expect((await contributeTrace(RICH, { cache, threshold: score })).contributed).toBe(true);
    const other = new VectorCache();
    expect((await contributeTrace(RICH, { cache: other, threshold: Math.min(1, score + 1e-9) })).contributed).toBe(false);
    expect(other.size).toBe(0);
  });

  it('contributes explicitly whatever the value', async () => {
    const cache = new VectorCache();
    const result = await contributeTrace(POOR, { cache, force: true });
    expect(result).toMatchObject({ contributed: true, cached: true, reason: 'explicit' });
    expect(cache.size).toBe(1);
  });

  it('makes the same trace familiar afterwards: novelty drops to about 0', async () => {
    const cache = new VectorCache();
    await contributeTrace(RICH, { cache });
    const again = await evaluateValueDetailed(RICH, { cache });
    expect(again.novelty.source).toBe('embedding');
    expect(again.dimensions.novelty).toBeLessThan(1e-6);
    // 0.88*0.25 + ~0*0.35 + 0.15 + 0.225 = 0.595, +0.1 = 0.695.
    expect(again.score).toBeCloseTo(0.695, 5);
    // Not contributed a second time: 0.695 < 0.75.
    const second = await contributeTrace(RICH, { cache });
    expect(second.contributed).toBe(false);
    expect(cache.size).toBe(1);
  });

  it('forgets a contribution after the TTL: the topic is novel again', async () => {
    const clock = manualClock(0);
    const cache = new VectorCache({ ttlMs: 3_600_000, now: clock.now });
    await contributeTrace(RICH, { cache });
    clock.set(3_599_999);
    expect((await evaluateValueDetailed(RICH, { cache })).dimensions.novelty).toBeLessThan(1e-6);
    clock.set(3_600_000);
    const later = await evaluateValueDetailed(RICH, { cache });
    expect(later.novelty.source).toBe('empty-cache');
    expect(later.dimensions.novelty).toBe(0.5);
  });

  it('contributes but caches nothing without an embedder', async () => {
    const cache = new VectorCache();
    const result = await contributeTrace(RICH, { cache, embedder: null });
    expect(result).toMatchObject({ contributed: true, cached: false, reason: 'threshold' });
    expect(cache.size).toBe(0);
  });

  it('rejects a missing cache, a bad threshold or force with INVALID_INPUT', async () => {
    const cache = new VectorCache();
    await expectRejection(contributeTrace(RICH, {} as never), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace(RICH, null as never), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace(RICH, { cache, threshold: 1.5 }), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace(RICH, { cache, threshold: Number.NaN }), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace(RICH, { cache, force: 'yes' as never }), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace({ steps: [] }, { cache }), 'INVALID_INPUT', 'contributeTrace');
    await expectRejection(contributeTrace(RICH, { cache: {} as never }), 'INVALID_INPUT', 'contributeTrace');
    expect(cache.size).toBe(0);
  });
});
