/**
 * The learned graph as people look at it (the dashboard's graph view), read from one recommender
 * model so every figure is of the same snapshot:
 *
 *   nodes  each tool's Louvain community, spectral co-cluster (the capability model's stable
 *          label, -1 for a tool in no capability), PageRank and successful calls
 *   edges  the `top` most observed transitions (strongest-edges.ts), each with its observations,
 *          P(to | from) over successful transitions (the `transition` signal) and the mean of its
 *          reliability posterior (edge-reliability.ts)
 *
 * A large graph sends its strongest edges and the tools they join; when every edge fits, every
 * tool is sent, the ones no trace joined to another included. `toolNeighbours` lists one tool's
 * successors and predecessors with the same figures and each transition's pattern confidence
 * (spec 004), most observed first. Cost: O(m log top) for the graph, O(m) for a neighbourhood
 * (predecessors are found by one pass over the edges), plus one pattern view per listed edge.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import { strongestEdges } from '../graph/strongest-edges.js';
import type { RecommenderModel } from '../recommend/model.js';
import { ToolgraphError } from '../schema/errors.js';
import type { PatternView } from './pattern-view.js';

export interface GraphNode {
  readonly name: string;
  readonly community: number;
  readonly cluster: number;
  readonly pagerank: number;
  readonly calls: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly count: number;
  readonly probability: number;
  readonly reliability: number;
}

export interface GraphView {
  readonly version: number;
  readonly tools: number;
  readonly transitions: number;
  readonly communities: number;
  readonly clusters: number;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

export interface Neighbour extends GraphEdge {
  readonly pattern: { readonly id: string; readonly composite: number; readonly tier: string };
}

export interface ToolNeighbours {
  readonly tool: GraphNode;
  readonly successors: readonly Neighbour[];
  readonly predecessors: readonly Neighbour[];
  readonly successorCount: number;
  readonly predecessorCount: number;
}

function sourcesOf(g: GraphSnapshot): Int32Array {
  const sources = new Int32Array(g.out.targets.length);
  for (let u = 0; u < g.n; u++) sources.fill(u, g.out.offsets[u]!, g.out.offsets[u + 1]!);
  return sources;
}

function nodeOf(model: RecommenderModel, i: number): GraphNode {
  const g = model.graph;
  const clusters = model.capabilities?.toolClusters;
  return {
    name: g.names[i]!,
    community: g.communities[i]!,
    cluster: clusters !== undefined && i < clusters.length ? clusters[i]! : -1,
    pagerank: g.pagerank[i]!,
    calls: g.calls[i]!,
  };
}

function edgeOf(g: GraphSnapshot, u: number, j: number): GraphEdge {
  const total = g.outTotal[u]!;
  return {
    from: g.names[u]!,
    to: g.names[g.out.targets[j]!]!,
    count: g.outCounts[j]!,
    probability: total > 0 ? g.out.weights[j]! / total : 0,
    reliability: g.reliability.mean[j]!,
  };
}

/** The `top` most observed transitions of the model and the tools they join. */
export function graphView(model: RecommenderModel, top: number): GraphView {
  const g = model.graph;
  const sources = sourcesOf(g);
  const kept = strongestEdges(g.outCounts, top);
  const edges: GraphEdge[] = new Array(kept.length);
  const shown = new Uint8Array(g.n);
  for (let e = 0; e < kept.length; e++) {
    const j = kept[e]!;
    const u = sources[j]!;
    edges[e] = edgeOf(g, u, j);
    shown[u] = 1;
    shown[g.out.targets[j]!] = 1;
  }
  const everyEdge = kept.length === g.out.targets.length;
  const nodes: GraphNode[] = [];
  for (let i = 0; i < g.n; i++) if (everyEdge || shown[i] === 1) nodes.push(nodeOf(model, i));
  return {
    version: g.version,
    tools: g.n,
    transitions: g.out.targets.length,
    communities: g.communityCount,
    clusters: model.capabilities?.k ?? 0,
    nodes,
    edges,
  };
}

/**
 * A tool's successors and predecessors (at most `limit` of each, most observed first, ties in
 * tool order), each with its pattern's confidence as `patternOf` reports it. UNKNOWN_TOOL for a
 * tool the model does not have.
 */
export function toolNeighbours(model: RecommenderModel, name: string, limit: number, patternOf: (tools: readonly string[]) => PatternView): ToolNeighbours {
  const g = model.graph;
  const t = g.indexByName.get(name);
  if (t === undefined) throw new ToolgraphError('UNKNOWN_TOOL', `graph tool: no tool named ${JSON.stringify(name.slice(0, 200))} in the graph`);
  const out: { u: number; j: number }[] = [];
  for (let j = g.out.offsets[t]!; j < g.out.offsets[t + 1]!; j++) out.push({ u: t, j });
  const into: { u: number; j: number }[] = [];
  for (let u = 0; u < g.n; u++) {
    for (let j = g.out.offsets[u]!; j < g.out.offsets[u + 1]!; j++) if (g.out.targets[j] === t) into.push({ u, j });
  }
  const strongest = (list: { u: number; j: number }[]): Neighbour[] =>
    list
      .sort((x, y) => g.outCounts[y.j]! - g.outCounts[x.j]! || x.u - y.u || g.out.targets[x.j]! - g.out.targets[y.j]!)
      .slice(0, limit)
      .map(({ u, j }) => {
        const edge = edgeOf(g, u, j);
        const pattern = patternOf([edge.from, edge.to]);
        return { ...edge, pattern: { id: pattern.id, composite: pattern.confidence.composite, tier: pattern.confidence.tier } };
      });
  return { tool: nodeOf(model, t), successors: strongest(out), predecessors: strongest(into), successorCount: out.length, predecessorCount: into.length };
}
