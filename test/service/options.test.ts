/**
 * The options of the library's entry points (src/service/options.ts): `new Toolgraph(options)` and
 * `openToolgraph(options)` refuse what they cannot use with INVALID_INPUT naming the call and the
 * option, before anything is built or opened, and take every valid option as before.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openToolgraph } from '../../src/service/durable-toolgraph.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { createHashedEmbedder } from '../../src/text/hashed-embedder.js';
import { expectError, expectRejection } from '../schema/_helpers.js';

const root = mkdtempSync(join(tmpdir(), 'toolgraph-options-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Options as a plain JavaScript caller or a JSON config hands them over: unchecked by the compiler. */
const loose = <T>(value: unknown): T => value as T;
const newToolgraph = (options: unknown): Toolgraph => new Toolgraph(loose(options));

describe('new Toolgraph(options)', () => {
  it('refuses null and non-objects', () => {
    expectError(() => newToolgraph(null), 'INVALID_INPUT', 'Toolgraph: expected object, received null');
    expectError(() => newToolgraph(42), 'INVALID_INPUT', 'Toolgraph: expected object, received number');
    expectError(() => newToolgraph('seed=1'), 'INVALID_INPUT', 'Toolgraph: expected object, received string');
    expectError(() => newToolgraph([]), 'INVALID_INPUT', 'Toolgraph: expected object, received array');
  });

  it('refuses an unknown key, also beside valid ones and inside learnCapabilities', () => {
    expectError(() => newToolgraph({ frob: 1, seed: 1 }), 'INVALID_INPUT', 'Toolgraph: frob: unknown key');
    expectError(() => newToolgraph({ rebuildDelay: 10 }), 'INVALID_INPUT', 'Toolgraph: rebuildDelay: unknown key');
    expectError(() => newToolgraph({ learnCapabilities: { minSuport: 2 } }), 'INVALID_INPUT', 'Toolgraph: learnCapabilities.minSuport: unknown key');
  });

  it.each([
    [{ seed: 'abc' }, 'Toolgraph: seed: expected number, received string'],
    [{ seed: 1.5 }, 'Toolgraph: seed: expected int, received number'],
    [{ rebuildDelayMs: -1 }, 'Toolgraph: rebuildDelayMs: expected at least 0'],
    [{ rebuildDelayMs: 2 ** 31 }, 'Toolgraph: rebuildDelayMs: expected at most 2147483647'],
    [{ rebuildDelayMs: '50' }, 'Toolgraph: rebuildDelayMs: expected number, received string'],
    [{ embedder: 'hashed' }, 'Toolgraph: embedder: expected an Embedder {dimensions: positive integer, embed(texts)}, or null for none, received string'],
    [{ embedder: { dimensions: 0, embed: async () => [] } }, 'Toolgraph: embedder: expected an Embedder'],
    [{ embedder: { dimensions: 8 } }, 'Toolgraph: embedder: expected an Embedder'],
    [{ learnCapabilities: true }, 'Toolgraph: learnCapabilities: expected learning options {minSupport?, minTools?, ...}, or false for none, received boolean'],
    [{ learnCapabilities: { minSupport: 0 } }, 'Toolgraph: learnCapabilities.minSupport: expected at least 1'],
    [{ learnCapabilities: { maxExamples: 'all' } }, 'Toolgraph: learnCapabilities.maxExamples: expected number, received string'],
    [{ learnCapabilities: { minTools: 5, maxTools: 3 } }, 'Toolgraph: learnCapabilities.maxTools: expected at least minTools (5), received 3'],
    [{ learnCapabilities: { windowMin: 5 } }, 'Toolgraph: learnCapabilities.windowMax: expected at least windowMin (5), received 4'],
    [{ reclusterEveryMs: -1 }, 'Toolgraph: reclusterEveryMs: expected a number at least 0, or Infinity, received number'],
    [{ halfLifeMs: 0 }, 'Toolgraph: halfLifeMs: expected more than 0'],
    [{ halfLifeMs: Number.POSITIVE_INFINITY }, 'Toolgraph: halfLifeMs: expected number, received Infinity'],
    [{ patterns: [] }, 'Toolgraph: patterns: expected a pattern registry state (patternRegistryState()), received array'],
    [{ offThreadFrom: Number.NaN }, 'Toolgraph: offThreadFrom: expected a number at least 0, or Infinity, received NaN'],
    [{ offThreadFrom: '0' }, 'Toolgraph: offThreadFrom: expected a number at least 0, or Infinity, received string'],
    [{ onWarning: 'console' }, 'Toolgraph: onWarning: expected a function (message) => void, received string'],
  ])('refuses %o', (options, message) => {
    expectError(() => newToolgraph(options), 'INVALID_INPUT', message);
  });

  it('leaves the pattern state itself to PatternRegistry, still INVALID_INPUT', () => {
    expectError(() => newToolgraph({ patterns: { version: 2, patterns: [] } }), 'INVALID_INPUT', 'PatternRegistry: version');
  });

  it('takes no options, undefined, and every option with a valid value', () => {
    expect(new Toolgraph().stats().traces).toBe(0);
    expect(new Toolgraph(undefined).stats().traces).toBe(0);
    // Explicit undefined values, as a caller spreading optional settings passes them.
    expect(newToolgraph({ seed: undefined, embedder: undefined }).stats().traces).toBe(0);
    const warnings: string[] = [];
    const first = new Toolgraph({ learnCapabilities: false });
    first.ingest({ tools: ['a', 'b'], intent: 'a then b' });
    first.patternFeedback({ from: 'a', to: 'b' }, 'approve', { at: 1_000 });
    const tg = new Toolgraph({
      seed: -3,
      rebuildDelayMs: 60_000,
      embedder: createHashedEmbedder({ dimensions: 64 }),
      learnCapabilities: { minSupport: 1, minTools: 2, maxTools: 4, windowMin: 0, windowMax: 0, maxExamples: 3 },
      reclusterEveryMs: Number.POSITIVE_INFINITY,
      halfLifeMs: 86_400_000,
      patterns: first.patternRegistryState(),
      offThreadFrom: Number.POSITIVE_INFINITY,
      onWarning: (message) => warnings.push(message),
    });
    tg.ingest([{ tools: ['a', 'b'], intent: 'a then b' }, { tools: ['a', 'b'], intent: 'a then b again' }]);
    expect(tg.predictNext({ context: ['a'] }).items[0]!.tool).toBe('b');
    expect(tg.pattern({ from: 'a', to: 'b' })).toMatchObject({ approvals: 1 });
    expect(newToolgraph({ embedder: null, learnCapabilities: {}, offThreadFrom: 0, reclusterEveryMs: 0, rebuildDelayMs: 0 }).stats().traces).toBe(0);
    expect(warnings).toEqual([]);
  });
});

describe('openToolgraph(options)', () => {
  const openLoose = (options: unknown) => openToolgraph(loose(options));

  it('refuses null and non-objects', async () => {
    await expectRejection(openLoose(null), 'INVALID_INPUT', 'openToolgraph: expected object, received null');
    await expectRejection(openLoose('.toolgraph'), 'INVALID_INPUT', 'openToolgraph: expected object, received string');
  });

  it('refuses an unknown key before opening anything', async () => {
    const dataDir = join(root, 'unknown-key');
    await expectRejection(openLoose({ dataDir, frob: 1 }), 'INVALID_INPUT', 'openToolgraph: frob: unknown key');
    await expectRejection(openLoose({ dataDir, dataDirectory: dataDir }), 'INVALID_INPUT', 'openToolgraph: dataDirectory: unknown key');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    [{ dataDir: 42 }, 'openToolgraph: dataDir: expected string, received number'],
    [{ dataDir: '' }, 'openToolgraph: dataDir: must not be empty'],
    [{ databaseUrl: true }, 'openToolgraph: databaseUrl: expected string, received boolean'],
    [{ schema: 7 }, 'openToolgraph: schema: expected string, received number'],
    [{ store: {} }, 'openToolgraph: store: expected an open Store (openStore()), received object'],
    [{ seed: 'abc' }, 'openToolgraph: seed: expected number, received string'],
    [{ rebuildDelayMs: -5 }, 'openToolgraph: rebuildDelayMs: expected at least 0'],
    [{ learnCapabilities: {} }, 'openToolgraph: learnCapabilities: expected boolean, received object'],
    [{ embedder: {} }, 'openToolgraph: embedder: expected an Embedder'],
    [{ batchWindowMs: 500 }, 'openToolgraph: batchWindowMs: expected at most 100'],
    [{ maxBatch: 0 }, 'openToolgraph: maxBatch: expected at least 1'],
    [{ snapshotEvery: 1.5 }, 'openToolgraph: snapshotEvery: expected int, received number'],
    [{ pollMs: -1 }, 'openToolgraph: pollMs: expected at least 0'],
    [{ onWarning: 1 }, 'openToolgraph: onWarning: expected a function (message) => void, received number'],
    [{ offThreadFrom: -1 }, 'openToolgraph: offThreadFrom: expected a number at least 0, or Infinity'],
    [{ firstModelOffThreadFrom: null }, 'openToolgraph: firstModelOffThreadFrom: expected a number at least 0, or Infinity, received null'],
  ])('refuses %o before opening anything', async (options, message) => {
    const dataDir = join(root, 'wrong-type');
    await expectRejection(openLoose({ dataDir, ...options }), 'INVALID_INPUT', message);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('opens with every option given a valid value, and answers', async () => {
    const warnings: string[] = [];
    const tg = await openToolgraph({
      dataDir: join(root, 'valid'),
      databaseUrl: '',
      schema: 'options_valid',
      seed: 3,
      rebuildDelayMs: 10,
      learnCapabilities: false,
      embedder: null,
      batchWindowMs: 0,
      maxBatch: 10,
      snapshotEvery: 1_000,
      pollMs: 0,
      onWarning: (message) => warnings.push(message),
      offThreadFrom: Number.POSITIVE_INFINITY,
      firstModelOffThreadFrom: Number.POSITIVE_INFINITY,
    });
    try {
      expect((await tg.ingest([{ tools: ['a', 'b'], intent: 'a then b' }, { tools: ['a', 'b'], intent: 'a then b again' }])).ingested).toBe(2);
      tg.engine.rebuild();
      expect((await tg.predictNext({ context: ['a'] })).items[0]!.tool).toBe('b');
    } finally {
      await tg.close();
    }
    expect(warnings).toEqual([]);
  }, 60_000);
});
