/**
 * The rebuild debounce after ingestion, on a clock moved by hand (ToolgraphOptions.clock): a
 * rebuild starts no sooner after the last one ended than the configured gap and than that
 * rebuild took; a write into a service idle for longer is rebuilt at once; a burst of writes is
 * one rebuild (rebuild-schedule.ts holds the rule, model-builder.ts applies it).
 */
import { describe, expect, it } from 'vitest';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { expectCode } from '../helpers/expect-code.js';
import { ManualClock } from '../helpers/manual-clock.js';

/** A Toolgraph on `clock` with one model built, each clock reading during the build moving time on by `tick`. */
function built(clock: ManualClock, delay: number, tick = 0): Toolgraph {
  const tg = new Toolgraph({ rebuildDelayMs: delay, clock, learnCapabilities: false });
  tg.ingest([{ id: 'a', tools: ['p', 'q'] }]);
  clock.tick = tick;
  tg.rebuild();
  clock.tick = 0;
  return tg;
}

/** Ingests one more trace; the graph version the next model must reach. */
function write(tg: Toolgraph, id: string): number {
  tg.ingest([{ id, tools: ['p', 'r'] }]);
  return tg.stats().version;
}

describe('rebuild debounce', () => {
  it('rebuilds a quick model the configured delay after the last rebuild ended, not before', async () => {
    const clock = new ManualClock();
    const tg = built(clock, 20);
    expect(tg.stats().rebuildMs).toBe(0);
    const version = write(tg, 'b');
    expect(clock.pending()).toEqual([clock.time + 20]);
    clock.advance(19);
    expect(tg.stats().modelVersion).not.toBe(version);
    expect(tg.stats().stale).toContain('graph');
    clock.advance(1);
    await tg.rebuildInBackground(); // the build the timer started
    expect(tg.stats().modelVersion).toBe(version);
    expect(tg.stats().stale).toEqual([]);
    expect(tg.stats().slicedBuilds).toBe(1);
    tg.close();
  });

  it('waits as long as the last rebuild took when that is longer than the delay', async () => {
    const clock = new ManualClock();
    const tg = built(clock, 1, 100);
    const took = tg.stats().rebuildMs;
    expect(took).toBeGreaterThanOrEqual(100);
    const version = write(tg, 'b');
    expect(clock.pending()).toEqual([clock.time + took]);
    clock.advance(took - 1);
    expect(tg.stats().modelVersion).not.toBe(version);
    clock.advance(1);
    await tg.rebuildInBackground();
    expect(tg.stats().modelVersion).toBe(version);
    tg.close();
  });

  it('counts the wait from the end of the last rebuild: after that long idle, a write is rebuilt at once', async () => {
    const clock = new ManualClock();
    const tg = built(clock, 1, 100);
    const took = tg.stats().rebuildMs;
    clock.advance(2 * took);
    const version = write(tg, 'b');
    expect(clock.pending()).toEqual([clock.time]);
    clock.advance(0);
    await tg.rebuildInBackground();
    expect(tg.stats().modelVersion).toBe(version);
    tg.close();
  });

  it('makes a burst of writes one rebuild', async () => {
    const clock = new ManualClock();
    const tg = built(clock, 50);
    for (const id of ['b', 'c', 'd']) {
      write(tg, id);
      clock.advance(10);
    }
    expect(clock.pending()).toHaveLength(1);
    clock.advance(20);
    await tg.rebuildInBackground();
    expect(tg.stats().modelVersion).toBe(tg.stats().version);
    expect(tg.stats().slicedBuilds).toBe(1);
    expect(clock.pending()).toEqual([]);
    tg.close();
  });

  it('schedules another rebuild when a write lands while one is being built', async () => {
    const clock = new ManualClock();
    const tg = built(clock, 10);
    write(tg, 'b');
    clock.advance(10);
    const flight = tg.rebuildInBackground(); // the timer's build, under way
    const version = write(tg, 'c');
    await flight;
    expect(tg.stats().modelVersion).not.toBe(version);
    expect(clock.pending()).toHaveLength(1);
    clock.advance(10);
    await tg.rebuildInBackground();
    expect(tg.stats().modelVersion).toBe(version);
    tg.close();
  });

  it('refuses a clock without the Clock methods, naming the option', () => {
    expectCode(() => new Toolgraph({ clock: { now: () => 0 } as never }), 'INVALID_INPUT', 'clock');
  });
});
