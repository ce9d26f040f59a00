/**
 * Bench cases `search` and `dag`: searchTools and suggestDag at 10,000 tools with the built-in
 * embedder, query embedding included (every query is a distinct text, so no vector is reused).
 *
 * The catalogue is synthetic but shaped like a real one: the planted graph's communities are
 * topics, each with its own words; a tool's description is two topic words and three words of
 * its own; workflows are walks on the planted graph, and their intents name the tools' own
 * words with topic words mixed in. Queries are the intents of held-out walks. Hit@1 and the
 * DAG's node-F1 are reported beside the latency so that speed is never bought with quality.
 * Search is also timed after each walk's first tool, with the default and the seed profile.
 */
import { createRng } from '../../src/graph/rng.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { suggestDag } from '../../src/recommend/dag/suggest-dag.js';
import { buildModel, EXPERT_WEIGHTS, type RecommenderModel } from '../../src/recommend/model.js';
import type { Profile } from '../../src/recommend/predict-next.js';
import { fitNoMatch } from '../../src/recommend/no-match.js';
import { searchEvidence, searchTools } from '../../src/recommend/search-tools.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { hashedTextEmbedding } from '../../src/text/text-embedding.js';
import { plantedGraph, syntheticTraces } from '../synthetic.js';

export interface QueryBenchOptions {
  readonly tools: number;
  readonly edges: number;
  readonly seed: number;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'vo', 'ri', 'pe', 'zu', 'ga', 'hi', 'do', 'fe', 'by', 'ch'];

/** A pronounceable made-up word for a number: distinct numbers, distinct words. */
function word(n: number, prefix: string): string {
  let s = prefix;
  do {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return s;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function round(x: number, digits = 4): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

export interface World {
  readonly catalog: Map<string, ToolInfo>;
  readonly train: Trace[];
  readonly held: Trace[];
}

export function world(options: QueryBenchOptions): World {
  const planted = plantedGraph({ tools: options.tools, edges: options.edges, seed: options.seed });
  const rng = createRng(options.seed + 7);
  const own = (t: number, k: number) => word(t * 3 + k, 'x');
  const topic = (c: number, k: number) => word(c * 8 + k, 'q');
  const catalog = new Map<string, ToolInfo>();
  for (let t = 0; t < planted.n; t++) {
    const c = planted.community[t]!;
    const description = [topic(c, t % 8), topic(c, (t + 3) % 8), own(t, 0), own(t, 1), own(t, 2)].join(' ');
    catalog.set(`tool_${t}`, { name: `tool_${t}`, description, params: [] });
  }
  const walks = syntheticTraces(planted, 20_000, options.seed + 1);
  const traces: Trace[] = walks.map((tools, i) => {
    const words: string[] = [];
    for (const name of tools) {
      const t = Number(name.slice(5));
      words.push(own(t, Math.floor(rng() * 3)), topic(planted.community[t]!, Math.floor(rng() * 8)));
    }
    return { id: `w${i}`, intent: `please ${words.join(' ')} now`, domain: '', steps: tools.map((tool) => ({ tool, ok: true })), success: true, timestamp: 0 };
  });
  return { catalog, train: traces.filter((_, i) => i % 10 !== 0), held: traces.filter((_, i) => i % 10 === 0) };
}

export function queryBench(which: 'search' | 'dag', options: QueryBenchOptions): Record<string, unknown> {
  const { catalog, train, held } = world(options);
  const graph = new TransitionGraph();
  for (const name of catalog.keys()) graph.addTool(name);
  for (const t of train) graph.ingest(t);
  const embedding = hashedTextEmbedding();
  // The full ranker (the product of experts a fit starts from), not the simple rules a store
  // answers with before its first fit: the bench times and scores what serves after a fit.
  const model = buildModel(graph, catalog, EXPERT_WEIGHTS, { seed: options.seed, embedding });
  const queries = held.map((t) => ({ intent: t.intent, tools: t.steps.map((s) => s.tool) }));
  // Warm-up on other texts (a suffix makes each one new to the query-vector window).
  for (let i = 0; i < Math.min(500, queries.length); i++) {
    if (which === 'search') searchTools(model, { query: `${queries[i]!.intent} warm`, context: [], k: 5 });
    else suggestDag(model, { intent: `${queries[i]!.intent} warm`, expandCapabilities: true });
  }
  const known = measure(which, model, queries);
  // The same requests with one of the tools' own words misspelt: a word nothing has seen, which
  // only the embedding can relate to the tool (and which makes search look for its neighbours).
  const misspelt = measure(
    which,
    model,
    queries.map((q) => ({ ...q, intent: q.intent.replace(/\bx(\w)(\w)/, 'x$2$1') })),
  );
  // DAG only: the same requests with each step's two words as a clause of its own ("please a b,
  // then c d, then e f now"), so suggestDag searches every clause too (suggest-dag.ts, clausePicks).
  const clauses = which === 'dag' ? { clauses: measure(which, model, queries.map((q) => ({ ...q, intent: clauseForm(q.intent) }))) } : {};
  // Search only: the same requests after the walk's first tool, target the steps after it, with
  // the fitted default and with the seed profile (spec 003 section 1, adaptive alpha), which
  // scores every tool.
  const afterFirst = queries.filter((q) => q.tools.length > 1).map((q) => ({ intent: q.intent, tools: q.tools.slice(1), context: q.tools.slice(0, 1) }));
  // Search only: the same requests under a fitted no-match rule (no-match.ts), which also
  // measures each request's similarity to the nearest recorded one (query-coverage.ts,
  // intentSimilarity); calibrated on the requests' own readings, as a fit would on held-out ones.
  const noMatch = which === 'search' ? fitNoMatch(queries.map((q) => searchEvidence(model, q.intent))) : null;
  const calibrated: RecommenderModel = { ...model, weights: { ...model.weights, ...(noMatch !== null ? { noMatch } : {}) } };
  const context =
    which === 'search'
      ? {
          withContext: measure(which, model, afterFirst),
          seedWithContext: measure(which, model, afterFirst, 'seed'),
          withNoMatchRule: measure(which, calibrated, queries),
        }
      : {};
  return {
    case: which,
    tools: model.graph.n,
    edges: model.graph.edgeCount,
    traces: train.length,
    queries: queries.length,
    embedder: embedding.name,
    ...known,
    misspelt,
    ...clauses,
    ...context,
  };
}

/** `please a b c d now` as `please a b, then c d now`: one clause per step's pair of words. */
function clauseForm(intent: string): string {
  const words = intent.split(' ');
  const inner = words.slice(1, -1);
  const parts: string[] = [];
  for (let i = 0; i < inner.length; i += 2) parts.push(inner.slice(i, i + 2).join(' '));
  return `${words[0]} ${parts.join(', then ')} ${words[words.length - 1]}`;
}

interface Query {
  readonly intent: string;
  readonly tools: readonly string[];
  /** Tools called before the request (search only). */
  readonly context?: readonly string[];
}

/** Latency percentiles and quality (search Hit@1, DAG node-F1) over the queries, in order. */
function measure(which: 'search' | 'dag', model: RecommenderModel, queries: readonly Query[], profile: Profile = 'default'): Record<string, number> {
  const latency = new Float64Array(queries.length);
  let hits = 0;
  let tp = 0;
  let predicted = 0;
  let gold = 0;
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const t0 = performance.now();
    if (which === 'search') {
      const result = searchTools(model, { query: q.intent, context: q.context ?? [], k: 5, profile });
      latency[i] = performance.now() - t0;
      if (result.items[0] !== undefined && q.tools.includes(result.items[0].tool)) hits++;
    } else {
      const dag = suggestDag(model, { intent: q.intent, expandCapabilities: true });
      latency[i] = performance.now() - t0;
      const left = new Map<string, number>();
      for (const t of q.tools) left.set(t, (left.get(t) ?? 0) + 1);
      for (const n of dag.nodes) {
        if (n.kind !== 'tool') continue;
        const k = left.get(n.tool) ?? 0;
        if (k > 0) {
          tp++;
          left.set(n.tool, k - 1);
        }
      }
      predicted += dag.nodes.length;
      gold += q.tools.length;
    }
  }
  latency.sort();
  const quality: Record<string, number> =
    which === 'search'
      ? { hit1: round(hits / queries.length, 3) }
      : { nodeF1: round(predicted + gold > 0 ? (2 * tp) / (predicted + gold) : 0, 3) };
  return { p50Ms: round(percentile(latency, 0.5)), p99Ms: round(percentile(latency, 0.99)), ...quality };
}
