/**
 * The commander-based parser (src/cli/program.ts): in-process with a small command table of its
 * own (values, positionals, help, errors, exit codes), then the built binary with the real table
 * (every command's help shows its example; `score --embedder` end to end against a loopback
 * embeddings server).
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli, type CliOutput } from '../../src/cli/program.js';
import { ToolgraphError, type ErrorCode } from '../../src/schema/errors.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../helpers/embeddings-server.js';

type Values = Record<string, string | boolean | undefined>;

function harness() {
  const calls: { values: Values; positionals: readonly string[] }[] = [];
  const echo: Command = {
    name: 'echo',
    summary: 'Print the words given.',
    usage: 'echo WORD... [--name N] [--loud] [--no-colour] [--dry-run]',
    example: 'toolgraph echo hello world --loud',
    options: {
      name: { type: 'string', help: 'who speaks', value: 'N' },
      loud: { type: 'boolean', help: 'in capitals' },
      'no-colour': { type: 'boolean', help: 'plain text' },
      'dry-run': { type: 'boolean', help: 'say nothing' },
    },
    positionals: '[words...]',
    async run(values, positionals) {
      calls.push({ values, positionals });
      const [first, second] = positionals;
      if (first === 'fail' && second !== undefined) throw new ToolgraphError(second as ErrorCode, `asked to fail with ${second}`);
      if (first === 'crash') throw new TypeError('boom');
    },
  };
  let out = '';
  let err = '';
  const output: CliOutput = { out: (t) => void (out += t), err: (t) => void (err += t) };
  // Declares no words: a stray one is bad usage.
  const quiet: Command = { name: 'quiet', summary: 'Say nothing.', usage: 'quiet', example: 'toolgraph quiet', options: {}, run: async (values, positionals) => void calls.push({ values, positionals }) };
  // Two optional words at most.
  const pair: Command = { name: 'pair', summary: 'Two words.', usage: 'pair [A] [B]', example: 'toolgraph pair a b', options: {}, positionals: '[a] [b]', run: async (values, positionals) => void calls.push({ values, positionals }) };
  return {
    calls,
    run: (argv: string[]) => runCli(argv, [echo, quiet, pair], { version: '1.2.3', output }),
    out: () => out,
    err: () => err,
  };
}

describe('runCli with a command table', () => {
  it('hands run the option values by table name and the words as positionals', async () => {
    const h = harness();
    expect(await h.run(['echo', 'hello', '--name', 'Ann', 'world', '--loud', '--no-colour', '--dry-run'])).toBe(0);
    expect(await h.run(['echo', '--name=Bo'])).toBe(0);
    expect(await h.run(['echo'])).toBe(0);
    expect(h.calls).toEqual([
      { values: { name: 'Ann', loud: true, 'no-colour': true, 'dry-run': true }, positionals: ['hello', 'world'] },
      { values: { name: 'Bo' }, positionals: [] },
      { values: {}, positionals: [] },
    ]);
  });

  it('maps error codes to exit codes: 2 input, 3 not found, 1 internal, embedder failure and crashes', async () => {
    const h = harness();
    const cases: [string[], number][] = [
      [['echo', 'fail', 'INVALID_INPUT'], 2],
      [['echo', 'fail', 'CONFLICT'], 2],
      [['echo', 'fail', 'NOT_FOUND'], 3],
      [['echo', 'fail', 'INTERNAL'], 1],
      [['echo', 'fail', 'EMBEDDER_FAILED'], 1],
      [['echo', 'crash'], 1],
    ];
    for (const [argv, code] of cases) expect(await h.run(argv)).toBe(code);
    expect(h.err()).toContain('toolgraph echo: NOT_FOUND: asked to fail with NOT_FOUND\n');
    expect(h.err()).toContain('toolgraph echo: internal error: TypeError: boom');
  });

  it("prints a command's help with its usage, options and example, without running it", async () => {
    const h = harness();
    expect(await h.run(['echo', '--help'])).toBe(0);
    expect(await h.run(['help', 'echo'])).toBe(0);
    expect(h.calls).toEqual([]);
    const help = h.out();
    expect(help).toContain('Usage: toolgraph echo WORD... [--name N]');
    expect(help).toContain('--name <N>');
    expect(help).toContain('--no-colour');
    expect(help).toContain('Example:\n  toolgraph echo hello world --loud\n');
    expect(help.split('Example:').length).toBe(3);
    expect(h.err()).toBe('');
  });

  it('prints the global help (also with no arguments) and the version', async () => {
    const h = harness();
    expect(await h.run([])).toBe(0);
    expect(h.out()).toMatch(/Commands:\n {2}echo \[options\] \[words\.\.\.\] +Print the words given\./);
    expect(await h.run(['-h'])).toBe(0);
    expect(await h.run(['--version'])).toBe(0);
    expect(h.out().endsWith('1.2.3\n')).toBe(true);
  });

  it('rejects an unknown option, an unknown command and a missing value with exit 2, running nothing', async () => {
    const h = harness();
    expect(await h.run(['echo', 'hi', '--shout'])).toBe(2);
    expect(h.err()).toContain("toolgraph echo: unknown option '--shout'\nRun `toolgraph echo --help` for its options and an example.\n");
    expect(await h.run(['ecko'])).toBe(2);
    expect(h.err()).toContain("toolgraph: unknown command 'ecko'");
    expect(h.err()).toContain('(Did you mean echo?)');
    // `help ecko` too, which once printed the general help without naming it.
    expect(await h.run(['help', 'ekko'])).toBe(2);
    expect(h.err()).toContain("toolgraph: unknown command 'ekko'");
    expect(await h.run(['echo', '--name'])).toBe(2);
    expect(h.err()).toContain("toolgraph echo: option '--name <N>' argument missing");
    expect(await h.run(['--loud', 'echo'])).toBe(2);
    expect(h.calls).toEqual([]);
    expect(h.out()).toBe('');
  });

  it('takes as many words as a command declares, and rejects more with exit 2, running nothing', async () => {
    const h = harness();
    expect(await h.run(['quiet'])).toBe(0);
    expect(await h.run(['pair', 'a'])).toBe(0);
    expect(await h.run(['pair', 'a', 'b'])).toBe(0);
    expect(h.calls).toEqual([
      { values: {}, positionals: [] },
      { values: {}, positionals: ['a'] },
      { values: {}, positionals: ['a', 'b'] },
    ]);
    expect(await h.run(['quiet', 'stray'])).toBe(2);
    expect(h.err()).toContain("toolgraph quiet: too many arguments for 'quiet'. Expected 0 arguments but got 1.");
    expect(await h.run(['pair', 'a', 'b', 'c'])).toBe(2);
    expect(h.err()).toContain("toolgraph pair: too many arguments for 'pair'. Expected 2 arguments but got 3.");
    expect(h.calls).toHaveLength(3);
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;

function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : ((error as ExecFileException).code as number), stdout, stderr });
    });
  });
}

describe.runIf(existsSync(BIN))('the toolgraph binary', () => {
  let server: EmbeddingsServer;
  const dir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
  beforeAll(async () => {
    server = await startEmbeddingsServer(16);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows each command's own example in its --help", async () => {
    for (const command of COMMANDS) {
      const { status, stdout } = await run([command.name, '--help']);
      expect(status).toBe(0);
      expect(stdout).toContain(`Example:\n  ${command.example}\n`);
    }
  });

  it('exits 2 on an unknown option or command, naming it', async () => {
    const option = await run(['search', '--frobnicate']);
    expect(option.status).toBe(2);
    expect(option.stderr).toContain("toolgraph search: unknown option '--frobnicate'");
    const command = await run(['serach']);
    expect(command.status).toBe(2);
    expect(command.stderr).toContain("unknown command 'serach'");
  });

  it('scores with an OpenAI-compatible embedder chosen by --embedder and the environment', async () => {
    const env = { TOOLGRAPH_EMBEDDINGS_MODEL: 'mini', TOOLGRAPH_EMBEDDINGS_KEY: 'sk-cli' };
    const { status, stdout, stderr } = await run(['score', 'samples/reasoning-traces.jsonl', '--embedder', `openai:${server.baseUrl}`, '--json'], env);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { novelty: { embedder: string } });
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.novelty.embedder === 'openai:mini')).toBe(true);
    // One probe for the dimensions, then the traces' novelty texts.
    expect(server.requests[0]!.body.input).toEqual(['dimension probe']);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.every((r) => r.headers['authorization'] === 'Bearer sk-cli')).toBe(true);
  });

  it('reports embedder set-up problems with their code and exit code', async () => {
    const folder = await run(['score', 'samples/reasoning-traces.jsonl', '--embedder', `transformers:${join(dir, 'missing')}`]);
    expect(folder.status).toBe(3);
    expect(folder.stderr).toContain('toolgraph score: NOT_FOUND: no model folder at');
    server.behave(() => ({ status: 401, body: '{"error":{"message":"bad key"}}' }));
    const rejected = await run(['score', 'samples/reasoning-traces.jsonl', '--embedder', `openai:${server.baseUrl}`], { TOOLGRAPH_EMBEDDINGS_MODEL: 'mini' });
    server.behave(null);
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toContain('EMBEDDER_FAILED');
    expect(rejected.stderr).toContain('the API key was rejected');
    const bad = await run(['score', 'samples/reasoning-traces.jsonl'], { TOOLGRAPH_EMBEDDER: 'word2vec' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("INVALID_INPUT: embedder: expected 'hashed', 'none'");
  });
});
