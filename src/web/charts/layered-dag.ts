/**
 * A suggested workflow drawn by its layers: layer i is column i (its steps can run in parallel),
 * each step a box with its tool and confidence, each dependency an arrow from its step to the
 * later one. SVG by hand; a text list of the layers follows it for screen readers.
 */
import { h, num, s } from '../dom.js';
import type { Dag } from '../api.js';

const BOX_W = 180;
const BOX_H = 40;
const GAP_X = 60;
const GAP_Y = 16;

export function layeredDag(dag: Dag): HTMLElement {
  const byId = new Map(dag.nodes.map((n) => [n.id, n]));
  const label = (id: string): string => {
    const n = byId.get(id);
    return n?.tool ?? n?.capability ?? id;
  };
  const at = new Map<string, { x: number; y: number }>();
  const rows = Math.max(1, ...dag.layers.map((l) => l.length));
  dag.layers.forEach((layer, i) => layer.forEach((id, j) => at.set(id, { x: 10 + i * (BOX_W + GAP_X), y: 10 + j * (BOX_H + GAP_Y) })));
  const width = 20 + dag.layers.length * (BOX_W + GAP_X) - GAP_X;
  const height = 20 + rows * (BOX_H + GAP_Y) - GAP_Y;
  const svg = s('svg', { viewBox: `0 0 ${Math.max(width, 200)} ${height}`, class: 'dag', role: 'img', 'aria-label': `workflow of ${dag.nodes.length} steps in ${dag.layers.length} layers` });
  svg.append(s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' }, s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }))));
  for (const e of dag.edges) {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (a === undefined || b === undefined) continue;
    const x1 = a.x + BOX_W;
    const y1 = a.y + BOX_H / 2;
    const x2 = b.x;
    const y2 = b.y + BOX_H / 2;
    const mid = (x1 + x2) / 2;
    svg.append(s('path', { d: `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`, class: 'dag-edge', 'marker-end': 'url(#arrow)' }, s('title', {}, `${label(e.from)} → ${label(e.to)} (${num(e.confidence, 2)})`)));
  }
  for (const n of dag.nodes) {
    const p = at.get(n.id);
    if (p === undefined) continue;
    const name = label(n.id);
    const shown = name.length > 24 ? `${name.slice(0, 23)}…` : name;
    svg.append(
      s(
        'g',
        { class: 'dag-node', 'data-id': n.id },
        s('title', {}, `${n.id}: ${name}, confidence ${num(n.confidence, 3)}`),
        s('rect', { x: p.x, y: p.y, width: BOX_W, height: BOX_H, rx: 6, class: n.confidence >= 0.5 ? 'sure' : 'unsure' }),
        s('text', { x: p.x + 8, y: p.y + 16, class: 'dag-tool' }, shown),
        s('text', { x: p.x + 8, y: p.y + 32, class: 'dag-conf' }, `${n.kind === 'capability' ? 'capability · ' : ''}${num(n.confidence, 2)}`),
      ),
    );
  }
  const layers = h('ol', { class: 'dag-layers sr-only' }, ...dag.layers.map((layer, i) => h('li', {}, `layer ${i + 1}: ${layer.map(label).join(', ')}`)));
  return h('figure', { class: 'dag-figure' }, svg, layers);
}
