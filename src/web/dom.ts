/**
 * A few DOM helpers instead of a framework: the views are forms, lists, tables and SVG charts
 * redrawn whole when their data changes, which `h` and `replace` say in a line each.
 */

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An element: `on*` props are listeners, `true` is an empty attribute, null/false/undefined none. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, '');
    else if (value !== null && value !== undefined && value !== false) el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element, attributes as `h`'s. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number | null | undefined> = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  append(el, children);
  return el;
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces the children of `el`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A number for people: up to `digits` decimals, no trailing zeros. */
export function num(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  return Number(value.toFixed(digits)).toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function percent(value: number): string {
  return `${num(value * 100, 1)}%`;
}

/** A time for people, from epoch ms or an ISO string. */
export function time(value: number | string): string {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** The message of an error for a person (the API's message, or the error's). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A region that says `text` to screen readers and sighted users alike (role=alert for errors). */
export function notice(text: string, kind: 'error' | 'info' = 'info'): HTMLElement {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
