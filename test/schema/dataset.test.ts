import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset, parseCatalogJsonl } from '../../src/schema/dataset.js';
import { workflowToTrace } from '../../src/schema/trace.js';
import { expectError, expectRejection } from './_helpers.js';

const FIXTURES = resolve('test/fixtures/schema');
// CI clones the repository with shared/ beside it: ../shared/data from the repository root.
const SHARED_DATA = fileURLToPath(new URL('../../../shared/data', import.meta.url));

/** Counts documented in data/README.md; tools are unique names (NESTFUL repeats five lines). */
const SHARED: Record<string, { workflows: number; train: number; tools: number }> = {
  ultratool: { workflows: 3_527, train: 3_027, tools: 260 },
  nestful: { workflows: 300, train: 240, tools: 133 },
  metatool: { workflows: 21_111, train: 16_889, tools: 199 },
  sealtools: { workflows: 2_054, train: 1_641, tools: 4_076 },
};

describe('loadDataset: fixtures', () => {
  it('loads a folder: name from the folder, absolute dir, repeats dropped, hostile names kept', async () => {
    const dataset = await loadDataset(join(FIXTURES, 'tiny'));
    expect(dataset.name).toBe('tiny');
    expect(dataset.dir).toBe(join(FIXTURES, 'tiny'));
    expect(dataset.tools.map((t) => t.name)).toEqual(['search_airport', 'search_flights', '__proto__']);
    expect(dataset.tools[1]?.params).toEqual([{ name: 'from', type: '', description: '', required: false }]);
    expect(dataset.workflows.map((w) => w.id)).toEqual(['tiny:0', 'tiny:1', 'tiny:2']);
    expect(dataset.workflows[2]?.tools).toEqual(['🤡 joke', '__proto__']);
    expect(dataset.workflows[1]?.steps).toHaveLength(3);
    expect(workflowToTrace(dataset.workflows[0]!).steps).toHaveLength(3);
    expect(JSON.parse(JSON.stringify(dataset))).toEqual(dataset);
  });

  it('accepts a relative path', async () => {
    const dataset = await loadDataset('test/fixtures/schema/tiny');
    expect(dataset.dir).toBe(join(FIXTURES, 'tiny'));
  });

  it('treats tools.jsonl as optional', async () => {
    const dataset = await loadDataset(join(FIXTURES, 'no-tools'));
    expect(dataset.tools).toEqual([]);
    expect(dataset.workflows).toHaveLength(3);
  });

  it('is NOT_FOUND, naming the path, without workflows.jsonl', async () => {
    const dir = join(FIXTURES, 'tools-only');
    const error = await expectRejection(loadDataset(dir), 'NOT_FOUND', 'missing workflows.jsonl', dir);
    expect(error.location).toEqual({ file: dir });
  });

  it('is NOT_FOUND for a missing folder, the folder as its location', async () => {
    const error = await expectRejection(loadDataset(join(FIXTURES, 'nope')), 'NOT_FOUND', join(FIXTURES, 'nope'));
    expect(error.location).toEqual({ file: join(FIXTURES, 'nope') });
  });

  it('is INVALID_INPUT for a file given as folder', async () => {
    await expectRejection(loadDataset(join(FIXTURES, 'tiny', 'tools.jsonl')), 'INVALID_INPUT', 'expected a folder');
  });
});

describe('loadDataset: broken folders', () => {
  let root = '';
  const workflow = (id: string, tools: string[] = ['a']): string =>
    JSON.stringify({ id, domain: 'd', intent: 'i', tools, edges: [], structure: 'set', ordered: false, split: 'train', source: 's' });

  async function folder(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir);
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
    return dir;
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolgraph-dataset-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('names file and line of a bad workflow', async () => {
    const dir = await folder('bad-workflow', { 'workflows.jsonl': `${workflow('w:1')}\n${workflow('w:2', [])}\n` });
    await expectRejection(
      loadDataset(dir),
      'INVALID_INPUT',
      `${join(dir, 'workflows.jsonl')}:2: parseWorkflowRecord: tools: expected at least 1 item`,
    );
  });

  it('names file and line of invalid JSON', async () => {
    const dir = await folder('bad-json', { 'workflows.jsonl': `${workflow('w:1')}\n{oops\n` });
    await expectRejection(loadDataset(dir), 'INVALID_INPUT', 'workflows.jsonl:2: invalid JSON');
  });

  it('skips an unreadable tool line with a warning naming file, line and reason, and reads the rest', async () => {
    const dir = await folder('bad-tool', {
      'workflows.jsonl': workflow('w:1'),
      'tools.jsonl': '{"name":"a"}\n{"name":"b","params":[{"name":""}]}\n{oops\n{"description":"no name"}\n{"name":"\u200b"}\n{"name":"c","category":["x","y"]}\n',
    });
    const dataset = await loadDataset(dir);
    expect(dataset.tools.map((t) => t.name)).toEqual(['a', 'c']);
    const at = join(dir, 'tools.jsonl');
    expect(dataset.warnings).toEqual([
      `${at}:2: params[0].name: must not be empty; the entry is skipped`,
      expect.stringMatching(new RegExp(`^${at.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: invalid JSON: .*; the entry is skipped$`)),
      `${at}:4: name: missing, expected string; the entry is skipped`,
      `${at}:5: name: must not be blank (white space, zero-width or format characters only); the entry is skipped`,
    ]);
  });

  it('still refuses a tool line past a limit, naming file and line', async () => {
    const dir = await folder('long-name', { 'workflows.jsonl': workflow('w:1'), 'tools.jsonl': `{"name":"a"}\n${JSON.stringify({ name: 'n'.repeat(2_000) })}\n` });
    await expectRejection(loadDataset(dir), 'PAYLOAD_TOO_LARGE', 'tools.jsonl:2: name: too long: 2000 characters, the limit is 1024');
  });

  it('keeps the first of a tool repeated with a different definition, and says so', async () => {
    const dir = await folder('conflict', {
      'workflows.jsonl': workflow('w:1'),
      'tools.jsonl': '{"name":"a","description":"one"}\n\n{"name":"a","description":"two"}\n{"name":"b"}\n',
    });
    const dataset = await loadDataset(dir);
    expect(dataset.tools).toEqual([
      { name: 'a', description: 'one', params: [] },
      { name: 'b', description: '', params: [] },
    ]);
    expect(dataset.warnings).toEqual([
      `${join(dir, 'tools.jsonl')}:3: duplicate tool name "a" with a different definition (first at line 1); the first is kept`,
    ]);
  });

  it('has no warnings for a clean folder', async () => {
    const dir = await folder('clean', { 'workflows.jsonl': workflow('w:1'), 'tools.jsonl': '{"name":"a"}\n{"name":"a"}\n' });
    expect((await loadDataset(dir)).warnings).toEqual([]);
  });

  it('parseCatalogJsonl alone (tools import) still refuses a repeat with a different definition', () => {
    const text = '{"name":"a","description":"one"}\n{"name":"a","description":"two"}\n';
    const error = expectError(() => parseCatalogJsonl(text, 'cat.jsonl'), 'INVALID_INPUT');
    expect(error.message).toBe('cat.jsonl:2: duplicate tool name "a" with a different definition (first at line 1)');
  });

  it('drops a repeat that differs only in fields we do not keep', async () => {
    const dir = await folder('same', {
      'workflows.jsonl': workflow('w:1'),
      'tools.jsonl': '{"name":"a","description":"d"}\n{"name":"a","description":"d","desc_source":"elsewhere"}\n',
    });
    expect((await loadDataset(dir)).tools).toEqual([{ name: 'a', description: 'd', params: [] }]);
  });

  it('rejects repeated workflow ids', async () => {
    const dir = await folder('dup-id', { 'workflows.jsonl': `${workflow('w:1')}\n${workflow('w:1')}` });
    await expectRejection(loadDataset(dir), 'INVALID_INPUT', 'workflows.jsonl:2: duplicate workflow id "w:1" (first at line 1)');
  });

  it('reads CRLF files with a byte-order mark', async () => {
    const dir = await folder('crlf', { 'workflows.jsonl': `\uFEFF${workflow('w:1')}\r\n${workflow('w:2')}\r\n` });
    expect((await loadDataset(dir)).workflows.map((w) => w.id)).toEqual(['w:1', 'w:2']);
  });

  it('accepts an empty workflows file', async () => {
    const dir = await folder('empty', { 'workflows.jsonl': '' });
    expect((await loadDataset(dir)).workflows).toEqual([]);
  });
});

describe.skipIf(!existsSync(SHARED_DATA))('loadDataset: the shared evaluation data', () => {
  for (const [name, expected] of Object.entries(SHARED)) {
    it(`loads ${name} without error`, async () => {
      const dataset = await loadDataset(join(SHARED_DATA, name));
      expect(dataset.name).toBe(name);
      expect(dataset.workflows).toHaveLength(expected.workflows);
      expect(dataset.workflows.filter((w) => w.split === 'train')).toHaveLength(expected.train);
      expect(dataset.tools).toHaveLength(expected.tools);
      expect(new Set(dataset.tools.map((t) => t.name)).size).toBe(dataset.tools.length);
    });
  }
});
