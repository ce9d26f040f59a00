/**
 * The measured side of the `cold-start` bench case: a fresh Node process that opens a prepared
 * store with openToolgraph and answers one prediction, as a restarted service does. Nothing is
 * warm: PGlite's WebAssembly is compiled and every module loaded in this process. Prints one
 * JSON line, then closes the service (not measured) and exits.
 */
import { fileURLToPath } from 'node:url';
import { openToolgraph, type OpenReport } from '../../src/service/durable-toolgraph.js';

/** How the open went, beside its times: what was restored early, which caches were taken, where the first model's snapshot was built. */
export function restoredHow(report: OpenReport): { restoredEarly: boolean; intentTokens: boolean; toolVectors: boolean; modelOffThread: boolean } {
  return { restoredEarly: report.restoredEarly, ...report.cachesRestored, modelOffThread: report.modelOffThread };
}

async function main(): Promise<void> {
  const [dataDir, seed] = process.argv.slice(2) as [string, string];
  const t0 = performance.now();
  const tg = await openToolgraph({ dataDir, seed: Number(seed) });
  const answer = await tg.predictNext({ context: ['tool_0'], k: 5 });
  const t1 = performance.now();
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({
      // performance.now() counts from the process's start: Node's own start-up and module loading are in.
      readyFromProcessStartMs: t1,
      readyFromOpenMs: t1 - t0,
      cpuMs: (cpu.user + cpu.system) / 1000,
      answered: answer.items.length,
      breakdownMs: tg.openReport.ms,
      restored: restoredHow(tg.openReport),
      // At ready, garbage included: the JavaScript heap, and typed arrays' memory outside it.
      memoryMB: { rss: memory.rss / 1e6, heapUsed: memory.heapUsed / 1e6, arrayBuffers: memory.arrayBuffers / 1e6 },
    })}\n`,
  );
  await tg.close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`cold-start-child: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
