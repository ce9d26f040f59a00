/**
 * Bench case `model-rebuild`: what the library pays to keep predictions fresh while traces
 * arrive. The in-memory Toolgraph (its defaults: capabilities learned from the traces, built-in
 * embedder) ingests 50,000 synthetic traces in batches of 2,000, tools discovered from the
 * traces, and its full model (snapshot, text model, capabilities) is rebuilt after every batch,
 * as the debounced rebuild after ingestion does. Reference in the same run: one rebuild of the final graph
 * by a fresh Toolgraph that carries nothing over from earlier builds.
 */
import { Toolgraph } from '../../src/service/toolgraph.js';
import { plantedGraph, syntheticTraces } from '../synthetic.js';

export interface ModelRebuildBenchOptions {
  readonly tools: number;
  readonly edges: number;
  readonly seed: number;
}

const TRACES = 50_000;
const BATCH = 2_000;

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

export function modelRebuildBench(options: ModelRebuildBenchOptions): Record<string, unknown> {
  const planted = plantedGraph({ tools: options.tools, edges: options.edges, seed: options.seed });
  const traces = syntheticTraces(planted, TRACES, options.seed + 3).map((tools, i) => ({
    id: `t${i}`,
    intent: `task ${i % 97}`,
    tools,
    success: i % 10 !== 0,
    timestamp: 1_700_000_000_000 + i,
  }));
  const tg = new Toolgraph({ seed: options.seed });
  const times: number[] = [];
  for (let from = 0; from < traces.length; from += BATCH) {
    tg.ingest(traces.slice(from, from + BATCH));
    const t0 = performance.now();
    tg.rebuild();
    times.push(performance.now() - t0);
  }
  const stats = tg.stats();
  tg.close();
  const fresh = new Toolgraph({ seed: options.seed });
  fresh.ingest(traces);
  const r0 = performance.now();
  fresh.rebuild();
  const fromScratchMs = performance.now() - r0;
  fresh.close();
  const sorted = [...times].sort((a, b) => a - b);
  return {
    case: 'model-rebuild',
    tools: stats.tools,
    traces: stats.traces,
    rebuilds: times.length,
    totalMs: round(times.reduce((a, b) => a + b, 0)),
    p50Ms: round(sorted[Math.floor(sorted.length / 2)]!),
    lastMs: round(times[times.length - 1]!),
    referenceFromScratchMs: round(fromScratchMs),
  };
}
