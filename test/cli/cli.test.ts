/**
 * The `toolgraph` command's behaviour: in this process through the real parser and command
 * table (test/helpers/run-cli.ts), each command's output and exit code; then the built binary in
 * a child process for what only a process shows (the help a user first sees, exit codes reaching
 * the shell, a reader that closes the pipe early, the installed bin). `npm test` builds first, so
 * the binary is the current code.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess as cli } from '../helpers/run-cli.js';
import { inTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

/** The built binary in a child process. */
function run(args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The JSON lines a `--json` command printed, one value per line. */
function jsonLines<T>(stdout: string): T[] {
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as T);
}

describe('toolgraph CLI', () => {
  it('gives each command a help with an example', async () => {
    for (const name of ['demo', 'predict', 'search', 'fit', 'score', 'eval', 'ingest', 'tools', 'capabilities', 'stats', 'export']) {
      const { status, stdout } = await cli([name, '--help']);
      expect(status).toBe(0);
      expect(stdout).toContain('Example:');
      expect(stdout).toContain(`toolgraph ${name}`);
    }
  });

  it('runs the main job on the bundled sample, into a store', async () => {
    await inTempDir('toolgraph-cli-demo-', async (dataDir) => {
      const { status, stdout } = await cli(['demo', '--json', '--data-dir', dataDir]);
      expect(status).toBe(0);
      const lines = jsonLines<Record<string, any>>(stdout);
      expect(lines[0]!['stats'].traces).toBeGreaterThan(200);
      expect(lines[1]!['prediction'].kind).toBe('prediction');
      expect(lines[1]!['prediction'].items[0].tool).toBe('TripadvisorSearchHotels');
      expect(lines[2]!['search'].items.map((i: { tool: string }) => i.tool)).toContain('SkyScrapperFlightSearch');
      expect(lines[0]!['store']).toMatchObject({ stored: 300, alreadyStored: 0, fitted: true });
      // The sample catalogue's declared outputs reach the stored engine: the flight search takes
      // its airports' ids as data, not as a guess from the order.
      const dag = lines[3]!['dag'] as { nodes: { id: string; tool?: string }[]; edges: { from: string; to: string; source: string }[] };
      const toolOf = new Map(dag.nodes.map((n) => [n.id, n.tool]));
      const fed = dag.edges.filter((e) => e.source === 'data-flow').map((e) => `${toolOf.get(e.from)} -> ${toolOf.get(e.to)}`);
      expect(fed).toContain('SkyScrapperSearchAirport -> SkyScrapperFlightSearch');
      // The second run finds everything stored and fitted, and answers the same from the store.
      const again = await cli(['demo', '--json', '--data-dir', dataDir]);
      expect(again.status).toBe(0);
      const second = jsonLines<Record<string, any>>(again.stdout);
      expect(second[0]!['store']).toMatchObject({ stored: 0, alreadyStored: 300, fitted: false });
      expect(second[1]!['prediction'].items).toEqual(lines[1]!['prediction'].items);
    });
  }, 300_000);

  it('takes the forms of the command table: predict --after, search QUERY, dag INTENT; stray or doubled input is bad usage', async () => {
    const after = await cli(['predict', '--data', FIXTURE, '--after', 'search_airport', '--intent', 'book a flight to Rome', '--json']);
    expect(after.status).toBe(0);
    const context = await cli(['predict', '--data', FIXTURE, '--context', 'search_airport', '--intent', 'book a flight to Rome', '--json']);
    expect(JSON.parse(after.stdout).items).toEqual(JSON.parse(context.stdout).items);
    expect(JSON.parse(after.stdout).unknownContext).toEqual([]);
    // The query as one argument, as several words, or as --query: the same answer.
    const quoted = await cli(['search', 'book a flight to Rome', '--data', FIXTURE, '--json']);
    expect(quoted.status).toBe(0);
    const items = JSON.parse(quoted.stdout).items;
    expect(items.length).toBeGreaterThan(0);
    expect(JSON.parse((await cli(['search', 'book', 'a', 'flight', 'to', 'Rome', '--data', FIXTURE, '--json'])).stdout).items).toEqual(items);
    expect(JSON.parse((await cli(['search', '--query', 'book a flight to Rome', '--data', FIXTURE, '--json'])).stdout).items).toEqual(items);
    // A context tool nothing has seen is named, in the table as in the JSON.
    const unknown = await cli(['search', 'book a flight to Rome', '--context', 'search_airport,nope', '--data', FIXTURE]);
    expect(unknown.status).toBe(0);
    expect(unknown.stdout).toContain('unknown context tools ignored: nope');
    const dag = await cli(['dag', 'find an airport, then book a flight to Rome', '--data', FIXTURE, '--json']);
    expect(dag.status).toBe(0);
    const nodes = JSON.parse(dag.stdout).nodes;
    expect(nodes.length).toBeGreaterThan(0);
    expect(JSON.parse((await cli(['dag', '--intent', 'find an airport, then book a flight to Rome', '--data', FIXTURE, '--json'])).stdout).nodes).toEqual(nodes);
    const cases: [string[], string][] = [
      [['predict', '--data', FIXTURE, '--after', 'a', '--context', 'b'], 'toolgraph predict: INVALID_INPUT: --after and --context are the same list: give one'],
      [['predict', '--data', FIXTURE, 'search_airport'], "too many arguments for 'predict'"],
      [['stats', 'everything'], "too many arguments for 'stats'"],
      [['search', 'flights', '--query', 'flights', '--data', FIXTURE], 'toolgraph search: INVALID_INPUT: give the query as words or as --query, not both'],
      [['search', '--data', FIXTURE], 'toolgraph search: INVALID_INPUT: expected the query in words'],
      [['dag', '--data', FIXTURE], 'toolgraph dag: INVALID_INPUT: expected the intent in words'],
      [['eval', 'next', 'search', '--data', FIXTURE], "too many arguments for 'eval'"],
      [['eval', 'next', '--context', '--data', FIXTURE], "toolgraph eval: INVALID_INPUT: --context applies to 'search' only, not 'next'"],
      [['eval', 'next', '--cold-tools', '--data', FIXTURE], "toolgraph eval: INVALID_INPUT: --cold-tools applies to 'search' without --context only"],
      [['eval', 'search', '--cold-tools', '--context', '--data', FIXTURE], "toolgraph eval: INVALID_INPUT: --cold-tools applies to 'search' without --context only"],
      [['eval', 'nomatch', '--data', FIXTURE], 'INVALID_INPUT: eval nomatch: --foreign DIR2 is required'],
      [['eval', 'online', '--folds', '2', '--data', FIXTURE], "toolgraph eval: INVALID_INPUT: --folds does not apply to 'online'"],
      [['eval', 'online', '--validation', '--data', FIXTURE], "toolgraph eval: INVALID_INPUT: --validation does not apply to 'online'"],
      [['search', 'flights', '--profile', 'spec', '--data', FIXTURE], 'INVALID_INPUT'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('predicts from a dataset folder, as a table and as JSON', async () => {
    const table = await cli(['predict', '--data', FIXTURE, '--context', 'search_airport', '--intent', 'book a flight to Rome']);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('search_flights');
    const json = await cli(['predict', '--data', FIXTURE, '--context', 'search_airport', '--json', '--profile', 'seed']);
    expect(JSON.parse(json.stdout).profile).toBe('seed');
  });

  it('prints a DAG as a table whose dependencies carry their source and confidence as the JSON has them, to three decimals', async () => {
    const intent = 'find an airport, then book a flight to Rome';
    const table = await cli(['dag', intent, '--data', FIXTURE]);
    expect(table.status).toBe(0);
    const dag = JSON.parse((await cli(['dag', intent, '--data', FIXTURE, '--json'])).stdout) as { edges: { from: string; to: string; source: string; confidence: number }[] };
    expect(dag.edges.length).toBeGreaterThan(0);
    for (const e of dag.edges) {
      const shown = Number.isInteger(e.confidence) ? String(e.confidence) : e.confidence.toFixed(3);
      expect(table.stdout).toContain(`${e.from} (${e.source}, ${shown})`);
    }
    // Every dependency's number as the other numeric columns show theirs: whole, or three decimals.
    const shownConfidences = [...table.stdout.matchAll(/\((?:sequence|data-flow), ([0-9.]+)\)/g)].map((m) => m[1]!);
    expect(shownConfidences.length).toBe(dag.edges.length);
    for (const c of shownConfidences) expect(c).toMatch(/^\d+(\.\d{3})?$/);
  });

  it('searches with the seed profile (spec 003 section 1) when asked, and evaluates search with context', async () => {
    const seed = JSON.parse((await cli(['search', 'book a flight', '--data', FIXTURE, '--context', 'search_airport', '--profile', 'seed', '--json'])).stdout);
    expect(seed.profile).toBe('seed');
    expect(seed.items[0].score).toBeLessThanOrEqual(1);
    expect(JSON.parse((await cli(['search', 'book a flight', '--data', FIXTURE, '--json'])).stdout).profile).toBe('default');
    expect((await cli(['search', 'book a flight', '--data', FIXTURE, '--context', 'search_airport', '--profile', 'seed'])).stdout).toMatch(/^results \(profile seed, graph version \d+, coverage [0-9.]+, similarity [0-9.]+\)\n/);
    const { status, stdout } = await cli(['eval', 'search', '--context', '--data', FIXTURE, '--folds', '2', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ method: string; context: boolean; n: number; hit5: number }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['bm25', 'search', 'seed', 'toolgraph']);
    for (const l of lines) {
      expect(l.context).toBe(true);
      expect(l.n).toBeGreaterThan(0);
    }
  });

  it('evaluates with one JSON line per method', async () => {
    const { status, stdout } = await cli(['eval', 'next', '--data', FIXTURE, '--folds', '2', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ task: string; method: string; hit1: number }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['popularity', 'markov1', 'markov2', 'seed', 'unfitted', 'toolgraph']);
    for (const l of lines) {
      expect(l.task).toBe('next');
      expect(l.hit1).toBeGreaterThanOrEqual(0);
      expect(l.hit1).toBeLessThanOrEqual(1);
    }
  });

  it('evaluates workflow suggestion with a line per method carrying node-F1 and edge-F1', async () => {
    const { status, stdout } = await cli(['eval', 'dag', '--data', FIXTURE, '--folds', '2', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ task: string; method: string; n: number; nodeF1: number; edgeF1: number; folds: number }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['chain', 'toolgraph']);
    for (const l of lines) {
      expect(l.task).toBe('dag');
      expect(l.folds).toBe(2);
      expect(l.n).toBeGreaterThan(0);
      for (const f of [l.nodeF1, l.edgeF1]) expect(f >= 0 && f <= 1).toBe(true);
    }
    const table = await cli(['eval', 'dag', '--data', FIXTURE, '--folds', '2']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/nodeF1/);
    expect(table.stdout).toMatch(/edgeF1/);
  });

  it('evaluates a store fed as traffic grows: a row per checkpoint and method, a figure only where the method has one', async () => {
    type Row = { task: string; data: string; checkpoint: number; traces: number; method: string } & Record<string, unknown>;
    const { status, stdout, stderr } = await cli(['eval', 'online', '--data', FIXTURE, '--json']);
    expect(status, stderr).toBe(0);
    const rows = jsonLines<Row>(stdout);
    const methods = ['bm25', 'learned', 'markov2', 'toolgraph'];
    // Two train workflows: each share of them, rounded, and at least one.
    expect(rows.map((r) => [r.checkpoint, r.traces, r.method])).toEqual(
      [[0.05, 1], [0.1, 1], [0.25, 1], [0.5, 1], [1, 2]].flatMap(([checkpoint, traces]) => methods.map((m) => [checkpoint, traces, m])),
    );
    const figures = (r: Row) => Object.fromEntries(Object.entries(r).filter(([key]) => !['task', 'data', 'checkpoint', 'traces', 'method'].includes(key)));
    // The one test workflow asks for '🤡 joke' (in no catalogue and no trace) and '__proto__': at
    // most five tools are known, so the top five hold '__proto__' and recall@5 is 1/2. No word of
    // the request is in '__proto__''s entry and train never calls it, so a called tool ranks
    // first. It is unordered: no next-tool position to ask. Its words match no tool: the DAG is a
    // no-match one, without nodes. Two traces are fewer than a first fit waits for.
    const search = { searchN: 1, searchHit1: 0, searchRecall5: 0.5 };
    for (const r of rows) {
      expect([r.task, r.data]).toEqual(['online', 'tiny']);
      if (r.method === 'markov2') expect(figures(r)).toEqual({});
      else if (r.method === 'toolgraph') expect(figures(r)).toEqual({ ...search, dagN: 1, dagNodeF1: 0, dagEdgeF1: 0, fit: 'prior', fitTraces: 0 });
      else expect(figures(r)).toEqual(search);
    }
    const table = await cli(['eval', 'online', '--data', FIXTURE]);
    expect(table.status, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('tiny');
    expect(lines[1]!.split(/ {2,}/)).toEqual(['checkpoint', 'traces', 'method', 'search hit1', 'search recall5', 'next hit1', 'dag nodeF1', 'dag edgeF1', 'fit', 'fitTraces']);
    const cells = lines.slice(3).map((l) => l.trim().split(/\s+/));
    expect(cells).toHaveLength(20);
    expect(cells[2]).toEqual(['0.050', '1', 'markov2', '-', '-', '-', '-', '-', '-', '-']);
    expect(cells[19]).toEqual(['1', '2', 'toolgraph', '0', '0.500', '-', '0', '0', 'prior', '0']);
  });

  it('with --cold-tools, asks only the test requests that name a held-out tool, and marks the lines', async () => {
    const { loadDataset } = await import('../../src/schema/dataset.js');
    const { isColdTool } = await import('../../src/eval/splits.js');
    const dataset = await loadDataset(`${ROOT}samples/nestful`);
    const asked = dataset.workflows.filter((w) => w.split === 'test' && w.intent !== '' && w.tools.some(isColdTool));
    expect(asked.length).toBeGreaterThan(0);
    const { status, stdout } = await cli(['eval', 'search', '--data', 'samples/nestful', '--cold-tools', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ method: string; n: number; coldTools?: boolean }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['bm25', 'learned', 'unfitted', 'toolgraph']);
    for (const l of lines) {
      expect(l.coldTools).toBe(true);
      expect(l.n).toBe(asked.length);
    }
  });

  it('evaluates capability ranking with a line per method', async () => {
    const { status, stdout } = await cli(['eval', 'capability', '--data', 'samples/nestful', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ task: string; method: string; n: number; hit1: number; mrr: number }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['semantic', 'semantic-boost', 'passive', 'passive-boost', 'overlap', 'toolgraph']);
    for (const l of lines) {
      expect(l.task).toBe('capability');
      expect(l.n).toBeGreaterThan(0);
      expect(l.hit1 >= 0 && l.hit1 <= l.mrr && l.mrr <= 1).toBe(true);
    }
  });

  it('evaluates no-match against foreign requests, a line per pair, both rates in it', async () => {
    const { status, stdout } = await cli(['eval', 'nomatch', '--data', FIXTURE, '--foreign', 'samples/nestful', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<Record<string, unknown>>(stdout);
    expect(lines.map((l) => [l['task'], l['data'], l['foreign'], l['foreignN']])).toEqual([['nomatch', 'tiny', 'nestful', 60]]);
    for (const key of ['inDomainNoMatch', 'foreignNoMatch', 'hit1', 'hit1Always', 'recall5']) {
      const value = lines[0]![key] as number;
      expect(value >= 0 && value <= 1, key).toBe(true);
    }
    expect(lines[0]!['validation']).toBeUndefined();
    // The fixture's validation quarter holds no request, so a copy of the sample stands in as foreign.
    await inTempDir('toolgraph-cli-nomatch-', async (dir) => {
      const copy = join(dir, 'copy');
      mkdirSync(copy);
      for (const file of ['workflows.jsonl', 'tools.jsonl']) writeFileSync(join(copy, file), readFileSync(`${ROOT}samples/nestful/${file}`));
      const validation = await cli(['eval', 'nomatch', '--data', 'samples/nestful', '--foreign', copy, '--validation', '--json']);
      expect((JSON.parse(validation.stdout.trim()) as { validation?: boolean }).validation).toBe(true);
    });
    const table = await cli(['eval', 'nomatch', '--data', FIXTURE, '--foreign', 'samples/nestful']);
    expect(table.stdout).toMatch(/foreignNoMatch/);
    expect(table.stdout).toContain('calibration curve');
  });

  it('skips, saying so, a dataset with nothing to evaluate, instead of printing rates over no request', async () => {
    await inTempDir('toolgraph-cli-skip-', async (dir) => {
      // The fixture with every workflow moved to train: no test request is left.
      const trainOnly = join(dir, 'train-only');
      mkdirSync(trainOnly);
      const lines = readFileSync(join(FIXTURE, 'workflows.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
      writeFileSync(join(trainOnly, 'workflows.jsonl'), lines.map((l) => JSON.stringify({ ...(JSON.parse(l) as object), split: 'train' })).join('\n'));
      writeFileSync(join(trainOnly, 'tools.jsonl'), readFileSync(join(FIXTURE, 'tools.jsonl')));
      for (const task of ['next', 'search', 'dag', 'capability', 'feedback', 'online']) {
        const { status, stdout, stderr } = await cli(['eval', task, '--data', trainOnly, '--json']);
        expect([task, status, stdout]).toEqual([task, 0, '']);
        expect(stderr).toMatch(/train-only: no .*; skipped/);
      }
      const inDomainEmpty = await cli(['eval', 'nomatch', '--data', trainOnly, '--foreign', 'samples/nestful', '--json']);
      expect([inDomainEmpty.status, inDomainEmpty.stdout]).toEqual([0, '']);
      expect(inDomainEmpty.stderr).toContain('train-only against nestful: train-only has no test workflow with an intent; skipped');
      const foreignEmpty = await cli(['eval', 'nomatch', '--data', FIXTURE, '--foreign', trainOnly, '--json']);
      expect([foreignEmpty.status, foreignEmpty.stdout]).toEqual([0, '']);
      expect(foreignEmpty.stderr).toContain('tiny against train-only: train-only has no test workflow with an intent; skipped');
    });
  });

  it('evaluates a catalogue that reuses a tool name with another definition, warning; tools import refuses it whole', async () => {
    await inTempDir('toolgraph-cli-reused-', async (dir) => {
      // The fixture's catalogue with its first tool named again, described otherwise.
      const reused = join(dir, 'reused');
      mkdirSync(reused);
      writeFileSync(join(reused, 'workflows.jsonl'), readFileSync(join(FIXTURE, 'workflows.jsonl')));
      const catalogue = readFileSync(join(FIXTURE, 'tools.jsonl'), 'utf8').trimEnd();
      const lines = catalogue.split('\n').length;
      writeFileSync(join(reused, 'tools.jsonl'), `${catalogue}\n${JSON.stringify({ name: 'search_airport', description: 'Book a parking space at an airport' })}\n`);
      const warning = `warning: ${join(reused, 'tools.jsonl')}:${lines + 1}: duplicate tool name "search_airport" with a different definition (first at line 1); the first is kept`;
      const evaluated = await cli(['eval', 'search', '--data', reused, '--folds', '2', '--json']);
      expect(evaluated.status, evaluated.stderr).toBe(0);
      expect(evaluated.stderr).toContain(warning);
      expect(jsonLines<{ method: string }>(evaluated.stdout).map((l) => l.method)).toEqual(['bm25', 'learned', 'unfitted', 'toolgraph']);

      const dataDir = join(dir, 'store');
      const imported = await cli(['tools', 'import', join(reused, 'tools.jsonl'), '--data-dir', dataDir]);
      expect(imported.status).toBe(2);
      expect(imported.stderr).toMatch(/INVALID_INPUT.*duplicate tool name "search_airport" with a different definition/);
      const listed = await cli(['tools', 'list', '--data-dir', dataDir, '--json']);
      expect([listed.status, listed.stdout]).toEqual([0, '']);
    });
  });

  it('evaluates no-match against a copy of the dataset in another folder, and skips only the same folder', async () => {
    await inTempDir('toolgraph-cli-copy-', async (dir) => {
      const copy = join(dir, 'tiny');
      mkdirSync(copy);
      for (const file of ['workflows.jsonl', 'tools.jsonl']) writeFileSync(join(copy, file), readFileSync(join(FIXTURE, file)));
      const other = await cli(['eval', 'nomatch', '--data', FIXTURE, '--foreign', copy, '--json']);
      expect(other.status).toBe(0);
      expect(jsonLines<{ foreign: string }>(other.stdout).map((l) => l.foreign)).toEqual(['tiny']);
      const same = await cli(['eval', 'nomatch', '--data', FIXTURE, '--foreign', `${FIXTURE}/.`, '--json']);
      expect([same.status, same.stdout]).toEqual([0, '']);
    });
  });

  it('evaluates on a held-out quarter of train with --validation, never on test, and marks the lines', async () => {
    const { loadDataset } = await import('../../src/schema/dataset.js');
    const { splitsOf } = await import('../../src/eval/splits.js');
    const dataset = await loadDataset(`${ROOT}samples/nestful`);
    const heldOut = splitsOf(dataset.workflows, { validation: true })[0]!.test.filter((w) => w.intent !== '');
    expect(heldOut.every((w) => w.split === 'train')).toBe(true);
    const { status, stdout } = await cli(['eval', 'search', '--data', 'samples/nestful', '--validation', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ method: string; n: number; validation?: boolean }>(stdout);
    expect(lines.map((l) => l.method)).toEqual(['bm25', 'learned', 'unfitted', 'toolgraph']);
    for (const l of lines) {
      expect(l.validation).toBe(true);
      expect(l.n).toBe(heldOut.length);
    }
    const onTest = await cli(['eval', 'search', '--data', 'samples/nestful', '--json']);
    const testLine = JSON.parse(onTest.stdout.trim().split('\n')[0]!) as { n: number; validation?: boolean };
    expect(testLine.validation).toBeUndefined();
    expect(testLine.n).toBe(dataset.workflows.filter((w) => w.split === 'test' && w.intent !== '').length);
  });

  it('evaluates the feedback loop on a drift replay, undrifted rows in the same run', async () => {
    const { status, stdout } = await cli(['eval', 'feedback', '--data', 'samples/nestful', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<{ task: string; phase: string; method: string; hit1: number }>(stdout);
    expect(lines.map((l) => `${l.phase}/${l.method}`)).toEqual([
      'undrifted/toolgraph',
      'undrifted/seed',
      'drifted/no-feedback',
      'drifted/toolgraph',
      'drifted/seed',
    ]);
    for (const l of lines) expect(l.task).toBe('feedback');
  });

  it('scores ReasoningTraces with their breakdown, contributing the valuable ones to novelty', async () => {
    const { status, stdout } = await cli(['score', 'samples/reasoning-traces.jsonl', '--json']);
    expect(status).toBe(0);
    const lines = jsonLines<Record<string, any>>(stdout);
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
    const bad = await cli(['score', 'samples/nestful/tools.jsonl']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('INVALID_INPUT');
  });

  it('counts in stats every transition export writes, and apart those of successful steps', async () => {
    await inTempDir('toolgraph-cli-stats-', async (dir) => {
      const file = join(dir, 'traces.jsonl');
      writeFileSync(
        file,
        [
          { id: 'ok', intent: 'look up then book', tools: ['lookup', 'book', 'notify'], success: true },
          // A failed trace: its transitions are observed, with no success to weigh them.
          { id: 'failed', intent: 'cancel then refund', tools: ['cancel', 'refund', 'lookup'], success: false },
        ]
          .map((t) => JSON.stringify(t))
          .join('\n'),
      );
      const dataDir = join(dir, 'store');
      expect((await cli(['ingest', file, '--data-dir', dataDir])).status).toBe(0);
      const stats = await cli(['stats', '--data-dir', dataDir, '--json']);
      expect(stats.status, stats.stderr).toBe(0);
      const s = JSON.parse(stats.stdout) as { transitions: number; successfulTransitions: number };
      const exported = JSON.parse((await cli(['export', '--data-dir', dataDir])).stdout) as { transitions: unknown[] };
      expect(exported.transitions).toHaveLength(4);
      expect(s).toMatchObject({ transitions: 4, successfulTransitions: 2 });
      const table = await cli(['stats', '--data-dir', dataDir]);
      expect(table.stdout.split('\n')[0]).toMatch(/transitions\s+successful/);
    });
  });

  it('ingests trace files durably, reporting every rejected line, and answers from the store', async () => {
    await inTempDir('toolgraph-cli-store-', async (dir) => {
      const dataDir = join(dir, 'store');
      const traces = join(dir, 'traces.jsonl');
      writeFileSync(
        traces,
        [
          JSON.stringify({ id: 'c1', intent: 'book a flight to Rome', tools: ['search_airport', 'search_flights', 'book_flight'] }),
          '{not json',
          JSON.stringify({ id: 'c2', tools: 'search_airport' }),
          '',
          JSON.stringify({ id: 'w1', domain: 'travel', intent: 'find flights', tools: ['search_airport', 'search_flights'], edges: [[0, 1]], structure: 'chain', ordered: true, split: 'train', source: 'test' }),
          readFileSync(`${ROOT}samples/reasoning-traces.jsonl`, 'utf8').split('\n')[0]!,
        ].join('\n'),
      );
      const strict = await cli(['ingest', traces, '--data-dir', dataDir, '--strict']);
      expect(strict.status).toBe(2);
      expect(strict.stderr).toMatch(/2 rejected line\(s\), nothing written/);

      const ingest = await cli(['ingest', traces, `${FIXTURE}`, '--data-dir', dataDir, '--json']);
      expect(ingest.status, ingest.stderr).toBe(0);
      const summary = JSON.parse(ingest.stdout) as { accepted: number; ingested: number; rejected: { line: number; reason: string }[] };
      expect(summary.rejected.map((r) => r.line)).toEqual([2, 3]);
      expect(summary.rejected[0]!.reason).toMatch(/invalid JSON/);
      expect(summary.rejected[1]!.reason).toMatch(/^INVALID_INPUT: tools/);
      const fixtureLines = readFileSync(`${FIXTURE}/workflows.jsonl`, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
      expect(summary.accepted).toBe(3 + fixtureLines);
      expect(summary.ingested).toBe(3 + fixtureLines);
      // Again: every trace carries an id, so nothing is stored twice.
      const again = JSON.parse((await cli(['ingest', traces, '--data-dir', dataDir, '--json'])).stdout) as { ingested: number };
      expect(again.ingested).toBe(0);

      const imported = await cli(['tools', 'import', `${FIXTURE}/tools.jsonl`, '--data-dir', dataDir, '--json']);
      expect(imported.status, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).imported).toBeGreaterThan(0);
      // Declared outputs are listed, and a listing imported again keeps them.
      const withOutputs = join(dir, 'outputs.jsonl');
      writeFileSync(withOutputs, `${JSON.stringify({ name: 'search_airport', description: 'Find an airport by city', params: [{ name: 'city', type: 'string' }], output_parameters: ['skyId'] })}\n`);
      expect((await cli(['tools', 'import', withOutputs, '--data-dir', dataDir])).status).toBe(0);
      const toolsListed = await cli(['tools', 'list', '--data-dir', dataDir, '--json']);
      const lines = toolsListed.stdout.trim().split('\n');
      expect(lines.map((l) => JSON.parse(l) as { name: string; outputs?: string[] }).find((t) => t.name === 'search_airport')!.outputs).toEqual(['skyId']);
      writeFileSync(withOutputs, `${lines.join('\n')}\n`);
      expect((await cli(['tools', 'import', withOutputs, '--data-dir', dataDir])).status).toBe(0);
      expect((await cli(['tools', 'list', '--data-dir', dataDir, '--json'])).stdout).toBe(toolsListed.stdout);
      expect((await cli(['tools', 'list', '--data-dir', dataDir])).stdout).toMatch(/search_airport\s+1\s+skyId\s+Find an airport by city/);

      // Capabilities: imported into the store, then listed, ranked and shown by later processes.
      const capabilities = join(dir, 'capabilities.json');
      writeFileSync(capabilities, JSON.stringify({ capabilities: [{ id: 'fly', description: 'find and book a flight', tools: ['search_airport', 'search_flights', 'book_flight'] }] }));
      const registered = await cli(['capabilities', 'import', capabilities, '--data-dir', dataDir, '--json']);
      expect(registered.status, registered.stderr).toBe(0);
      expect(JSON.parse(registered.stdout)).toMatchObject({ capabilities: 1 });
      const listed = await cli(['capabilities', 'list', '--data-dir', dataDir, '--json']);
      expect(jsonLines<{ id: string }>(listed.stdout).map((c) => c.id)).toContain('fly');
      const ranked = await cli(['capabilities', 'rank', '--intent', 'book a flight', '--data-dir', dataDir, '--json']);
      expect((JSON.parse(ranked.stdout) as { items: { capability: string }[] }).items[0]!.capability).toBe('fly');
      const shown = await cli(['capabilities', 'show', 'fly', '--data-dir', dataDir]);
      expect(shown.stdout).toContain('search_airport > search_flights > book_flight');
      writeFileSync(capabilities, JSON.stringify([{ id: 'bad', tools: ['no_such_tool'] }]));
      const refused = await cli(['capabilities', 'import', capabilities, '--data-dir', dataDir]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('UNKNOWN_TOOL');
      expect((await cli(['capabilities', 'show', 'bad', '--data-dir', dataDir])).status).toBe(3);
      const unknown = await cli(['capabilities', 'frobnicate', '--data-dir', dataDir]);
      expect(unknown.status, unknown.stderr).toBe(2);

      const stats = await cli(['stats', '--data-dir', dataDir, '--json', '--top', '3']);
      expect(stats.status, stats.stderr).toBe(0);
      const s = JSON.parse(stats.stdout) as { traces: number; tools: number; transitions: number; communities: number; topTools: { tool: string }[]; store: { kind: string } };
      expect(s.traces).toBe(3 + fixtureLines);
      expect(s.store.kind).toBe('pglite');
      expect(s.topTools).toHaveLength(3);
      expect(s.communities).toBeGreaterThan(0);

      const predict = await cli(['predict', '--data-dir', dataDir, '--context', 'search_airport', '--intent', 'book a flight to Rome', '--json']);
      expect(predict.status, predict.stderr).toBe(0);
      expect((JSON.parse(predict.stdout) as { items: { tool: string }[] }).items[0]!.tool).toBe('search_flights');

      const out = join(dir, 'graph.graphml');
      const graphml = await cli(['export', '--format', 'graphml', '--out', out, '--data-dir', dataDir]);
      expect(graphml.status, graphml.stderr).toBe(0);
      const xml = readFileSync(out, 'utf8');
      expect(xml).toMatch(/^<\?xml/);
      expect(xml.match(/<edge /g)?.length).toBe(s.transitions);
      const json = JSON.parse((await cli(['export', '--data-dir', dataDir])).stdout) as { tools: unknown[]; transitions: { from: string; to: string; count: number }[] };
      expect(json.tools).toHaveLength(s.tools);
      expect(json.transitions.find((t) => t.from === 'search_airport' && t.to === 'search_flights')!.count).toBeGreaterThanOrEqual(2);

      expect((await cli(['export', '--format', 'csv', '--data-dir', dataDir])).status).toBe(2);
      expect((await cli(['ingest', join(dir, 'missing.jsonl'), '--data-dir', dataDir])).status).toBe(3);
    });
  }, 180_000);

  it('takes numbers in plain decimal only, naming the option otherwise', async () => {
    const cases: [string[], string][] = [
      // Number() read '' as 0 and '0x10' as 16: both were taken.
      [['predict', '--data', FIXTURE, '--after', 'search_airport', '--k', '0x10'], "--k: expected an integer >= 1, got '0x10'"],
      [['predict', '--data', FIXTURE, '--after', 'search_airport', '--k', '1e1'], "--k: expected an integer >= 1, got '1e1'"],
      [['predict', '--data', FIXTURE, '--after', 'search_airport', '--seed', ''], "--seed: expected an integer >= 0, got ''"],
      [['stats', '--top', '', '--data-dir', join(tmpdir(), 'toolgraph-cli-never-opened')], "--top: expected an integer >= 0, got ''"],
      [['score', 'samples/reasoning-traces.jsonl', '--threshold', ''], "--threshold: expected a number in [0, 1], got ''"],
      [['score', 'samples/reasoning-traces.jsonl', '--threshold', '0x1'], "--threshold: expected a number in [0, 1], got '0x1'"],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(`INVALID_INPUT: ${message}`);
    }
    expect(existsSync(join(tmpdir(), 'toolgraph-cli-never-opened'))).toBe(false);
    expect((await cli(['predict', '--data', FIXTURE, '--after', 'search_airport', '--k', '3', '--seed', '0', '--json'])).status).toBe(0);
    expect((await cli(['score', 'samples/reasoning-traces.jsonl', '--threshold', '.5', '--no-embedder', '--json'])).status).toBe(0);
  });

  it('refuses from the store what only in-memory sources take, and words after an action that takes none', async () => {
    await inTempDir('toolgraph-cli-usage-', async (dir) => {
      const dataDir = join(dir, 'store');
      const catalogue = `${FIXTURE}/tools.jsonl`;
      // --tools was silently ignored when the answer came from the store.
      for (const args of [
        ['predict', '--after', 'search_airport'],
        ['search', 'book a flight'],
        ['dag', 'book a flight'],
        ['fit'],
      ]) {
        const result = await cli([...args, '--tools', catalogue, '--data-dir', dataDir]);
        expect(result.status, args.join(' ')).toBe(2);
        expect(result.stderr).toContain('INVALID_INPUT: --tools goes with --data or --traces');
        expect(result.stderr).toContain('toolgraph tools import FILE');
      }
      for (const args of [
        ['capabilities', 'list', 'extra'],
        ['capabilities', 'rank', 'extra'],
        ['tools', 'list', 'extra'],
      ]) {
        const result = await cli([...args, '--data-dir', dataDir]);
        expect(result.status, args.join(' ')).toBe(2);
        expect(result.stderr).toContain(`too many arguments for '${args[0]} ${args[1]}'`);
        expect(result.stdout).toBe('');
      }
      // Nothing above opened the store.
      expect(existsSync(dataDir)).toBe(false);
    });
  });

  it('ingests a dataset folder line by line as it does a file, and a folder without workflows.jsonl is not found', async () => {
    await inTempDir('toolgraph-cli-folder-', async (dir) => {
      const dataset = join(dir, 'dataset');
      const lines = readFileSync(`${FIXTURE}/workflows.jsonl`, 'utf8').split('\n').filter((l) => l.trim() !== '');
      const bad = { ...(JSON.parse(lines[1]!) as Record<string, unknown>), edges: [[0, 5]] };
      mkdirSync(dataset);
      writeFileSync(join(dataset, 'workflows.jsonl'), [lines[0], JSON.stringify(bad), ...lines.slice(2)].join('\n'));
      writeFileSync(join(dataset, 'tools.jsonl'), readFileSync(`${FIXTURE}/tools.jsonl`, 'utf8'));
      const strict = await cli(['ingest', dataset, '--data-dir', join(dir, 'strict'), '--strict']);
      expect(strict.status).toBe(2);
      expect(strict.stderr).toMatch(/^toolgraph ingest: .*workflows\.jsonl:2: INVALID_INPUT: 1 rejected line\(s\), nothing written \(--strict\); the first: INVALID_INPUT: edges/);
      const ingest = await cli(['ingest', dataset, '--data-dir', join(dir, 'store'), '--json']);
      expect(ingest.status, ingest.stderr).toBe(0);
      const summary = JSON.parse(ingest.stdout) as { lines: number; accepted: number; ingested: number; tools: number; rejected: { file: string; line: number; reason: string }[] };
      expect(summary).toMatchObject({ lines: lines.length, accepted: lines.length - 1, ingested: lines.length - 1 });
      expect(summary.tools).toBeGreaterThan(0);
      expect(summary.rejected).toHaveLength(1);
      expect(summary.rejected[0]).toMatchObject({ file: join(dataset, 'workflows.jsonl'), line: 2 });
      expect(summary.rejected[0]!.reason).toMatch(/^INVALID_INPUT: edges\[0\]\[1\]: index 5 is out of range/);
      // The same answer as predict --data and eval give: a missing file.
      const toolsOnly = `${ROOT}test/fixtures/schema/tools-only`;
      for (const args of [['ingest', toolsOnly, '--data-dir', join(dir, 'store')], ['predict', '--data', toolsOnly, '--after', 'a'], ['eval', 'next', '--data', toolsOnly]]) {
        const result = await cli(args);
        expect(result.status, args.join(' ')).toBe(3);
        expect(result.stderr).toContain('NOT_FOUND');
        expect(result.stderr).toContain('workflows.jsonl');
      }
    });
  });

  it('exports JSON with --json as with --format json, and imports a catalogue listing whatever its file is named', async () => {
    await inTempDir('toolgraph-cli-formats-', async (dir) => {
      const dataDir = join(dir, 'store');
      expect((await cli(['ingest', FIXTURE, '--data-dir', dataDir])).status).toBe(0);
      const json = await cli(['export', '--json', '--data-dir', dataDir]);
      expect(json.status, json.stderr).toBe(0);
      expect(json.stdout).toBe((await cli(['export', '--format', 'json', '--data-dir', dataDir])).stdout);
      const both = await cli(['export', '--json', '--format', 'graphml', '--data-dir', dataDir]);
      expect(both.status).toBe(2);
      expect(both.stderr).toContain('INVALID_INPUT');

      // tools list --json lines, saved under a name that says nothing of the format.
      const listed = (await cli(['tools', 'list', '--data-dir', dataDir, '--json'])).stdout;
      const list = join(dir, 'cat.list');
      writeFileSync(list, listed);
      const imported = await cli(['tools', 'import', list, '--data-dir', dataDir, '--json']);
      expect(imported.status, imported.stderr).toBe(0);
      // The listing holds the tools only traces named too: those become catalogue entries, once.
      const count = listed.trim().split('\n').length;
      expect(JSON.parse(imported.stdout)).toMatchObject({ imported: count, tools: count });
      const again = await cli(['tools', 'import', list, '--data-dir', dataDir, '--json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ imported: count, added: 0, tools: count });
      // New entries are counted as new, whatever the graph knows from traces alone.
      const fresh = join(dir, 'fresh.jsonl');
      writeFileSync(fresh, ['n1', 'n2', 'n3'].map((name) => JSON.stringify({ name, description: `tool ${name}` })).join('\n'));
      const three = await cli(['tools', 'import', fresh, '--data-dir', dataDir, '--json']);
      expect(JSON.parse(three.stdout)).toMatchObject({ imported: 3, added: 3, tools: listed.trim().split('\n').length + 3 });
      // One JSON value (an array) under such a name is JSON.
      const array = join(dir, 'cat.txt');
      writeFileSync(array, JSON.stringify(listed.trim().split('\n').map((l) => JSON.parse(l) as unknown)));
      expect((await cli(['tools', 'import', array, '--data-dir', dataDir])).status).toBe(0);
      // A line that is not JSON is an entry that cannot be read: skipped and named, or with
      // --strict the whole file refused.
      const garbled = join(dir, 'cat.data');
      writeFileSync(garbled, `${listed}{not json\n`);
      const badLine = listed.trim().split('\n').length + 1;
      const skipped = await cli(['tools', 'import', garbled, '--data-dir', dataDir]);
      expect(skipped.status, skipped.stderr).toBe(0);
      expect(skipped.stderr).toMatch(new RegExp(`^skipped ${garbled.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${badLine}: invalid JSON`, 'm'));
      const refused = await cli(['tools', 'import', garbled, '--strict', '--data-dir', dataDir]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`INVALID_INPUT: tools import --strict: 1 unreadable entry, nothing imported; first: ${garbled}:${badLine}: invalid JSON`);
    });
  });

  it('imports the catalogues registries publish: the MCP reference servers\' tools/list and an OpenAPI document', async () => {
    await inTempDir('toolgraph-cli-published-', async (dir) => {
      const dataDir = join(dir, 'store');
      const catalogues = `${ROOT}test/fixtures/catalogues`;
      const mcp = await cli(['tools', 'import', `${catalogues}/mcp-reference-servers.tools-list.json`, '--data-dir', dataDir, '--json']);
      expect(mcp.status, mcp.stderr).toBe(0);
      expect(JSON.parse(mcp.stdout)).toMatchObject({ imported: 9, added: 9, tools: 9, skipped: [] });
      const openapi = await cli(['tools', 'import', `${catalogues}/petstore-expanded.openapi.json`, '--data-dir', dataDir]);
      expect(openapi.status, openapi.stderr).toBe(0);
      expect(openapi.stderr).toBe('');
      expect(openapi.stdout).toMatch(/imported\s+new\s+catalogue now\s+skipped/);
      const listed = jsonLines<{ name: string; params: { name: string; type: string }[] }>((await cli(['tools', 'list', '--data-dir', dataDir, '--json'])).stdout);
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['edit_file', 'git_log', 'book_trip', 'findPets', 'addPet', 'find pet by id', 'deletePet']));
      expect(listed.find((t) => t.name === 'book_trip')!.params.map((p) => p.type)).toEqual(['Airport', 'Airport', 'Cabin', 'string | null', 'array']);
    });
  });

  it('tools import skips an entry it cannot read, says where and why, and imports the rest; --strict imports nothing', async () => {
    await inTempDir('toolgraph-cli-skipped-', async (dir) => {
      const dataDir = join(dir, 'store');
      // As a published registry writes them: lists in category-like fields, type unions, "true".
      const good = [
        { name: 'create_issue', description: 'Create an issue', category: ['developer-tools'], server: ['github'], params: [{ name: 'title', type: ['string', 'null'], required: 'true' }] },
        { name: 'close_issue', description: 'Close an issue', tags: ['issues'] },
      ];
      const lines = [JSON.stringify(good[0]), JSON.stringify({ description: 'no name' }), JSON.stringify({ name: '\u200b' }), JSON.stringify(good[1]), JSON.stringify({ name: 'file_\u202eeteled' })];
      const registry = join(dir, 'registry.jsonl');
      writeFileSync(registry, `${lines.join('\n')}\n`);

      const strict = await cli(['tools', 'import', registry, '--strict', '--data-dir', dataDir]);
      expect(strict.status).toBe(2);
      expect(strict.stderr).toContain(`INVALID_INPUT: tools import --strict: 3 unreadable entries, nothing imported; first: ${registry}:2: name: missing, expected string`);
      expect((await cli(['tools', 'list', '--data-dir', dataDir, '--json'])).stdout).toBe('');

      const imported = await cli(['tools', 'import', registry, '--data-dir', dataDir]);
      expect(imported.status, imported.stderr).toBe(0);
      expect(imported.stderr.trim().split('\n')).toEqual([
        `skipped 3 unreadable catalogue entries of ${registry}:`,
        `skipped ${registry}:2: name: missing, expected string`,
        `skipped ${registry}:3: name: must not be blank (white space, zero-width or format characters only)`,
        `skipped ${registry}:5: name: must not contain bidirectional control characters (U+202E at 5)`,
      ]);
      expect(imported.stdout).toMatch(/^\s*2\s+2\s+2\s+3\s*$/m);
      const listed = jsonLines<{ name: string; params: { type: string; required: boolean }[] }>((await cli(['tools', 'list', '--data-dir', dataDir, '--json'])).stdout);
      expect(listed.map((t) => t.name)).toEqual(['create_issue', 'close_issue']);
      expect(listed[0]!.params).toEqual([{ name: 'title', type: 'string | null', description: '', required: true }]);

      // JSON: each skipped entry by its place in the document, in --json too.
      const array = join(dir, 'registry.json');
      writeFileSync(array, JSON.stringify({ tools: [good[0], { name: 7 }, good[1]] }));
      const json = await cli(['tools', 'import', array, '--data-dir', dataDir, '--json']);
      expect(json.status, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ imported: 2, added: 0, tools: 2, skipped: [{ index: 1, at: 'tools[1]', reason: 'tools[1].name: expected string, received number' }] });
      const table = await cli(['tools', 'import', array, '--data-dir', dataDir]);
      expect(table.stderr).toContain(`skipped ${array}: tools[1]: name: expected string, received number`);

      // Nothing readable at all: an error, and nothing written.
      const hopeless = join(dir, 'hopeless.jsonl');
      writeFileSync(hopeless, `${JSON.stringify({ name: '' })}\n{oops\n`);
      const none = await cli(['tools', 'import', hopeless, '--data-dir', dataDir]);
      expect(none.status).toBe(2);
      expect(none.stderr).toContain(`INVALID_INPUT: tools import: no entry of ${hopeless} could be read (2 skipped), nothing imported; first: ${hopeless}:1: name: must not be empty`);
      // A limit still refuses the file whole, naming the line.
      const long = join(dir, 'long.jsonl');
      writeFileSync(long, `${JSON.stringify(good[1])}\n${JSON.stringify({ name: 'n'.repeat(2_000) })}\n`);
      const tooLong = await cli(['tools', 'import', long, '--data-dir', dataDir]);
      expect(tooLong.status).toBe(2);
      expect(tooLong.stderr).toContain(`PAYLOAD_TOO_LARGE: ${long}:2: name: too long: 2000 characters, the limit is 1024`);
    });
  });

  it('ingest rejects a trace line that names a tool with bidi controls or invisible characters only, and keeps the others', async () => {
    await inTempDir('toolgraph-cli-bidi-', async (dir) => {
      const dataDir = join(dir, 'store');
      const traces = join(dir, 'traces.jsonl');
      writeFileSync(traces, [{ id: 't1', tools: ['file_read', 'file_delete'] }, { id: 't2', tools: ['file_read', 'file_\u202eeteled'] }, { id: 't3', tools: ['\u200b', 'file_read'] }, { id: 't4', tools: ['file_read', 'file_write'] }].map((t) => JSON.stringify(t)).join('\n'));
      const result = await cli(['ingest', traces, '--data-dir', dataDir, '--json']);
      expect(result.status, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { ingested: number; rejected: { line: number; reason: string }[] };
      expect(summary.ingested).toBe(2);
      expect(summary.rejected.map((r) => [r.line, r.reason])).toEqual([
        [2, 'INVALID_INPUT: tools[1]: must not contain bidirectional control characters (U+202E at 5)'],
        [3, 'INVALID_INPUT: tools[0]: must not be blank (white space, zero-width or format characters only)'],
      ]);
    });
  });

  it('evaluates a dataset whose informational fields have another type and whose catalogue has an unreadable line', async () => {
    await inTempDir('toolgraph-cli-informational-', async (dir) => {
      const data = join(dir, 'loose');
      mkdirSync(data);
      const workflows = readFileSync(join(FIXTURE, 'workflows.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => ({ ...(JSON.parse(line) as Record<string, unknown>), steps: 'Step 1 search; Step 2 book', orig_split: 3, edges_note: ['x'] }));
      writeFileSync(join(data, 'workflows.jsonl'), workflows.map((w) => JSON.stringify(w)).join('\n'));
      writeFileSync(join(data, 'tools.jsonl'), `${readFileSync(join(FIXTURE, 'tools.jsonl'), 'utf8').trimEnd()}\n${JSON.stringify({ description: 'a tool without a name' })}\n`);
      const lines = readFileSync(join(data, 'tools.jsonl'), 'utf8').trim().split('\n').length;
      const evaluated = await cli(['eval', 'search', '--data', data, '--folds', '2', '--json']);
      expect(evaluated.status, evaluated.stderr).toBe(0);
      expect(evaluated.stderr).toContain(`warning: ${join(data, 'tools.jsonl')}:${lines}: name: missing, expected string; the entry is skipped`);
      expect(jsonLines<{ method: string }>(evaluated.stdout).map((l) => l.method)).toContain('toolgraph');
      // ingest reads the folder alike: the catalogue line is rejected as a trace line would be.
      const dataDir = join(dir, 'store');
      const strict = await cli(['ingest', data, '--strict', '--data-dir', dataDir]);
      expect(strict.status).toBe(2);
      expect(strict.stderr).toContain(`toolgraph ingest: ${join(data, 'tools.jsonl')}:${lines}: INVALID_INPUT: 1 rejected line(s), nothing written (--strict); the first: INVALID_INPUT: name: missing, expected string`);
      const ingested = await cli(['ingest', data, '--data-dir', dataDir, '--json']);
      expect(ingested.status, ingested.stderr).toBe(0);
      expect(JSON.parse(ingested.stdout)).toMatchObject({ accepted: workflows.length, rejected: [{ file: join(data, 'tools.jsonl'), line: lines, reason: 'INVALID_INPUT: name: missing, expected string' }] });
    });
  });

  it('says there is nothing to fit when no trace succeeded, and stores nothing', async () => {
    await inTempDir('toolgraph-cli-fit-', async (dir) => {
      const dataDir = join(dir, 'store');
      const empty = await cli(['fit', '--data-dir', dataDir]);
      expect(empty.status).toBe(2);
      expect(empty.stderr).toContain('toolgraph fit: INVALID_INPUT: nothing to fit: the store has no successful traces');
      const failed = join(dir, 'failed.jsonl');
      writeFileSync(failed, `${JSON.stringify({ id: 'f1', intent: 'cancel then refund', tools: ['cancel', 'refund'], success: false })}\n`);
      expect((await cli(['ingest', failed, '--data-dir', dataDir])).status).toBe(0);
      expect((await cli(['fit', '--data-dir', dataDir])).status).toBe(2);
      const stats = await cli(['stats', '--data-dir', dataDir, '--json']);
      expect((JSON.parse(stats.stdout) as { weights: string }).weights).toBe('prior');
      // In memory, the same.
      const inMemory = await cli(['fit', '--traces', failed]);
      expect(inMemory.status).toBe(2);
      expect(inMemory.stderr).toContain('toolgraph fit: INVALID_INPUT: nothing to fit: the traces given have no successful one');
      // One successful trace: no fold holds a query out, so nothing is fitted, and the table and
      // the stored weights say so (the search row said "fitted" whatever was kept).
      const one = join(dir, 'one.jsonl');
      writeFileSync(one, `${JSON.stringify({ id: 'o1', intent: 'cancel then refund', tools: ['cancel', 'refund'] })}\n`);
      expect((await cli(['ingest', one, '--data-dir', dataDir])).status).toBe(0);
      const fitted = await cli(['fit', '--data-dir', dataDir]);
      expect(fitted.status).toBe(0);
      for (const row of ['next ', 'next (no intent)', 'search ']) expect(fitted.stdout).toMatch(new RegExp(`^${row.replace(/[()]/g, '\\$&')}.*\\bprior +-$`, 'm'));
      expect(fitted.stdout).toContain('workflow steps: not calibrated (0 steps of 0 held-out workflows, 0.0% right; too few)');
      expect((JSON.parse((await cli(['stats', '--data-dir', dataDir, '--json'])).stdout) as { weights: string }).weights).toBe('prior');
    });
  });

  it("ranks a registered capability with the outcomes of the stored traces, in a one-shot command", async () => {
    await inTempDir('toolgraph-cli-reliability-', async (dir) => {
      const dataDir = join(dir, 'store');
      expect((await cli(['ingest', `${ROOT}samples/nestful`, '--data-dir', dataDir])).status).toBe(0);
      const capabilities = join(dir, 'capabilities.json');
      writeFileSync(capabilities, JSON.stringify([{ id: 'hotel', tools: ['TripadvisorSearchLocation', 'TripadvisorSearchHotels'], ordered: false }]));
      expect((await cli(['capabilities', 'import', capabilities, '--data-dir', dataDir])).status).toBe(0);
      // The open restores the snapshot the ingestion wrote and reads the traces before it in the
      // background: answered before that, the reliability was the 0.5 of no outcome at all.
      const ranked = await cli(['capabilities', 'rank', '--intent', 'hotels in Rome', '--data-dir', dataDir, '--json']);
      expect(ranked.status, ranked.stderr).toBe(0);
      const hotel = (JSON.parse(ranked.stdout) as { items: { capability: string; reliability: number; confidence: number | null }[] }).items.find((c) => c.capability === 'hotel')!;
      expect(hotel.reliability).toBeGreaterThan(0.8);
      expect(hotel.confidence).not.toBeNull();
    });
  }, 120_000);
});

describe('the toolgraph binary', () => {
  it('is built (npm run build)', () => {
    expect(existsSync(BIN), `${BIN} is missing: run npm run build`).toBe(true);
  });

  it('lists every command in --help', () => {
    const { status, stdout } = run(['--help']);
    expect(status).toBe(0);
    for (const name of ['demo', 'predict', 'search', 'fit', 'score', 'eval', 'ingest', 'tools', 'capabilities', 'stats', 'export']) expect(stdout).toContain(`  ${name}`);
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

  it('exits 0 when the reader of its output closes the pipe early, as `| head` does', async () => {
    const child = spawn(process.execPath, [BIN, 'eval', 'next', '--data', FIXTURE, '--folds', '2', '--json'], { cwd: ROOT });
    // Closed before the command writes: its first write meets a pipe with no reader (EPIPE).
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    expect([status, stderr]).toEqual([0, '']);
  });

  it('is runnable through npx after install', () => {
    const out = execFileSync('npx', ['--no-install', 'toolgraph', '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(out.trim()).toBe('0.1.0');
  });
});
