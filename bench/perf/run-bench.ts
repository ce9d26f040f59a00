/**
 * Performance benchmarks on seeded synthetic graphs with planted communities (bench/synthetic.ts).
 * One JSON line per case, quality beside speed, and a reference implementation timed in the
 * same run on the same input:
 *  - ingest:   TransitionGraph.ingest vs. a plain graphology mergeEdge/attribute update per transition;
 *  - rebuild:  snapshot (CSR + PageRank + Louvain + second order) vs. graphology-metrics PageRank
 *              + graphology-communities-louvain on the graphology graph; PageRank alone timed too;
 *  - model-rebuild: the service's full model rebuilt after every 2,000 of 50,000 traces, beside
 *              one rebuild from scratch (model-rebuild-bench.ts);
 *  - predict:  predictNext (default profile, no intent) vs. a graphology out-neighbour sort;
 *  - spectral: co-clustering of a planted tools x capabilities matrix (spectral-bench.ts);
 *  - search, dag: searchTools and suggestDag with the built-in embedder (query-bench.ts);
 *  - score:    trace value latency with and without an embedder (score-bench.ts);
 *  - ingest-durable, cold-start: the durable service on PGlite (durable-bench.ts).
 *  - http:     POST /v1/predict under autocannon against the real server, alone and while traces
 *              are posted; counts that no acknowledged trace is lost (http-bench.ts).
 *  - fit, predict-during-fit: a fit of UltraTool's size on the worker, and predictions while a
 *              fit runs (fit-bench.ts).
 *  - dashboard: the graph view's first drawing in headless Chromium on the http case's store,
 *              and the page's size gzipped (dashboard-bench.ts).
 * Single-threaded: Node runs the JavaScript on one core.
 */
import louvainModule from 'graphology-communities-louvain';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { DirectedGraph } from 'graphology';
import { pagerank } from '../../src/graph/pagerank.js';
import { createRng } from '../../src/graph/rng.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { buildModel } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import type { Trace } from '../../src/schema/types.js';
import { plantedGraph, syntheticTraces } from '../synthetic.js';
import { queryBench } from './query-bench.js';
import { coldStartBench, ingestDurableBench } from './durable-bench.js';
import { httpBench } from './http-bench.js';
import { modelRebuildBench } from './model-rebuild-bench.js';
import { scoreBench } from './score-bench.js';
import { spectralBench } from './spectral-bench.js';
import { toGraphology } from './graphology-reference.js';
import { fitBench, predictDuringFitBench } from './fit-bench.js';
import { dashboardBench } from './dashboard-bench.js';

// CommonJS packages typed with `export default`: under NodeNext the default import is
// module.exports itself, which TypeScript types as the namespace.
const pagerankReference = ('default' in pagerankModule ? pagerankModule.default : pagerankModule) as typeof pagerankModule.default;
const louvain = ('default' in louvainModule ? louvainModule.default : louvainModule) as typeof louvainModule.default;

export const BENCH_CASES = ['ingest', 'rebuild', 'model-rebuild', 'predict', 'search', 'dag', 'spectral', 'score', 'ingest-durable', 'cold-start', 'http', 'fit', 'predict-during-fit', 'dashboard'] as const;
export type BenchCase = (typeof BENCH_CASES)[number];

export interface BenchOptions {
  readonly cases: readonly BenchCase[];
  readonly tools: number;
  readonly edges: number;
  readonly seed: number;
  readonly json: boolean;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function toTraces(sequences: readonly (readonly string[])[], prefix: string): Trace[] {
  return sequences.map((tools, i) => ({
    id: `${prefix}${i}`,
    intent: '',
    domain: '',
    steps: tools.map((tool) => ({ tool, ok: true })),
    success: true,
    timestamp: 0,
  }));
}

/** A TransitionGraph holding every planted edge (with its count) plus walks for second-order context. */
function plantedTransitionGraph(options: BenchOptions): { graph: TransitionGraph; planted: ReturnType<typeof plantedGraph>; walks: Trace[] } {
  const planted = plantedGraph({ tools: options.tools, edges: options.edges, seed: options.seed });
  const graph = new TransitionGraph();
  for (let i = 0; i < planted.n; i++) graph.addTool(`tool_${i}`);
  for (let e = 0; e < planted.sources.length; e++) {
    const trace: Trace = {
      id: `e${e}`,
      intent: '',
      domain: '',
      steps: [
        { tool: `tool_${planted.sources[e]}`, ok: true },
        { tool: `tool_${planted.targets[e]}`, ok: true },
      ],
      success: true,
      timestamp: 0,
    };
    const times = Math.min(planted.weights[e]!, 3);
    for (let k = 0; k < times; k++) graph.ingest(trace);
  }
  const walks = toTraces(syntheticTraces(planted, Math.max(1000, options.edges / 10), options.seed + 1), 'w');
  return { graph, planted, walks };
}

function ingestCase(options: BenchOptions): Record<string, unknown> {
  const planted = plantedGraph({ tools: options.tools, edges: options.edges, seed: options.seed });
  const count = 100_000;
  const traces = toTraces(syntheticTraces(planted, count, options.seed + 2), 't');
  let steps = 0;
  for (const t of traces) steps += t.steps.length;

  // Warm-up on a throwaway graph so both sides run JIT-compiled code.
  const warm = new TransitionGraph();
  for (let i = 0; i < 2000; i++) warm.ingest(traces[i]!);

  const graph = new TransitionGraph();
  const t0 = performance.now();
  for (const t of traces) graph.ingest(t);
  const ours = performance.now() - t0;

  const reference = new DirectedGraph({ allowSelfLoops: true });
  const t1 = performance.now();
  for (const t of traces) {
    const s = t.steps;
    for (const step of s) reference.mergeNode(step.tool);
    for (let i = 1; i < s.length; i++) {
      const [key] = reference.mergeEdge(s[i - 1]!.tool, s[i]!.tool);
      reference.updateEdgeAttribute(key, 'count', (c: number | undefined) => (c ?? 0) + 1);
    }
  }
  const ref = performance.now() - t1;
  return {
    case: 'ingest',
    tools: options.tools,
    traces: count,
    steps,
    ms: round(ours, 1),
    tracesPerSec: Math.round((count / ours) * 1000),
    referenceMs: round(ref, 1),
    referenceTracesPerSec: Math.round((count / ref) * 1000),
    edgesMatch: graph.edgeCount === reference.size,
    edges: graph.edgeCount,
  };
}

function purity(found: Int32Array, planted: Int32Array): number {
  const byCluster = new Map<number, Map<number, number>>();
  for (let i = 0; i < found.length; i++) {
    let row = byCluster.get(found[i]!);
    if (row === undefined) byCluster.set(found[i]!, (row = new Map()));
    row.set(planted[i]!, (row.get(planted[i]!) ?? 0) + 1);
  }
  let agree = 0;
  for (const row of byCluster.values()) agree += Math.max(...row.values());
  return found.length > 0 ? agree / found.length : 1;
}

function rebuildCase(options: BenchOptions): Record<string, unknown> {
  const { graph, planted, walks } = plantedTransitionGraph(options);
  for (const w of walks) graph.ingest(w);
  buildSnapshot(graph, { seed: options.seed }); // warm-up
  const runs = 5;
  const times = new Float64Array(runs);
  let snapshot = buildSnapshot(graph, { seed: options.seed });
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    snapshot = buildSnapshot(graph, { seed: options.seed });
    times[r] = performance.now() - t0;
  }
  times.sort();

  const prRuns = 10;
  pagerank(snapshot.out, { weighted: true });
  const p0 = performance.now();
  for (let r = 0; r < prRuns; r++) pagerank(snapshot.out, { weighted: true });
  const prOurs = (performance.now() - p0) / prRuns;
  const refRuns = 3;
  const reference = toGraphology(graph);
  let refScores: Record<string, number> = {};
  const p1 = performance.now();
  for (let r = 0; r < refRuns; r++) refScores = pagerankReference(reference, { getEdgeWeight: 'success' });
  const prRef = (performance.now() - p1) / refRuns;
  let maxDiff = 0;
  for (let i = 0; i < snapshot.n; i++) maxDiff = Math.max(maxDiff, Math.abs(snapshot.pagerank[i]! - refScores[String(i)]!));

  const rng = createRng(options.seed);
  const l0 = performance.now();
  louvain(reference, { rng, getEdgeWeight: 'success' });
  const louvainRef = performance.now() - l0;

  return {
    case: 'rebuild',
    tools: snapshot.n,
    edges: snapshot.edgeCount,
    ms: round(times[Math.floor(runs / 2)]!, 1),
    pagerankMs: round(prOurs, 2),
    pagerankReferenceMs: round(prRef, 1),
    pagerankSpeedup: round(prRef / prOurs, 1),
    pagerankMaxAbsDiff: maxDiff,
    louvainReferenceMs: round(louvainRef, 1),
    communities: snapshot.communityCount,
    plantedCommunities: new Set(planted.community).size,
    communityPurity: round(purity(snapshot.communities, planted.community), 3),
  };
}

function predictCase(options: BenchOptions): Record<string, unknown> {
  const { graph, walks } = plantedTransitionGraph(options);
  // Hold out a tenth of the walks as queries; learn from the rest.
  const held = walks.filter((_, i) => i % 10 === 0);
  for (let i = 0; i < walks.length; i++) if (i % 10 !== 0) graph.ingest(walks[i]!);
  const model = buildModel(graph, new Map(), undefined, { seed: options.seed });
  const queries: { context: string[]; target: string }[] = [];
  for (const w of held) {
    for (let i = 1; i < w.steps.length; i++) {
      queries.push({ context: w.steps.slice(0, i).map((s) => s.tool), target: w.steps[i]!.tool });
    }
  }
  while (queries.length < 10_000 && queries.length > 0) queries.push(queries[queries.length % held.length]!);

  for (let i = 0; i < Math.min(2000, queries.length); i++) predictNext(model, { context: queries[i]!.context, k: 5 });
  const latency = new Float64Array(queries.length);
  let hits = 0;
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const t0 = performance.now();
    const result = predictNext(model, { context: q.context, k: 5 });
    latency[i] = performance.now() - t0;
    if (result.items.some((it) => it.tool === q.target)) hits++;
  }
  latency.sort();

  // Reference: what one would write on graphology directly: the last tool's out-neighbours by
  // success count, sorted, top 5.
  const g = toGraphology(graph);
  const refLatency = new Float64Array(queries.length);
  let refHits = 0;
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const t0 = performance.now();
    const last = String(graph.indexOf(q.context[q.context.length - 1]!));
    const scored: [string, number][] = [];
    g.forEachOutEdge(last, (_e, attrs, _s, _t, _sa, targetAttrs) => {
      scored.push([targetAttrs.name, attrs.success]);
    });
    scored.sort((a, b) => b[1] - a[1]);
    const top = scored.slice(0, 5);
    refLatency[i] = performance.now() - t0;
    if (top.some(([t]) => t === q.target)) refHits++;
  }
  refLatency.sort();
  return {
    case: 'predict',
    tools: model.graph.n,
    edges: model.graph.edgeCount,
    queries: queries.length,
    p50Ms: round(percentile(latency, 0.5), 4),
    p99Ms: round(percentile(latency, 0.99), 4),
    hit5: round(hits / queries.length, 3),
    referenceP50Ms: round(percentile(refLatency, 0.5), 4),
    referenceP99Ms: round(percentile(refLatency, 0.99), 4),
    referenceHit5: round(refHits / queries.length, 3),
  };
}

async function runCase(name: BenchCase, options: BenchOptions): Promise<Record<string, unknown>> {
  switch (name) {
    case 'ingest':
      return ingestCase(options);
    case 'rebuild':
      return rebuildCase(options);
    case 'model-rebuild':
      return modelRebuildBench(options);
    case 'predict':
      return predictCase(options);
    case 'search':
    case 'dag':
      return queryBench(name, options);
    case 'score':
      return scoreBench({ seed: options.seed });
    case 'ingest-durable':
      return ingestDurableBench(options);
    case 'cold-start':
      // Sized by the issue: 1,000,000 transitions over --tools tools.
      return coldStartBench(options);
    case 'http':
      return httpBench({ tools: options.tools, edges: options.edges, seed: options.seed });
    case 'spectral':
      // The co-clustering case has its own size: spec'd as 10,000 tools x 1,000 capabilities.
      return spectralBench({ seed: options.seed });
    case 'fit':
      // Its own size too: UltraTool's (260 tools, 3,000 traces).
      return fitBench(options);
    case 'predict-during-fit':
      return predictDuringFitBench(options);
    case 'dashboard':
      return dashboardBench(options);
  }
}

export async function runBench(options: BenchOptions): Promise<void> {
  for (const name of options.cases) {
    // The flags this process runs with: the young generation's size moves the durable cases by
    // a tenth, and `npm run bench` sets it while `node dist/bench/perf/main.js` does not.
    const result = { ...(await runCase(name, options)), nodeFlags: [...process.execArgv] };
    if (options.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      const lines = Object.entries(result).map(([k, v]) => `  ${k.padEnd(22)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
      process.stdout.write(`${lines.join('\n')}\n\n`);
    }
  }
}
