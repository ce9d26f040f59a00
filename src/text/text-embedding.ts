/**
 * Synchronous access to vectors for the recommender's hot path, over any Embedder.
 *
 * Query scoring is synchronous (one snapshot, scratch buffers, no await between reading and
 * resetting them), while an Embedder is asynchronous (a remote endpoint, a model). This bridges
 * the two: `prefetch(texts)` embeds what is missing and keeps it; `vector(text)` then answers
 * from memory, or null when the text was never prefetched (the embedding signal is then simply
 * absent for that query). The built-in hashed embedder needs no prefetch: it is pure computation,
 * so `hashedTextEmbedding` computes on demand.
 *
 * Tool vectors are kept per text, so a rebuild after ingestion (same catalogue) costs map
 * lookups, not embeddings: vectors are computed once per catalogue change. Query vectors are
 * kept in a small first-in-first-out window, enough for the prefetch-then-score of one request
 * and for repeated queries, without growing with traffic.
 */
import { embedOne, type Embedder } from './embedder.js';
import { hashedEmbedding, type HashedEmbedderOptions } from './hashed-embedder.js';

export interface TextEmbedding {
  readonly dimensions: number;
  /** A label for breakdowns and logs (`hashed-384`). */
  readonly name: string;
  /** The vector of a query text, or null when it is not available synchronously. */
  query(text: string): Float32Array | null;
  /** The vector of a tool's text, kept until `retain` drops it. Null when not available. */
  tool(text: string): Float32Array | null;
  /** Forgets tool vectors whose text is not in `texts` (the current catalogue). */
  retain(texts: Iterable<string>): void;
}

const QUERY_WINDOW = 256;

/** Tool vectors by text, plus a bounded window of query vectors. */
class VectorMemory {
  readonly tools = new Map<string, Float32Array>();
  readonly queries = new Map<string, Float32Array>();

  constructor(private readonly window = QUERY_WINDOW) {}

  rememberQuery(text: string, vector: Float32Array): void {
    if (this.queries.size >= this.window) this.queries.delete(this.queries.keys().next().value!);
    this.queries.set(text, vector);
  }

  retain(texts: Iterable<string>): void {
    const keep = new Set(texts);
    for (const text of this.tools.keys()) if (!keep.has(text)) this.tools.delete(text);
  }
}

/**
 * The built-in hashed embedder, computed on demand (microseconds per text). `queryWindow`: query
 * vectors kept (default QUERY_WINDOW); a fit, which asks each recorded intent of several fold
 * models, keeps them all.
 */
export function hashedTextEmbedding(options: HashedEmbedderOptions = {}, queryWindow = QUERY_WINDOW): TextEmbedding {
  const memory = new VectorMemory(queryWindow);
  const probe = hashedEmbedding('', options);
  return {
    dimensions: probe.length,
    name: `hashed-${probe.length}`,
    query(text) {
      let v = memory.queries.get(text);
      if (v === undefined) memory.rememberQuery(text, (v = hashedEmbedding(text, options)));
      return v;
    },
    tool(text) {
      let v = memory.tools.get(text);
      if (v === undefined) memory.tools.set(text, (v = hashedEmbedding(text, options)));
      return v;
    },
    retain: (texts) => memory.retain(texts),
  };
}

export interface PrefetchingEmbedding extends TextEmbedding {
  /** Embeds the query texts not yet in memory (one batched call). */
  prefetchQueries(texts: readonly string[]): Promise<void>;
  /** Embeds the tool texts not yet in memory (batched calls). */
  prefetchTools(texts: readonly string[]): Promise<void>;
  /**
   * Takes vectors computed earlier as the tool vectors of their texts, without asking the
   * embedder: a stored snapshot's, once the caller has checked that they are this embedder's
   * (tool-vectors.ts, storedVectorsMatch). Texts already in memory keep theirs.
   */
  adoptTools(vectors: Iterable<readonly [string, Float32Array]>): void;
}

/** Any Embedder behind the synchronous interface; errors of the embedder reach the prefetch caller. */
export function prefetchingEmbedding(embedder: Embedder, batch = 64): PrefetchingEmbedding {
  const memory = new VectorMemory();
  // Texts being embedded, by the batch that embeds them: concurrent prefetches (the first
  // requests after a start all find the catalogue missing) wait for a text already asked for
  // instead of asking the embedder again, so each text is embedded once however many ask.
  const toolsInFlight = new Map<string, Promise<void>>();
  const queriesInFlight = new Map<string, Promise<void>>();
  const fetch = async (
    texts: readonly string[],
    keep: (text: string, v: Float32Array) => void,
    has: (t: string) => boolean,
    inFlight: Map<string, Promise<void>>,
  ): Promise<void> => {
    const waits = new Set<Promise<void>>();
    const missing: string[] = [];
    for (const t of new Set(texts)) {
      if (has(t)) continue;
      const pending = inFlight.get(t);
      if (pending !== undefined) waits.add(pending);
      else missing.push(t);
    }
    // One batch after another, each registered before any is awaited; a failed batch fails the
    // ones after it too, and every caller waiting on them hears why.
    let previous: Promise<void> = Promise.resolve();
    for (let i = 0; i < missing.length; i += batch) {
      const chunk = missing.slice(i, i + batch);
      const done = previous.then(async () => {
        // embedOne checks length and finiteness; a batch call is checked the same way per vector.
        const vectors = chunk.length === 1 ? [await embedOne(embedder, chunk[0]!, 'embedding')] : await checkedBatch(embedder, chunk);
        chunk.forEach((text, j) => keep(text, vectors[j]!));
      });
      for (const t of chunk) inFlight.set(t, done);
      const settled = (): void => {
        for (const t of chunk) if (inFlight.get(t) === done) inFlight.delete(t);
      };
      void done.then(settled, settled);
      waits.add(done);
      previous = done;
    }
    await Promise.all(waits);
  };
  return {
    dimensions: embedder.dimensions,
    name: embedder.name ?? `embedder-${embedder.dimensions}`,
    query: (text) => memory.queries.get(text) ?? null,
    tool: (text) => memory.tools.get(text) ?? null,
    retain: (texts) => memory.retain(texts),
    prefetchQueries: (texts) => fetch(texts, (t, v) => memory.rememberQuery(t, v), (t) => memory.queries.has(t), queriesInFlight),
    prefetchTools: (texts) => fetch(texts, (t, v) => memory.tools.set(t, v), (t) => memory.tools.has(t), toolsInFlight),
    adoptTools(vectors) {
      for (const [text, v] of vectors) if (!memory.tools.has(text)) memory.tools.set(text, v);
    },
  };
}

/** The embedder's vectors of `texts`, each checked (length, finite values) as embedOne checks one. */
export async function checkedBatch(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const vectors: unknown = await embedder.embed(texts);
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    // Re-run one by one: embedOne names exactly what is wrong.
    return Promise.all(texts.map((t) => embedOne(embedder, t, 'embedding')));
  }
  for (const v of vectors) {
    if (!(v instanceof Float32Array) || v.length !== embedder.dimensions || v.some((x) => !Number.isFinite(x))) {
      return Promise.all(texts.map((t) => embedOne(embedder, t, 'embedding')));
    }
  }
  return vectors as Float32Array[];
}
