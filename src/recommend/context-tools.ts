/**
 * How a request's context tools (names, in call order) are read against a model: the tools the
 * model has, in order, and where the model lacks one, what the live graph knows of it
 * (recent-transitions.ts). Shared by next-tool prediction and search with context, so that both
 * read a context alike.
 */
import type { RecentTransitions } from '../graph/recent-transitions.js';
import type { QueryInput } from './features.js';
import type { RecommenderModel } from './model.js';

export interface ContextTools {
  /** The model's tools of the context, in call order. */
  readonly context: number[];
  /** Context tools neither the model nor the live graph has (a last tool the live graph has is read live). */
  readonly unknownContext: string[];
  /** QueryInput.liveLast and QueryInput.livePrev, when they apply. */
  readonly live: Pick<QueryInput, 'liveLast' | 'livePrev'>;
}

export function readContext(model: RecommenderModel, names: readonly string[], recent: RecentTransitions | undefined): ContextTools {
  const known = model.graph.indexByName;
  const context: number[] = [];
  const unknownContext: string[] = [];
  for (const name of names) {
    const index = known.get(name);
    if (index === undefined) unknownContext.push(name);
    else context.push(index);
  }
  const liveLast = newestLast(known, names, recent);
  if (liveLast !== undefined) {
    unknownContext.pop();
    return { context, unknownContext, live: { liveLast } };
  }
  const livePrev = gapBeforeLast(known, names, recent);
  return { context, unknownContext, live: livePrev !== undefined ? { livePrev } : {} };
}

/**
 * The context's last tool, when the model's snapshot does not have it yet and the live graph
 * does: its transitions (and those after the tool before it) are read live. Live indexes are the
 * snapshot's for the tools it has.
 */
function newestLast(known: ReadonlyMap<string, number>, names: readonly string[], recent: RecentTransitions | undefined): { tool: number; prev: number } | undefined {
  if (recent === undefined || names.length === 0) return undefined;
  const name = names[names.length - 1]!;
  if (known.has(name)) return undefined;
  const tool = recent.liveIndex(name);
  if (tool === undefined) return undefined;
  const prev = names.length >= 2 ? (recent.liveIndex(names[names.length - 2]!) ?? -1) : -1;
  return { tool, prev };
}

/**
 * When the tool called just before the last known context tool is not the model's: its live
 * index, or -1 when the live graph lacks it too (QueryInput.livePrev). Undefined when the two
 * are adjacent known tools, or there is no tool before. Without it, dropping the unknown tool
 * made its neighbours a second-order context they never were (a, x, b read as a, b).
 */
function gapBeforeLast(known: ReadonlyMap<string, number>, names: readonly string[], recent: RecentTransitions | undefined): number | undefined {
  let p = names.length - 1;
  while (p >= 0 && !known.has(names[p]!)) p--;
  if (p < 1 || known.has(names[p - 1]!)) return undefined;
  return recent?.liveIndex(names[p - 1]!) ?? -1;
}
