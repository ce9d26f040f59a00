/**
 * Outcomes of each capability in the recorded traces: a trace ran capability c when it called
 * every tool of c (containment; order is not required, since a registered set has none and a
 * sequence interleaved with other calls still ran). It counts as a success or a failure by the
 * trace's outcome, so a capability whose tools keep appearing in failed tasks loses reliability.
 *
 * Inverted index: for each capability only the traces that call its rarest tool are checked.
 * O(sum over traces of L) to index (once per trace with TraceToolSets), O(sum over c of
 * |traces(rarest tool of c)| * |c| * L) to count.
 */
import { grown } from '../graph/typed-arrays.js';
import type { Trace } from '../schema/types.js';

export interface CapabilityOutcomes {
  readonly successes: Int32Array;
  readonly failures: Int32Array;
  /** Latest timestamp of a trace that ran each capability; 0 when none did. */
  readonly lastSeen: Float64Array;
}

export function capabilityOutcomes(capabilities: readonly { readonly tools: readonly string[] }[], traces: readonly Trace[]): CapabilityOutcomes {
  return new TraceToolSets().add(traces).outcomes(capabilities);
}

/** A capability's outcomes in the traces read so far. */
interface Counted {
  /** The capability's tool list these counts are of. */
  readonly tools: readonly string[];
  readonly wanted: readonly number[];
  /** The tool whose postings are read, -1 while a tool has no trace. */
  readonly via: number;
  /** Postings of `via` read so far. */
  read: number;
  successes: number;
  failures: number;
  lastSeen: number;
}

/**
 * The index behind capabilityOutcomes, kept across model rebuilds: traces are only ever
 * appended, so each rebuild indexes the new ones instead of every trace again (a Set per trace
 * and a map by name, 2.3 s of 19 s of rebuilds at 50,000 traces). Per trace it keeps its
 * distinct tools as interned ids in one flat array, its outcome and time: about 12 bytes per
 * distinct tool and 13 per trace.
 */
export class TraceToolSets {
  private readonly ids = new Map<string, number>();
  /** Traces calling each tool id, ascending. */
  private readonly postings: number[][] = [];
  /** Distinct tool ids of trace i: tools[start[i] .. start[i+1]). */
  private start = new Int32Array(1025);
  private tools = new Int32Array(4096);
  private success = new Uint8Array(1024);
  private timestamp = new Float64Array(1024);
  private mark = new Int32Array(0);
  /** Each capability's outcomes so far, by the capability object (outcomes). */
  private readonly counted = new WeakMap<object, Counted>();
  /** Traces indexed so far. */
  size = 0;

  /** Indexes `traces[from ..]`; by default the ones past those already indexed (one growing list). */
  add(traces: readonly Trace[], from = this.size): this {
    for (let i = from; i < traces.length; i++) this.addOne(traces[i]!);
    return this;
  }

  private addOne(trace: Trace): void {
    const i = this.size;
    if (i + 1 >= this.start.length) {
      this.start = grown(this.start, this.start.length * 2);
      this.success = grown(this.success, this.start.length);
      this.timestamp = grown(this.timestamp, this.start.length);
    }
    let end = this.start[i]!;
    for (const step of trace.steps) {
      let id = this.ids.get(step.tool);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(step.tool, id);
        this.postings.push([]);
        if (id >= this.mark.length) this.mark = grown(this.mark, Math.max(64, this.mark.length * 2), -1);
      }
      if (this.mark[id] === i) continue;
      this.mark[id] = i;
      if (end >= this.tools.length) this.tools = grown(this.tools, this.tools.length * 2);
      this.tools[end++] = id;
      this.postings[id]!.push(i);
    }
    this.start[i + 1] = end;
    this.success[i] = trace.success ? 1 : 0;
    this.timestamp[i] = trace.timestamp;
    this.size = i + 1;
  }

  /**
   * Outcomes of each capability over the indexed traces (see capabilityOutcomes). A capability
   * object is read as immutable: its counts are kept (by the object) and the next call only
   * reads the traces indexed since, so a model rebuild pays for the new traces, not for every
   * trace of every capability again (at 50,000 traces and some 17,000 learned capabilities,
   * 15-17 ms of each rebuild). A capability with a tool no trace has called yet is counted
   * again once one has.
   */
  outcomes(capabilities: readonly { readonly tools: readonly string[] }[]): CapabilityOutcomes {
    const n = capabilities.length;
    const successes = new Int32Array(n);
    const failures = new Int32Array(n);
    const lastSeen = new Float64Array(n);
    for (let c = 0; c < n; c++) {
      const capability = capabilities[c]!;
      if (capability.tools.length === 0) continue;
      let counted = this.counted.get(capability);
      if (counted === undefined || counted.tools !== capability.tools || counted.via < 0) {
        counted = this.startCount(capability.tools);
        this.counted.set(capability, counted);
      }
      if (counted.via >= 0) {
        const list = this.postings[counted.via]!;
        for (let p = counted.read; p < list.length; p++) {
          const i = list[p]!;
          if (!this.holdsAll(i, counted.wanted)) continue;
          if (this.success[i] === 1) counted.successes++;
          else counted.failures++;
          if (this.timestamp[i]! > counted.lastSeen) counted.lastSeen = this.timestamp[i]!;
        }
        counted.read = list.length;
      }
      successes[c] = counted.successes;
      failures[c] = counted.failures;
      lastSeen[c] = counted.lastSeen;
    }
    return { successes, failures, lastSeen };
  }

  /**
   * A count of `tools` from the first trace: read through the postings of its rarest tool, which
   * every trace that ran it called; `via` -1 while some tool has no trace (it ran nowhere).
   */
  private startCount(tools: readonly string[]): Counted {
    const wanted: number[] = [];
    let via = -1;
    for (const name of tools) {
      const id = this.ids.get(name);
      if (id === undefined) return { tools, wanted, via: -1, read: 0, successes: 0, failures: 0, lastSeen: 0 };
      if (via < 0 || this.postings[id]!.length < this.postings[via]!.length) via = id;
      wanted.push(id);
    }
    return { tools, wanted, via, read: 0, successes: 0, failures: 0, lastSeen: 0 };
  }

  private holdsAll(trace: number, ids: readonly number[]): boolean {
    const from = this.start[trace]!;
    const to = this.start[trace + 1]!;
    for (const id of ids) {
      let found = false;
      for (let p = from; p < to && !found; p++) found = this.tools[p] === id;
      if (!found) return false;
    }
    return true;
  }
}
