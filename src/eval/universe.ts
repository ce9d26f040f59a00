/**
 * The tool universe of one evaluation split: catalogue tools in catalogue order, then tools
 * first seen in training workflows in order of appearance. This is exactly the index order a
 * TransitionGraph gets when the catalogue is registered before the traces are ingested, so every
 * method ranks the same candidates with the same indices. Test-only unknown tools are outside
 * it and can never be hit.
 */
import type { ToolInfo } from '../schema/types.js';
import type { WorkflowRecord } from '../schema/trace.js';

export interface Universe {
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly catalog: ReadonlyMap<string, ToolInfo>;
}

export function buildUniverse(tools: readonly ToolInfo[], train: readonly WorkflowRecord[]): Universe {
  const names: string[] = [];
  const index = new Map<string, number>();
  const catalog = new Map<string, ToolInfo>();
  const add = (name: string): void => {
    if (index.has(name)) return;
    index.set(name, names.length);
    names.push(name);
  };
  for (const tool of tools) {
    catalog.set(tool.name, tool);
    add(tool.name);
  }
  for (const w of train) for (const name of w.tools) add(name);
  return { names, index, catalog };
}

/** Indices of names, -1 for names outside the universe. */
export function indicesOf(universe: Universe, names: readonly string[]): number[] {
  return names.map((name) => universe.index.get(name) ?? -1);
}
