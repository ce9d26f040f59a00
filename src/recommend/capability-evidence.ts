/**
 * Outcomes of each capability in the recorded traces: a trace ran capability c when it called
 * every tool of c (containment; order is not required, since a registered set has none and a
 * sequence interleaved with other calls still ran). It counts as a success or a failure by the
 * trace's outcome, so a capability whose tools keep appearing in failed tasks loses reliability.
 *
 * Inverted index: for each capability only the traces that call its rarest tool are checked.
 * O(sum over traces of L) to index, O(sum over c of |traces(rarest tool of c)| * |c|) to count.
 */
import type { Trace } from '../schema/types.js';

export interface CapabilityOutcomes {
  readonly successes: Int32Array;
  readonly failures: Int32Array;
  /** Latest timestamp of a trace that ran each capability; 0 when none did. */
  readonly lastSeen: Float64Array;
}

/**
 * Which traces called each tool, kept as traces arrive: the facade feeds it the traces recorded
 * since its last rebuild rather than indexing every trace again at each rebuild (163,339 traces
 * in the `http` bench: a Set per trace, rebuilt and dropped every time).
 */
export class TraceToolIndex {
  readonly tracesOf = new Map<string, number[]>();
  readonly toolSets: ReadonlySet<string>[] = [];
  readonly success: boolean[] = [];
  readonly timestamp: number[] = [];

  /** Indexes the traces from index `from` on (default all). */
  add(traces: readonly Trace[], from = 0): this {
    for (let t = from; t < traces.length; t++) {
      const trace = traces[t]!;
      const i = this.toolSets.length;
      const tools = new Set(trace.steps.map((s) => s.tool));
      (this.toolSets as Set<string>[]).push(tools);
      this.success.push(trace.success);
      this.timestamp.push(trace.timestamp);
      for (const tool of tools) {
        let list = this.tracesOf.get(tool);
        if (list === undefined) this.tracesOf.set(tool, (list = []));
        list.push(i);
      }
    }
    return this;
  }
}

export function capabilityOutcomes(
  capabilities: readonly { readonly tools: readonly string[] }[],
  traces: readonly Trace[] | TraceToolIndex,
): CapabilityOutcomes {
  const index = traces instanceof TraceToolIndex ? traces : new TraceToolIndex().add(traces);
  const { tracesOf, toolSets } = index;
  const n = capabilities.length;
  const successes = new Int32Array(n);
  const failures = new Int32Array(n);
  const lastSeen = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    const tools = capabilities[c]!.tools;
    if (tools.length === 0) continue;
    let rarest: number[] | undefined;
    for (const tool of tools) {
      const list = tracesOf.get(tool) ?? [];
      if (rarest === undefined || list.length < rarest.length) rarest = list;
    }
    for (const i of rarest!) {
      const set = toolSets[i]!;
      if (!tools.every((t) => set.has(t))) continue;
      if (index.success[i]) successes[c]!++;
      else failures[c]!++;
      if (index.timestamp[i]! > lastSeen[c]!) lastSeen[c] = index.timestamp[i]!;
    }
  }
  return { successes, failures, lastSeen };
}
