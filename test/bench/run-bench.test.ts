/**
 * The benchmark script (bench/perf/main.ts) as `npm run bench` runs it: the built script in a
 * child process, one JSON line per case with quality beside speed, and the V8 flags it ran with.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = `${ROOT}dist/bench/perf/main.js`;

function bench(args: string[], nodeFlags: string[] = []): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...nodeFlags, SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** bench() without blocking this worker, for the cases that run several seconds. */
function benchAsync(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

describe('npm run bench', () => {
  it('is built (npm run build)', () => {
    expect(existsSync(SCRIPT), `${SCRIPT} is missing: run npm run build`).toBe(true);
  });

  it('runs the score case and prints one JSON line with latency beside the reference', () => {
    const { status, stdout, stderr } = bench(['--case', 'score', '--json']);
    expect(status, stderr).toBe(0);
    const line = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(line['case']).toBe('score');
    expect(line['cacheVectors']).toBe(1000);
    for (const key of ['noEmbedderP99Ms', 'embedderP99Ms', 'referenceP99Ms']) expect(line[key]).toBeTypeOf('number');
    // The line says which V8 flags it ran with: none here, the server's when given.
    expect(line['nodeFlags']).toEqual([]);
    const flagged = bench(['--case', 'score', '--json'], ['--max-semi-space-size=64']);
    expect(flagged.status, flagged.stderr).toBe(0);
    expect((JSON.parse(flagged.stdout.trim()) as Record<string, unknown>)['nodeFlags']).toEqual(['--max-semi-space-size=64']);
  });

  it('runs the search and dag cases, each latency with its quality beside it', async () => {
    // A small catalogue: the shape of the lines, and that speed was not bought with quality.
    // The 10,000-tool targets are the bench's to measure (README, Performance at a glance), never a test's.
    const small = ['--tools', '500', '--edges', '4000', '--json'];
    const [search, dag] = await Promise.all([benchAsync(['--case', 'search', ...small]), benchAsync(['--case', 'dag', ...small])]);
    for (const result of [search, dag]) expect(result.status, result.stderr).toBe(0);
    const s = JSON.parse(search.stdout.trim()) as Record<string, any>;
    const d = JSON.parse(dag.stdout.trim()) as Record<string, any>;
    for (const line of [s, d]) {
      expect(line['tools']).toBe(500);
      expect(line['queries']).toBe(2000);
      expect(line['embedder']).toBe('hashed-384');
      expect(line['p50Ms']).toBeGreaterThan(0);
      expect(line['p99Ms']).toBeGreaterThanOrEqual(line['p50Ms']);
    }
    expect(s['case']).toBe('search');
    // The held-out intents name their tools' own words: search finds nearly all of them first.
    expect(s['hit1']).toBeGreaterThan(0.9);
    for (const key of ['misspelt', 'withContext', 'seedWithContext', 'withNoMatchRule']) expect(s[key].hit1).toBeGreaterThan(0.5);
    expect(d['case']).toBe('dag');
    expect(d['nodeF1']).toBeGreaterThan(0.6);
    expect(d['clauses'].nodeF1).toBeGreaterThan(0.6);
  });

  it('refuses an unknown case, a bad number and an unknown option with exit 2, naming them', () => {
    const cases: [string[], string][] = [
      [['--case', 'nope'], 'bench: INVALID_INPUT: --case must be one of ingest, rebuild,'],
      [['--case', 'score', '--tools', 'x'], "bench: INVALID_INPUT: --tools: expected an integer >= 2, got 'x'"],
      [['--frobnicate'], "bench: Unknown option '--frobnicate'"],
      [['score'], 'bench: Unexpected argument'],
    ];
    for (const [args, message] of cases) {
      const result = bench(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    const help = bench(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: npm run bench -- [--case ingest|');
  });
});
