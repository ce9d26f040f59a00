/**
 * Every `--help` lists what its face really offers: the tools a real MCP client lists from
 * `toolgraph mcp`, and the endpoints a live HTTP server answers, named by `serve --help`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SERVICE_ENDPOINTS } from '../../src/service/http/routes.js';
import { call, startTestServer } from '../service/http/_server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;
const FIXTURE = `${ROOT}test/fixtures/schema/tiny`;

function help(args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(result.status).toBe(0);
  return result.stdout;
}

/** The indented lines under `heading:` up to the next blank line, by their first word(s). */
function listed(text: string, heading: string, pattern: RegExp): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`${heading}:`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    out.push(line.match(pattern)![1]!);
  }
  return out;
}

async function toolNames(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<string[]> {
  const client = new Client({ name: 'toolgraph-help-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

describe.runIf(existsSync(BIN))('--help against the faces', () => {
  it('mcp --help and the command list name every tool toolgraph mcp serves', async () => {
    const text = help(['mcp', '--help']);
    const names = listed(text, 'MCP tools', /^ {2}(\S+)/).sort();
    const served = await toolNames(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--data', FIXTURE], cwd: ROOT, stderr: 'pipe' }));
    expect(served.length).toBeGreaterThanOrEqual(7);
    expect(names).toEqual(served);
    const summary = help(['--help']).split('\n').find((l) => l.trimStart().startsWith('mcp '))!;
    for (const name of served) expect(summary.replace(/\s+/g, ' ')).toContain(name);
  });

  it('serve --help names every endpoint a live server answers and every tool at /mcp', async () => {
    const text = help(['serve', '--help']);
    const endpoints = listed(text, 'Endpoints', /^ {2}(\S+ \S+)/);
    const server = await startTestServer();
    try {
      const doc = (await call(server.url, '/v1/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
      const api = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`));
      const beside = SERVICE_ENDPOINTS.map((e) => `${e.method} ${e.url}`);
      expect([...endpoints].sort()).toEqual([...api, ...beside].sort());
      // Those beside the /v1 table are mounted: none is the not-found answer.
      for (const e of SERVICE_ENDPOINTS) {
        const r = await call(server.url, e.url, e.method === 'POST' ? { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { accept: 'application/json, text/event-stream' } } : {});
        expect(r.status, e.url).not.toBe(404);
      }
      const tools = listed(text, 'MCP tools', /^ {2}(\S+)/).sort();
      expect(tools).toEqual(await toolNames(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))));
    } finally {
      await server.close();
    }
  });
});
