/**
 * A durable open's capability backfill (toolgraph.ts, beginCapabilityBackfill): a model planned
 * while it is under way has no learned capabilities, so it is stale once the backfill ends, even
 * when it is installed after that.
 */
import { describe, expect, it } from 'vitest';
import { Toolgraph } from '../../src/service/toolgraph.js';

const TRACES = [1, 2, 3].map((i) => ({ id: `t${i}`, intent: `book a trip ${i}`, tools: ['search_flights', 'book_flight'], success: true }));

describe('capability backfill', () => {
  it('a model planned during the backfill and installed after it does not stand in for the learned capabilities', async () => {
    // The debounce is long so that only the calls below build models.
    const tg = new Toolgraph({ rebuildDelayMs: 60_000 });
    try {
      tg.beginCapabilityBackfill();
      tg.ingest(TRACES);
      // Planned now, synchronously, without learned capabilities; installed after the backfill ends.
      const flight = tg.rebuildInBackground(Number.POSITIVE_INFINITY);
      tg.endCapabilityBackfill();
      const installed = await flight;
      expect(installed.capabilities?.capabilities.filter((c) => c.source === 'learned') ?? []).toEqual([]);
      // Stale, so the next build learns them (the debounced one, or this one now).
      tg.rebuild();
      expect(tg.capabilities().filter((c) => c.source === 'learned').map((c) => c.tools)).toEqual([['search_flights', 'book_flight']]);
    } finally {
      tg.close();
    }
  });
});
