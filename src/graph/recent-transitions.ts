/**
 * The successful transitions a TransitionGraph learned after a model's snapshot was taken, read at
 * query time beside the snapshot's CSR (features.ts): a trace counts in next-tool predictions from
 * the moment it is applied (in a durable service, before it is acknowledged), not from the next
 * model rebuild, which at 10,000 tools takes a quarter to half a second (docs/decisions/store/open-group-commit-visibility.md).
 *
 * Kept live: the first- and second-order success counts, what a trace adds to the transition
 * signals; a query reads one live count per edge changed since the snapshot. Everything else a
 * trace changes (the intent association and similar tasks, PageRank, communities, popularity,
 * the reliability of edges that failed) waits for the rebuild. A context tool newer than the
 * snapshot is read here alone: all its successes are recent; a successor newer than the
 * snapshot is ranked from its live counts alone (recommend/newer-tools.ts).
 *
 * Entries are noted with the graph version after their trace and forgotten once a model whose
 * snapshot has that version is installed, so the maps hold only what no installed model has.
 */
import type { Trace } from '../schema/types.js';
import { pairKey, type TransitionGraph } from './transition-graph.js';

/** Changed successors: target -> graph version of its latest success. */
type Changed = Map<number, number>;

export class RecentTransitions {
  /** a -> the successors of a that gained a success. */
  private readonly first = new Map<number, Changed>();
  /** pairKey(a, b) -> the successors of the context (a, b) that gained a success. */
  private readonly second = new Map<number, Changed>();
  /** What the last read found: targets[i] with its live success count success[i]. */
  targets = new Int32Array(16);
  success = new Float64Array(16);

  constructor(private readonly graph: TransitionGraph) {}

  /** Changed sources and contexts held (for tests and stats). */
  get size(): number {
    return this.first.size + this.second.size;
  }

  /** The live graph's index of a tool, which a snapshot older than the tool lacks. */
  liveIndex(name: string): number | undefined {
    return this.graph.indexOf(name);
  }

  /** The name of a tool by its live index. */
  nameOf(index: number): string {
    return this.graph.names[index]!;
  }

  /** Traces the live graph has learned from, those since the snapshot included. */
  get traces(): number {
    return this.graph.traces;
  }

  /** Tools the live graph knows (catalogue entries and traced tools), those since the snapshot included. */
  get tools(): number {
    return this.graph.toolCount;
  }

  /** Successful calls of a tool by its live index (a tool newer than the snapshot has none there). */
  callsOf(index: number): number {
    return this.graph.tool(index).calls;
  }

  /** Records what `trace`, just ingested into the graph, added to its success counts. */
  note(trace: Trace): void {
    if (!trace.success) return;
    const version = this.graph.version;
    const steps = trace.steps;
    let a = -1;
    let b = -1;
    for (let i = 0; i < steps.length; i++) {
      const c = this.graph.indexOf(steps[i]!.tool)!;
      // TransitionGraph.ingest counts a success on the edge into step i when that step succeeded.
      if (steps[i]!.ok) {
        if (b >= 0) changed(this.first, b, c, version);
        if (a >= 0) changed(this.second, pairKey(a, b), c, version);
      }
      a = b;
      b = c;
    }
  }

  /** A model whose snapshot has graph version `version` is installed: it holds what was noted up to it. */
  forget(version: number): void {
    forgetUpTo(this.first, version);
    forgetUpTo(this.second, version);
  }

  /**
   * The successors of `a` that gained a success after graph version `since`, with their live
   * success counts, into `targets` and `success`; returns how many.
   */
  firstOrder(a: number, since: number): number {
    const n = this.changedSince(this.first.get(a), since);
    for (let i = 0; i < n; i++) this.success[i] = this.graph.successOf(a, this.targets[i]!);
    return n;
  }

  /** The same for the successors of the context (a, b). */
  secondOrder(a: number, b: number, since: number): number {
    const n = this.changedSince(this.second.get(pairKey(a, b)), since);
    for (let i = 0; i < n; i++) this.success[i] = this.graph.secondOrderSuccessOf(a, b, this.targets[i]!);
    return n;
  }

  /**
   * The successors of `a` that gained a success since the installed model (those the model
   * holds already are forgotten at its install): a path search reads them beside the model's
   * CSR (path-confidence.ts, LiveSuccessors).
   */
  successorsOf(a: number): Iterable<number> | undefined {
    return this.first.get(a)?.keys();
  }

  /** Puts the successors changed after `since` into `targets`; returns how many. */
  private changedSince(successors: Changed | undefined, since: number): number {
    if (successors === undefined) return 0;
    let n = 0;
    for (const [c, version] of successors) {
      if (version <= since) continue;
      this.reserve(n + 1);
      this.targets[n++] = c;
    }
    return n;
  }

  private reserve(n: number): void {
    if (n <= this.targets.length) return;
    const targets = new Int32Array(2 * n);
    const success = new Float64Array(2 * n);
    targets.set(this.targets);
    success.set(this.success);
    this.targets = targets;
    this.success = success;
  }
}

function changed(map: Map<number, Changed>, key: number, target: number, version: number): void {
  let successors = map.get(key);
  if (successors === undefined) {
    successors = new Map();
    map.set(key, successors);
  }
  successors.set(target, version);
}

function forgetUpTo(map: Map<number, Changed>, version: number): void {
  for (const [key, successors] of map) {
    for (const [target, at] of successors) if (at <= version) successors.delete(target);
    if (successors.size === 0) map.delete(key);
  }
}
