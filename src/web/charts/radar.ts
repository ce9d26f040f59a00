/**
 * Spec 004's confidence radar: one axis per dimension (frequency, effectiveness, human), each
 * from 0 at the centre to 1 at the rim, the pattern's values joined as a polygon. Drawn by hand
 * in SVG: three axes and a polygon are a few lines, where a charting library would be most of
 * the page's weight (docs/dashboard.md).
 */
import { num, s } from '../dom.js';

export interface RadarAxis {
  readonly label: string;
  readonly value: number;
}

// Wider than tall: the labels of the lower axes stand out to the sides.
const W = 340;
const H = 230;
const R = 80;
const CX = W / 2;
const CY = 115;

function point(i: number, n: number, radius: number): [number, number] {
  const angle = -Math.PI / 2 + (2 * Math.PI * i) / n;
  return [CX + radius * Math.cos(angle), CY + radius * Math.sin(angle)];
}

const clamp = (v: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

export function radarChart(axes: readonly RadarAxis[], title: string): SVGSVGElement {
  const n = axes.length;
  const described = axes.map((a) => `${a.label} ${num(a.value, 2)}`).join(', ');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'radar', role: 'img', 'aria-label': `${title}: ${described}` }, s('title', {}, `${title}: ${described}`));
  for (const ring of [0.25, 0.5, 0.75, 1]) {
    const pts = axes.map((_a, i) => point(i, n, R * ring).join(',')).join(' ');
    svg.append(s('polygon', { points: pts, class: 'radar-ring' }));
  }
  axes.forEach((a, i) => {
    const [x, y] = point(i, n, R);
    svg.append(s('line', { x1: CX, y1: CY, x2: x, y2: y, class: 'radar-axis' }));
    const [lx, ly] = point(i, n, R + 16);
    svg.append(s('text', { x: lx, y: ly, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'radar-label' }, `${a.label} ${num(a.value, 2)}`));
  });
  const values = axes.map((a, i) => point(i, n, R * clamp(a.value)).map((c) => c.toFixed(2)).join(","));
  svg.append(s('polygon', { points: values.join(' '), class: 'radar-value', 'data-values': axes.map((a) => a.value).join(',') }));
  return svg;
}
