/**
 * The README's program ("A program") runs as written: it is taken out of README.md, pointed at
 * this checkout's sources and at a temporary PGlite folder, run as a program of its own (Node
 * with tsx, as a user runs a TypeScript file), and each line it prints must be the one the
 * README's comment beside its console.log says.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inTempDir } from '../helpers/temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** The README's fenced TypeScript blocks that open a store: the program. */
export function readmeProgram(readme: string): string {
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const programs = blocks.filter((b) => b.includes('openToolgraph('));
  if (programs.length !== 1) throw new Error(`README.md: expected one TypeScript block calling openToolgraph, found ${programs.length}`);
  return programs[0]!;
}

/** What each `console.log(...)` line of the program must print: the comment after it. */
export function expectedLines(program: string): string[] {
  return program
    .split('\n')
    .filter((line) => line.trimStart().startsWith('console.log('))
    .map((line) => {
      const comment = line.lastIndexOf('// ');
      if (comment < 0) throw new Error(`README.md: a console.log line without the output it prints: ${line}`);
      return line.slice(comment + 3).trim();
    });
}

describe('the README program', () => {
  const program = readmeProgram(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('imports the package and opens a store in .toolgraph, as a user writes it', () => {
    expect(program).toContain("from 'toolgraph'");
    expect(program).toContain("dataDir: '.toolgraph'");
    expect(program).toMatch(/\bingest\(/);
    expect(program).toMatch(/\bpredictNext\(/);
    expect(program).toMatch(/\bsearchTools\(/);
    expect(program).toMatch(/\bsuggestDag\(/);
    expect(program.split('\n').filter((l) => l.trim() !== '').length).toBeLessThanOrEqual(20);
  });

  it('runs against a temporary PGlite store and prints what its comments say', async () => {
    const expected = expectedLines(program);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    await inTempDir('toolgraph-readme-', async (dir) => {
      const source = program
        .replace("from 'toolgraph'", `from '${pathToFileURL(join(ROOT, 'src', 'index.ts')).href}'`)
        .replace("dataDir: '.toolgraph'", `dataDir: ${JSON.stringify(join(dir, 'store'))}`);
      const file = join(dir, 'program.mts');
      writeFileSync(file, source);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 120_000 });
      expect(stdout.trimEnd().split('\n')).toEqual(expected);
    });
  }, 150_000);
});
