/**
 * A store with no trace and no catalogue entry knows no tool at all: predictNext, searchTools
 * and suggestDag then answer `kind: 'empty'` with EMPTY_HINT, not "nothing matched", which would
 * blame the request for what the store lacks. The live graph counts (a tool ingested or
 * registered since the model was built is known at once, as everywhere else).
 */
import type { RecentTransitions } from '../graph/recent-transitions.js';
import type { RecommenderModel } from './model.js';

/** What every face says of an empty store, and how to fill it from each. */
export const EMPTY_HINT =
  'the store is empty: it has no trace and no tool catalogue yet; record traces (`toolgraph ingest FILE`, POST /v1/traces, ingest()) or import a catalogue (`toolgraph tools import FILE`, PUT /v1/tools, setTools())';

/** Whether neither the model nor the live graph (with `recent`) knows any tool. */
export function isEmptyStore(model: RecommenderModel, recent?: RecentTransitions): boolean {
  return (recent?.tools ?? model.graph.n) === 0;
}
