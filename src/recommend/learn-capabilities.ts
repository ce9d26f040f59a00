/**
 * Capabilities learned from traces: a group of tools that recurs in successful traces is
 * promoted to a capability once it has run successfully `minSupport` times (3, spec 003's
 * cold-start rule for emergent capabilities).
 *
 *   candidates of a successful trace = its whole tool set, and the tool set of every contiguous
 *                                      window of windowMin..windowMax calls (a recurring
 *                                      sub-sequence of longer tasks)
 *   support(S) = number of successful traces with S among their candidates (once per trace)
 *   promote S  when support(S) >= minSupport, minTools <= |S| <= maxTools, and S is closed:
 *              the tools every supporting trace called are S itself, not more
 *
 * Closedness (closed frequent itemsets: Pasquier, Bastide, Taouil, Lakhal, ICDT 1999) keeps a
 * sub-sequence only when it recurs in tasks that differ beyond it: a window that only ever runs
 * inside one larger group is that group's part, not a reusable unit, and would compete with it.
 * Candidates are keyed by their tool *set*, so the same tools seen in two orders, or as a whole
 * trace and as a window of a longer one, are one capability (deduplication of identical sets).
 * Its tools are listed in the order seen most often; it is `ordered` only when every occurrence
 * had that order. A capability's id is derived from its set, so it is stable across runs and
 * rebuilds. Failed traces promote nothing; their outcomes count in reliability
 * (capability-evidence.ts), not here.
 *
 * O(sum over traces of L * (windowMax - windowMin + 1) * windowMax) with L the trace length,
 * plus sorting each candidate set (small).
 */
import { LEARNED_ID_PREFIX, type Capability } from '../schema/capability.js';
import { LEARN_DEFAULTS, learnCapabilitiesOptionsSchema, type LearnCapabilitiesOptions } from '../schema/factory-options.js';
import { parseWith } from '../schema/issues.js';
import type { Trace } from '../schema/types.js';
import { stableHash } from './folds.js';

export type { LearnCapabilitiesOptions } from '../schema/factory-options.js';

// In the schema's file, whose cross-field check fills what is not given with them.
export { LEARN_DEFAULTS };

/** Id prefix of learned capabilities (registered ids may not use it). */
export const LEARNED_PREFIX = LEARNED_ID_PREFIX;

interface Candidate {
  support: number;
  /** Order (tools joined by NUL) -> times seen. */
  orders: Map<string, number>;
  /** Intents of traces whose whole tool set is this one, then of traces where it was a window. */
  examples: string[];
  windowExamples: string[];
  /** Tools every supporting trace called: the group's closure. */
  closure: Set<string> | null;
  size: number;
  firstSeen: number;
  /**
   * Set once promoted (minSupport reached, closed), which it then stays, as support only grows
   * and the closure only shrinks towards the set itself. Apart, so that the many candidates never
   * promoted do not carry its fields.
   */
  promoted: Promoted | null;
}

interface Promoted {
  /** The capability as last reported, until what it reports changes (capabilities()). */
  reported: Capability | null;
  /** The order it reported (a key of `orders`). */
  order: string;
}

/** Distinct tools in first-appearance order. */
function distinct(tools: readonly string[]): string[] {
  return [...new Set(tools)];
}

/** The id of a learned capability over `tools`: readable when short, hashed when long. */
export function learnedCapabilityId(tools: readonly string[]): string {
  const key = [...tools].sort().join('+');
  return key.length <= 200 ? `${LEARNED_PREFIX}${key}` : `${LEARNED_PREFIX}#${stableHash(key).toString(16)}-${tools.length}`;
}

function setKey(ordered: readonly string[]): string {
  return [...ordered].sort().join('\u0000');
}

/**
 * The learner behind learnCapabilities, fed incrementally: every statistic of a candidate
 * (support, orders, examples, closure) only accumulates, so adding traces in several calls
 * gives exactly what one call over all of them gives (a test checks it). The facade keeps one
 * and feeds it the traces recorded since its last rebuild, instead of re-reading every trace:
 * 1.2 s per rebuild at 163,339 traces (the `http` bench's data) becomes the new traces' share
 * plus the promotion pass.
 */
export class CapabilityLearner {
  private readonly o: Required<LearnCapabilitiesOptions>;
  private readonly candidates = new Map<string, Candidate>();
  /** The promoted candidates, in first-seen order once `unsorted` is false. */
  private readonly promotedInOrder: Candidate[] = [];
  private unsorted = false;
  private order = 0;

  constructor(options: LearnCapabilitiesOptions = {}) {
    this.o = { ...LEARN_DEFAULTS, ...options };
  }

  /** Counts the traces from index `from` on (default all). */
  add(traces: readonly Trace[], from = 0): void {
    const { o, candidates } = this;
    for (let t = from; t < traces.length; t++) {
      const trace = traces[t]!;
      if (!trace.success) continue;
      // A failed call inside a successful task is not part of the reusable group.
      const calls = trace.steps.filter((s) => s.ok).map((s) => s.tool);
      // Consecutive repeats (retries, pagination) are one step of the group.
      const sequence = calls.filter((tool, i) => i === 0 || calls[i - 1] !== tool);
      const seenHere = new Set<string>();
      const wholeSet = new Set(sequence);
      const consider = (tools: readonly string[], whole: boolean): void => {
        const ordered = distinct(tools);
        if (ordered.length < o.minTools || ordered.length > o.maxTools) return;
        const key = setKey(ordered);
        if (seenHere.has(key)) return;
        seenHere.add(key);
        let c = candidates.get(key);
        if (c === undefined) {
          c = { support: 0, orders: new Map(), examples: [], windowExamples: [], closure: null, size: ordered.length, firstSeen: this.order++, promoted: null };
          candidates.set(key, c);
        }
        c.support++;
        if (c.closure === null) c.closure = new Set(wholeSet);
        else for (const x of c.closure) if (!wholeSet.has(x)) c.closure.delete(x);
        const orderKey = ordered.join('\u0000');
        const orders = c.orders.size;
        c.orders.set(orderKey, (c.orders.get(orderKey) ?? 0) + 1);
        const examples = whole ? c.examples : c.windowExamples;
        const example = trace.intent !== '' && examples.length < o.maxExamples;
        if (example) examples.push(trace.intent);
        // Reported again only when the report would change: a new order (whether it is ordered,
        // perhaps its tools' order), another order now seen most often, or a new example. Once a
        // group has its examples, most runs change none of these.
        const promoted = c.promoted;
        if (promoted !== null && promoted.reported !== null && (example || c.orders.size !== orders || (orderKey !== promoted.order && mostSeen(c.orders) === orderKey))) {
          promoted.reported = null;
        }
        // Not closed: every task that ran it also ran more tools, so it is part of a larger
        // group, not a group of its own (closed itemsets, Pasquier et al. 1999).
        if (c.promoted === null && c.support >= o.minSupport && c.closure.size === c.size) {
          c.promoted = { reported: null, order: '' };
          this.promotedInOrder.push(c);
          this.unsorted = true;
        }
      };
      consider(sequence, true);
      if (o.windowMin > 0) {
        for (let len = o.windowMin; len <= o.windowMax; len++) {
          for (let i = 0; i + len <= sequence.length; i++) consider(sequence.slice(i, i + len), false);
        }
      }
    }
  }

  /**
   * The promoted capabilities, in first-seen order. Each object is the learner's report of its
   * candidate, never changed afterwards: when what it would say changes (an example, an order),
   * a new object says it, and only those are made again. So a call pays for what the traces
   * since the last one changed, not for every group seen so far (50,000 synthetic traces leave
   * some 17,000 capabilities among several hundred thousand candidates), and what keeps work
   * by capability object (capability-model.ts, capability-evidence.ts) keeps it while it holds.
   */
  capabilities(): Capability[] {
    if (this.unsorted) {
      // First-seen order: deterministic, and a capability keeps its place as traces are added.
      this.promotedInOrder.sort((a, b) => a.firstSeen - b.firstSeen);
      this.unsorted = false;
    }
    return this.promotedInOrder.map((c) => {
      const promoted = c.promoted!;
      if (promoted.reported === null) {
        promoted.order = mostSeen(c.orders);
        promoted.reported = report(c, promoted.order);
      }
      return promoted.reported;
    });
  }
}

/** The order seen most often (the first seen of those tied). */
function mostSeen(orders: ReadonlyMap<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [key, n] of orders) {
    if (n > bestCount) {
      best = key;
      bestCount = n;
    }
  }
  return best;
}

/** A promoted candidate as a capability, its tools in `order` (the order seen most often). */
function report(c: Candidate, order: string): Capability {
  const tools = order.split('\u0000');
  // A task that was exactly this group says what the group does; a longer task it was part
  // of describes more than it, so its intent is used only when no exact task exists.
  const examples = c.examples.length > 0 ? c.examples : c.windowExamples;
  return {
    id: learnedCapabilityId(tools),
    description: examples[0] ?? '',
    tools,
    ordered: c.orders.size === 1,
    source: 'learned',
    successes: 0,
    failures: 0,
    examples: [...examples],
  };
}

/** Throws INVALID_INPUT naming learnCapabilities for options it cannot use (factory-options.ts). */
export function learnCapabilities(traces: readonly Trace[], options: LearnCapabilitiesOptions = {}): Capability[] {
  const learner = new CapabilityLearner(parseWith(learnCapabilitiesOptionsSchema, options, 'learnCapabilities'));
  learner.add(traces);
  return learner.capabilities();
}
