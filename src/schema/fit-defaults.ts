/**
 * When a durable service fits its own weights by default (fit-options.ts reads them): constants
 * alone, so that the CLI's help of `serve` and `mcp` names them without loading zod.
 */
export const AUTO_FIT_DEFAULTS = {
  /** Stored traces before the first fit. */
  firstAt: 30,
  /** Growth of the stored traces since the last fit that calls for the next one: a fifth more. */
  growth: 0.2,
  /** Least time from one fit's end to the next one's start, ms. */
  minIntervalMs: 60_000,
  /**
   * Time without a new trace after which traces the fit in force has not read are fitted, however
   * few, ms: a store that has gone quiet is fitted on all it holds.
   */
  idleMs: 300_000,
} as const;
