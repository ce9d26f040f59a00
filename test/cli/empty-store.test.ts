/**
 * On a store with no trace and no catalogue, search, predict and dag say the store is empty and
 * how to fill it, in the table and in the JSON: the commands run in process through the real
 * parser and command table (test/helpers/run-cli.ts).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess as run } from '../helpers/run-cli.js';
import { inTempDir } from '../helpers/temp-dir.js';

describe('toolgraph on an empty store', () => {
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
  });
});
