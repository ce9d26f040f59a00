/**
 * What a capability model hands the next rebuild, so that a rebuild redoes the per-capability
 * work only for the capabilities that changed. The learner reports a changed capability as a
 * new object (learn-capabilities.ts), so "unchanged" is "the same object", and a rebuild after a
 * few new traces finds nearly all of them unchanged (some 17,000 of 17,500 at 50,000 synthetic
 * traces, where this work was about half of a rebuild).
 *
 *   members    a capability's tool indexes: kept while every tool of it had an index and the
 *              graph's first `names.length` tools are the ones they were (a graph only appends)
 *   documents  its search document, taken over without a look at its tools' catalogue entries
 *              while the caller's catalogue version has not moved, and as ids of a term log
 *              (text/term-log.ts) while it is the same array (documentOf makes a new one when a
 *              tool's entry is replaced); the build renumbers the ids with internIds in the log's
 *              order, which gives exactly the index internCorpus gives on the same tokens
 *   outcome    reliability, exclusion and composite confidence by outcome counts: pure functions
 *              of the counts and the prior, and most capabilities share a few small counts
 *
 * The carried state is only read and appended to: the log's ids never change, so a model built
 * earlier is never affected by the next one's build.
 */
import type { Capability } from '../schema/capability.js';
import type { BetaPrior } from '../scoring/beta-reliability.js';
import type { TermLog } from '../text/term-log.js';

export interface CapabilityOutcome {
  readonly reliability: number;
  readonly excluded: boolean;
  /** NaN before the first run. */
  readonly confidence: number;
}

/** Outcomes by their counts, for one prior; bounded, so unusual counts cannot grow it without end. */
export class OutcomeMemo {
  private static readonly LIMIT = 65_536;
  private readonly byCounts = new Map<number, CapabilityOutcome>();

  constructor(readonly prior: BetaPrior | undefined) {}

  get(successes: number, failures: number, compute: () => CapabilityOutcome): CapabilityOutcome {
    // One number per pair while both counts fit in 26 bits (the key stays an exact double).
    if (successes >= 2 ** 26 || failures >= 2 ** 26) return compute();
    const key = successes * 2 ** 26 + failures;
    let outcome = this.byCounts.get(key);
    if (outcome === undefined) {
      if (this.byCounts.size >= OutcomeMemo.LIMIT) this.byCounts.clear();
      outcome = compute();
      this.byCounts.set(key, outcome);
    }
    return outcome;
  }
}

export interface CapabilityCarry {
  /** The tool names `members` index into, as the model was built; null when not given. */
  readonly names: readonly string[] | null;
  /** Per capability, aligned with the model's: its tool indexes and whether every tool had one. */
  readonly members: readonly (readonly number[])[];
  readonly complete: Uint8Array;
  readonly log: TermLog;
  /** The catalogue the documents were made from, and its version then (CapabilityModelInput). */
  readonly catalog: ReadonlyMap<string, unknown>;
  readonly catalogVersion: number | undefined;
  /** Per capability: its search document and that document as ids of `log`. */
  readonly documents: readonly (readonly string[])[];
  readonly documentIds: readonly Int32Array[];
  readonly outcomes: OutcomeMemo;
}

/**
 * The index in `previous` of the same capability object, or -1: what a rebuild may take over for
 * it (`at` is its index now). Only capabilities whose id maps to this very object count.
 */
export function carriedIndex(previous: { readonly capabilities: readonly Capability[]; readonly indexById: ReadonlyMap<string, number> } | null, c: Capability, at: number): number {
  if (previous === null) return -1;
  // Most capabilities keep their place (the learner appends), so look there before the map.
  if (previous.capabilities[at] === c) return at;
  const old = previous.indexById.get(c.id);
  return old !== undefined && previous.capabilities[old] === c ? old : -1;
}

/** True when `names` starts with `before`: the tool indexes a model saw still name the same tools. */
export function sameToolPrefix(before: readonly string[], names: readonly string[]): boolean {
  if (names.length < before.length) return false;
  for (let i = 0; i < before.length; i++) if (before[i] !== names[i]) return false;
  return true;
}
