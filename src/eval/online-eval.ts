/**
 * `toolgraph eval online`: what a gateway's store answers as its traffic grows. The `train`
 * workflows are replayed, in file order and in batches, into a fresh durable store (PGlite in a
 * temporary folder) through the ingestion path the faces use (`ingest` of compact traces, as
 * `POST /v1/traces` and the MCP `record_trace` hand them in), with the catalogue registered
 * first (`setTools`, as `PUT /v1/tools`). The store fits itself in the background as it does
 * when served (background-fit.ts), its interval set to 0: the replay compresses hours of traffic
 * into seconds, and the interval is a limit on the clock, not on the traces. At each checkpoint
 * (a share of `train`) the service is let settle (no fit under way or due, the model current:
 * DurableToolgraph.settled), as a deployment would have some time after that many traces, and
 * the `test` requests are asked of it: search (the intent), next tool with intent (each position
 * of each ordered workflow), DAG (each workflow of two tools or more). Beside it, on the same
 * prefix: `bm25` and `learned` for search and `markov2` for the next tool, as `eval search` and
 * `eval next` define them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransitionGraph } from '../graph/transition-graph.js';
import { buildModel, PRIOR_WEIGHTS } from '../recommend/model.js';
import type { Dataset } from '../schema/dataset.js';
import { workflowToTrace, type WorkflowRecord } from '../schema/trace.js';
import { openToolgraph, type DurableToolgraph } from '../service/durable-toolgraph.js';
import { hashedTextEmbedding } from '../text/text-embedding.js';
import { F1Counter, goldEdges, pairKey } from './dag-eval.js';
import { NextAccumulator, rankOf, SearchAccumulator, topIndices } from './metrics.js';
import { nextScorers } from './next-methods.js';
import { searchScorers } from './search-methods.js';
import { buildUniverse, indicesOf } from './universe.js';

export const ONLINE_METHODS = ['bm25', 'learned', 'markov2', 'toolgraph'] as const;
export type OnlineMethod = (typeof ONLINE_METHODS)[number];

/** The quiet time after which the replayed store fits what it has not read (autoFit's idleMs), ms. */
const ONLINE_QUIET_MS = 200;

/** Shares of `train` replayed before each round of questions. */
export const ONLINE_CHECKPOINTS = [0.05, 0.1, 0.25, 0.5, 1] as const;

export interface OnlineResult {
  readonly task: 'online';
  readonly data: string;
  /** Share of `train` replayed, and the number of traces that is. */
  readonly checkpoint: number;
  readonly traces: number;
  readonly method: OnlineMethod;
  /**
   * Search over the test intents (bm25, learned, toolgraph). Each task's figures are absent when
   * the test split holds no request of it: a rate over no request is not 0.
   */
  readonly searchN?: number;
  readonly searchHit1?: number;
  readonly searchRecall5?: number;
  /** Next tool with intent over the test positions (markov2, toolgraph). */
  readonly nextN?: number;
  readonly nextHit1?: number;
  /** DAG over the test workflows of two tools or more (toolgraph). */
  readonly dagN?: number;
  readonly dagNodeF1?: number;
  readonly dagEdgeF1?: number;
  /** toolgraph: the weights that answered, and how many traces their fit read. */
  readonly fit?: 'prior' | 'fitted';
  readonly fitTraces?: number;
}

export interface OnlineEvalOptions {
  readonly seed?: number;
  /** Traces per ingestion (default 50). */
  readonly batch?: number;
  readonly checkpoints?: readonly number[];
  /** Called with (replayed, total) as train is replayed. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** A workflow as a caller posts it (the compact trace format). */
function compact(w: WorkflowRecord): unknown {
  return { id: w.id, intent: w.intent, domain: w.domain, tools: w.tools, success: true };
}

export async function evaluateOnline(dataset: Dataset, options: OnlineEvalOptions = {}): Promise<OnlineResult[]> {
  const train = dataset.workflows.filter((w) => w.split === 'train');
  const test = dataset.workflows.filter((w) => w.split === 'test');
  const batch = options.batch ?? 50;
  const seed = options.seed ?? 42;
  const dir = mkdtempSync(join(tmpdir(), 'toolgraph-online-'));
  const results: OnlineResult[] = [];
  let service: DurableToolgraph | null = null;
  try {
    service = await openToolgraph({ dataDir: join(dir, 'store'), seed, autoFit: { minIntervalMs: 0, idleMs: ONLINE_QUIET_MS } });
    if (dataset.tools.length > 0) await service.setTools(dataset.tools);
    let done = 0;
    for (const share of options.checkpoints ?? ONLINE_CHECKPOINTS) {
      const upto = Math.min(train.length, Math.max(1, Math.round(share * train.length)));
      while (done < upto) {
        const next = train.slice(done, Math.min(done + batch, upto));
        await service.ingest(next.map(compact));
        done += next.length;
        options.onProgress?.(done, train.length);
      }
      await service.settled();
      const base = { task: 'online' as const, data: dataset.name, checkpoint: share, traces: done };
      results.push(...baselines(dataset, train.slice(0, done), test, seed).map((r) => ({ ...base, ...r })));
      results.push({ ...base, ...(await served(service, test)) });
    }
  } finally {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

type Figures = Omit<OnlineResult, 'task' | 'data' | 'checkpoint' | 'traces'>;

/** bm25, learned and markov2 trained on the prefix, as eval search and eval next build them. */
function baselines(dataset: Dataset, prefix: readonly WorkflowRecord[], test: readonly WorkflowRecord[], seed: number): Figures[] {
  const universe = buildUniverse(dataset.tools, prefix);
  const graph = new TransitionGraph();
  for (const name of universe.catalog.keys()) graph.addTool(name);
  for (const w of prefix) graph.ingest(workflowToTrace(w));
  const model = buildModel(graph, universe.catalog, PRIOR_WEIGHTS, { seed, embedding: hashedTextEmbedding() });
  const n = universe.names.length;
  const search = searchScorers(model, model);
  const out: Figures[] = [];
  for (const method of ['bm25', 'learned'] as const) {
    const scorer = search.get(method)!;
    const acc = new SearchAccumulator();
    for (const w of test) {
      if (w.intent === '' || w.tools.length === 0) continue;
      scorer.score(w.intent);
      const known = indicesOf(universe, w.tools).filter((c) => c >= 0);
      const gold = new Set<number>(known);
      const missing = new Set(w.tools).size - new Set(known).size;
      for (let i = 0; i < missing; i++) gold.add(-2 - i);
      const firstRank = known.length > 0 ? Math.min(...known.map((c) => rankOf(scorer.tiers, n, c))) : Infinity;
      acc.add(topIndices(scorer.tiers, n, 10), gold, firstRank);
    }
    const r = acc.result();
    out.push({ method, ...(r.n > 0 ? { searchN: r.n, searchHit1: r.hit1, searchRecall5: r.recall5 } : {}) });
  }
  const markov2 = nextScorers(universe, prefix, model, model).get('markov2')!;
  const next = new NextAccumulator();
  for (const w of test) {
    if (!w.ordered) continue;
    const ids = indicesOf(universe, w.tools);
    for (let i = 1; i < ids.length; i++) {
      markov2.score(ids.slice(0, i).filter((c) => c >= 0), w.intent);
      next.add(rankOf(markov2.tiers, n, ids[i]!));
    }
  }
  const r = next.result();
  out.push({ method: 'markov2', ...(r.n > 0 ? { nextN: r.n, nextHit1: r.hit1 } : {}) });
  return out;
}

/** The test requests asked of the service, as a caller of its faces would. */
async function served(service: DurableToolgraph, test: readonly WorkflowRecord[]): Promise<Figures> {
  let searchN = 0;
  let searchHit1 = 0;
  let recall5 = 0;
  let nextN = 0;
  let nextHit1 = 0;
  let dagN = 0;
  const nodes = new F1Counter();
  const edges = new F1Counter();
  for (const w of test) {
    if (w.intent !== '' && w.tools.length > 0) {
      const gold = new Set(w.tools);
      const items = (await service.searchTools({ query: w.intent, k: 5 })).items.map((i) => i.tool);
      searchN++;
      if (items.length > 0 && gold.has(items[0]!)) searchHit1++;
      recall5 += items.filter((t) => gold.has(t)).length / gold.size;
    }
    if (w.ordered) {
      for (let i = 1; i < w.tools.length; i++) {
        const answer = await service.predictNext({ context: w.tools.slice(0, i), ...(w.intent !== '' ? { intent: w.intent } : {}), k: 1 });
        nextN++;
        if (answer.items[0]?.tool === w.tools[i]) nextHit1++;
      }
    }
    if (w.tools.length >= 2 && w.intent !== '') {
      const dag = await service.suggestDag({ intent: w.intent, expandCapabilities: true });
      dagN++;
      const toolOf = new Map(dag.nodes.map((node) => [node.id, node.kind === 'tool' ? node.tool : node.tools.join('+')]));
      nodes.add(dag.nodes.flatMap((node) => (node.kind === 'tool' ? [node.tool] : node.tools)), w.tools);
      edges.add(dag.edges.map((e) => pairKey(toolOf.get(e.from)!, toolOf.get(e.to)!)), goldEdges(w));
    }
  }
  const fit = (await service.stats()).fit;
  return {
    method: 'toolgraph',
    ...(searchN > 0 ? { searchN, searchHit1: searchHit1 / searchN, searchRecall5: recall5 / searchN } : {}),
    ...(nextN > 0 ? { nextN, nextHit1: nextHit1 / nextN } : {}),
    ...(dagN > 0 ? { dagN, dagNodeF1: nodes.f1, dagEdgeF1: edges.f1 } : {}),
    fit: fit.state,
    fitTraces: fit.traces,
  };
}
