/**
 * An answer's per-signal breakdown as bars: one row per signal with its value, the bar's length
 * its value on [0, 1] (the signals are normalised to it before they are combined). Signals at 0
 * are left out and counted, so the bars show what moved the item.
 */
import { h, num } from '../dom.js';

export function signalBars(signals: Readonly<Record<string, number>>): HTMLElement {
  const entries = Object.entries(signals).filter(([, v]) => v !== 0);
  const zero = Object.keys(signals).length - entries.length;
  const list = h('ul', { class: 'signals', 'aria-label': 'signals' });
  for (const [name, value] of entries) {
    const fill = h('span', { class: 'fill' });
    fill.style.width = `${(Math.min(1, Math.max(0, value)) * 100).toFixed(1)}%`;
    list.append(h('li', { class: 'signal' }, h('span', { class: 'name' }, name), h('span', { class: 'bar', role: 'img', 'aria-label': `${name} ${num(value, 3)}` }, fill), h('span', { class: 'value' }, num(value, 3))));
  }
  if (zero > 0) list.append(h('li', { class: 'signal zero' }, `${zero} signal${zero === 1 ? '' : 's'} at 0`));
  return list;
}
