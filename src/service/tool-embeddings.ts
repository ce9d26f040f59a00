/**
 * The embedding behind the service's `embedding` signal and trace novelty, and the tool vectors
 * the model is built with: a collaborator of the Toolgraph facade.
 *
 * The built-in hashed embedder computes on demand. A configured embedder is asynchronous (a
 * remote endpoint, a local model): queries are synchronous, so its vectors are fetched ahead
 * (prepare) and each arrival bumps `version`, the tool vectors' part of the model's version
 * vector (model-versions.ts). A stored snapshot's tool vectors are reused when they check out
 * against this embedder: at restore for the built-in one, at the first prefetch for another (a
 * few are embedded again; they must agree to ADOPTION_TOLERANCE).
 */
import type { StoredToolVectors } from '../graph/graph-codec.js';
import type { FitParts } from '../recommend/fit-thread.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import type { Embedder } from '../text/embedder.js';
import { createHashedEmbedder } from '../text/hashed-embedder.js';
import { checkedBatch, hashedTextEmbedding, prefetchingEmbedding, type PrefetchingEmbedding, type TextEmbedding } from '../text/text-embedding.js';
import { asPreviousBuild, checkedTexts, restoreToolVectors, storedVectorsByText, storedVectorsMatch, toolText, type PreviousToolVectors } from '../text/tool-vectors.js';

/**
 * How far a checked stored vector may be from the asynchronous embedder's vector of the same
 * text, per dimension of the unit vectors, for the stored ones to be adopted: a remote model
 * need not return bit-identical floats twice (batched differently, on other hardware), while a
 * changed model moves them by far more.
 */
const ADOPTION_TOLERANCE = 1e-5;

/** Intents embedded per request when a fit's query vectors are made. */
const QUERY_BATCH = 64;

const textOf = (t: ToolInfo): string => toolText(t.name, t.description, t.params);

export class ToolEmbeddings {
  /** Embeds traces for novelty; null: none. */
  readonly embedder: Embedder | null;
  /** The same embedder behind synchronous access, for the model; null: the signal is 0. */
  readonly embedding: TextEmbedding | PrefetchingEmbedding | null;
  private arrivals = 0;
  /** Restored tool vectors the next build reuses, once. */
  private pending: PreviousToolVectors | null = null;
  /** A snapshot's vectors an asynchronous embedder checks at its first prefetch. */
  private forAdoption: StoredToolVectors | null = null;

  /** `embedder`: absent for the built-in hashed one, null for none (ToolgraphOptions.embedder). */
  constructor(embedder: Embedder | null | undefined) {
    this.embedder = embedder === undefined ? createHashedEmbedder() : embedder;
    this.embedding = embedder === undefined ? hashedTextEmbedding() : embedder === null ? null : prefetchingEmbedding(embedder);
  }

  /** Counts the arrivals of tool vectors: a model planned before the last lacks some. */
  get version(): number {
    return this.arrivals;
  }

  /** The restored vectors for the next build, given once. */
  takePending(): PreviousToolVectors | null {
    const pending = this.pending;
    this.pending = null;
    return pending;
  }

  /**
   * A snapshot's tool vectors (or none): reused at the next build when this embedder's, else
   * kept, copied, to be checked at the first prefetch. Whether they were taken at once.
   */
  restore(vectors: StoredToolVectors | null): boolean {
    const embedding = this.embedding;
    this.pending = vectors !== null && embedding !== null ? restoreToolVectors(vectors, embedding) : null;
    // Copied, so that the snapshot's bytes (whose views the decoded caches are) need not stay in memory.
    this.forAdoption =
      vectors !== null && this.pending === null && embedding !== null && 'adoptTools' in embedding && vectors.embedding === embedding.name && vectors.dimensions === embedding.dimensions
        ? { ...vectors, rowStart: vectors.rowStart.slice(), rowDims: vectors.rowDims.slice(), rowValues: vectors.rowValues.slice() }
        : null;
    return this.pending !== null;
  }

  /**
   * With an asynchronous embedder, embeds the tool texts not embedded yet and the query texts,
   * so that synchronous queries find their vectors (a stored snapshot's are checked and adopted
   * first). A no-op with the built-in embedder. Rejects with the embedder's error; a failed
   * check leaves the stored vectors for the next call.
   */
  async prepare(tools: readonly ToolInfo[], queries: readonly string[]): Promise<void> {
    const embedding = this.embedding;
    if (embedding === null || !('prefetchTools' in embedding)) return;
    const stored = this.forAdoption;
    if (stored !== null) {
      await embedding.prefetchTools(checkedTexts(stored));
      if (this.forAdoption === stored) {
        this.forAdoption = null;
        if (storedVectorsMatch(stored, embedding, ADOPTION_TOLERANCE)) {
          embedding.adoptTools(storedVectorsByText(stored));
          this.pending = asPreviousBuild(stored);
          this.arrivals++;
        }
      }
    }
    const missing = tools.map(textOf).filter((t) => embedding.tool(t) === null);
    if (missing.length > 0) {
      await embedding.prefetchTools(missing);
      this.arrivals++;
    }
    if (queries.length > 0) await embedding.prefetchQueries(queries);
  }

  /**
   * The embedding part of a fit on a worker thread (fit-thread.ts): none, the built-in hashed
   * one (made again there), or, for another embedder, a table of its vectors of every tool text
   * and of every trace's intent, the intents gathered as the traces pass.
   */
  async forFit(tools: readonly ToolInfo[], traces: AsyncIterable<readonly Trace[]>): Promise<Pick<FitParts, 'traces' | 'embedding' | 'queries'>> {
    const embedder = this.embedder;
    const embedding = this.embedding;
    if (embedding === null || embedder === null) return { traces, embedding: { kind: 'none' } };
    if (!('prefetchTools' in embedding)) return { traces, embedding: { kind: 'hashed' } };
    const texts = tools.map(textOf);
    await embedding.prefetchTools(texts);
    const table = texts.flatMap((text) => {
      const v = embedding.tool(text);
      return v === null ? [] : [[text, v] as const];
    });
    const intents = new Set<string>();
    async function* noted(): AsyncIterable<readonly Trace[]> {
      for await (const page of traces) {
        for (const t of page) if (t.intent !== '') intents.add(t.intent);
        yield page;
      }
    }
    async function* queries(): AsyncIterable<readonly (readonly [string, Float32Array])[]> {
      const all = [...intents];
      for (let i = 0; i < all.length; i += QUERY_BATCH) {
        const batch = all.slice(i, i + QUERY_BATCH);
        const vectors = await checkedBatch(embedder!, batch);
        yield batch.map((text, j) => [text, vectors[j]!] as const);
      }
    }
    return { traces: noted(), embedding: { kind: 'table', name: embedding.name, dimensions: embedding.dimensions, tools: table, queries: [] }, queries };
  }
}
