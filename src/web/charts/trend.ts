/**
 * A trend over time: points (time, value) joined by a line, with the first and last times and the
 * value range on the axes. SVG by hand, as the radar. Reads any series: the pattern view gives
 * it the stored confidence history when the server has one, else the pattern's verdicts
 * (docs/dashboard.md says which it shows).
 */
import { num, s, time } from '../dom.js';

export interface TrendPoint {
  readonly at: number;
  readonly value: number;
}

const W = 360;
const H = 160;
const PAD = { left: 40, right: 12, top: 12, bottom: 28 };

export function trendChart(points: readonly TrendPoint[], options: { readonly title: string; readonly yLabel: string; readonly min?: number; readonly max?: number }): SVGSVGElement {
  const sorted = [...points].sort((a, b) => a.at - b.at);
  const values = sorted.map((p) => p.value);
  const least = Math.min(options.min ?? Infinity, ...values);
  const lo = Number.isFinite(least) ? least : 0;
  const most = Math.max(options.max ?? -Infinity, ...values);
  const hi = Number.isFinite(most) && most > lo ? most : lo + 1;
  const span = hi - lo || 1;
  const t0 = sorted[0]?.at ?? 0;
  const t1 = sorted[sorted.length - 1]?.at ?? 1;
  const x = (t: number): number => PAD.left + (t1 === t0 ? (W - PAD.left - PAD.right) / 2 : ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right));
  const y = (v: number): number => H - PAD.bottom - ((v - lo) / span) * (H - PAD.top - PAD.bottom);
  const last = sorted[sorted.length - 1];
  const summary = last === undefined ? `${options.title}: no points yet` : `${options.title}: ${sorted.length} points, from ${num(sorted[0]!.value, 2)} to ${num(last.value, 2)} (${options.yLabel})`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'trend', role: 'img', 'aria-label': summary }, s('title', {}, summary));
  svg.append(
    s('line', { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: 'axis' }),
    s('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: 'axis' }),
    s('text', { x: PAD.left - 4, y: y(hi), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, num(hi, 2)),
    s('text', { x: PAD.left - 4, y: y(lo), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, num(lo, 2)),
  );
  if (sorted.length === 0) return svg;
  svg.append(
    s('text', { x: PAD.left, y: H - 8, class: 'tick' }, time(t0).slice(0, 10)),
    s('text', { x: W - PAD.right, y: H - 8, 'text-anchor': 'end', class: 'tick' }, time(t1).slice(0, 10)),
    s('polyline', { points: sorted.map((p) => `${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' '), class: 'trend-line' }),
  );
  for (const p of sorted) svg.append(s('circle', { cx: x(p.at).toFixed(1), cy: y(p.value).toFixed(1), r: 3, class: 'trend-point' }, s('title', {}, `${time(p.at)}: ${num(p.value, 3)}`)));
  return svg;
}
