/**
 * An embedder over a local sentence-embedding model run by `@huggingface/transformers`
 * (transformers.js, ONNX Runtime): a feature-extraction pipeline, mean pooling over the tokens
 * (attention-masked) and L2 normalisation, as sentence-transformers does for all-MiniLM-L6-v2:
 *
 *   v(text) = normalise( sum_t mask_t h_t / sum_t mask_t ),   h_t = last hidden state of token t
 *
 * Why an optional peer and a dynamic import: the package and its native ONNX runtime weigh
 * hundreds of MB, and most users are served by the built-in hashed embedder. toolgraph loads it
 * only when this embedder is created, so everything else works without it.
 *
 * It never downloads. The model is read from one folder that must hold, in the layout of the
 * Hugging Face repositories made for transformers.js (e.g. Xenova/all-MiniLM-L6-v2):
 *
 *   config.json  tokenizer.json  tokenizer_config.json  onnx/model.onnx or onnx/model_quantized.onnx
 *
 * checkModelFolder verifies that before the package is imported, so a wrong path is reported the
 * same way whether or not the package is installed. The library's env is then set so that remote
 * models are disallowed and local models are read from the folder's parent (the folder's name is
 * the model id). That env is global to the process: loads are serialised here so two embedders
 * with different folders cannot interleave their settings.
 *
 * Dimensions: config.json's hidden_size, else the `dimensions` option, else the length of a probe
 * embedding made at creation; every answer is checked against it.
 *
 * Cost: the model's own (all-MiniLM-L6-v2: 6 layers, 384 dimensions, inputs cut to 256 tokens by
 * its tokenizer); O(n * dimensions) here to check and split the output.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ToolgraphError } from '../schema/errors.js';
import type { Embedder } from './embedder.js';

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_INSTALL = `npm install ${TRANSFORMERS_PACKAGE}`;

/** The files a model folder must hold; one of the ONNX files is enough. */
export const MODEL_FILES = {
  required: ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  onnx: ['onnx/model.onnx', 'onnx/model_quantized.onnx'],
} as const;

export interface TransformersEmbedderOptions {
  /** The model folder (absolute, or relative to the working directory). */
  readonly modelPath: string;
  /** Expected vector length; needed only when config.json has no hidden_size. */
  readonly dimensions?: number;
  /** Use onnx/model_quantized.onnx (int8) even when onnx/model.onnx exists. Default false. */
  readonly quantized?: boolean;
  /** Texts per forward pass, a positive integer. Default 32. */
  readonly batchSize?: number;
  /**
   * How to load the package; default a dynamic import of '@huggingface/transformers'. Pass
   * `() => import('@huggingface/transformers')` when a bundler must see the import.
   */
  readonly transformers?: () => Promise<unknown>;
}

/** What checkModelFolder found: where the model is and how to load it. */
export interface ModelFolder {
  /** Absolute path of the folder. */
  readonly path: string;
  /** The ONNX file to load, relative to the folder. */
  readonly onnxFile: 'onnx/model.onnx' | 'onnx/model_quantized.onnx';
  /** transformers.js's dtype for that file. */
  readonly dtype: 'fp32' | 'q8';
  /** config.json's hidden_size, or null when it has none. */
  readonly hiddenSize: number | null;
}

/** The parts of the package we use, as we call them. */
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
  pipeline(task: 'feature-extraction', model: string, options: Record<string, unknown>): Promise<Extractor>;
}

type Extractor = (texts: string[], options: { pooling: 'mean'; normalize: true }) => Promise<{ data: ArrayLike<number>; dims: readonly number[] }>;

const CALLER = 'transformersEmbedder';
/** transformers.js resolves `<localModelPath>/<id>/<file>` only for ids of this form. */
const MODEL_ID = /^[\w.-]{1,96}$/;

function layout(path: string): string {
  return (
    `put a feature-extraction model in ONNX form there: ${MODEL_FILES.required.map((f) => join(path, f)).join(', ')} ` +
    `and ${join(path, MODEL_FILES.onnx[0])} (or ${MODEL_FILES.onnx[1]}), for example the files of the ` +
    'Hugging Face repository Xenova/all-MiniLM-L6-v2'
  );
}

/**
 * Checks that `modelPath` is a folder holding a loadable model, without importing the package.
 * Throws NOT_FOUND naming the folder and every missing file with where to put it, and
 * INVALID_INPUT for an unreadable config.json or a folder name the library cannot use as an id.
 */
export function checkModelFolder(modelPath: string, options: { quantized?: boolean } = {}): ModelFolder {
  if (typeof modelPath !== 'string' || modelPath.trim() === '') {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected modelPath to be a folder path, got ${JSON.stringify(modelPath)}`);
  }
  const path = resolve(modelPath);
  if (!existsSync(path)) throw new ToolgraphError('NOT_FOUND', `${CALLER}: no model folder at '${path}'; ${layout(path)}`);
  if (!statSync(path).isDirectory()) {
    throw new ToolgraphError('NOT_FOUND', `${CALLER}: '${path}' is a file, expected the model folder; ${layout(path)}`);
  }
  const present = (file: string): boolean => existsSync(join(path, file)) && statSync(join(path, file)).isFile();
  const missing: string[] = MODEL_FILES.required.filter((f) => !present(f));
  const onnx = MODEL_FILES.onnx.filter(present);
  if (onnx.length === 0) missing.push(`${MODEL_FILES.onnx[0]} (or ${MODEL_FILES.onnx[1]})`);
  if (missing.length > 0) {
    throw new ToolgraphError(
      'NOT_FOUND',
      `${CALLER}: the model folder '${path}' lacks ${missing.join(', ')}; ${layout(path)}`,
      { missing },
    );
  }
  const name = basename(path);
  if (!MODEL_ID.test(name) || name.includes('..') || name.includes('--') || name.endsWith('.git')) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${CALLER}: the model folder's name '${name}' cannot serve as a model id; rename it to letters, digits, '.', '_' and single '-' (like all-MiniLM-L6-v2)`,
    );
  }
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(join(path, 'config.json'), 'utf8'));
  } catch (error) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: ${join(path, 'config.json')} is not valid JSON: ${(error as Error).message}`);
  }
  const hidden = typeof config === 'object' && config !== null ? (config as { hidden_size?: unknown }).hidden_size : undefined;
  const hiddenSize = Number.isSafeInteger(hidden) && (hidden as number) > 0 ? (hidden as number) : null;
  const quantized = options.quantized === true || !onnx.includes('onnx/model.onnx');
  if (quantized && !onnx.includes('onnx/model_quantized.onnx')) {
    throw new ToolgraphError('NOT_FOUND', `${CALLER}: quantized was asked for, but '${join(path, 'onnx/model_quantized.onnx')}' is missing`);
  }
  return quantized
    ? { path, onnxFile: 'onnx/model_quantized.onnx', dtype: 'q8', hiddenSize }
    : { path, onnxFile: 'onnx/model.onnx', dtype: 'fp32', hiddenSize };
}

function isMissingPackage(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : '';
  if (!message.includes(TRANSFORMERS_PACKAGE)) return false;
  // Node: ERR_MODULE_NOT_FOUND "Cannot find package"; vite-node (tests): "Could not resolve".
  return err?.code === 'ERR_MODULE_NOT_FOUND' || /cannot find (package|module)|could not resolve|failed to (load|resolve)/i.test(message);
}

/**
 * Imports the package, or throws EMBEDDER_FAILED saying what to install when it is missing (and
 * what failed when it is present but does not load, e.g. its native runtime).
 */
export async function importTransformers(load?: () => Promise<unknown>): Promise<TransformersModule> {
  // A variable specifier: TypeScript must not require the optional package at build time.
  const specifier: string = TRANSFORMERS_PACKAGE;
  let loaded: unknown;
  try {
    loaded = await (load ?? (() => import(specifier) as Promise<unknown>))();
  } catch (error) {
    if (isMissingPackage(error)) {
      throw new ToolgraphError(
        'EMBEDDER_FAILED',
        `${CALLER}: the optional package ${TRANSFORMERS_PACKAGE} is not installed; run \`${TRANSFORMERS_INSTALL}\` ` +
          "in the project that uses toolgraph (or choose another embedder: 'hashed', 'openai:URL', 'none')",
      );
    }
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: ${TRANSFORMERS_PACKAGE} failed to load: ${(error as Error).message ?? String(error)}`);
  }
  const lib = loaded as Partial<TransformersModule> | null;
  if (lib === null || typeof lib !== 'object' || typeof lib.pipeline !== 'function' || typeof lib.env !== 'object') {
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: ${TRANSFORMERS_PACKAGE} has no pipeline and env exports; expected version 3 or newer`);
  }
  return lib as TransformersModule;
}

/** Serialises the env-then-load sequence: the library's env is process-global. */
let loading: Promise<unknown> = Promise.resolve();

async function loadExtractor(lib: TransformersModule, folder: ModelFolder): Promise<Extractor> {
  const run = async (): Promise<Extractor> => {
    lib.env.allowRemoteModels = false;
    lib.env.allowLocalModels = true;
    // The library joins `<localModelPath>/<model id>/<file>`: the parent, then the folder's name.
    lib.env.localModelPath = `${dirname(folder.path)}/`;
    return lib.pipeline('feature-extraction', basename(folder.path), { dtype: folder.dtype, local_files_only: true });
  };
  const next = loading.then(run, run);
  loading = next.catch(() => undefined);
  try {
    return await next;
  } catch (error) {
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: could not load the model in '${folder.path}': ${(error as Error).message ?? String(error)}`);
  }
}

/** Runs the pipeline on one batch and splits its [n, d] output into n checked vectors. */
async function embedBatch(extractor: Extractor, texts: string[], dimensions: number | null): Promise<Float32Array[]> {
  let output: { data: ArrayLike<number>; dims: readonly number[] };
  try {
    output = await extractor(texts, { pooling: 'mean', normalize: true });
  } catch (error) {
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: the model failed on a batch of ${texts.length} texts: ${(error as Error).message ?? String(error)}`);
  }
  const dims = output?.dims;
  const n = texts.length;
  if (!Array.isArray(dims) || dims.length !== 2 || dims[0] !== n || output.data?.length !== n * (dims[1] as number)) {
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: expected an output of shape [${n}, d], got [${Array.isArray(dims) ? dims.join(', ') : String(dims)}]`);
  }
  const d = dims[1] as number;
  if (dimensions !== null && d !== dimensions) {
    throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: the model returned vectors of length ${d}, expected ${dimensions}`);
  }
  const out: Float32Array[] = [];
  for (let row = 0; row < n; row++) {
    const vector = new Float32Array(d);
    for (let i = 0; i < d; i++) {
      const value = output.data[row * d + i]!;
      if (!Number.isFinite(value)) {
        throw new ToolgraphError('EMBEDDER_FAILED', `${CALLER}: the model returned a non-finite value for text ${row} at index ${i}`);
      }
      vector[i] = value;
    }
    out.push(vector);
  }
  return out;
}

/**
 * Checks the folder, imports the package, loads the model (all before it resolves, so a broken
 * set-up fails at configuration time), and returns the Embedder. Rejects with NOT_FOUND or
 * INVALID_INPUT for the folder (checkModelFolder), EMBEDDER_FAILED for the package or the model.
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  if (typeof options !== 'object' || options === null) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected options {modelPath, dimensions?, quantized?, batchSize?}`);
  }
  const batchSize = options.batchSize ?? 32;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected batchSize to be a positive integer, got ${String(options.batchSize)}`);
  }
  if (options.dimensions !== undefined && (!Number.isSafeInteger(options.dimensions) || options.dimensions < 1)) {
    throw new ToolgraphError('INVALID_INPUT', `${CALLER}: expected dimensions to be a positive integer, got ${String(options.dimensions)}`);
  }
  const folder = checkModelFolder(options.modelPath, options.quantized === undefined ? {} : { quantized: options.quantized });
  if (folder.hiddenSize !== null && options.dimensions !== undefined && folder.hiddenSize !== options.dimensions) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${CALLER}: dimensions is ${options.dimensions} but ${join(folder.path, 'config.json')} says hidden_size ${folder.hiddenSize}`,
    );
  }
  const lib = await importTransformers(options.transformers);
  const extractor = await loadExtractor(lib, folder);
  const dimensions = folder.hiddenSize ?? options.dimensions ?? (await embedBatch(extractor, ['dimension probe'], null))[0]!.length;
  return {
    dimensions,
    name: `transformers:${basename(folder.path)}`,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        throw new ToolgraphError('INVALID_INPUT', `${CALLER}.embed: expected texts to be an array of strings`);
      }
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        out.push(...(await embedBatch(extractor, texts.slice(start, start + batchSize), dimensions)));
      }
      return out;
    },
  };
}
