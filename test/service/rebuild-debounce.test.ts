/**
 * The rebuild debounce after ingestion: no sooner after the last rebuild ended than the
 * configured gap and than that rebuild took (rebuild-schedule.ts, toolgraph.ts invalidate).
 */
import { describe, expect, it } from 'vitest';
import { Toolgraph } from '../../src/service/toolgraph.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Traces over `tools` tools whose model takes a while to build. */
function heavy(tools: number, traces: number): { id: string; intent: string; tools: string[] }[] {
  return Array.from({ length: traces }, (_, i) => ({
    id: `t${i}`,
    intent: `task ${i % 97} about topic ${i % 13}`,
    tools: [`tool_${i % tools}`, `tool_${(i * 7 + 1) % tools}`, `tool_${(i * 13 + 5) % tools}`],
  }));
}

describe('rebuild debounce', () => {
  it('rebuilds a small model after the configured delay', async () => {
    const tg = new Toolgraph({ rebuildDelayMs: 20 });
    tg.ingest([{ id: 'a', tools: ['p', 'q'] }]);
    tg.rebuild();
    tg.ingest([{ id: 'b', tools: ['p', 'r'] }]);
    const version = tg.stats().version;
    expect(tg.stats().modelVersion).not.toBe(version);
    const t0 = performance.now();
    while (tg.stats().modelVersion !== version && performance.now() - t0 < 2_000) await sleep(2);
    expect(tg.stats().modelVersion).toBe(version);
    tg.close();
  });

  it('waits at least as long as the last rebuild took', async () => {
    const tg = new Toolgraph({ rebuildDelayMs: 1, learnCapabilities: false });
    tg.ingest(heavy(2_000, 8_000));
    tg.rebuild();
    const took = tg.stats().rebuildMs;
    // Only meaningful when a rebuild takes clearly longer than timer jitter.
    expect(took).toBeGreaterThan(40);
    tg.ingest([{ id: 'late', tools: ['tool_1', 'tool_2'] }]);
    const version = tg.stats().version;
    const t0 = performance.now();
    await sleep(took / 2);
    // Half the last rebuild's time later, well past the 1 ms configured, the model is still the old one.
    if (performance.now() - t0 < took) expect(tg.stats().modelVersion).not.toBe(version);
    while (tg.stats().modelVersion !== version && performance.now() - t0 < 10_000) await sleep(5);
    expect(tg.stats().modelVersion).toBe(version);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(took - 1);
    tg.close();
  }, 60_000);

  it('rebuilds at once once the service has been idle as long as the last rebuild took', async () => {
    const tg = new Toolgraph({ rebuildDelayMs: 1, learnCapabilities: false });
    tg.ingest(heavy(2_000, 8_000));
    tg.rebuild();
    const took = tg.stats().rebuildMs;
    expect(took).toBeGreaterThan(40);
    await sleep(2 * took);
    tg.ingest([{ id: 'late', tools: ['tool_1', 'tool_2'] }]);
    const version = tg.stats().version;
    const t0 = performance.now();
    while (tg.stats().modelVersion !== version && performance.now() - t0 < 10_000) await sleep(2);
    expect(tg.stats().modelVersion).toBe(version);
    // From the write until that rebuild began: its end, as seen here, less its own duration. The
    // gap after the last rebuild has passed already, so nothing is left to wait, where the rule
    // before waited the whole of `took` again (the test above; measured so, it read `took` less
    // a fraction of a millisecond).
    const waited = performance.now() - t0 - tg.stats().rebuildMs;
    expect(waited).toBeLessThan(took / 2);
    tg.close();
  }, 60_000);
});
