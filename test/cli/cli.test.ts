/**
 * The `toolgraph` command as a user runs it: the built binary in a child process. `npm test`
 * builds first, so this exercises the current code.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

function run(args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe.runIf(existsSync(BIN))('toolgraph CLI', () => {
  it('lists every command in --help', () => {
    const { status, stdout } = run(['--help']);
    expect(status).toBe(0);
    for (const name of ['demo', 'predict', 'search', 'fit', 'score', 'eval', 'bench']) expect(stdout).toContain(`  ${name}`);
  });

  it('gives each command a help with an example', () => {
    for (const name of ['demo', 'predict', 'search', 'fit', 'score', 'eval', 'bench']) {
      const { status, stdout } = run([name, '--help']);
      expect(status).toBe(0);
      expect(stdout).toContain('Example:');
      expect(stdout).toContain(`toolgraph ${name}`);
    }
  });

  it('runs the main job on the bundled sample', () => {
    const { status, stdout } = run(['demo', '--json']);
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines[0]!['stats'].traces).toBeGreaterThan(200);
    expect(lines[1]!['prediction'].kind).toBe('prediction');
    expect(lines[1]!['prediction'].items[0].tool).toBe('TripadvisorSearchHotels');
    expect(lines[2]!['search'].items.map((i: { tool: string }) => i.tool)).toContain('SkyScrapperFlightSearch');
  });

  it('predicts from a dataset folder, as a table and as JSON', () => {
    const table = run(['predict', '--data', FIXTURE, '--context', 'search_airport', '--intent', 'book a flight to Rome']);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('search_flights');
    const json = run(['predict', '--data', FIXTURE, '--context', 'search_airport', '--json', '--profile', 'seed']);
    expect(JSON.parse(json.stdout).profile).toBe('seed');
  });

  it('evaluates with one JSON line per method', () => {
    const { status, stdout } = run(['eval', 'next', '--data', FIXTURE, '--folds', '2', '--json']);
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { task: string; method: string; hit1: number });
    expect(lines.map((l) => l.method)).toEqual(['popularity', 'markov1', 'markov2', 'seed', 'toolgraph']);
    for (const l of lines) {
      expect(l.task).toBe('next');
      expect(l.hit1).toBeGreaterThanOrEqual(0);
      expect(l.hit1).toBeLessThanOrEqual(1);
    }
  });

  it('scores ReasoningTraces with their breakdown, contributing the valuable ones to novelty', () => {
    const { status, stdout } = run(['score', 'samples/reasoning-traces.jsonl', '--json']);
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines).toHaveLength(4);
    // Trace 4 is a single thought: spec 000 pins its value at 0.1.
    expect(lines[3]!['score']).toBe(0.1);
    expect(lines[3]!['overrides'][0].rule).toBe('single_thought');
    // The finance trace uses the finance weight profile of spec 001.
    expect(lines[1]!['profile']).toBe('finance');
    // Novelty is 0.5 until something was contributed, then measured against the contribution.
    expect(lines[0]!['dimensions'].novelty).toBe(0.5);
    expect(lines[1]!['contributed']).toBe(true);
    expect(lines[2]!['dimensions'].novelty).not.toBe(0.5);
    const bad = run(['score', 'samples/nestful/tools.jsonl']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('INVALID_INPUT');
  });

  it('runs the score bench case and prints one JSON line with latency beside the reference', () => {
    const { status, stdout } = run(['bench', '--case', 'score', '--json']);
    expect(status).toBe(0);
    const line = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(line['case']).toBe('score');
    expect(line['cacheVectors']).toBe(1000);
    for (const key of ['noEmbedderP99Ms', 'embedderP99Ms', 'referenceP99Ms']) expect(line[key]).toBeTypeOf('number');
  });

  it('exits 2 on bad usage and 3 when data is missing, with the error code on stderr', () => {
    const unknown = run(['frobnicate']);
    expect(unknown.status).toBe(2);
    const badTask = run(['eval', 'everything', '--data', FIXTURE]);
    expect(badTask.status).toBe(2);
    expect(badTask.stderr).toContain('INVALID_INPUT');
    const badFlag = run(['predict', '--no-such-flag']);
    expect(badFlag.status).toBe(2);
    const missing = run(['eval', 'next', '--data', `${ROOT}no/such/folder`]);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toContain('NOT_FOUND');
    const badK = run(['predict', '--data', FIXTURE, '--context', 'a', '--k', 'zero']);
    expect(badK.status).toBe(2);
  });

  it('is runnable through npx after install', () => {
    const out = execFileSync('npx', ['--no-install', 'toolgraph', '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(out.trim()).toBe('0.1.0');
  });
});
