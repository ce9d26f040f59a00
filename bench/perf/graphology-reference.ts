/**
 * The learned graph as a graphology DirectedGraph, for the benchmarks' reference
 * implementations (graphology-metrics' PageRank, graphology-communities-louvain, an out-neighbour
 * sort): what one would write on graphology directly. Node keys are tool indices as strings (a
 * tool may be called `__proto__`), with the name and call count as attributes; edges carry the
 * transition's statistics.
 */
import { DirectedGraph } from 'graphology';
import type { TransitionGraph, TransitionStats } from '../../src/graph/transition-graph.js';

export function toGraphology(graph: TransitionGraph): DirectedGraph<{ name: string }, TransitionStats> {
  const g = new DirectedGraph<{ name: string }, TransitionStats>({ allowSelfLoops: true });
  for (let i = 0; i < graph.toolCount; i++) g.addNode(String(i), { name: graph.names[i]! });
  graph.forEachTransition((a, b, stats) => {
    g.addDirectedEdge(String(a), String(b), { ...stats });
  });
  return g;
}
