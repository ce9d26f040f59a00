/**
 * The graph view: the learned transitions drawn by the graph layer (sigma.js over graphology),
 * the strongest `top` of them for a large graph, with a search box to find a tool, a switch of
 * node colours (Louvain community or spectral cluster), and for the selected tool its successors
 * and predecessors with P(to | from), reliability and the confidence of their patterns.
 */
import { getJson, path, type GraphData, type Neighbour, type ToolNeighbours } from '../api.js';
import { h, messageOf, notice, num, replace } from '../dom.js';
import { createGraphLayer, type ColourBy, type GraphLayer } from '../graph-layer.js';
import type { App, View } from '../view.js';

const TOPS = [500, 2_000, 10_000, 50_000];

export function graphView(): View {
  let app: App;
  let layer: GraphLayer | null = null;
  let data: GraphData | null = null;
  let top = 2_000;
  let colourBy: ColourBy = 'community';
  let loaded = false;
  const canvas = h('div', { class: 'graph-canvas', role: 'img', tabindex: 0, 'aria-label': 'the learned graph (loading)' });
  const summary = h('p', { class: 'summary', role: 'status' });
  const details = h('section', { class: 'selection', 'aria-label': 'selected tool', 'aria-live': 'polite' }, h('p', { class: 'hint' }, 'Select a tool in the graph or find it by name.'));
  const search = h('input', { type: 'search', id: 'graph-search', list: 'graph-tools', autocomplete: 'off', placeholder: 'tool name' });
  const options = h('datalist', { id: 'graph-tools' });
  const clusterChoice = h('input', { type: 'radio', name: 'colour-by', value: 'cluster', id: 'colour-cluster' });
  const layoutButton = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Settle layout');

  const find = (event: Event): void => {
    event.preventDefault();
    const name = layer?.matches(search.value, 1)[0] ?? search.value.trim();
    if (name !== '') void select(name);
  };

  const neighbourTable = (caption: string, rows: readonly Neighbour[], total: number, side: 'to' | 'from'): HTMLElement =>
    h(
      'table',
      { class: 'neighbours' },
      h('caption', {}, `${caption} (${rows.length < total ? `${rows.length} of ${total}` : total})`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'tool'), h('th', { scope: 'col' }, 'P(to | from)'), h('th', { scope: 'col' }, 'reliability'), h('th', { scope: 'col' }, 'seen'), h('th', { scope: 'col', title: 'composite confidence and tier of the transition (spec 004)' }, 'pattern'))),
      h(
        'tbody',
        {},
        ...rows.map((r) =>
          h(
            'tr',
            {},
            h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => void select(r[side]) }, r[side])),
            h('td', {}, num(r.probability, 3)),
            h('td', {}, num(r.reliability, 3)),
            h('td', {}, num(r.count, 0)),
            h('td', {}, h('button', { type: 'button', class: 'link', title: 'open in Patterns', onclick: () => app.go('patterns', r.pattern.id) }, `${num(r.pattern.composite, 2)} ${r.pattern.tier}`)),
          ),
        ),
      ),
    );

  async function select(name: string): Promise<void> {
    search.value = name;
    layer?.focus(name);
    replace(details, h('p', {}, `Loading ${name}…`));
    try {
      const n = await getJson<ToolNeighbours>(`${path`/v1/graph/tools/${name}`}?limit=25`);
      const drawn = layer?.graph.hasNode(name) ?? false;
      replace(
        details,
        h('h3', {}, name),
        h('p', {}, `PageRank ${num(n.tool.pagerank, 4)} · community ${n.tool.community} · spectral cluster ${n.tool.cluster < 0 ? 'none' : n.tool.cluster} · ${num(n.tool.calls, 0)} successful calls`),
        drawn ? null : notice('Not drawn: none of its transitions is among the strongest shown.'),
        neighbourTable('Successors', n.successors, n.successorCount, 'to'),
        neighbourTable('Predecessors', n.predecessors, n.predecessorCount, 'from'),
        h('button', { type: 'button', onclick: () => clearSelection() }, 'Clear selection'),
      );
    } catch (error) {
      replace(details, notice(messageOf(error), 'error'));
    }
  }

  function clearSelection(): void {
    layer?.focus(null);
    search.value = '';
    replace(details, h('p', { class: 'hint' }, 'Select a tool in the graph or find it by name.'));
  }

  async function load(): Promise<void> {
    summary.textContent = 'Loading the graph…';
    try {
      data = await getJson<GraphData>(`/v1/graph?top=${top}`);
    } catch (error) {
      replace(summary, notice(messageOf(error), 'error'));
      return;
    }
    layer?.kill();
    app.hook.graph.layer = null;
    app.hook.graph.firstDrawMs = null;
    clusterChoice.disabled = data.clusters === 0;
    if (data.clusters === 0 && colourBy === 'cluster') colourBy = 'community';
    layer = createGraphLayer(canvas, data, colourBy);
    layer.onSelect((name) => void select(name));
    app.hook.graph.layer = layer;
    app.hook.graph.order = layer.graph.order;
    app.hook.graph.size = layer.graph.size;
    void layer.firstDraw.then((ms) => {
      app.hook.graph.firstDrawMs = ms;
    });
    const names = data.nodes.map((n) => n.name).sort();
    app.setToolNames(names);
    replace(options, ...names.map((name) => h('option', { value: name })));
    const shown = data.edges.length < data.transitions ? `the ${num(data.edges.length, 0)} most observed of ${num(data.transitions, 0)} transitions` : `all ${num(data.transitions, 0)} transitions`;
    summary.textContent = `${num(data.nodes.length, 0)} of ${num(data.tools, 0)} tools and ${shown}; ${data.communities} communities, ${data.clusters} spectral clusters (model version ${data.version}).`;
    canvas.setAttribute('aria-label', `The learned graph: ${summary.textContent} Find a tool by name to list its successors and predecessors.`);
    layoutButton.setAttribute('aria-pressed', 'false');
  }

  // Keys on the canvas: arrows pan, + and - zoom, 0 resets the camera.
  canvas.addEventListener('keydown', (event) => {
    const camera = layer?.sigma.getCamera();
    if (camera === undefined) return;
    const step = 0.1 * camera.ratio;
    const moves: Record<string, () => void> = {
      ArrowLeft: () => camera.setState({ x: camera.x - step }),
      ArrowRight: () => camera.setState({ x: camera.x + step }),
      ArrowUp: () => camera.setState({ y: camera.y + step }),
      ArrowDown: () => camera.setState({ y: camera.y - step }),
      '+': () => void camera.animatedZoom({ duration: 150 }),
      '=': () => void camera.animatedZoom({ duration: 150 }),
      '-': () => void camera.animatedUnzoom({ duration: 150 }),
      '0': () => void camera.animatedReset({ duration: 150 }),
    };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    move();
  });

  return {
    id: 'graph',
    title: 'Graph',
    mount(panel, shell) {
      app = shell;
      const topSelect = h('select', { id: 'graph-top' }, ...TOPS.map((t) => h('option', { value: t, selected: t === top }, `${num(t, 0)} edges`)));
      topSelect.addEventListener('change', () => {
        top = Number(topSelect.value);
        void load();
      });
      const communityChoice = h('input', { type: 'radio', name: 'colour-by', value: 'community', id: 'colour-community', checked: true });
      for (const choice of [communityChoice, clusterChoice]) {
        choice.addEventListener('change', () => {
          colourBy = choice.value as ColourBy;
          layer?.colourBy(colourBy);
        });
      }
      layoutButton.addEventListener('click', () => {
        const running = layoutButton.getAttribute('aria-pressed') !== 'true';
        layer?.setLayout(running);
        layoutButton.setAttribute('aria-pressed', String(running));
      });
      panel.append(
        h('h2', {}, 'Graph'),
        h(
          'form',
          { class: 'toolbar', role: 'search', onsubmit: find },
          h('label', { for: 'graph-search' }, 'Find a tool'),
          search,
          options,
          h('button', { type: 'submit' }, 'Find'),
          h('fieldset', { class: 'inline' }, h('legend', {}, 'Colour by'), communityChoice, h('label', { for: 'colour-community' }, 'Louvain community'), clusterChoice, h('label', { for: 'colour-cluster' }, 'spectral cluster')),
          h('label', { for: 'graph-top' }, 'Show'),
          topSelect,
          layoutButton,
        ),
        summary,
        h('div', { class: 'graph-area' }, canvas, details),
        h('p', { class: 'legend' }, 'Node size: PageRank. Edge width: P(to | from). Edge shade: reliability (dark: reliable, pale red: below one half). Keys on the graph: arrows pan, + and − zoom, 0 resets.'),
      );
    },
    show(arg) {
      if (!loaded) {
        loaded = true;
        void load().then(() => (arg !== undefined ? select(arg) : undefined));
      } else if (arg !== undefined) void select(arg);
      layer?.sigma.refresh();
    },
    hide() {
      layer?.setLayout(false);
    },
  };
}
