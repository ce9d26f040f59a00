/**
 * docs/http.md and docs/mcp.md are the faces' references: every endpoint the HTTP server mounts
 * (the `/v1` route table and the endpoints beside it) is a row of http.md's endpoint table, and
 * every MCP tool the server registers is a row of mcp.md's tool table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES, SERVICE_ENDPOINTS } from '../../src/service/http/routes.js';
import { MCP_TOOLS } from '../../src/service/mcp/tools.js';

const DOCS = join(import.meta.dirname, '..', '..', 'docs');
const read = (name: string): string => readFileSync(join(DOCS, name), 'utf8');

describe('the faces reference pages', () => {
  it('docs/http.md has a row for every endpoint', () => {
    const doc = read('http.md');
    const missing = [...ROUTES, ...SERVICE_ENDPOINTS].map((r) => `${r.method} ${r.url}`).filter((e) => !doc.includes(`\n| \`${e}\` |`));
    expect(missing).toEqual([]);
  });

  it('docs/http.md marks exactly the writes', () => {
    const doc = read('http.md');
    const wrong = ROUTES.filter((r) => !doc.includes(`\n| \`${r.method} ${r.url}\` | ${r.write ? 'W ' : ''}|`)).map((r) => `${r.method} ${r.url}`);
    expect(wrong).toEqual([]);
  });

  it('docs/mcp.md has a row for every MCP tool, saying which write', () => {
    const doc = read('mcp.md');
    const wrong = MCP_TOOLS.filter((t) => {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${t.name}\` |`));
      return row === undefined || row.trimEnd().endsWith('| yes |') !== t.write;
    }).map((t) => t.name);
    expect(wrong).toEqual([]);
  });
});
