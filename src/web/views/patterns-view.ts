/**
 * The patterns view: the reviewed patterns and the most observed transitions (`POST
 * /v1/patterns`), and for the one selected spec 004's radar (frequency, effectiveness, human),
 * its composite and tier, its trend, and approve / reject buttons (`POST
 * /v1/patterns/:id/feedback`, a write) whose verdict moves the radar at once.
 *
 * The trend reads the pattern's stored confidence history (`GET /v1/patterns/:id/history`) when
 * the server has that route (its OpenAPI document says so); otherwise it draws what the server
 * keeps, the pattern's verdicts (`GET /v1/patterns/:id`): the running count of approvals minus
 * rejections at each verdict's time.
 */
import { getJson, hasRoute, path, postJson, type Pattern, type PatternDetail } from '../api.js';
import { h, messageOf, notice, num, replace, time } from '../dom.js';
import { radarChart } from '../charts/radar.js';
import { trendChart, type TrendPoint } from '../charts/trend.js';
import type { View } from '../view.js';

const HISTORY_ROUTE = '/v1/patterns/{id}/history';

/** The history route's answer, as issue 52 describes it: points with a time and a composite. */
interface HistoryPoint {
  readonly at: number | string;
  readonly composite: number;
}

function historyPoints(answer: unknown): TrendPoint[] {
  const list = Array.isArray(answer) ? answer : ((answer as { history?: unknown }).history ?? []);
  return (list as HistoryPoint[])
    .map((p) => ({ at: typeof p.at === 'number' ? p.at : Date.parse(p.at), value: p.composite }))
    .filter((p) => Number.isFinite(p.at) && Number.isFinite(p.value));
}

/** Approvals minus rejections after each verdict, oldest first. */
export function verdictPoints(feedback: PatternDetail['feedback']): TrendPoint[] {
  let net = 0;
  return feedback.map((f) => ({ at: f.at, value: (net += f.decision === 'approve' ? 1 : -1) }));
}

export function patternsView(): View {
  let selected: string | null = null;
  const list = h('div', { class: 'pattern-list' });
  const detail = h('section', { class: 'pattern-detail', 'aria-label': 'selected pattern', 'aria-live': 'polite' }, h('p', { class: 'hint' }, 'Choose a pattern to see its confidence.'));
  const from = h('input', { id: 'patterns-from', type: 'search', list: 'graph-tools', autocomplete: 'off', placeholder: 'any tool' });

  async function trend(p: PatternDetail): Promise<HTMLElement> {
    if (await hasRoute('GET', HISTORY_ROUTE)) {
      const points = historyPoints(await getJson<unknown>(path`/v1/patterns/${p.id}/history`));
      return h('figure', {}, trendChart(points, { title: 'Composite confidence over time', yLabel: 'composite', min: 0, max: 1 }), h('figcaption', {}, 'Composite confidence, from the stored history.'));
    }
    const points = verdictPoints(p.feedback);
    return h(
      'figure',
      {},
      trendChart(points, { title: 'Verdicts over time', yLabel: 'approvals minus rejections', min: 0 }),
      h('figcaption', {}, points.length === 0 ? 'No verdict yet: the trend starts with the first approval or rejection.' : 'Approvals minus rejections, verdict by verdict (this server keeps no confidence history yet).'),
    );
  }

  async function open(id: string): Promise<void> {
    selected = id;
    for (const b of list.querySelectorAll<HTMLButtonElement>('button[data-id]')) b.setAttribute('aria-current', String(b.dataset['id'] === id));
    try {
      const p = await getJson<PatternDetail>(path`/v1/patterns/${id}`);
      await render(p);
    } catch (error) {
      replace(detail, notice(messageOf(error), 'error'));
    }
  }

  async function render(p: PatternDetail): Promise<void> {
    const c = p.confidence;
    const message = h('div', { class: 'feedback-message' });
    const decide = (decision: 'approve' | 'reject') => async () => {
      try {
        await postJson<Pattern>(path`/v1/patterns/${p.id}/feedback`, { decision }, true);
        await open(p.id);
        void refreshList();
      } catch (error) {
        replace(message, notice(messageOf(error), 'error'));
      }
    };
    const trendFigure = await trend(p);
    replace(
      detail,
      h('h3', {}, p.tools.join(' → ')),
      h('p', {}, `${p.kind} · observed ${p.observations} (${p.successes} succeeded, ${p.failures} failed) · ${p.approvals} approvals, ${p.rejections} rejections`),
      h('p', { class: 'composite' }, 'Composite ', h('strong', {}, num(c.composite, 3)), ' · tier ', h('strong', {}, c.tier), ` · ${c.status}`),
      h(
        'div',
        { class: 'charts' },
        h('figure', {}, radarChart([{ label: 'frequency', value: c.frequency }, { label: 'effectiveness', value: c.effectiveness }, { label: 'human', value: c.human }], 'Confidence radar'), h('figcaption', {}, 'Spec 004: frequency, effectiveness, human.')),
        trendFigure,
      ),
      h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'approve', onclick: () => void decide('approve')() }, 'Approve'), h('button', { type: 'button', class: 'reject', onclick: () => void decide('reject')() }, 'Reject')),
      message,
      p.feedback.length > 0 ? h('details', {}, h('summary', {}, `Verdicts (${p.feedback.length})`), h('ol', {}, ...p.feedback.map((f) => h('li', {}, `${time(f.at)}: ${f.decision}`)))) : null,
    );
  }

  async function refreshList(): Promise<void> {
    try {
      const tool = from.value.trim();
      const { patterns } = await postJson<{ patterns: Pattern[] }>('/v1/patterns', { limit: 100, ...(tool !== '' ? { from: tool } : {}) });
      replace(
        list,
        patterns.length === 0
          ? h('p', {}, 'No pattern yet.')
          : h(
              'table',
              {},
              h('caption', {}, `${patterns.length} patterns, most observed first`),
              h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'pattern'), h('th', { scope: 'col' }, 'observed'), h('th', { scope: 'col' }, 'composite'), h('th', { scope: 'col' }, 'tier'), h('th', { scope: 'col' }, 'verdicts'))),
              h(
                'tbody',
                {},
                ...patterns.map((p) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, h('button', { type: 'button', class: 'link', 'data-id': p.id, 'aria-current': String(p.id === selected), onclick: () => void open(p.id) }, p.tools.join(' → '))),
                    h('td', {}, p.observations),
                    h('td', {}, num(p.confidence.composite, 3)),
                    h('td', {}, p.confidence.tier),
                    h('td', {}, `+${p.approvals} −${p.rejections}`),
                  ),
                ),
              ),
            ),
      );
    } catch (error) {
      replace(list, notice(messageOf(error), 'error'));
    }
  }

  let loaded = false;
  return {
    id: 'patterns',
    title: 'Patterns',
    mount(panel) {
      panel.append(
        h('h2', {}, 'Patterns'),
        h('form', { class: 'toolbar', onsubmit: (e) => (e.preventDefault(), void refreshList()) }, h('label', { for: 'patterns-from' }, 'Transitions out of'), from, h('button', { type: 'submit' }, 'List')),
        h('div', { class: 'patterns-area' }, list, detail),
      );
    },
    show(arg) {
      if (!loaded) {
        loaded = true;
        void refreshList();
      }
      if (arg !== undefined && arg !== selected) void open(arg);
    },
    hide() {},
  };
}
