/**
 * The transformers.js embedder. `@huggingface/transformers` is an optional peer that toolgraph's
 * own node_modules goes without, so:
 * - the missing-package error is exercised for real (a real dynamic import that fails);
 * - the model-folder check runs on real temporary folders, before any import;
 * - with TOOLGRAPH_TEST_TRANSFORMERS naming a folder where the package is installed (.ci/run
 *   does), the real library and ONNX Runtime load a model the test writes and must give exactly
 *   the vectors that model defines (helpers/tiny-sentence-model.ts);
 * - outputs no real library gives (a wrong shape, a wrong length, NaN, a load that throws a
 *   given message) come from a small stand-in module with the same two exports (`env`, `pipeline`).
 * Whether a real sentence model's vectors mean anything is an opt-in test (TOOLGRAPH_TEST_MODEL_DIR).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkModelFolder,
  createTransformersEmbedder,
  importTransformers,
  TRANSFORMERS_INSTALL,
} from '../../src/text/transformers-embedder.js';
import { expectCode, rejectionOf } from '../helpers/expect-code.js';
import { TINY_DIMENSIONS, tinyExpected, tinyId, writeTinySentenceModel } from '../helpers/tiny-sentence-model.js';

/** The missing-package tests assume what is true in this repository: the peer is not installed. */
const PACKAGE_ABSENT = !existsSync(new URL('../../node_modules/@huggingface/transformers/package.json', import.meta.url));

const ROOT = mkdtempSync(join(tmpdir(), 'tg-transformers-'));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let folders = 0;
/** A model folder under ROOT holding `files` (path -> content). */
function modelFolder(files: Record<string, string>, name = `model-${++folders}`): string {
  const dir = join(ROOT, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

const COMPLETE = {
  'config.json': JSON.stringify({ model_type: 'bert', hidden_size: 4 }),
  'tokenizer.json': '{}',
  'tokenizer_config.json': '{}',
  'onnx/model.onnx': 'onnx bytes',
};

describe('checkModelFolder', () => {
  it('names a missing folder and the files to put there', () => {
    const where = join(ROOT, 'nowhere');
    expectCode(() => checkModelFolder(where), 'NOT_FOUND', `no model folder at '${where}'`);
    expectCode(() => checkModelFolder(where), 'NOT_FOUND', `${join(where, 'tokenizer.json')}`);
    expectCode(() => checkModelFolder(where), 'NOT_FOUND', 'onnx/model.onnx (or onnx/model_quantized.onnx)');
  });

  it('says a file is not the model folder', () => {
    const file = join(ROOT, 'a-file');
    writeFileSync(file, 'x');
    expectCode(() => checkModelFolder(file), 'NOT_FOUND', 'is a file, expected the model folder');
  });

  it('lists every missing file', () => {
    const dir = modelFolder({ 'config.json': '{}' });
    let thrown: unknown;
    try {
      checkModelFolder(dir);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { details: unknown }).details).toEqual({
      missing: ['tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx (or onnx/model_quantized.onnx)'],
    });
    expectCode(() => checkModelFolder(dir), 'NOT_FOUND', `the model folder '${dir}' lacks tokenizer.json, tokenizer_config.json, onnx/model.onnx`);
  });

  it('accepts a complete folder, reads hidden_size and prefers the full-precision file', () => {
    const dir = modelFolder(COMPLETE);
    expect(checkModelFolder(dir)).toEqual({ path: dir, onnxFile: 'onnx/model.onnx', dtype: 'fp32', hiddenSize: 4 });
    const both = modelFolder({ ...COMPLETE, 'onnx/model_quantized.onnx': 'q' });
    expect(checkModelFolder(both, { quantized: true }).dtype).toBe('q8');
    expect(checkModelFolder(both).dtype).toBe('fp32');
  });

  it('falls back to the quantized file, and says when quantized is asked for but absent', () => {
    const { 'onnx/model.onnx': _, ...rest } = COMPLETE;
    const quantizedOnly = modelFolder({ ...rest, 'onnx/model_quantized.onnx': 'q' });
    expect(checkModelFolder(quantizedOnly)).toMatchObject({ onnxFile: 'onnx/model_quantized.onnx', dtype: 'q8' });
    expectCode(() => checkModelFolder(modelFolder(COMPLETE), { quantized: true }), 'NOT_FOUND', 'model_quantized.onnx');
  });

  it('reports an unreadable config.json and a config without hidden_size', () => {
    expectCode(() => checkModelFolder(modelFolder({ ...COMPLETE, 'config.json': '{oops' })), 'INVALID_INPUT', 'config.json is not valid JSON');
    expect(checkModelFolder(modelFolder({ ...COMPLETE, 'config.json': '{"dim": 7}' })).hiddenSize).toBeNull();
  });

  it('rejects a folder name the library cannot use as a model id, and an empty path', () => {
    expectCode(() => checkModelFolder(modelFolder(COMPLETE, 'models--x--y')), 'INVALID_INPUT', "'models--x--y' cannot serve as a model id");
    expectCode(() => checkModelFolder(''), 'INVALID_INPUT', 'expected modelPath');
  });
});

describe('importTransformers (the package really is absent here)', () => {
  it.runIf(PACKAGE_ABSENT)('says exactly what to install', async () => {
    const error = await rejectionOf(importTransformers());
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('the optional package @huggingface/transformers is not installed');
    expect(error.message).toContain(`\`${TRANSFORMERS_INSTALL}\``);
  });

  it('reports other load failures as they are, and a module without the expected exports', async () => {
    const broken = await rejectionOf(importTransformers(() => Promise.reject(new Error('libonnxruntime.so: cannot open shared object file'))));
    expect(broken.code).toBe('EMBEDDER_FAILED');
    expect(broken.message).toContain('failed to load: libonnxruntime.so');
    const empty = await rejectionOf(importTransformers(() => Promise.resolve({})));
    expect(empty.message).toContain('expected version 3 or newer');
  });
});

describe('createTransformersEmbedder', () => {
  it('checks the folder before importing the package', async () => {
    const error = await rejectionOf(createTransformersEmbedder({ modelPath: join(ROOT, 'absent-model') }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('no model folder at');
  });

  it.runIf(PACKAGE_ABSENT)('with a complete folder and no package, says what to install', async () => {
    const error = await rejectionOf(createTransformersEmbedder({ modelPath: modelFolder(COMPLETE) }));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain(TRANSFORMERS_INSTALL);
  });

  it('rejects bad options and a dimensions that contradicts config.json', async () => {
    const dir = modelFolder(COMPLETE);
    expect((await rejectionOf(createTransformersEmbedder({ modelPath: dir, batchSize: 0 }))).code).toBe('INVALID_INPUT');
    expect((await rejectionOf(createTransformersEmbedder({ modelPath: dir, dimensions: -1 }))).code).toBe('INVALID_INPUT');
    const clash = await rejectionOf(createTransformersEmbedder({ modelPath: dir, dimensions: 384 }));
    expect(clash.code).toBe('INVALID_INPUT');
    expect(clash.message).toContain('hidden_size 4');
  });
});

/**
 * A stand-in for the package's `env` and `pipeline`, for what the real one does not give on
 * demand (see the file comment): the extractor maps
 * text t to the unit vector of [len, vowels, 1, 0, ...] cut to `d`, shaped [n, d] like a Tensor.
 */
function standIn(d: number, behaviour: { fail?: string; badShape?: boolean; nan?: boolean } = {}) {
  const calls: { task: string; model: string; options: Record<string, unknown>; env: Record<string, unknown> }[] = [];
  const batches: string[][] = [];
  const env = { allowRemoteModels: true, allowLocalModels: false, localModelPath: '/models/' };
  const lib = {
    env,
    async pipeline(task: string, model: string, options: Record<string, unknown>) {
      calls.push({ task, model, options, env: { ...env } });
      if (behaviour.fail !== undefined) throw new Error(behaviour.fail);
      return async (texts: string[], opts: { pooling: string; normalize: boolean }) => {
        expect(opts).toEqual({ pooling: 'mean', normalize: true });
        batches.push(texts);
        const data = new Float32Array(texts.length * d);
        texts.forEach((t, row) => {
          const raw = [t.length, (t.match(/[aeiou]/g) ?? []).length, 1].slice(0, d);
          const norm = Math.hypot(...raw);
          raw.forEach((x, i) => (data[row * d + i] = behaviour.nan === true ? NaN : x / norm));
        });
        return { data, dims: behaviour.badShape === true ? [texts.length, d, 1] : [texts.length, d] };
      };
    },
  };
  return { lib, calls, batches };
}

describe('createTransformersEmbedder after the import (stand-in module)', () => {
  it('disallows remote models, points the local path at the folder, and loads it by name', async () => {
    const dir = modelFolder(COMPLETE, 'all-MiniLM-L6-v2');
    const { lib, calls } = standIn(4);
    const embedder = await createTransformersEmbedder({ modelPath: dir, transformers: async () => lib });
    expect(calls).toEqual([
      {
        task: 'feature-extraction',
        model: 'all-MiniLM-L6-v2',
        options: { dtype: 'fp32', local_files_only: true },
        env: { allowRemoteModels: false, allowLocalModels: true, localModelPath: `${ROOT}/` },
      },
    ]);
    expect(embedder.dimensions).toBe(4);
    expect(embedder.name).toBe('transformers:all-MiniLM-L6-v2');
  });

  it('embeds in batches, in order, one checked Float32Array per text', async () => {
    const { lib, batches } = standIn(4);
    const embedder = await createTransformersEmbedder({ modelPath: modelFolder(COMPLETE), batchSize: 2, transformers: async () => lib });
    const texts = ['a', 'tool', 'search the web', 'x', 'e'];
    const vectors = await embedder.embed(texts);
    expect(batches).toEqual([['a', 'tool'], ['search the web', 'x'], ['e']]);
    expect(vectors).toHaveLength(5);
    expect(vectors[1]).toBeInstanceOf(Float32Array);
    // 'tool': [4, 2, 1, 0] / sqrt(21)
    expect(Array.from(vectors[1]!).map((x) => +x.toFixed(6))).toEqual([4, 2, 1, 0].map((x) => +(x / Math.sqrt(21)).toFixed(6)));
    expect((await rejectionOf(embedder.embed([1 as unknown as string]))).code).toBe('INVALID_INPUT');
  });

  it('learns the length from a probe when config.json has no hidden_size', async () => {
    const { lib, batches } = standIn(3);
    const embedder = await createTransformersEmbedder({ modelPath: modelFolder({ ...COMPLETE, 'config.json': '{}' }), transformers: async () => lib });
    expect(embedder.dimensions).toBe(3);
    expect(batches).toEqual([['dimension probe']]);
  });

  it('turns a failed model load, a wrong output shape, a wrong length and NaN into EMBEDDER_FAILED', async () => {
    const dir = modelFolder(COMPLETE);
    const load = await rejectionOf(createTransformersEmbedder({ modelPath: dir, transformers: async () => standIn(4, { fail: 'Protobuf parsing failed' }).lib }));
    expect(load.code).toBe('EMBEDDER_FAILED');
    expect(load.message).toContain(`could not load the model in '${dir}': Protobuf parsing failed`);
    const shape = await createTransformersEmbedder({ modelPath: dir, transformers: async () => standIn(4, { badShape: true }).lib });
    expect((await rejectionOf(shape.embed(['a']))).message).toContain('expected an output of shape [1, d], got [1, 4, 1]');
    const wrong = await createTransformersEmbedder({ modelPath: dir, transformers: async () => standIn(3).lib });
    expect((await rejectionOf(wrong.embed(['a']))).message).toContain('vectors of length 3, expected 4');
    const nan = await createTransformersEmbedder({ modelPath: dir, transformers: async () => standIn(4, { nan: true }).lib });
    expect((await rejectionOf(nan.embed(['a']))).message).toContain('non-finite value for text 0 at index 0');
  });
});

/**
 * The real package and runtime, when TOOLGRAPH_TEST_TRANSFORMERS names a folder where
 * @huggingface/transformers is installed (.ci/run installs the version pinned in
 * .ci/transformers there). toolgraph's own node_modules goes without it, so the missing-package
 * tests above stay real; the package comes in through the `transformers` option, as a bundled
 * application passes it. The model is written by the test (helpers/tiny-sentence-model.ts): a
 * real BERT tokenizer and ONNX graph whose vectors are known exactly.
 */
const TRANSFORMERS_DIR = process.env['TOOLGRAPH_TEST_TRANSFORMERS'];

function installedPackage(dir: string): () => Promise<unknown> {
  const root = join(dir, 'node_modules', '@huggingface', 'transformers');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: { node: { import: { default: string } } } };
  const entry = pathToFileURL(join(root, manifest.exports.node.import.default)).href;
  return () => import(entry);
}

const ids = (text: string): number[] => text.toLowerCase().split(/\s+/).flatMap((w) => (w.endsWith('s') && tinyId(w) === 1 ? [tinyId(w.slice(0, -1)), tinyId('##s')] : [tinyId(w)]));

describe.runIf(TRANSFORMERS_DIR !== undefined)('createTransformersEmbedder with the real package and runtime (a model written here)', () => {
  const load = TRANSFORMERS_DIR === undefined ? undefined : installedPackage(TRANSFORMERS_DIR);

  it('gives each text the normalised mean of its tokens\' states, padding left out, in order across batches', async () => {
    const dir = writeTinySentenceModel(join(ROOT, 'tiny-bert'));
    const embedder = await createTransformersEmbedder({ modelPath: dir, batchSize: 2, transformers: load! });
    expect(embedder.dimensions).toBe(TINY_DIMENSIONS);
    expect(embedder.name).toBe('transformers:tiny-bert');
    // Lengths differ within a batch, so the shorter texts are padded; word pieces, an unknown word.
    const texts = ['Book a flight to Paris', 'compute zebra', 'reserve a plane ticket to Paris', 'the square root of the roots', 'books'];
    expect(ids('books')).toEqual([tinyId('book'), tinyId('##s')]);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    texts.forEach((text, i) => {
      const expected = tinyExpected(ids(text));
      expect(vectors[i]).toBeInstanceOf(Float32Array);
      expect(Array.from(vectors[i]!).map((x) => +x.toFixed(5))).toEqual(Array.from(expected).map((x) => +x.toFixed(5)));
    });
    // One batch or three: the same vectors (padding changes nothing).
    const whole = await (await createTransformersEmbedder({ modelPath: dir, batchSize: 32, transformers: load! })).embed(texts);
    whole.forEach((v, i) => expect(Array.from(v).map((x) => +x.toFixed(5))).toEqual(Array.from(vectors[i]!).map((x) => +x.toFixed(5))));
    expect(await embedder.embed([])).toEqual([]);
  });

  it('turns a model file the runtime cannot parse into EMBEDDER_FAILED naming the folder', async () => {
    const dir = writeTinySentenceModel(join(ROOT, 'tiny-broken'));
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not an onnx model');
    const error = await rejectionOf(createTransformersEmbedder({ modelPath: dir, transformers: load! }));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain(`could not load the model in '${dir}'`);
  });
});

/**
 * Opt-in: with TOOLGRAPH_TEST_TRANSFORMERS as above (or the package installed in node_modules) and
 * TOOLGRAPH_TEST_MODEL_DIR pointing at a real sentence model folder (e.g. the files of
 * Xenova/all-MiniLM-L6-v2), whether the model's vectors mean anything.
 */
const MODEL_DIR = process.env['TOOLGRAPH_TEST_MODEL_DIR'];
describe.runIf((!PACKAGE_ABSENT || TRANSFORMERS_DIR !== undefined) && MODEL_DIR !== undefined)('createTransformersEmbedder with the real package and model', () => {
  it('returns unit vectors that put a paraphrase nearer than an unrelated text', async () => {
    const embedder = await createTransformersEmbedder({ modelPath: MODEL_DIR!, ...(TRANSFORMERS_DIR !== undefined ? { transformers: installedPackage(TRANSFORMERS_DIR) } : {}) });
    const [a, b, c] = await embedder.embed(['book a flight to Paris', 'reserve a plane ticket to Paris', 'compute the square root of 2']);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(a!.length).toBe(embedder.dimensions);
    expect(dot(a!, a!)).toBeCloseTo(1, 4);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
  });
});
