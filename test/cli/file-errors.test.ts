/**
 * Every command that reads a file says what is wrong with it as `toolgraph <command>:
 * <file>[:<line>]: <CODE>: <what is wrong>`, with the exit code of its code (2 bad input, 3 not
 * found) and no internal function's name. The commands run in process through the real parser
 * and command table (test/helpers/run-cli.ts), in the folder of the files they are given; `serve`
 * and `mcp` as the built binary, since they hold the process's signals for its life.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run-cli.js';
import { inTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

/** `toolgraph ARGS` run in `cwd`, for its exit code and stderr. */
async function run(args: string[], cwd: string): Promise<{ status: number; stderr: string }> {
  if (args[0] === 'serve' || args[0] === 'mcp') return runBinary(args, cwd);
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const { status, stderr } = await runInProcess(args);
    return { status, stderr };
  } finally {
    process.chdir(before);
  }
}

function runBinary(args: string[], cwd: string): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stderr }));
  });
}

/** A library call's name as messages begin with it: `parseTrace:`, `readJsonlFile:`. */
const INTERNAL_NAME = /\b[a-z]+[A-Z][A-Za-z]*(?:\.[a-z]\w*)?: /;

describe('errors in the files commands read', () => {
  it.runIf(existsSync(BIN))('name the command, the file and the line, with the code and its exit code', async () => {
    await inTempDir('toolgraph-file-errors-', async (dir) => {
      const file = (name: string, text: string) => {
        writeFileSync(join(dir, name), text);
        return name;
      };
      const badLine = file('bad.jsonl', `${JSON.stringify({ tools: ['a', 'b'] })}\n${JSON.stringify({ tools: 5 })}\n`);
      const notJson = file('notjson.jsonl', 'notjson\n');
      const badJson = file('bad.json', '{"tools": [\n  {"name": "a",}\n]}\n');
      // A name given twice refuses a catalogue whole (an entry that cannot be read is skipped, and
      // refused only under --strict: docs/catalogues.md).
      const badCatalogue = file('cat.json', JSON.stringify([{ name: 'a' }, { name: 'a', description: 'another' }]));
      const badCatalogueLines = file('cat.jsonl', `${JSON.stringify({ name: 'a' })}\n${JSON.stringify({ name: 'a', description: 'another' })}\n`);
      const unreadableLines = file('unreadable.jsonl', `${JSON.stringify({ name: 'a' })}\n${JSON.stringify({ name: 5 })}\n`);
      const unknownTool = file('caps.json', JSON.stringify([{ id: 'c', tools: ['zz'] }]));
      mkdirSync(join(dir, 'empty'));
      const store = ['--data-dir', join(dir, 'store')];
      const cases: [string[], RegExp, number][] = [
        [['ingest', 'nope.jsonl', ...store], /^toolgraph ingest: nope\.jsonl: NOT_FOUND: no such file$/, 3],
        [['ingest', badLine, '--strict', ...store], /^toolgraph ingest: bad\.jsonl:2: INVALID_INPUT: 1 rejected line\(s\), nothing written \(--strict\); the first: INVALID_INPUT: tools: expected array, received number$/, 2],
        [['ingest', 'empty', ...store], /^toolgraph ingest: empty: NOT_FOUND: a folder without workflows\.jsonl/, 3],
        [['predict', '--data', 'nope', '--after', 'a'], /^toolgraph predict: .*nope: NOT_FOUND: no such folder$/, 3],
        [['predict', '--traces', badLine, '--after', 'a'], /^toolgraph predict: bad\.jsonl:2: INVALID_INPUT: tools: expected array, received number$/, 2],
        [['search', 'flights', '--traces', notJson], /^toolgraph search: notjson\.jsonl:1: INVALID_INPUT: invalid JSON: /, 2],
        [['search', 'flights', '--data', FIXTURE, '--tools', badCatalogue], /^toolgraph search: cat\.json: INVALID_INPUT: \[1\]\.name: duplicate tool name "a" \(first at \[0\]\)$/, 2],
        [['dag', 'flights', '--data', 'empty'], /^toolgraph dag: .*empty: NOT_FOUND: missing workflows\.jsonl$/, 3],
        [['fit', '--traces', 'nope.jsonl'], /^toolgraph fit: nope\.jsonl: NOT_FOUND: no such file$/, 3],
        [['score', notJson], /^toolgraph score: notjson\.jsonl:1: INVALID_INPUT: invalid JSON: /, 2],
        [['score', badJson], /^toolgraph score: bad\.json:2: INVALID_INPUT: not valid JSON: /, 2],
        [['eval', 'dag', '--data', 'nope'], /^toolgraph eval: nope: NOT_FOUND: no such folder \(--data\)$/, 3],
        [['eval', 'nomatch', '--data', FIXTURE, '--foreign', 'nope'], /^toolgraph eval: nope: NOT_FOUND: no such folder \(--foreign\)$/, 3],
        [['tools', 'import', badCatalogueLines, ...store], /^toolgraph tools: cat\.jsonl:2: INVALID_INPUT: duplicate tool name "a" with a different definition \(first at line 1\)$/, 2],
        [['tools', 'import', badCatalogue, ...store], /^toolgraph tools: cat\.json: INVALID_INPUT: \[1\]\.name: duplicate tool name "a" \(first at \[0\]\)$/, 2],
        [['tools', 'import', unreadableLines, '--strict', ...store], /^toolgraph tools: INVALID_INPUT: tools import --strict: 1 unreadable entry, nothing imported; first: unreadable\.jsonl:2: name: expected string, received number$/, 2],
        [['capabilities', 'import', badJson, ...store], /^toolgraph capabilities: bad\.json:2: INVALID_INPUT: not valid JSON: /, 2],
        [['capabilities', 'import', unknownTool, ...store], /^toolgraph capabilities: caps\.json: UNKNOWN_TOOL: capability "c" names tool "zz"/, 2],
        [['export', '--out', join('nope', 'graph.json'), ...store], /^toolgraph export: nope\/graph\.json: INVALID_INPUT: cannot write /, 2],
        [['serve', '--data', 'nope', '--port', '0'], /^toolgraph serve: .*nope: NOT_FOUND: no such folder$/, 3],
        [['mcp', '--traces', 'nope.jsonl'], /^toolgraph mcp: nope\.jsonl: NOT_FOUND: no such file$/, 3],
      ];
      for (const [args, expected, status] of cases) {
        const result = await run(args, dir);
        const what = `${args.join(' ')}: ${result.stderr}`;
        expect(result.status, what).toBe(status);
        const line = result.stderr.trim().split('\n').at(-1)!;
        expect(line, what).toMatch(expected);
        expect(result.stderr, what).not.toMatch(INTERNAL_NAME);
      }
    });
  }, 120_000);

  it('reports a rejected line without the parser\'s name, and goes on', async () => {
    await inTempDir('toolgraph-file-errors-', async (dir) => {
      writeFileSync(join(dir, 'mixed.jsonl'), `${JSON.stringify({ tools: ['a', 'b'] })}\n${JSON.stringify({ tools: 5 })}\n`);
      const result = await run(['ingest', 'mixed.jsonl', '--data-dir', join(dir, 'store')], dir);
      expect(result.status).toBe(0);
      expect(result.stderr).toContain('rejected mixed.jsonl:2: INVALID_INPUT: tools: expected array, received number');
      expect(result.stderr).not.toMatch(INTERNAL_NAME);
    });
  });
});
