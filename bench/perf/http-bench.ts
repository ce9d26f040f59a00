/**
 * The `http` bench case: `POST /v1/predict` on a 10,000-tool graph under autocannon, over
 * loopback, against the real server in a child process (http-bench-server.ts).
 *
 *  1. predict: for each of `sweep`'s concurrencies, that many keep-alive connections for
 *     `durationS` seconds after a 2-second warm-up; each request a different held-out context (no
 *     intent, k = 5). One server thread answers, so past a couple of connections requests only
 *     queue: the sweep shows where latency starts to grow and what throughput buys it.
 *     Latency percentiles are computed from every response's own time (float ms, from
 *     autocannon's per-response event) rather than autocannon's histogram, which has 1 ms
 *     resolution: too coarse for a 2 ms target.
 *     The server uses `toolgraph serve`'s rebuild debounce and V8 flags (server-defaults.ts).
 *  2. predict under ingestion: the same predict load plus `ingestConnections` connections
 *     posting traces (held-out walks, no id: every post is a new observation) for the same
 *     duration. Then the server's trace count must have grown by at least the number of 2xx
 *     ingestion answers: `lost` counts acknowledged traces that are not there. It may grow by a
 *     few more (`committedUnacknowledged`): requests in flight when autocannon stops at the
 *     deadline are committed, but their answers are no longer read.
 *
 * autocannon is a closed loop: while the server is blocked (a rebuild), only the requests in
 * flight wait, so percentiles understate a stall; `maxMs` shows it.
 *
 * Node runs each side's JavaScript on one core; the machine's other load shows up in the
 * figures, so the case reports the load average at its start.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ToolgraphError } from '../../src/schema/errors.js';
import { SERVER_NODE_FLAGS, SERVER_REBUILD_DELAY_MS } from '../../src/service/server-defaults.js';
import { benchData } from './http-bench-server.js';

interface AutocannonRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly '2xx': number;
}

type AutocannonInstance = PromiseLike<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: readonly AutocannonRequest[];
}) => AutocannonInstance;

// autocannon is CommonJS without type declarations, and a dev dependency: loaded on use only.
function loadAutocannon(): Autocannon {
  try {
    return createRequire(import.meta.url)('autocannon') as Autocannon;
  } catch {
    throw new ToolgraphError('NOT_FOUND', "bench http: needs the dev dependency 'autocannon' (run from a clone after npm ci)");
  }
}

export interface HttpBenchOptions {
  readonly tools: number;
  readonly edges: number;
  readonly seed: number;
  /** Connections of the predict-only runs (default 1, 2, 4); the last also loads the ingestion run. */
  readonly sweep?: readonly number[];
  readonly ingestConnections?: number;
  readonly durationS?: number;
  /** The server's rebuild debounce (Toolgraph's rebuildDelayMs); default `toolgraph serve`'s. */
  readonly rebuildDelayMs?: number;
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Runs autocannon and keeps every 2xx response time. */
async function load(url: string, connections: number, duration: number, requests: readonly AutocannonRequest[]) {
  const times: number[] = [];
  let other = 0;
  const instance = loadAutocannon()({ url, connections, duration, requests });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) times.push(ms);
    else other++;
  });
  const result = await instance;
  const sorted = Float64Array.from(times).sort();
  return {
    result,
    ok: times.length,
    other,
    p50Ms: round(percentile(sorted, 0.5)),
    p90Ms: round(percentile(sorted, 0.9)),
    p99Ms: round(percentile(sorted, 0.99)),
    maxMs: round(sorted.length > 0 ? sorted[sorted.length - 1]! : 0),
  };
}

/** The bench server (http-bench-server.ts) in a child process, once it listens. */
export async function startServer(options: HttpBenchOptions, rebuildDelayMs: number): Promise<{ url: string; info: Record<string, number>; stop: () => Promise<void> }> {
  const script = fileURLToPath(new URL('./http-bench-server.js', import.meta.url));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, script, String(options.tools), String(options.edges), String(options.seed), String(rebuildDelayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`http bench server exited with ${code}`)));
  });
  const { url, ...info } = JSON.parse(line) as { url: string } & Record<string, number>;
  return {
    url,
    info,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The server's own histogram of /v1/predict (cumulative counts by upper bound `le`, seconds). */
async function serverHistogram(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  const pattern = /^toolgraph_http_request_duration_seconds_bucket\{method="POST",route="\/v1\/predict",le="([^"]+)"\} (\d+)$/gm;
  for (const m of text.matchAll(pattern)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** Share of the requests between two scrapes that the server answered within `le` seconds. */
function shareWithin(before: Map<string, number>, after: Map<string, number>, le: string): number {
  const total = (after.get('+Inf') ?? 0) - (before.get('+Inf') ?? 0);
  return total === 0 ? 0 : round(((after.get(le) ?? 0) - (before.get(le) ?? 0)) / total, 4);
}

async function traceCount(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/stats`);
  return ((await response.json()) as { traces: number }).traces;
}

export async function httpBench(options: HttpBenchOptions): Promise<Record<string, unknown>> {
  const sweep = options.sweep ?? [1, 2, 4];
  if (sweep.length === 0 || !sweep.every((c) => Number.isInteger(c) && c >= 1)) {
    throw new ToolgraphError('INVALID_INPUT', `bench http: sweep: expected connection counts >= 1, got ${JSON.stringify(sweep)}`);
  }
  const connections = sweep[sweep.length - 1]!;
  const ingestConnections = options.ingestConnections ?? 2;
  const duration = options.durationS ?? 10;
  const rebuildDelayMs = options.rebuildDelayMs ?? SERVER_REBUILD_DELAY_MS;
  const load1 = loadavg()[0]!;
  const data = benchData(options.tools, options.edges, options.seed);
  const json = { 'content-type': 'application/json' };
  const predicts: AutocannonRequest[] = [];
  for (const walk of data.held) {
    for (let i = 1; i < walk.length && predicts.length < 5_000; i++) {
      predicts.push({ method: 'POST', path: '/v1/predict', headers: json, body: JSON.stringify({ context: walk.slice(0, i), k: 5 }) });
    }
  }
  const ingests = data.held.slice(0, 2_000).map((tools) => ({ method: 'POST', path: '/v1/traces', headers: json, body: JSON.stringify({ tools }) }));

  const server = await startServer(options, rebuildDelayMs);
  try {
    // One entry per concurrency; the server's share is from its own /metrics histogram
    // (arrival to last byte).
    const sweepRuns: Record<string, number>[] = [];
    for (const c of sweep) {
      await load(server.url, c, 2, predicts); // warm-up: JIT, connection set-up
      const histBefore = await serverHistogram(server.url);
      const run = await load(server.url, c, duration, predicts);
      const histAfter = await serverHistogram(server.url);
      sweepRuns.push({
        connections: c,
        requests: run.ok,
        perSec: Math.round(run.ok / duration),
        p50Ms: run.p50Ms,
        p90Ms: run.p90Ms,
        p99Ms: run.p99Ms,
        maxMs: run.maxMs,
        non2xx: run.other + run.result.errors + run.result.timeouts,
        serverWithin1Ms: shareWithin(histBefore, histAfter, '0.001'),
        serverWithin2Ms: shareWithin(histBefore, histAfter, '0.002'),
      });
    }

    const before = await traceCount(server.url);
    const [mixed, ingest] = await Promise.all([
      load(server.url, connections, duration, predicts),
      load(server.url, ingestConnections, duration, ingests),
    ]);
    const after = await traceCount(server.url);
    return {
      case: 'http',
      tools: server.info['tools'],
      learnedTraces: server.info['traces'],
      serverBuildMs: server.info['buildMs'],
      connections,
      durationS: duration,
      rebuildDelayMs,
      loadAverage: round(load1, 2),
      sweep: sweepRuns,
      underIngestPredictPerSec: Math.round(mixed.ok / duration),
      underIngestPredictP50Ms: mixed.p50Ms,
      underIngestPredictP99Ms: mixed.p99Ms,
      // The longest wait: a rebuild that holds the event loop shows here, not in the percentiles.
      underIngestPredictMaxMs: mixed.maxMs,
      ingestConnections,
      ingestAcknowledged: ingest.ok,
      ingestPerSec: Math.round(ingest.ok / duration),
      ingestP99Ms: ingest.p99Ms,
      ingestNon2xx: ingest.other + ingest.result.errors + ingest.result.timeouts,
      tracesAdded: after - before,
      // Acknowledged (2xx) but not in the graph: must be 0.
      lost: Math.max(0, ingest.ok - (after - before)),
      // Committed, but the answer was cut off when autocannon stopped at the deadline.
      committedUnacknowledged: Math.max(0, after - before - ingest.ok),
    };
  } finally {
    await server.stop();
  }
}
