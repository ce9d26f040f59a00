/**
 * The `dashboard` bench case: the graph view's first drawing in headless Chromium on a
 * 10,000-tool store (--tools, --edges: the planted graph the `http` case serves, in a child
 * process as `toolgraph serve` runs), and the size of the page's files.
 *
 * Each of RUNS loads is cold: a fresh browser profile, so the page, its script and the graph are
 * fetched again. `firstDrawMs` is the page's own clock (navigation start to the first frame after
 * sigma drew the graph: the test hook's `firstDrawMs`); `graphFetchMs` and `graphBytes` are the
 * `GET /v1/graph` request's, from the browser's resource timing. Quality beside speed: the nodes
 * and edges drawn, and the pixels they coloured. Targets (issue 54): first drawing <= 2,000 ms,
 * files <= 1 MiB gzipped.
 *
 * Needs Debian's Chromium (/usr/bin/chromium, or TOOLGRAPH_CHROMIUM) and the built dashboard
 * (`npm run build`: dist/web).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { builtFiles } from '../../scripts/build-web.js';
import { ToolgraphError } from '../../src/schema/errors.js';
import { defaultDashboardDir } from '../../src/service/http/dashboard.js';
import { SERVER_REBUILD_DELAY_MS } from '../../src/service/server-defaults.js';
import { startServer } from './http-bench.js';

const RUNS = 3;
// The flags the browser tests use (test/web/_browser.ts): headless, software rendering, nothing
// reached beyond loopback.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface Run {
  readonly firstDrawMs: number;
  readonly graphFetchMs: number;
  readonly graphBytes: number;
  readonly nodes: number;
  readonly edges: number;
  readonly pixels: { readonly nodes: number; readonly edges: number };
}

async function coldLoad(executablePath: string, url: string): Promise<Run> {
  const profile = mkdtempSync(join(tmpdir(), 'toolgraph-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: FLAGS, viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/#graph`);
    await page.waitForFunction(() => (globalThis as any).__toolgraph?.graph.firstDrawMs !== null, null, { timeout: 60_000 });
    return await page.evaluate(() => {
      const hook = (globalThis as any).__toolgraph.graph;
      // Run in the page: its resource timing entry for the graph read (typed here without the DOM's types).
      const graph = performance.getEntriesByType('resource').find((e) => e.name.includes('/v1/graph')) as { startTime: number; responseEnd: number; encodedBodySize: number } | undefined;
      return {
        firstDrawMs: hook.firstDrawMs,
        graphFetchMs: graph === undefined ? NaN : graph.responseEnd - graph.startTime,
        graphBytes: graph?.encodedBodySize ?? NaN,
        nodes: hook.order,
        edges: hook.size,
        pixels: hook.layer.pixels(),
      };
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const round = (x: number): number => Math.round(x * 10) / 10;

export async function dashboardBench(options: { readonly tools: number; readonly edges: number; readonly seed: number }): Promise<Record<string, unknown>> {
  const executablePath = process.env['TOOLGRAPH_CHROMIUM'] ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new ToolgraphError('INVALID_INPUT', `bench dashboard: no Chromium at ${executablePath} (apt-get install chromium, or set TOOLGRAPH_CHROMIUM)`);
  const dir = defaultDashboardDir();
  if (!existsSync(join(dir, 'index.html'))) throw new ToolgraphError('INVALID_INPUT', `bench dashboard: the dashboard is not built in ${dir}: run npm run build`);
  const files = builtFiles(dir);
  const load = loadavg()[0]!;
  const server = await startServer({ tools: options.tools, edges: options.edges, seed: options.seed }, SERVER_REBUILD_DELAY_MS);
  try {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await coldLoad(executablePath, server.url));
    const first = runs.map((r) => r.firstDrawMs).sort((a, b) => a - b);
    return {
      case: 'dashboard',
      tools: server.info['tools'],
      traces: server.info['traces'],
      loadAverage: round(load),
      runs: RUNS,
      firstDrawMsMedian: round(first[Math.floor(RUNS / 2)]!),
      firstDrawMsMax: round(first[RUNS - 1]!),
      firstDrawTargetMs: 2_000,
      graphFetchMsMedian: round(runs.map((r) => r.graphFetchMs).sort((a, b) => a - b)[Math.floor(RUNS / 2)]!),
      graphBytes: runs[0]!.graphBytes,
      drawnNodes: runs[0]!.nodes,
      drawnEdges: runs[0]!.edges,
      pixels: runs[0]!.pixels,
      assetsBytes: files.reduce((s, f) => s + f.bytes, 0),
      assetsGzipBytes: files.reduce((s, f) => s + f.gzipBytes, 0),
      assetsTargetGzipBytes: 1024 * 1024,
    };
  } finally {
    await server.stop();
  }
}
