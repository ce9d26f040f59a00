/**
 * The boundary of trace value scoring: validates a trace and the scoring options once, so the
 * formulas behind it only ever see valid values.
 *
 * - The trace is validated as spec 000's ReasoningTrace (schema/trace.ts), with the scorer's name
 *   in the error. Already-parsed traces pass unchanged (parsing is idempotent).
 * - `embedder`: absent means the built-in hashed embedder; null means none (novelty 0.5).
 * - `cache`: the novelty memory; absent or null means an empty one (novelty 0.5). Its dimensions
 *   must equal the embedder's.
 * - `weights`: explicit weights replace the domain profile (spec 001); they must sum to 1.
 *
 * O(size of the trace) for validation.
 */
import { ToolgraphError } from '../schema/errors.js';
import { parseWith } from '../schema/issues.js';
import { assertJsonDepth } from '../schema/json.js';
import { reasoningTraceSchema, type ReasoningTrace } from '../schema/trace.js';
import { assertEmbedder, type Embedder } from '../text/embedder.js';
import { createHashedEmbedder } from '../text/hashed-embedder.js';
import { VectorCache } from './vector-cache.js';
import { parseScoringWeights, valueWeightsFor, type ScoringWeights, type ValueProfileName } from './value-weights.js';

export interface EvaluateValueOptions {
  /** Embeds the novelty text. Default: the built-in hashed embedder; null: none, novelty 0.5. */
  readonly embedder?: Embedder | null;
  /** Vectors of the traces contributed so far. Default: none, novelty 0.5. Never written here. */
  readonly cache?: VectorCache | null;
  /** Replaces the domain's weight profile (profile 'custom' in the breakdown). */
  readonly weights?: ScoringWeights;
}

export interface ResolvedValueInput {
  readonly trace: ReasoningTrace;
  readonly embedder: Embedder | null;
  readonly cache: VectorCache | null;
  readonly profile: ValueProfileName | 'custom';
  readonly weights: ScoringWeights;
}

/**
 * The default embedder. Module-level but immutable and stateless (frozen, options fixed), so
 * sharing it across callers shares no state.
 */
const BUILT_IN_EMBEDDER: Embedder = Object.freeze(createHashedEmbedder());

export function resolveValueInput(input: unknown, options: EvaluateValueOptions, caller: string): ResolvedValueInput {
  if (typeof options !== 'object' || options === null) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected options to be an object`);
  }
  const embedder = options.embedder === undefined ? BUILT_IN_EMBEDDER : options.embedder;
  if (embedder !== null) assertEmbedder(embedder, caller);
  const cache = options.cache ?? null;
  if (cache !== null && !(cache instanceof VectorCache)) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected cache to be a VectorCache`);
  }
  if (embedder !== null && cache !== null && embedder.dimensions !== cache.dimensions) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${caller}: expected the embedder and the cache to have the same dimensions, got ${embedder.dimensions} and ${cache.dimensions}`,
    );
  }
  assertJsonDepth(input, caller);
  const trace = parseWith(reasoningTraceSchema, input, caller);
  if (options.weights !== undefined) {
    return { trace, embedder, cache, profile: 'custom', weights: parseScoringWeights(options.weights, `${caller}: weights`) };
  }
  const chosen = valueWeightsFor(trace.metadata.task_domain);
  return { trace, embedder, cache, profile: chosen.profile, weights: chosen.weights };
}
