/**
 * `toolgraph session replay` and `toolgraph eval session` as a user runs them: the built binary
 * in a child process (`npm run build` first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const SAMPLE = `${ROOT}samples/nestful`;

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, TOOLGRAPH_LLM_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

function lines<T>(stdout: string): T[] {
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as T);
}

/** A small dataset from the sample: its first 80 workflows as train, the next 20 as test. */
function smallDataset(dir: string): string {
  const out = join(dir, 'small');
  mkdirSync(out);
  const workflows = readFileSync(join(SAMPLE, 'workflows.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 100);
  writeFileSync(join(out, 'workflows.jsonl'), workflows.map((l, i) => JSON.stringify({ ...(JSON.parse(l) as object), split: i < 80 ? 'train' : 'test' })).join('\n'));
  writeFileSync(join(out, 'tools.jsonl'), readFileSync(join(SAMPLE, 'tools.jsonl')));
  return out;
}

describe.runIf(existsSync(BIN))('toolgraph session replay', () => {
  it('replays recorded workflows and prints each decision, as JSON lines and as a table, and writes the telemetry', async () => {
    await inTempDir('tg-replay-', async (dir) => {
      const file = join(dir, 'two.jsonl');
      writeFileSync(file, readFileSync(join(SAMPLE, 'workflows.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n'));
      const telemetry = join(dir, 'telemetry.jsonl');
      const json = await run(['session', 'replay', file, '--data', SAMPLE, '--json', '--telemetry', telemetry]);
      expect(json.status).toBe(0);
      const out = lines<Record<string, unknown>>(json.stdout);
      const starts = out.filter((l) => 'plan' in l);
      expect(starts).toHaveLength(2);
      const steps = out.filter((l) => 'turn' in l);
      expect(steps.length).toBeGreaterThan(2);
      expect(steps[0]).toMatchObject({ workflow: 'nestful:executable-0', turn: 1, evaluation: { result: expect.any(String) }, answeredBy: 'graph', escalated: false });
      expect(steps[0]).toHaveProperty('expected');
      const events = readFileSync(telemetry, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string });
      expect(events.filter((e) => e.event === 'engine.turn.start')).toHaveLength(steps.length);

      const table = await run(['session', 'replay', file, '--data', SAMPLE, '--mode', 'deterministic']);
      expect(table.status).toBe(0);
      expect(table.stdout).toMatch(/workflow +turn +tool +evaluation +deviation +adaptation +next +recorded next/);
      expect(table.stdout).toContain('nestful:executable-1');
    });
  });

  it('says what is wrong with its arguments', async () => {
    expect(await run(['session', 'replay', '--data', SAMPLE])).toMatchObject({ status: 2, stderr: "toolgraph session: INVALID_INPUT: replay: expected FILE (JSONL of workflow records or traces)\n" });
    expect(await run(['session', 'play', 'x.jsonl', '--data', SAMPLE])).toMatchObject({ status: 2, stderr: "toolgraph session: INVALID_INPUT: expected 'replay FILE', got 'play'\n" });
    expect(await run(['session', 'replay', 'nope.jsonl', '--data', SAMPLE])).toMatchObject({ status: 3, stderr: 'toolgraph session: nope.jsonl: NOT_FOUND: no such file\n' });
    expect(await run(['session', 'replay', 'nope.jsonl', '--data', SAMPLE, '--mode', 'fast'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--mode: expected adaptive or deterministic') });
    const help = await run(['session', '--help']);
    expect(help.stdout).toContain('toolgraph session replay');
  });
});

describe.runIf(existsSync(BIN))('toolgraph eval session', () => {
  it('reports per budget, the graph-only curve and the policies at equal rates, as JSON lines and tables', async () => {
    await inTempDir('tg-eval-session-', async (dir) => {
      const data = smallDataset(dir);
      const json = await run(['eval', 'session', '--data', data, '--json']);
      expect(json.status).toBe(0);
      const out = lines<Record<string, unknown>>(json.stdout);
      expect(out.filter((l) => l['method'] === 'budget').map((l) => l['budgetCents'])).toEqual([0, 10, 50, 100]);
      const graphOnly = out.find((l) => l['method'] === 'graph-only')!;
      expect(graphOnly).toMatchObject({ task: 'session', data: 'small', coverageAt95: expect.any(Number), aurc: expect.any(Number), thresholdSource: 'calibrated' });
      const policies = new Set(out.filter((l) => l['method'] === 'policy').map((l) => l['policy']));
      expect([...policies].sort()).toEqual(['always', 'inertia', 'never', 'random', 'toolgraph']);
      for (const row of out.filter((l) => l['method'] === 'budget')) expect(row['overBudget']).toBe(0);
      const budget0 = out.find((l) => l['method'] === 'budget' && l['budgetCents'] === 0)!;
      expect(budget0['escalationsPerSession']).toBe(0);
      // Budget 0 answers from the graph alone: its accuracy is the graph-only one.
      expect(budget0['accuracy']).toBe(graphOnly['accuracy']);

      const table = await run(['eval', 'session', '--data', data, '--model-accuracy', '0.5']);
      expect(table.status).toBe(0);
      expect(table.stdout).toContain('coverage at 95% precision');
      expect(table.stdout).toContain('accuracy at equal escalation rates');
      expect((await run(['eval', 'session', '--data', data, '--model-accuracy', '2'])).stderr).toContain('--model-accuracy: expected a number in [0, 1]');
    });
  });
});
