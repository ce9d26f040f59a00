/**
 * The transformers.js embedder. `@huggingface/transformers` is an optional peer that is not
 * installed in this repository, and no model can be downloaded here, so:
 * - the missing-package error is exercised for real (a real dynamic import that fails);
 * - the model-folder check runs on real temporary folders, before any import;
 * - the glue after a successful import (env settings, batching, splitting and checking the
 *   pipeline's [n, d] output) runs against a small stand-in module with the same two exports
 *   (`env`, `pipeline`), because the real one cannot be reached. Whether the real library and a
 *   real model produce good vectors is NOT tested here (see README, Embedders).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkModelFolder,
  createTransformersEmbedder,
  importTransformers,
  TRANSFORMERS_INSTALL,
} from '../../src/text/transformers-embedder.js';
import { expectCode, rejectionOf } from '../helpers/expect-code.js';

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
 * A stand-in for the package's `env` and `pipeline` (see the file comment): the extractor maps
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
 * Opt-in, never run here: with the package installed and TOOLGRAPH_TEST_MODEL_DIR pointing at a
 * sentence model folder (e.g. the files of Xenova/all-MiniLM-L6-v2), the real success path.
 */
const MODEL_DIR = process.env['TOOLGRAPH_TEST_MODEL_DIR'];
describe.runIf(!PACKAGE_ABSENT && MODEL_DIR !== undefined)('createTransformersEmbedder with the real package and model', () => {
  it('returns unit vectors that put a paraphrase nearer than an unrelated text', async () => {
    const embedder = await createTransformersEmbedder({ modelPath: MODEL_DIR! });
    const [a, b, c] = await embedder.embed(['book a flight to Paris', 'reserve a plane ticket to Paris', 'compute the square root of 2']);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(a!.length).toBe(embedder.dimensions);
    expect(dot(a!, a!)).toBeCloseTo(1, 4);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
  });
});
