/**
 * The learned graph for other tools: plain JSON (tools with their signals, transitions with
 * their outcome statistics) and GraphML (yEd, Gephi, NetworkX, igraph read it).
 *
 * GraphML is XML 1.0, which cannot hold NUL, most other control characters or unpaired
 * surrogates: in GraphML those characters of a name become U+FFFD (the JSON export keeps every
 * name exactly). O(tools + transitions).
 */
import type { GraphSnapshot } from './snapshot.js';
import type { TransitionGraph } from './transition-graph.js';

export interface ExportedTool {
  readonly name: string;
  /** Calls in successful traces / in any trace. */
  readonly calls: number;
  readonly seen: number;
  readonly community: number;
  readonly pagerank: number;
}

export interface ExportedTransition {
  readonly from: string;
  readonly to: string;
  readonly count: number;
  readonly success: number;
  readonly failure: number;
  readonly evidence: number;
  readonly lastSeen: number;
}

export interface ExportedGraph {
  readonly version: number;
  readonly traces: number;
  readonly communities: number;
  readonly tools: readonly ExportedTool[];
  readonly transitions: readonly ExportedTransition[];
}

/** The graph with the signals of a snapshot built from it (same version). */
export function exportGraph(graph: TransitionGraph, snapshot: GraphSnapshot): ExportedGraph {
  if (snapshot.version !== graph.version) throw new RangeError('exportGraph: the snapshot was built from another version of the graph');
  const tools: ExportedTool[] = graph.names.map((name, i) => ({
    name,
    calls: graph.tool(i).calls,
    seen: graph.tool(i).seen,
    community: snapshot.communities[i]!,
    pagerank: snapshot.pagerank[i]!,
  }));
  const transitions: ExportedTransition[] = [];
  graph.forEachTransition((a, b, s) => {
    transitions.push({ from: graph.names[a]!, to: graph.names[b]!, count: s.count, success: s.success, failure: s.failure, evidence: s.evidence, lastSeen: s.lastSeen });
  });
  return { version: graph.version, traces: graph.traces, communities: snapshot.communityCount, tools, transitions };
}

// Characters XML 1.0 allows: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function xml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** GraphML of an exported graph: node ids n0.., the name as a data attribute. */
export function toGraphml(g: ExportedGraph): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    '  <key id="name" for="node" attr.name="name" attr.type="string"/>',
    '  <key id="calls" for="node" attr.name="calls" attr.type="double"/>',
    '  <key id="seen" for="node" attr.name="seen" attr.type="double"/>',
    '  <key id="community" for="node" attr.name="community" attr.type="int"/>',
    '  <key id="pagerank" for="node" attr.name="pagerank" attr.type="double"/>',
    '  <key id="count" for="edge" attr.name="count" attr.type="double"/>',
    '  <key id="success" for="edge" attr.name="success" attr.type="double"/>',
    '  <key id="failure" for="edge" attr.name="failure" attr.type="double"/>',
    '  <key id="evidence" for="edge" attr.name="evidence" attr.type="double"/>',
    '  <key id="lastSeen" for="edge" attr.name="lastSeen" attr.type="double"/>',
    '  <graph id="toolgraph" edgedefault="directed">',
  ];
  const index = new Map<string, number>();
  g.tools.forEach((t, i) => {
    index.set(t.name, i);
    out.push(
      `    <node id="n${i}"><data key="name">${xml(t.name)}</data><data key="calls">${t.calls}</data><data key="seen">${t.seen}</data>` +
        `<data key="community">${t.community}</data><data key="pagerank">${t.pagerank}</data></node>`,
    );
  });
  g.transitions.forEach((e, i) => {
    out.push(
      `    <edge id="e${i}" source="n${index.get(e.from)}" target="n${index.get(e.to)}"><data key="count">${e.count}</data>` +
        `<data key="success">${e.success}</data><data key="failure">${e.failure}</data><data key="evidence">${e.evidence}</data>` +
        `<data key="lastSeen">${e.lastSeen}</data></edge>`,
    );
  });
  out.push('  </graph>', '</graphml>', '');
  return out.join('\n');
}
