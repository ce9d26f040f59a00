/**
 * Capabilities in a suggested DAG: a run of consecutive steps whose tools are exactly a known
 * capability's tools (as a multiset) becomes one capability node, so a workflow reads in the
 * units people registered or toolgraph learned; asked to expand, the DAG keeps the tools.
 *
 * Runs are found left to right in the steps' topological order, the longest match first (then
 * the more reliable capability); a capability credibly failing is never used. Contracting a run
 * of consecutive steps of a topological order cannot create a cycle: every edge into the run
 * comes from before it and every edge out of it goes after it. Edges between the same two units
 * merge, keeping the highest confidence. O(steps x capabilities x run length).
 */
import type { CapabilityModel } from '../capability-model.js';
import type { WeightedEdge } from './acyclic.js';

export interface Unit {
  /** Indexes of the steps this unit stands for, in order (one for a tool). */
  readonly steps: readonly number[];
  /** Capability index in the model, or -1 for a single tool. */
  readonly capability: number;
}

function sameMultiset(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  return x.every((v, i) => v === y[i]);
}

export function capabilityUnits(tools: readonly number[], model: CapabilityModel | null | undefined): Unit[] {
  const units: Unit[] = [];
  for (let i = 0; i < tools.length; ) {
    let best = -1;
    let bestLength = 1;
    if (model != null) {
      for (let c = 0; c < model.capabilities.length; c++) {
        const members = model.members[c]!;
        const length = members.length;
        if (length < 2 || i + length > tools.length || model.excluded[c] === 1) continue;
        if (length < bestLength || (length === bestLength && best >= 0 && model.reliability[c]! <= model.reliability[best]!)) continue;
        if (sameMultiset(tools.slice(i, i + length), members)) {
          best = c;
          bestLength = length;
        }
      }
    }
    const steps = Array.from({ length: bestLength }, (_, k) => i + k);
    units.push({ steps, capability: best });
    i += bestLength;
  }
  return units;
}

/** Edges between units: each step edge mapped to its units, internal ones dropped, duplicates merged. */
export function unitEdges<E extends WeightedEdge>(units: readonly Unit[], edges: readonly E[], steps: number): E[] {
  const unitOf = new Int32Array(steps);
  units.forEach((u, k) => u.steps.forEach((s) => (unitOf[s] = k)));
  const merged = new Map<string, E>();
  for (const e of edges) {
    const from = unitOf[e.from]!;
    const to = unitOf[e.to]!;
    if (from === to) continue;
    const key = `${from} ${to}`;
    const seen = merged.get(key);
    if (seen === undefined || e.confidence > seen.confidence) merged.set(key, { ...e, from, to });
  }
  return [...merged.values()];
}
