/**
 * An embedder over an OpenAI-compatible embeddings endpoint (OpenAI itself, or a local server such
 * as llama.cpp, vLLM, Ollama or text-embeddings-inference speaking the same protocol):
 *
 *   POST {baseUrl}/embeddings   Authorization: Bearer {apiKey}   (header sent only with a key)
 *   request  {"model": model, "input": [text, ...]}
 *   response {"data": [{"index": i, "embedding": [number, ...]}, ...], ...}
 *
 * Texts are sent in batches of at most `batchSize`, one request after the other, and each answer
 * is put back in order by its `index` (the protocol does not promise the order of `data`). A
 * blank text is never sent: OpenAI rejects empty input, and the built-in embedder maps it to the
 * zero vector too, so it is the zero vector here (cosine 0 to everything). Texts are cut to
 * `maxChars` code units so one long trace cannot exceed the model's context and fail the batch.
 *
 * Every failure is a ToolgraphError EMBEDDER_FAILED naming the endpoint (never the key): timeout,
 * connection refused, unknown host, non-2xx (status and a bounded excerpt of the body; 401 says
 * the key was rejected), malformed JSON, a response of the wrong shape (checked with zod), a wrong
 * number of vectors, a vector of the wrong length, a value that is not finite in float32.
 *
 * Cost: ceil(n / batchSize) sequential requests; O(n * dimensions) to check and copy the answer.
 */
import { z } from 'zod';
import { ToolgraphError } from '../schema/errors.js';
import { flattenError, formatPath, parseWith } from '../schema/issues.js';
import type { Embedder } from './embedder.js';

export interface OpenAIEmbedderOptions {
  /** Base URL, http or https, up to the version segment: `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The model name sent in every request (`text-embedding-3-small`, `nomic-embed-text`, ...). */
  readonly model: string;
  /** Length of the vectors the model returns; every answer is checked against it. */
  readonly dimensions: number;
  /** Sent as `Authorization: Bearer <apiKey>` when given; omitted for servers without auth. */
  readonly apiKey?: string;
  /** Limit per request in ms, headers and body included. Default 30,000. */
  readonly timeoutMs?: number;
  /** Texts per request, 1 .. 2048 (OpenAI's limit). Default 64. */
  readonly batchSize?: number;
  /** Code units of each text sent. Default 8192 (about 2,000 tokens of English). */
  readonly maxChars?: number;
}

export const OPENAI_EMBEDDER_DEFAULTS = { timeoutMs: 30_000, batchSize: 64, maxChars: 8192 } as const;

/** Characters of a failed response's body quoted in the error message. */
const EXCERPT_CHARS = 200;
const CALLER = 'openaiEmbedder';

const OptionsSchema = z.strictObject({
  baseUrl: z
    .string()
    .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'expected an http or https URL'),
  model: z.string().min(1),
  dimensions: z.number().int().min(1).max(65_536),
  apiKey: z.string().min(1).optional(),
  timeoutMs: z.number().int().min(1).max(3_600_000).default(OPENAI_EMBEDDER_DEFAULTS.timeoutMs),
  batchSize: z.number().int().min(1).max(2048).default(OPENAI_EMBEDDER_DEFAULTS.batchSize),
  maxChars: z.number().int().min(1).default(OPENAI_EMBEDDER_DEFAULTS.maxChars),
});

/** Options after defaults; dimensions null only while detectOpenAIDimensions probes. */
type Resolved = Omit<z.output<typeof OptionsSchema>, 'dimensions'> & { readonly dimensions: number | null };

/** The part of the answer we use; other fields (`model`, `usage`, `object`) may be anything. */
const ResponseSchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().min(0),
      embedding: z.array(z.number()),
    }),
  ),
});

function failed(message: string, details?: unknown): ToolgraphError {
  return new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: ${message}`, details);
}

/** The URL without credentials or query, for messages. */
function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** At most EXCERPT_CHARS of `text`, whitespace collapsed, marked when cut. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}... (${flat.length} chars)` : flat;
}

/** Names what went wrong below HTTP: timeout, refused, unknown host, reset, or fetch's own words. */
function transportError(error: unknown, url: URL, timeoutMs: number): ToolgraphError {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const where = shownUrl(url);
  if (err.name === 'TimeoutError' || err.name === 'AbortError') {
    return failed(`POST ${where} timed out after ${timeoutMs} ms`);
  }
  const code = err.cause?.code;
  if (code === 'ECONNREFUSED') {
    return failed(`connection refused by ${url.host} (POST ${where}); is the embeddings server running?`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failed(`unknown host ${url.hostname} (POST ${where})`);
  const reason = err.cause?.message ?? err.message ?? String(error);
  return failed(`POST ${where} failed${code === undefined ? '' : ` (${code})`}: ${reason}`);
}

function statusError(status: number, statusText: string, body: string, url: URL): ToolgraphError {
  const head = `POST ${shownUrl(url)} answered ${status}${statusText === '' ? '' : ` ${statusText}`}`;
  const hint =
    status === 401
      ? ': the API key was rejected (set TOOLGRAPH_EMBEDDINGS_KEY, or apiKey)'
      : status === 403
        ? ': the API key is not allowed to use this model or endpoint'
        : status === 404
          ? ': no embeddings endpoint there (the base URL usually ends in /v1)'
          : '';
  return failed(`${head}${hint}: ${excerpt(body)}`, { status });
}

/** Checks one answer for `count` texts and returns its vectors in input order. */
function readVectors(body: unknown, count: number, options: Resolved, url: URL): Float32Array[] {
  const parsed = ResponseSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const first = flattenError(parsed.error)[0];
    const where = first === undefined ? '' : `${formatPath(first.path) || 'body'}: ${first.message}`;
    throw failed(`POST ${shownUrl(url)} answered an unexpected shape: ${where}`);
  }
  const data = parsed.data.data;
  if (data.length !== count) {
    throw failed(`POST ${shownUrl(url)} returned ${data.length} vectors for ${count} texts`);
  }
  const out = new Array<Float32Array | undefined>(count);
  // The probe of detectOpenAIDimensions expects no length yet: the first vector sets it.
  const d = options.dimensions ?? data[0]?.embedding.length ?? 0;
  for (const item of data) {
    if (item.index >= count || out[item.index] !== undefined) {
      throw failed(`POST ${shownUrl(url)} returned index ${item.index} ${item.index >= count ? `for ${count} texts` : 'twice'}`);
    }
    if (item.embedding.length !== d) {
      throw failed(
        `model '${options.model}' returned vectors of length ${item.embedding.length}, expected ${d} ` +
          '(set TOOLGRAPH_EMBEDDINGS_DIMENSIONS, or dimensions, to the model\'s length)',
      );
    }
    const vector = Float32Array.from(item.embedding);
    for (let i = 0; i < d; i++) {
      // zod has rejected non-finite doubles (JSON's 1e999); a finite one beyond float32 is Infinity here.
      if (!Number.isFinite(vector[i])) {
        throw failed(`POST ${shownUrl(url)} returned a value that is not finite in float32 at data[index ${item.index}].embedding[${i}]`);
      }
    }
    out[item.index] = vector;
  }
  return out as Float32Array[];
}

async function request(texts: readonly string[], options: Resolved, url: URL): Promise<Float32Array[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let status: number;
  let statusText: string;
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: options.model, input: texts }),
      signal,
    });
    status = response.status;
    statusText = response.statusText;
    // The same signal bounds the body: a server that sends headers and then stalls still times out.
    text = await response.text();
  } catch (error) {
    throw transportError(error, url, options.timeoutMs);
  }
  if (status < 200 || status > 299) throw statusError(status, statusText, text, url);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw failed(`POST ${shownUrl(url)} answered malformed JSON (${(error as Error).message}): ${excerpt(text)}`);
  }
  return readVectors(body, texts.length, options, url);
}

/**
 * An Embedder over an OpenAI-compatible endpoint. Options are checked here (INVALID_INPUT); no
 * request is made until `embed`. Its `embed` rejects with INVALID_INPUT unless given an array of
 * strings, and with EMBEDDER_FAILED for every failure of the endpoint (see the file comment).
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const resolved = parseWith(OptionsSchema, options, 'createOpenAIEmbedder');
  const url = new URL(`${resolved.baseUrl.replace(/\/+$/, '')}/embeddings`);
  const d = resolved.dimensions;
  return {
    dimensions: d,
    name: `openai:${resolved.model}`,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts)) {
        throw new ToolgraphError('INVALID_INPUT', `${CALLER}.embed: expected texts to be an array of strings`);
      }
      const out = new Array<Float32Array>(texts.length);
      const sent: number[] = [];
      for (let i = 0; i < texts.length; i++) {
        const text: unknown = texts[i];
        if (typeof text !== 'string') {
          throw new ToolgraphError('INVALID_INPUT', `${CALLER}.embed: expected texts[${i}] to be a string, got ${typeof text}`);
        }
        if (text.trim() === '') out[i] = new Float32Array(d);
        else sent.push(i);
      }
      for (let start = 0; start < sent.length; start += resolved.batchSize) {
        const batch = sent.slice(start, start + resolved.batchSize);
        const vectors = await request(
          batch.map((i) => (texts[i]!.length > resolved.maxChars ? texts[i]!.slice(0, resolved.maxChars) : texts[i]!)),
          resolved,
          url,
        );
        for (let j = 0; j < batch.length; j++) out[batch[j]!] = vectors[j]!;
      }
      return out;
    },
  };
}

/**
 * The length of the vectors the endpoint returns for `model`: one request embedding a short probe
 * text. For configuration that does not state the dimensions (TOOLGRAPH_EMBEDDINGS_DIMENSIONS
 * unset). Rejects like `embed` (EMBEDDER_FAILED), INVALID_INPUT for bad options.
 */
export async function detectOpenAIDimensions(options: Omit<OpenAIEmbedderOptions, 'dimensions'>): Promise<number> {
  const resolved = parseWith(OptionsSchema.omit({ dimensions: true }), options, 'detectOpenAIDimensions');
  const url = new URL(`${resolved.baseUrl.replace(/\/+$/, '')}/embeddings`);
  const [vector] = await request(['dimension probe'], { ...resolved, dimensions: null }, url);
  if (vector === undefined || vector.length === 0) {
    throw failed(`POST ${shownUrl(url)} returned an empty vector for model '${resolved.model}'`);
  }
  return vector.length;
}
