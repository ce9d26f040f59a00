/**
 * A fit as plain data, for a thread that has nothing else of the service (fit-thread.ts): the
 * catalogue in its order, the traces, the fit's options, and the embedding the fitted model will
 * use, described rather than passed (a function cannot cross threads):
 *
 *  - `hashed`: the built-in hashed embedder, computed again on the thread (it is pure);
 *  - `table`: the vectors another embedder gave for the catalogue's tool texts and the traces'
 *    intents, read back by text (a text missing from it has no vector, as a query the
 *    prefetching embedding never saw);
 *  - `none`: no embedding signal.
 *
 * runFitJob is fitWeights on that data: the same weights, to the bit, as a fit on this thread.
 */
import type { ToolInfo, Trace } from '../schema/types.js';
import { hashedTextEmbedding, type TextEmbedding } from '../text/text-embedding.js';
import { fitWeights, type FitOptions, type FitReport } from './fit-weights.js';

/** Query vectors a fit's hashed embedding keeps: more than a fit's sampled intents. */
const FIT_QUERY_WINDOW = 100_000;

export type EmbeddingSpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'hashed' }
  | {
      readonly kind: 'table';
      readonly name: string;
      readonly dimensions: number;
      readonly tools: readonly (readonly [string, Float32Array])[];
      readonly queries: readonly (readonly [string, Float32Array])[];
    };

/** The options a fit takes that are plain data (the embedding travels as an EmbeddingSpec). */
export type FitJobOptions = Omit<FitOptions, 'embedding'>;

export interface FitJob {
  readonly catalog: readonly ToolInfo[];
  readonly traces: readonly Trace[];
  readonly options: FitJobOptions;
  readonly embedding: EmbeddingSpec;
}

/** The TextEmbedding an EmbeddingSpec describes. */
export function specEmbedding(spec: EmbeddingSpec): TextEmbedding | null {
  if (spec.kind === 'none') return null;
  // Every recorded intent's vector kept for the fit's life: each is asked of several fold models.
  if (spec.kind === 'hashed') return hashedTextEmbedding({}, FIT_QUERY_WINDOW);
  const tools = new Map(spec.tools);
  const queries = new Map(spec.queries);
  return {
    dimensions: spec.dimensions,
    name: spec.name,
    query: (text) => queries.get(text) ?? null,
    tool: (text) => tools.get(text) ?? null,
    retain: () => {},
  };
}

export function runFitJob(job: FitJob): FitReport {
  const catalog = new Map(job.catalog.map((tool) => [tool.name, tool]));
  return fitWeights(job.traces, catalog, { ...job.options, embedding: specEmbedding(job.embedding) });
}
