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

export function capabilityOutcomes(capabilities: readonly { readonly tools: readonly string[] }[], traces: readonly Trace[]): CapabilityOutcomes {
  const tracesOf = new Map<string, number[]>();
  const toolSets: Set<string>[] = [];
  traces.forEach((trace, i) => {
    const tools = new Set(trace.steps.map((s) => s.tool));
    toolSets.push(tools);
    for (const tool of tools) {
      let list = tracesOf.get(tool);
      if (list === undefined) tracesOf.set(tool, (list = []));
      list.push(i);
    }
  });
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
      const trace = traces[i]!;
      if (trace.success) successes[c]!++;
      else failures[c]!++;
      if (trace.timestamp > lastSeen[c]!) lastSeen[c] = trace.timestamp;
    }
  }
  return { successes, failures, lastSeen };
}
