/**
 * A Clock (src/service/clock.ts) moved by hand: time passes only when the test says so, and
 * timers run only when it is moved past them, in the order they are due. `tick` makes every
 * reading move time on by that much, so that work which reads the clock at its start and its
 * end (a model build) takes a known, nonzero time.
 */
import type { Clock } from '../../src/service/clock.js';

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

export class ManualClock implements Clock {
  private t = 1_000;
  private timers: Timer[] = [];
  private ids = 0;
  /** Added to the time at every reading. */
  tick = 0;

  /** The time now, without a tick. */
  get time(): number {
    return this.t;
  }

  now(): number {
    this.t += this.tick;
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: ++this.ids, at: this.t + ms, fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** When the pending timers are due, soonest first. */
  pending(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves time on by `ms`, running each timer due by then at its time. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }
}
