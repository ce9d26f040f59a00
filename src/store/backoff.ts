/**
 * Reconnection delays: exponential backoff with "equal jitter".
 *
 *   ceiling(n) = min(maxMs, initialMs * 2^n)        (n = 0 for the first retry)
 *   delay(n)   = ceiling(n) * (1/2 + u/2),  u in [0, 1)
 *
 * so each delay lies in [ceiling/2, ceiling): never less than half the backoff (a server that is
 * down is not hammered), and instances that lost the server together spread their retries
 * instead of reconnecting in lockstep. `u` comes from a seeded generator (graph/rng.ts), so a
 * given seed always gives the same delays. O(1).
 *
 * Reference: M. Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog (2015).
 */

export interface BackoffOptions {
  /** Ceiling of the first delay, in ms. */
  readonly initialMs: number;
  /** Largest ceiling, in ms. */
  readonly maxMs: number;
}

/** 100 ms doubling up to 5 s: what a LISTEN connection waits between attempts (postgres-store.ts). */
export const RECONNECT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 5_000 };

/** The delay before retry `attempt` (0-based) given a uniform draw `u` in [0, 1). */
export function backoffDelay(attempt: number, options: BackoffOptions, u: number): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 52));
  return Math.round(ceiling * (0.5 + 0.5 * u));
}
