/**
 * The server side of the `http` bench case: a Toolgraph learned from a planted synthetic graph
 * (every planted edge, then random walks), served by `startHttpServer` on loopback. Run as a
 * child process so the load generator and the server each have their own event loop, as they
 * would in production. Prints one JSON line `{url, tools, traces, buildMs}` when ready; closes on
 * SIGTERM.
 *
 * The data is a pure function of (tools, edges, seed), so the load generator derives the same
 * query contexts from `benchData` without asking the server.
 */
import { fileURLToPath } from 'node:url';
import { startHttpServer } from '../../src/service/http/server.js';
import { inMemoryService } from '../../src/service/service.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import type { Trace } from '../../src/schema/types.js';
import { plantedGraph, syntheticTraces } from '../synthetic.js';

export interface HttpBenchData {
  readonly tools: readonly string[];
  /** Traces learned before the load starts. */
  readonly learned: readonly Trace[];
  /** Held-out walks: query contexts and the traces posted during the ingestion phase. */
  readonly held: readonly (readonly string[])[];
}

export function benchData(tools: number, edges: number, seed: number): HttpBenchData {
  const planted = plantedGraph({ tools, edges, seed });
  const names = Array.from({ length: planted.n }, (_, i) => `tool_${i}`);
  const learned: Trace[] = [];
  for (let e = 0; e < planted.sources.length; e++) {
    const steps = [
      { tool: names[planted.sources[e]!]!, ok: true },
      { tool: names[planted.targets[e]!]!, ok: true },
    ];
    const times = Math.min(planted.weights[e]!, 3);
    for (let k = 0; k < times; k++) learned.push({ id: `e${e}:${k}`, intent: '', domain: '', steps, success: true, timestamp: 0 });
  }
  const walks = syntheticTraces(planted, Math.max(1000, edges / 10), seed + 1);
  const held: string[][] = [];
  walks.forEach((tools, i) => {
    if (i % 10 === 0) held.push(tools);
    else learned.push({ id: `w${i}`, intent: '', domain: '', steps: tools.map((tool) => ({ tool, ok: true })), success: true, timestamp: 0 });
  });
  return { tools: names, learned, held };
}

async function main(): Promise<void> {
  const [tools, edges, seed, rebuildDelayMs] = process.argv.slice(2).map(Number) as [number, number, number, number];
  const started = performance.now();
  const data = benchData(tools, edges, seed);
  const tg = new Toolgraph({ seed, rebuildDelayMs });
  tg.setTools(data.tools.map((name) => ({ name })));
  tg.ingestTraces(data.learned);
  tg.rebuild();
  const service = inMemoryService(tg);
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' }, { logger: false });
  const stats = await service.stats();
  process.stdout.write(`${JSON.stringify({ url: server.url, tools: stats.tools, traces: stats.traces, buildMs: Math.round(performance.now() - started) })}\n`);
  process.once('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`http-bench-server: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
