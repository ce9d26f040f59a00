/**
 * One way to choose an embedder from configuration, shared by the CLI and the servers:
 *
 *   hashed                         the built-in hashed embedder (384 dimensions), the default
 *   none                           no embedder: novelty is neutral (0.5)
 *   transformers:/path/to/model    a local ONNX model run by @huggingface/transformers (optional)
 *   openai:http://host:port/v1     an OpenAI-compatible POST {URL}/embeddings endpoint
 *
 * The spec comes from the caller (a `--embedder` option) or else TOOLGRAPH_EMBEDDER. The openai
 * form reads the rest from the environment: TOOLGRAPH_EMBEDDINGS_MODEL (required),
 * TOOLGRAPH_EMBEDDINGS_KEY (optional Bearer key), TOOLGRAPH_EMBEDDINGS_DIMENSIONS (optional; when
 * unset, one probe request measures it). A key is never accepted in the spec itself, so it does
 * not end up in shell history or process listings.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { Embedder } from './embedder.js';
import { createHashedEmbedder } from './hashed-embedder.js';
import { createOpenAIEmbedder, detectOpenAIDimensions } from './openai-embedder.js';
import { createTransformersEmbedder } from './transformers-embedder.js';

export type EmbedderSpec =
  | { readonly kind: 'hashed' }
  | { readonly kind: 'none' }
  | { readonly kind: 'transformers'; readonly modelPath: string }
  | { readonly kind: 'openai'; readonly baseUrl: string };

export const EMBEDDER_SPEC_FORMS = "'hashed', 'none', 'transformers:/path/to/model' or 'openai:http://host:port/v1'";

/** The environment variables read here, and the spec used when neither is set. */
export const EMBEDDER_ENV = {
  spec: 'TOOLGRAPH_EMBEDDER',
  key: 'TOOLGRAPH_EMBEDDINGS_KEY',
  model: 'TOOLGRAPH_EMBEDDINGS_MODEL',
  dimensions: 'TOOLGRAPH_EMBEDDINGS_DIMENSIONS',
} as const;
export const DEFAULT_EMBEDDER_SPEC = 'hashed';

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `embedder: ${message}`);
}

/** Parses one spec string; throws INVALID_INPUT naming the accepted forms. Pure: reads no env. */
export function parseEmbedderSpec(spec: string): EmbedderSpec {
  if (typeof spec !== 'string') throw invalid(`expected ${EMBEDDER_SPEC_FORMS}, got ${typeof spec}`);
  const text = spec.trim();
  if (text === 'hashed') return { kind: 'hashed' };
  if (text === 'none') return { kind: 'none' };
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (kind === 'transformers') {
    if (rest === '') throw invalid("expected 'transformers:' followed by the model folder, e.g. 'transformers:./models/all-MiniLM-L6-v2'");
    return { kind: 'transformers', modelPath: rest };
  }
  if (kind === 'openai') {
    const url = URL.canParse(rest) ? new URL(rest) : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw invalid(`expected 'openai:' followed by an http(s) base URL, e.g. 'openai:http://127.0.0.1:8080/v1', got '${rest}'`);
    }
    if (url.username !== '' || url.password !== '') {
      throw invalid(`put the key in ${EMBEDDER_ENV.key}, not in the URL`);
    }
    return { kind: 'openai', baseUrl: rest };
  }
  throw invalid(`expected ${EMBEDDER_SPEC_FORMS}, got '${text}'`);
}

type Env = Readonly<Record<string, string | undefined>>;

function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The embedder that `spec` (else env TOOLGRAPH_EMBEDDER, else 'hashed') names, ready to use, or
 * null for 'none'. Everything that can be checked before the first text is checked here: the
 * transformers model folder, package and model load; the openai model name, and the dimensions
 * (probed when not given). Rejects with INVALID_INPUT for a bad spec or environment, and with the
 * embedder's own errors (NOT_FOUND for a missing model folder, EMBEDDER_FAILED otherwise).
 */
export async function createEmbedder(spec?: string, env: Env = process.env): Promise<Embedder | null> {
  const parsed = parseEmbedderSpec(spec ?? envValue(env, EMBEDDER_ENV.spec) ?? DEFAULT_EMBEDDER_SPEC);
  switch (parsed.kind) {
    case 'hashed':
      return createHashedEmbedder();
    case 'none':
      return null;
    case 'transformers':
      return createTransformersEmbedder({ modelPath: parsed.modelPath });
    case 'openai': {
      const model = envValue(env, EMBEDDER_ENV.model);
      if (model === undefined) {
        throw invalid(`the openai embedder needs the model name in ${EMBEDDER_ENV.model} (e.g. text-embedding-3-small)`);
      }
      const apiKey = envValue(env, EMBEDDER_ENV.key);
      const rawDimensions = envValue(env, EMBEDDER_ENV.dimensions);
      const dimensions = rawDimensions === undefined ? undefined : Number(rawDimensions);
      if (dimensions !== undefined && !(Number.isSafeInteger(dimensions) && dimensions > 0)) {
        throw invalid(`expected ${EMBEDDER_ENV.dimensions} to be a positive integer, got '${rawDimensions}'`);
      }
      const base = { baseUrl: parsed.baseUrl, model, ...(apiKey === undefined ? {} : { apiKey }) };
      return createOpenAIEmbedder({ ...base, dimensions: dimensions ?? (await detectOpenAIDimensions(base)) });
    }
  }
}
