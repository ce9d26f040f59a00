/**
 * The graph layer: the learned transitions as a graphology graph drawn by sigma.js (WebGL).
 *
 *   nodes  sized by PageRank (3 + 15 sqrt(pr / max pr) pixels), coloured by Louvain community or
 *          spectral co-cluster (a hue per id by the golden angle; grey for a tool in no cluster)
 *   edges  width by P(to | from) (0.5 + 4 p), shade by reliability: dark for a reliable edge,
 *          pale red below 0.5
 *
 * Layout: circle packing by community first (O(n), seeded), so the first drawing never waits for
 * a force layout; then ForceAtlas2, run at once for up to SYNC_LAYOUT_NODES tools (a sample-sized
 * graph settles in milliseconds), else in a web worker for LAYOUT_MS after the first drawing
 * while sigma redraws.
 */
import Graph from 'graphology';
import circlepack from 'graphology-layout/circlepack';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import Sigma from 'sigma';
import type { GraphData } from './api.js';

export type ColourBy = 'community' | 'cluster';

const SYNC_LAYOUT_NODES = 1_000;
const SYNC_ITERATIONS = 120;
const LAYOUT_MS = 4_000;
const DIMMED = '#e2e4e8';

/** Seeded uniform [0, 1) (mulberry32): the same data lays out the same way on every load. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => Math.round(Math.min(255, Math.max(0, c))).toString(16).padStart(2, '0')).join('')}`;
}

/** A distinct colour per cluster id (golden-angle hues), grey for -1. */
export function colourOf(id: number): string {
  if (id < 0) return '#9aa0a6';
  const h = ((id * 137.508) % 360) / 60;
  const sat = 0.65;
  const light = 0.45;
  const c = (1 - Math.abs(2 * light - 1)) * sat;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const m = light - c / 2;
  const [r, g, b] = h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  return hex((r + m) * 255, (g + m) * 255, (b + m) * 255);
}

/** Dark slate for reliability 1, paler towards 0.5, pale red below it. */
export function edgeShade(reliability: number): string {
  const r = Number.isFinite(reliability) ? Math.min(1, Math.max(0, reliability)) : 0;
  if (r < 0.5) return hex(232, 150 + 100 * r, 150 + 100 * r);
  const g = 210 - (r - 0.5) * 2 * 150;
  return hex(g, g + 4, g + 12);
}

export interface GraphLayer {
  readonly graph: Graph;
  readonly sigma: Sigma;
  /** performance.now() at the first frame after sigma's first drawing. */
  readonly firstDraw: Promise<number>;
  colourBy(mode: ColourBy): void;
  /** Shows `name` and its neighbours, the rest dimmed; null shows everything. */
  focus(name: string | null): void;
  onSelect(listener: (name: string) => void): void;
  /** Tool names containing `text` (case-insensitive), exact match first. */
  matches(text: string, limit: number): string[];
  /** Pixels drawn on sigma's edge and node canvases, counted after a fresh drawing. */
  pixels(): { readonly edges: number; readonly nodes: number };
  layoutRunning(): boolean;
  setLayout(running: boolean): void;
  kill(): void;
}

export function createGraphLayer(container: HTMLElement, data: GraphData, mode: ColourBy): GraphLayer {
  const graph = new Graph({ type: 'directed', multi: false, allowSelfLoops: true });
  let maxRank = 0;
  for (const n of data.nodes) maxRank = Math.max(maxRank, n.pagerank);
  for (const n of data.nodes) {
    graph.addNode(n.name, {
      label: n.name,
      size: 3 + 15 * Math.sqrt(maxRank > 0 ? n.pagerank / maxRank : 0),
      community: n.community,
      cluster: n.cluster,
      color: colourOf(mode === 'community' ? n.community : n.cluster),
      x: 0,
      y: 0,
    });
  }
  for (const e of data.edges) {
    if (!graph.hasNode(e.from) || !graph.hasNode(e.to)) continue;
    graph.addDirectedEdge(e.from, e.to, { size: 0.5 + 4 * e.probability, color: edgeShade(e.reliability), weight: Math.max(e.probability, 0.01) });
  }
  circlepack.assign(graph, { hierarchyAttributes: ['community'], rng: seeded(42), scale: 100 });
  // Wide spacing and no overlap: a trace graph is many small chains, which the default settings
  // fold onto themselves.
  const layoutSettings = { ...forceAtlas2.inferSettings(graph), scalingRatio: 20, gravity: 0.5, adjustSizes: true, barnesHutOptimize: graph.order > 300 };
  if (graph.order > 1 && graph.order <= SYNC_LAYOUT_NODES) {
    forceAtlas2.assign(graph, { iterations: SYNC_ITERATIONS, settings: layoutSettings, getEdgeWeight: 'weight' });
  }

  let focused: string | null = null;
  let neighbours = new Set<string>();
  const sigma = new Sigma(graph, container, {
    defaultEdgeType: 'arrow',
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    zIndex: true,
    hideEdgesOnMove: graph.size > 20_000,
    // The panel may be hidden while the graph loads: sigma then draws at its size when shown.
    allowInvalidContainer: true,
    nodeReducer: (node, attrs) => {
      if (focused === null) return attrs;
      if (node === focused) return { ...attrs, highlighted: true, zIndex: 2 };
      if (neighbours.has(node)) return { ...attrs, zIndex: 1, forceLabel: true };
      return { ...attrs, color: DIMMED, label: '', zIndex: 0 };
    },
    edgeReducer: (edge, attrs) => {
      if (focused === null) return attrs;
      const [a, b] = graph.extremities(edge);
      return a === focused || b === focused ? { ...attrs, zIndex: 1 } : { ...attrs, hidden: true };
    },
  });
  // Sigma draws once, synchronously, as it is made; the frame after it puts that on the screen.
  const firstDraw = new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now())));

  let worker: FA2Layout | null = null;
  let stopTimer: number | undefined;
  const setLayout = (running: boolean): void => {
    if (running) {
      worker ??= new FA2Layout(graph, { settings: layoutSettings, getEdgeWeight: 'weight' });
      worker.start();
      clearTimeout(stopTimer);
      stopTimer = window.setTimeout(() => worker?.stop(), LAYOUT_MS);
    } else {
      clearTimeout(stopTimer);
      worker?.stop();
    }
  };
  if (graph.order > SYNC_LAYOUT_NODES) void firstDraw.then(() => setLayout(true));

  const listeners: ((name: string) => void)[] = [];
  sigma.on('clickNode', ({ node }) => {
    for (const l of listeners) l(node);
  });

  const count = (): { edges: number; nodes: number } => {
    const canvases = sigma.getCanvases();
    const scratch = document.createElement('canvas');
    const result = { edges: 0, nodes: 0 };
    for (const key of ['edges', 'nodes'] as const) {
      const source = canvases[key];
      if (source === undefined || source.width === 0 || source.height === 0) continue;
      scratch.width = source.width;
      scratch.height = source.height;
      const ctx = scratch.getContext('2d', { willReadFrequently: true })!;
      ctx.clearRect(0, 0, scratch.width, scratch.height);
      ctx.drawImage(source, 0, 0);
      const pixels = ctx.getImageData(0, 0, scratch.width, scratch.height).data;
      let drawn = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) drawn++;
      result[key] = drawn;
    }
    return result;
  };

  return {
    graph,
    sigma,
    firstDraw,
    colourBy(next) {
      graph.forEachNode((node, attrs) => graph.setNodeAttribute(node, 'color', colourOf(next === 'community' ? (attrs['community'] as number) : (attrs['cluster'] as number))));
    },
    focus(name) {
      focused = name !== null && graph.hasNode(name) ? name : null;
      neighbours = focused === null ? new Set() : new Set(graph.neighbors(focused));
      sigma.refresh();
      if (focused !== null) {
        const display = sigma.getNodeDisplayData(focused);
        if (display !== undefined) void sigma.getCamera().animate({ x: display.x, y: display.y, ratio: Math.min(sigma.getCamera().ratio, 0.6) }, { duration: 300 });
      }
    },
    onSelect(listener) {
      listeners.push(listener);
    },
    matches(text, limit) {
      const q = text.trim().toLowerCase();
      if (q === '') return [];
      const exact: string[] = [];
      const partial: string[] = [];
      graph.forEachNode((node) => {
        const lower = node.toLowerCase();
        if (lower === q) exact.push(node);
        else if (partial.length < limit && lower.includes(q)) partial.push(node);
      });
      return [...exact, ...partial].slice(0, limit);
    },
    pixels() {
      // WebGL canvases keep their drawing only until it is shown: read them right after a drawing.
      let drawn = { edges: 0, nodes: 0 };
      sigma.once('afterRender', () => {
        drawn = count();
      });
      sigma.refresh();
      return drawn;
    },
    layoutRunning: () => worker?.isRunning() ?? false,
    setLayout,
    kill() {
      clearTimeout(stopTimer);
      worker?.kill();
      sigma.kill();
    },
  };
}
