/**
 * `toolgraph mcp` (the built CLI, a child process) fed raw JSON-RPC lines on its stdin: a line
 * past the documented limit is answered with a JSON-RPC error and one stderr line, and the
 * session goes on serving the lines after it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MCP_LINE_BYTES } from '../../../src/schema/limits.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;
const MIB = 1024 * 1024;

interface Session {
  readonly child: ChildProcessWithoutNullStreams;
  /** The next JSON-RPC message on stdout (waits up to `ms`). */
  next(ms?: number): Promise<Record<string, any>>;
  stderr(): string;
  exited: Promise<number | null>;
}

function startMcp(): Session {
  const child = spawn(process.execPath, [BIN, 'mcp', '--data', FIXTURE], { cwd: ROOT });
  const lines: string[] = [];
  const waiting: (() => void)[] = [];
  let partial = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    let nl: number;
    while ((nl = partial.indexOf('\n')) !== -1) {
      lines.push(partial.slice(0, nl));
      partial = partial.slice(nl + 1);
    }
    for (const wake of waiting.splice(0)) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => err,
    async next(ms = 10_000) {
      const deadline = Date.now() + ms;
      while (lines.length === 0) {
        if (Date.now() > deadline) throw new Error(`no message on stdout within ${ms} ms; stderr: ${err}`);
        await Promise.race([new Promise<void>((resolve) => waiting.push(resolve)), exited, new Promise((r) => setTimeout(r, 50))]);
      }
      return JSON.parse(lines.shift()!) as Record<string, any>;
    },
  };
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const initialize = line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const listTools = (id: number) => line({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

/** A tools/call line of exactly `bytes` bytes before its newline (padding in a JSON string). */
function callOfBytes(id: number, bytes: number): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"airport","pad":"`;
  const tail = '"}}}';
  return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}\n`;
}

/** Writes `text` in pieces of `size` bytes, as a pipe delivers a long line. */
async function writeInPieces(child: ChildProcessWithoutNullStreams, text: string, size = 64 * 1024): Promise<void> {
  for (let at = 0; at < text.length; at += size) {
    if (!child.stdin.write(text.slice(at, at + size))) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
}

let session: Session | undefined;
afterEach(async () => {
  if (session !== undefined && session.child.exitCode === null) {
    session.child.stdin.end();
    await session.exited;
  }
  session = undefined;
});

describe.runIf(existsSync(BIN))('toolgraph mcp: line limit on stdin', () => {
  it('is 10 MiB', () => {
    expect(MAX_MCP_LINE_BYTES).toBe(10 * MIB);
  });

  it('answers a line over the limit with a JSON-RPC error (id null), says so on stderr once, and serves the next requests', async () => {
    session = startMcp();
    session.child.stdin.write(initialize + initialized);
    expect((await session.next()).id).toBe(1);
    await writeInPieces(session.child, callOfBytes(2, MAX_MCP_LINE_BYTES + 1) + listTools(3));
    const refused = await session.next();
    expect(refused).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(refused['error'].message).toContain(`${MAX_MCP_LINE_BYTES} bytes (10 MiB)`);
    const listed = await session.next();
    expect(listed['id']).toBe(3);
    expect(listed['result'].tools.length).toBeGreaterThan(0);
    const warnings = session.stderr().split('\n').filter((l) => l.includes('10 MiB'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^toolgraph mcp: /);
    // Still serving: a call after it is answered, and stdin's end ends the process cleanly.
    session.child.stdin.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search_tools', arguments: { query: 'find an airport by city', k: 1 } } }));
    const called = await session.next();
    expect(called['id']).toBe(4);
    expect(called['result'].structuredContent.items[0].tool).toBe('search_airport');
    session.child.stdin.end();
    expect(await session.exited).toBe(0);
  }, 60_000);

  it('reads a line of exactly the limit, and refuses two long lines in a row one by one', async () => {
    session = startMcp();
    session.child.stdin.write(initialize + initialized);
    expect((await session.next()).id).toBe(1);
    await writeInPieces(session.child, callOfBytes(2, MAX_MCP_LINE_BYTES));
    const atLimit = await session.next(30_000);
    // Read and called: the tool refuses the unknown `pad` argument, as a tool error.
    expect(atLimit['id']).toBe(2);
    expect(atLimit['result'].isError).toBe(true);
    await writeInPieces(session.child, callOfBytes(5, MAX_MCP_LINE_BYTES + 1) + callOfBytes(6, 12 * MIB) + listTools(7), 1024 * 1024);
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await session.next())['id']).toBe(7);
  }, 60_000);
});
