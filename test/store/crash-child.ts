/**
 * Child process of crash.test.ts: opens a store, appends a small batch (acknowledged), then a
 * large one, reporting each step on stdout. The parent SIGKILLs it during the large batch.
 * Usage: vite-node crash-child.ts '<json: {dataDir?, databaseUrl?, schema?, first, second}>'
 */
import { openStore } from '../../src/store/open-store.js';
import type { Trace } from '../../src/schema/types.js';

interface Args {
  dataDir?: string;
  databaseUrl?: string;
  schema?: string;
  first: number;
  second: number;
}

const args = JSON.parse(process.argv[process.argv.length - 1]!) as Args;

function batch(prefix: string, n: number): Trace[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    intent: `intent ${i % 17}`,
    domain: 'crash',
    steps: [0, 1, 2, 3, 4].map((k) => ({ tool: `tool-${(i + k) % 23}`, ok: true })),
    success: i % 5 !== 0,
    timestamp: 1_000 + i,
  }));
}

const store = await openStore({
  ...(args.databaseUrl === undefined ? {} : { databaseUrl: args.databaseUrl }),
  ...(args.dataDir === undefined ? {} : { dataDir: args.dataDir }),
  ...(args.schema === undefined ? {} : { schema: args.schema }),
});
const first = await store.appendTraces(batch('first', args.first));
process.stdout.write(`acked first ${first.inserted}\n`);
const big = batch('second', args.second);
process.stdout.write('begin second\n');
const second = await store.appendTraces(big);
process.stdout.write(`acked second ${second.inserted}\n`);
await store.close();
