/**
 * Child process of crash.test.ts: opens a store, appends a small batch (acknowledged), then a
 * large one, reporting each step on stdout. The parent SIGKILLs it during the large batch.
 * Usage: vite-node crash-child.ts '<json: {dataDir?, databaseUrl?, schema?, first, second}>'
 */
import { openToolgraph } from '../../src/service/durable-toolgraph.js';
import { openStore } from '../../src/store/open-store.js';
import type { Trace } from '../../src/schema/types.js';

interface Args {
  dataDir?: string;
  databaseUrl?: string;
  schema?: string;
  first: number;
  second: number;
  /** Through the durable service's group-commit writer instead of the store directly. */
  durable?: boolean;
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

const where = {
  ...(args.databaseUrl === undefined ? {} : { databaseUrl: args.databaseUrl }),
  ...(args.dataDir === undefined ? {} : { dataDir: args.dataDir }),
  ...(args.schema === undefined ? {} : { schema: args.schema }),
};
if (args.durable === true) {
  const tg = await openToolgraph(where);
  // Many small acknowledged submissions, grouped by the writer.
  const firsts = batch('first', args.first);
  const acks = await Promise.all(firsts.map((t) => tg.ingest({ id: t.id, intent: t.intent, domain: t.domain, tools: t.steps.map((s) => s.tool), success: t.success, timestamp: t.timestamp })));
  process.stdout.write(`acked first ${acks.reduce((s, r) => s + r.ingested, 0)}\n`);
  const big = batch('second', args.second).map((t) => ({ id: t.id, intent: t.intent, domain: t.domain, tools: t.steps.map((s) => s.tool), success: t.success, timestamp: t.timestamp }));
  process.stdout.write('begin second\n');
  const second = await tg.ingest(big);
  process.stdout.write(`acked second ${second.ingested}\n`);
  await tg.close();
} else {
  const store = await openStore(where);
  const first = await store.appendTraces(batch('first', args.first));
  process.stdout.write(`acked first ${first.inserted}\n`);
  const big = batch('second', args.second);
  process.stdout.write('begin second\n');
  const second = await store.appendTraces(big);
  process.stdout.write(`acked second ${second.inserted}\n`);
  await store.close();
}
