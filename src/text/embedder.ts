/**
 * The embedder contract: texts in, one fixed-length Float32Array per text out.
 *
 * Implementations: the built-in hashed embedder (hashed-embedder.ts, zero set-up, deterministic)
 * and optional model-backed ones configured by the caller. Vectors need not be normalised: every
 * consumer compares them by cosine.
 *
 * embedOne wraps a single call and checks what came back, because an embedder is caller-supplied
 * configuration: a wrong vector count, a wrong length or a NaN would otherwise surface far away as
 * a silently wrong similarity. O(dimensions) on top of the embedder's own cost.
 */
import { ToolgraphError } from '../schema/errors.js';

export interface Embedder {
  /** Length of every vector `embed` returns: a positive integer. */
  readonly dimensions: number;
  /** A short stable label (`hashed-384`), shown in score breakdowns; optional. */
  readonly name?: string;
  /** One vector per text, in order. May reject; its error reaches the caller unchanged. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Throws INVALID_INPUT naming `caller` unless `value` looks like an Embedder. */
export function assertEmbedder(value: unknown, caller: string): asserts value is Embedder {
  const candidate = value as Partial<Embedder> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.embed !== 'function' ||
    !Number.isSafeInteger(candidate.dimensions) ||
    (candidate.dimensions as number) <= 0
  ) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${caller}: expected embedder to have a positive integer dimensions and an embed(texts) function`,
    );
  }
}

/**
 * Embeds one text and checks the result: exactly one Float32Array of `embedder.dimensions`
 * finite values. Throws INVALID_INPUT naming `caller` otherwise.
 */
export async function embedOne(embedder: Embedder, text: string, caller: string): Promise<Float32Array> {
  const vectors: unknown = await embedder.embed([text]);
  if (!Array.isArray(vectors) || vectors.length !== 1) {
    const got = Array.isArray(vectors) ? `${vectors.length} vectors` : 'a non-array';
    throw new ToolgraphError('INVALID_INPUT', `${caller}: expected the embedder to return 1 vector for 1 text, got ${got}`);
  }
  const vector: unknown = vectors[0];
  if (!(vector instanceof Float32Array) || vector.length !== embedder.dimensions) {
    const got = vector instanceof Float32Array ? `length ${vector.length}` : 'not a Float32Array';
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${caller}: expected the embedder to return a Float32Array of length ${embedder.dimensions}, got ${got}`,
    );
  }
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) {
      throw new ToolgraphError('INVALID_INPUT', `${caller}: the embedder returned a non-finite value at index ${i}`);
    }
  }
  return vector;
}
