/**
 * On a store with no trace and no catalogue, search, predict and dag say the store is empty and
 * how to fill it, in the table and in the JSON: the built binary, as a user runs it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = `${ROOT}dist/src/cli/main.js`;

function run(args: string[]): Promise<{ status: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout }));
  });
}

describe.runIf(existsSync(BIN))('toolgraph on an empty store', () => {
  it('says so, and how to fill it, for search, predict and dag', async () => {
    await inTempDir('toolgraph-empty-', async (dir) => {
      const store = ['--data-dir', join(dir, 'store')];
      for (const args of [['search', 'find flights'], ['predict', '--after', 'search_flights'], ['dag', 'find flights']]) {
        const table = await run([...args, ...store]);
        expect(table.status, args[0]).toBe(0);
        expect(table.stdout, args[0]).toMatch(/^empty store: /);
        expect(table.stdout, args[0]).toContain('toolgraph ingest');
        expect(table.stdout, args[0]).toContain('toolgraph tools import');
        expect(table.stdout, args[0]).not.toContain('matched nothing');
        const json = await run([...args, ...store, '--json']);
        expect(JSON.parse(json.stdout), args[0]).toMatchObject({ kind: 'empty', hint: expect.stringContaining('toolgraph ingest') });
      }
    });
  }, 120_000);
});
