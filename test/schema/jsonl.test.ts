import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonl, parseJsonlLines, readJsonlFile } from '../../src/schema/jsonl.js';
import { MAX_JSONL_LINE_LENGTH } from '../../src/schema/limits.js';
import { parseTool } from '../../src/schema/tool.js';
import { parseTrace } from '../../src/schema/trace.js';
import { expectError, expectRejection } from './_helpers.js';

const identity = (value: unknown): unknown => value;

describe('parseJsonl', () => {
  it('parses one value per line and skips blank lines', () => {
    expect(parseJsonl('1\n\n  \n"a"\n{"b":2}\n', identity, 's')).toEqual([1, 'a', { b: 2 }]);
  });

  it('accepts CRLF line ends, a byte-order mark and a missing final newline', () => {
    expect(parseJsonl('\uFEFF{"a":1}\r\n{"a":2}', identity, 's')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('returns nothing for empty text', () => {
    expect(parseJsonl('', identity, 's')).toEqual([]);
    expect(parseJsonl('\n\n', identity, 's')).toEqual([]);
  });

  it('calls the parser with the value only, so parseTrace can be passed directly', () => {
    const traces = parseJsonl('{"tools":["a"]}\n{"tools":["b"],"id":"x"}', parseTrace, 's');
    expect(traces.map((t) => t.id)[1]).toBe('x');
    const seen: unknown[][] = [];
    parseJsonl('1', (...args: unknown[]) => seen.push(args), 's');
    expect(seen).toEqual([[1]]);
  });

  it('reports invalid JSON as source:line with INVALID_INPUT', () => {
    expectError(() => parseJsonl('1\n\n{"a":', identity, 'data/x.jsonl'), 'INVALID_INPUT', 'data/x.jsonl:3: invalid JSON');
  });

  it('prefixes schema errors with source:line and keeps their path', () => {
    const error = expectError(
      () => parseJsonl('{"name":"a"}\n{"name":""}', parseTool, 'tools.jsonl'),
      'INVALID_INPUT',
      'tools.jsonl:2: parseTool: name: must not be empty',
    );
    expect(error.details).toMatchObject({ source: 'tools.jsonl', line: 2 });
  });

  it('keeps PAYLOAD_TOO_LARGE from the line parser', () => {
    expectError(
      () => parseJsonl(JSON.stringify({ name: 'n'.repeat(2_000) }), parseTool, 't.jsonl'),
      'PAYLOAD_TOO_LARGE',
      't.jsonl:1: parseTool: name: too long',
    );
  });

  it('turns other errors from the line parser into INVALID_INPUT at source:line', () => {
    const failing = (): never => {
      throw new TypeError('boom');
    };
    expectError(() => parseJsonl('\n1', failing, 's'), 'INVALID_INPUT', 's:2: boom');
  });

  it('rejects a line over MAX_JSONL_LINE_LENGTH with PAYLOAD_TOO_LARGE', () => {
    const line = `"${'x'.repeat(MAX_JSONL_LINE_LENGTH)}"`;
    expectError(() => parseJsonl(`1\n${line}`, identity, 's'), 'PAYLOAD_TOO_LARGE', 's:2: line too long');
  });

  it('passes 1-based line numbers to parseJsonlLines parsers', () => {
    expect(parseJsonlLines('"a"\n\n"b"', (value, line) => [value, line], 's')).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });
});

describe('readJsonlFile', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgraph-jsonl-'));
    await writeFile(join(dir, 'ok.jsonl'), '{"name":"a"}\n{"name":"b","params":[]}\n');
    await writeFile(join(dir, 'bad.jsonl'), '{"name":"a"}\n{"name":5}\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and parses a file', async () => {
    const tools = await readJsonlFile(join(dir, 'ok.jsonl'), parseTool);
    expect(tools.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('names the file and line of a bad value (custom source label too)', async () => {
    await expectRejection(readJsonlFile(join(dir, 'bad.jsonl'), parseTool), 'INVALID_INPUT', `${join(dir, 'bad.jsonl')}:2: parseTool: name`);
    await expectRejection(readJsonlFile(join(dir, 'bad.jsonl'), parseTool, 'catalog'), 'INVALID_INPUT', 'catalog:2:');
  });

  it('is NOT_FOUND for a missing file, naming the path', async () => {
    const path = join(dir, 'missing.jsonl');
    await expectRejection(readJsonlFile(path, identity), 'NOT_FOUND', path);
  });

  it('is INVALID_INPUT for a directory', async () => {
    await expectRejection(readJsonlFile(dir, identity), 'INVALID_INPUT', 'found a directory');
  });
});
