/**
 * The outputs each of a model's tools declares (data-flow.ts outputKeys), and the tools by
 * output: read by the look-ups a workflow's steps need, the order of its steps and their data-flow
 * dependencies, normalised once per model, not per request.
 */
import type { RecommenderModel } from '../model.js';
import { outputIndex, outputKeys } from './data-flow.js';

export interface DeclaredOutputs {
  /** outputKeys of each of the model's tools. */
  readonly outputs: readonly (readonly string[])[];
  /** The tools by output (outputIndex). */
  readonly index: ReadonlyMap<string, readonly number[]>;
}

/** Per model: every step's data flow and look-ups read these, normalised once, not per request. */
const outputsCache = new WeakMap<RecommenderModel, DeclaredOutputs>();

export function declaredOutputs(model: RecommenderModel): DeclaredOutputs {
  let declared = outputsCache.get(model);
  if (declared === undefined) {
    const outputs = model.graph.names.map((name) => outputKeys(model.catalog.get(name)));
    outputsCache.set(model, (declared = { outputs, index: outputIndex(outputs) }));
  }
  return declared;
}
