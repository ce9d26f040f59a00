/**
 * What a model was built from, as one vector of versions, and which of its parts are stale.
 *
 * A model is built from the graph (its version moves with every trace), the weights in force,
 * the catalogue (a tool described anew changes no graph version, but the model's text and data
 * flow must follow), the registered capabilities, the capability learning's state (complete, or
 * without learned capabilities while a durable open backfills older traces), the tool vectors an
 * asynchronous embedder delivers, and the graph signals (communities restored from a snapshot of
 * another graph version are a stand-in until Louvain runs again). The service keeps the vector of
 * what it has now; a build records the vector it was planned with; the model is stale in the
 * parts where the two differ. Pure.
 */
import { MODEL_PARTS, type ModelPart } from '../schema/service-requests.js';

export type { ModelPart } from '../schema/service-requests.js';

export interface VersionVector {
  readonly graph: number;
  readonly weights: number;
  readonly catalog: number;
  readonly capabilities: number;
  readonly toolVectors: number;
  /** Capability learning was complete (no backfill under way). */
  readonly learningComplete: boolean;
  /** The graph signals were computed for this graph (not restored from another version). */
  readonly signals: boolean;
}

/** The parts of a model built at `built` that `now` has moved past; every part without a model. */
export function staleParts(built: VersionVector | null, now: VersionVector): ModelPart[] {
  if (built === null) return [...MODEL_PARTS];
  const parts: ModelPart[] = [];
  if (built.graph !== now.graph) parts.push('graph');
  if (built.weights !== now.weights) parts.push('weights');
  if (built.catalog !== now.catalog) parts.push('catalog');
  if (built.capabilities !== now.capabilities) parts.push('capabilities');
  if (built.toolVectors !== now.toolVectors) parts.push('toolVectors');
  if (built.learningComplete !== now.learningComplete) parts.push('learning');
  if (!built.signals) parts.push('signals');
  return parts;
}

/** Whether a model built at `built` holds every catalogue entry and capability `asked` had. */
export function holdsWrites(built: VersionVector | null, asked: Pick<VersionVector, 'catalog' | 'capabilities'>): boolean {
  return built !== null && built.catalog >= asked.catalog && built.capabilities >= asked.capabilities;
}
