/**
 * The time a service schedules its model rebuilds by: a monotonic clock in milliseconds and its
 * timers. Injected (ToolgraphOptions.clock) so that a test or a simulation can move time by hand
 * and see exactly when a rebuild is due, without sleeping and without races against a busy
 * machine. The system clock is `performance.now()` with Node's timers, unref'd: a pending rebuild
 * never keeps a process alive.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences mean anything). */
  now(): number;
  /** Runs `fn` once, `ms` from now; returns a handle for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Whether `value` has the Clock methods (for the options schema). */
export function isClock(value: unknown): value is Clock {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Partial<Record<keyof Clock, unknown>>;
  return typeof c.now === 'function' && typeof c.setTimeout === 'function' && typeof c.clearTimeout === 'function';
}
