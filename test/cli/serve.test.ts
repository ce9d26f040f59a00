/**
 * `toolgraph serve` as a user runs it: the built binary in a child process on a free port,
 * requests over loopback, then SIGTERM: in-flight requests finish and the process exits 0.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { SERVER_NODE_FLAGS } from '../../src/service/server-defaults.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string; stdout: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let err = '';
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const match = /listening on (http:\/\/[^ ]+)/.exec(err);
      if (match !== null) resolve({ child, url: match[1]!, stderr: () => err, stdout: () => out });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe.runIf(existsSync(BIN))('toolgraph serve', () => {
  it('serves the API, logs one JSON line per request, and stops cleanly on SIGTERM', async () => {
    const { child, url, stderr, stdout } = await start(['--data', FIXTURE], { TOOLGRAPH_TOKEN: 'cli-token' });
    const predict = await fetch(`${url}/v1/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ context: ['search_airport'], k: 1 }) });
    expect(predict.status).toBe(200);
    expect(((await predict.json()) as { items: { tool: string }[] }).items[0]!.tool).toBe('search_flights');
    const denied = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"tools":["a","b"]}' });
    expect(denied.status).toBe(401);
    const writes = Array.from({ length: 10 }, (_, i) =>
      fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer cli-token' }, body: JSON.stringify({ id: `cli-${i}`, tools: ['a', 'b'] }) }),
    );
    const replies = await Promise.all(writes);
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(stderr()).toContain('SIGTERM: finishing in-flight requests');
    expect(stderr()).toContain('stopped');
    const lines = stdout().trim().split('\n').map((l) => JSON.parse(l) as { msg: string; status?: number; route?: string });
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(12);
    expect(requests[0]).toMatchObject({ route: '/v1/predict', status: 200 });
    expect(requests.filter((l) => l.status === 401)).toHaveLength(1);
  });

  it('--host 127.0.0.2 serves requests at its own address', async () => {
    const { child, url } = await start(['--data', FIXTURE, '--host', '127.0.0.2']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      const stats = await fetch(`${url}/v1/stats`);
      expect(stats.status).toBe(200);
      expect(((await stats.json()) as { tools: number }).tools).toBeGreaterThan(0);
    } finally {
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
    }
  });

  it('rejects a bad port with exit code 2', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '70000'], { cwd: ROOT });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(child as ChildProcessWithoutNullStreams)).toBe(2);
    expect(err).toContain('INVALID_INPUT: --port');
  });
});

const URL_ENV = process.env['TOOLGRAPH_TEST_DATABASE_URL'];

describe.runIf(existsSync(BIN) && URL_ENV)('toolgraph serve on PostgreSQL', () => {
  it('tells on stderr when its LISTEN connection is lost and when it listens again', async () => {
    // A schema of its own, named in the URL (search_path), created first: serve takes the URL only.
    const schema = `tg_serve_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: URL_ENV });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const target = new URL(URL_ENV!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(proxy.via(URL_ENV!));
    url.searchParams.set('options', `-c search_path=${schema}`);
    const { child, stderr } = await start([], { TOOLGRAPH_DATABASE_URL: url.toString() });
    const until = async (pattern: RegExp, ms: number): Promise<boolean> => {
      const deadline = Date.now() + ms;
      while (!pattern.test(stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return pattern.test(stderr());
    };
    try {
      proxy.cut();
      expect(await until(/toolgraph: warning: lost the connection that listens for other instances' writes/, 5_000)).toBe(true);
      proxy.restore();
      expect(await until(/toolgraph: warning: listening for other instances' writes again/, 10_000)).toBe(true);
    } finally {
      proxy.restore();
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
      await proxy.close();
      const cleanup = new pg.Client({ connectionString: URL_ENV });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    }
  }, 60_000);
});

describe.runIf(existsSync(BIN))('the toolgraph command', () => {
  it("starts node with the server's V8 flags, from its shebang", () => {
    const shebang = `#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`;
    expect(readFileSync(`${ROOT}src/cli/main.ts`, 'utf8').split('\n', 1)[0]).toBe(shebang);
    expect(readFileSync(BIN, 'utf8').split('\n', 1)[0]).toBe(shebang);
    // Run as a program (not `node main.js`): the kernel reads the shebang, and node takes the flags.
    const out = execFileSync(BIN, ['--version'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // `npm run bench` measures as the served command runs: with the same flags.
    const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['bench']).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} dist/bench/perf/main.js`);
  });
});
