/**
 * The dashboard's shell: five views as tabs (the WAI-ARIA tabs pattern: arrow keys, Home and End
 * move between them, each tab controls its panel), the address saying which is shown
 * (`#graph`, `#patterns/<id>`), the token field for writes, and the test hook
 * (`window.__toolgraph`) through which a browser test reads what a canvas cannot tell the DOM.
 */
import { setToken, token } from './api.js';
import { h } from './dom.js';
import type { App, TestHook, View } from './view.js';
import { askView } from './views/ask-view.js';
import { graphView } from './views/graph-view.js';
import { healthView } from './views/health-view.js';
import { patternsView } from './views/patterns-view.js';
import { sessionsView } from './views/sessions-view.js';

declare global {
  interface Window {
    __toolgraph: TestHook;
  }
}

const views: readonly View[] = [graphView(), askView(), patternsView(), sessionsView(), healthView()];
const hook: TestHook = { view: '', graph: { order: 0, size: 0, firstDrawMs: null, layer: null } };
window.__toolgraph = hook;

let names: readonly string[] = [];
let current: View | null = null;
const tabs = new Map<string, HTMLButtonElement>();
const panels = new Map<string, HTMLElement>();

const app: App = {
  toolNames: () => names,
  setToolNames(next) {
    names = next;
  },
  go(id, arg) {
    const address = `#${id}${arg !== undefined ? `/${encodeURIComponent(arg)}` : ''}`;
    // Shown at once (a key press shows its view before the next key is read), and kept in the
    // address and the history: pushState fires no hashchange; going back and forth does.
    if (location.hash !== address) history.pushState(null, '', address);
    route();
  },
  hook,
};

function route(): void {
  const [id, ...rest] = location.hash.slice(1).split('/');
  const view = views.find((v) => v.id === id) ?? views[0]!;
  const arg = rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined;
  if (current !== view) {
    current?.hide();
    for (const v of views) {
      const selected = v === view;
      tabs.get(v.id)!.setAttribute('aria-selected', String(selected));
      tabs.get(v.id)!.tabIndex = selected ? 0 : -1;
      panels.get(v.id)!.hidden = !selected;
    }
    current = view;
    hook.view = view.id;
    document.title = `${view.title} · toolgraph`;
  }
  view.show(arg);
}

function onTabKey(event: KeyboardEvent): void {
  const order = views.map((v) => v.id);
  const at = order.indexOf(current?.id ?? order[0]!);
  const next: Record<string, number> = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: order.length - 1 };
  const to = next[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const id = order[(to + order.length) % order.length]!;
  app.go(id);
  tabs.get(id)!.focus();
}

function start(): void {
  const tablist = document.getElementById('tabs')!;
  const main = document.getElementById('views')!;
  tablist.addEventListener('keydown', onTabKey);
  for (const view of views) {
    const tab = h('button', { type: 'button', role: 'tab', id: `tab-${view.id}`, 'aria-controls': `view-${view.id}`, 'aria-selected': 'false', tabindex: -1 }, view.title);
    tab.addEventListener('click', () => app.go(view.id));
    const panel = h('section', { role: 'tabpanel', id: `view-${view.id}`, 'aria-labelledby': `tab-${view.id}`, tabindex: 0, hidden: true, class: 'view' });
    tabs.set(view.id, tab);
    panels.set(view.id, panel);
    tablist.append(tab);
    main.append(panel);
    view.mount(panel, app);
  }
  const field = document.getElementById('token') as HTMLInputElement;
  field.value = token();
  field.addEventListener('change', () => setToken(field.value.trim()));
  document.getElementById('token-form')!.addEventListener('submit', (event) => {
    event.preventDefault();
    setToken(field.value.trim());
  });
  window.addEventListener('hashchange', route);
  route();
}

start();
