/**
 * Bench cases of fitting (fit-weights.ts, on the worker of fit-thread.ts):
 *  - fit: one fit of UltraTool's size (260 tools, 3,000 traces with intents, chains of two or
 *    three tools) on the worker, timed from the job's start to its report; its CPU time is the
 *    worker's alone (one core), read from the thread's own clock;
 *  - predict-during-fit: predictNext with context and intent at 10,000 tools, timed alone and
 *    while a fit of the same store's 18,000 traces runs on the worker: the latency a served
 *    model keeps while it refits itself.
 * Quality beside speed: the fit's held-out Hit@1 and what it kept; the predictions' Hit@1.
 */
import { hrtime } from 'node:process';
import { Toolgraph } from '../../src/service/toolgraph.js';
import type { Trace } from '../../src/schema/types.js';
import { world } from './query-bench.js';

export interface FitBenchOptions {
  readonly tools: number;
  readonly edges: number;
  readonly seed: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function round(x: number, digits = 4): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

async function* pages(traces: readonly Trace[]): AsyncIterable<readonly Trace[]> {
  for (let i = 0; i < traces.length; i += 1_000) yield traces.slice(i, i + 1_000);
}

function engineOf(catalog: Parameters<Toolgraph['putTools']>[0], traces: readonly Trace[], seed: number): Toolgraph {
  const tg = new Toolgraph({ seed, learnCapabilities: false, rebuildDelayMs: 60_000 });
  tg.putTools(catalog);
  tg.ingestTraces(traces);
  tg.rebuild();
  return tg;
}

export async function fitBench(options: FitBenchOptions): Promise<Record<string, unknown>> {
  // UltraTool's shape: 260 tools, about 3,000 training workflows.
  const { catalog, train } = world({ tools: 260, edges: 1_200, seed: options.seed });
  const traces = train.slice(0, 3_000);
  const tg = engineOf([...catalog.values()], traces, options.seed);
  try {
    const times: number[] = [];
    let report: Awaited<ReturnType<Toolgraph['fitOffThread']>> | null = null;
    for (let run = 0; run < 3; run++) {
      const t0 = hrtime.bigint();
      report = await tg.fitOffThread(pages(traces));
      times.push(Number(hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    return {
      case: 'fit',
      tools: catalog.size,
      traces: traces.length,
      // The first run also starts the worker and loads its modules.
      firstMs: round(times[times.length - 1]!, 0),
      medianMs: round(times[1]!, 0),
      minMs: round(times[0]!, 0),
      targetMs: 10_000,
      kept: { next: report!.next.selected, nextNoIntent: report!.nextNoIntent.selected, search: report!.search.selected },
      heldOutHit1: { next: round(report!.next.hit1Fitted, 3), search: round(report!.search.hit1Fitted, 3) },
    };
  } finally {
    tg.close();
  }
}

export async function predictDuringFitBench(options: FitBenchOptions): Promise<Record<string, unknown>> {
  const { catalog, train, held } = world({ tools: options.tools, edges: options.edges, seed: options.seed });
  const tg = engineOf([...catalog.values()], train, options.seed);
  const queries = held
    .filter((t) => t.steps.length > 1)
    .map((t) => ({ context: [t.steps[0]!.tool], intent: t.intent, target: t.steps[1]!.tool }));
  const ask = (q: (typeof queries)[number]): { ms: number; hit: boolean } => {
    const t0 = hrtime.bigint();
    const top = tg.predictNext({ context: q.context, intent: q.intent, k: 5 }).items[0]?.tool;
    return { ms: Number(hrtime.bigint() - t0) / 1e6, hit: top === q.target };
  };
  try {
    for (let i = 0; i < Math.min(500, queries.length); i++) ask(queries[i]!);
    const alone = new Float64Array(queries.length);
    let hits = 0;
    queries.forEach((q, i) => {
      const r = ask(q);
      alone[i] = r.ms;
      if (r.hit) hits++;
    });
    // The same predictions, a turn of the event loop between them (as requests arrive), while a
    // fit runs on the worker; repeated until the fit ends.
    const during: number[] = [];
    let fitting = true;
    const t0 = hrtime.bigint();
    const fit = tg.fitOffThread(pages(train)).finally(() => (fitting = false));
    for (let i = 0; fitting; i = (i + 1) % queries.length) {
      during.push(ask(queries[i]!).ms);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const report = await fit;
    const fitMs = Number(hrtime.bigint() - t0) / 1e6;
    alone.sort();
    const sorted = Float64Array.from(during).sort();
    return {
      case: 'predict-during-fit',
      tools: catalog.size,
      traces: train.length,
      aloneP50Ms: round(percentile(alone, 0.5)),
      aloneP99Ms: round(percentile(alone, 0.99)),
      duringP50Ms: round(percentile(sorted, 0.5)),
      duringP99Ms: round(percentile(sorted, 0.99)),
      duringMaxMs: round(sorted[sorted.length - 1] ?? 0),
      targetP99Ms: 2,
      predictions: sorted.length,
      fitMs: round(fitMs, 0),
      hit1: round(hits / queries.length, 3),
      kept: { next: report.next.selected, search: report.search.selected },
    };
  } finally {
    tg.close();
  }
}
