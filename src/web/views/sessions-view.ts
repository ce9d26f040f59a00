/**
 * The sessions view (spec 002): start a workflow session with its mode (the adaptive /
 * deterministic toggle) and budget, or open one by its id; for each, its budget bar (cents left
 * over the budget), spend per model tier and escalations from its telemetry, its plan, a form to
 * report a step, and its telemetry as a timeline.
 *
 * The API lists no sessions and fixes a session's mode when it starts, so the view shows the
 * sessions this browser started or opened (their ids kept in local storage) and the toggle
 * chooses the mode of the next one.
 */
import { deleteJson, getJson, getLines, path, postJson, type SessionView, type TelemetryEvent } from '../api.js';
import { budgetBar } from '../charts/budget-bar.js';
import { h, messageOf, notice, num, replace, time } from '../dom.js';
import type { View } from '../view.js';

const KEY = 'toolgraph.sessions';

function knownIds(): string[] {
  try {
    const ids = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function remember(ids: readonly string[]): void {
  localStorage.setItem(KEY, JSON.stringify(ids));
}

/** Cents charged per tier, from the session's `budget.usage` events. */
export function spendPerTier(events: readonly TelemetryEvent[]): Map<string, { calls: number; cents: number }> {
  const tiers = new Map<string, { calls: number; cents: number }>();
  for (const e of events) {
    if (e.event !== 'budget.usage') continue;
    const tier = String(e.data['tier'] ?? '?');
    const t = tiers.get(tier) ?? { calls: 0, cents: 0 };
    t.calls++;
    t.cents += Number(e.data['cents'] ?? 0);
    tiers.set(tier, t);
  }
  return tiers;
}

function describe(data: Readonly<Record<string, unknown>>): string {
  const keys = ['tool', 'askCode', 'result', 'reason', 'tier', 'cents', 'op', 'why', 'mode'];
  return keys
    .filter((k) => data[k] !== undefined && data[k] !== null)
    .map((k) => `${k} ${typeof data[k] === 'number' ? num(data[k] as number, 3) : String(data[k])}`)
    .join(', ');
}

export function sessionsView(): View {
  const cards = h('div', { class: 'session-cards' });
  const message = h('div', { class: 'sessions-message' });
  const intent = h('input', { id: 'session-intent', type: 'text', required: true, autocomplete: 'off' });
  const mode = h('select', { id: 'session-mode' }, h('option', { value: 'adaptive' }, 'adaptive (a model may answer the steps the graph is unsure of)'), h('option', { value: 'deterministic' }, 'deterministic (the graph answers every step)'));
  const budget = h('input', { id: 'session-budget', type: 'number', min: 0, max: 100_000, step: 'any', value: 100 });
  const openId = h('input', { id: 'session-open', type: 'text', autocomplete: 'off' });

  async function card(id: string): Promise<HTMLElement | null> {
    let view: SessionView;
    let events: TelemetryEvent[];
    try {
      view = await getJson<SessionView>(path`/v1/sessions/${id}`);
      events = await getLines<TelemetryEvent>(path`/v1/sessions/${id}/telemetry`);
    } catch (error) {
      remember(knownIds().filter((known) => known !== id));
      replace(message, notice(`Session ${id}: ${messageOf(error)}; removed from the list.`));
      return null;
    }
    const b = view.budget;
    const tiers = spendPerTier(events);
    const tool = h('input', { type: 'text', list: `next-${id}`, required: true, autocomplete: 'off', 'aria-label': 'tool called' });
    const success = h('input', { type: 'checkbox', checked: true, 'aria-label': 'the call succeeded' });
    const response = h('input', { type: 'text', autocomplete: 'off', 'aria-label': "the tool's response (optional)" });
    const stepMessage = h('div', {});
    const report = async (event: Event): Promise<void> => {
      event.preventDefault();
      try {
        await postJson(path`/v1/sessions/${id}/steps`, { tool: tool.value.trim(), success: success.checked, ...(response.value.trim() !== '' ? { response: response.value.trim() } : {}) }, true);
        await refresh();
      } catch (error) {
        replace(stepMessage, notice(messageOf(error), 'error'));
      }
    };
    const end = async (): Promise<void> => {
      try {
        await deleteJson(path`/v1/sessions/${id}`);
        remember(knownIds().filter((known) => known !== id));
        await refresh();
      } catch (error) {
        replace(stepMessage, notice(messageOf(error), 'error'));
      }
    };
    const start = Date.parse(events[0]?.timestamp ?? view.createdAt);
    return h(
      'article',
      { class: 'session', 'data-id': id, 'aria-label': `session ${view.intent}` },
      h('h3', {}, view.intent),
      h('p', { class: 'meta' }, `id ${id} · mode ${b.mode} · level ${b.level} · expires ${time(view.expiresAt)}`),
      budgetBar(b),
      h('p', {}, `${num(b.centsLeft, 2)} of ${num(b.budgetCents, 2)} cents left (${num(b.centsSpent, 2)} spent) · escalations ${b.escalations} of ${b.maxEscalations}`),
      h(
        'table',
        { class: 'tiers' },
        h('caption', {}, 'Spend per tier'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'tier'), h('th', { scope: 'col' }, 'calls'), h('th', { scope: 'col' }, 'cents'))),
        h('tbody', {}, h('tr', {}, h('td', {}, 'graph'), h('td', {}, 'every other step'), h('td', {}, '0')), ...[...tiers].map(([tier, t]) => h('tr', {}, h('td', {}, tier), h('td', {}, t.calls), h('td', {}, num(t.cents, 3))))),
      ),
      h('ol', { class: 'plan', 'aria-label': 'plan' }, ...view.plan.nodes.map((n) => h('li', { class: `step ${n.status}${n.id === view.plan.current ? ' current' : ''}` }, `${n.id} ${n.tool}${n.temporary ? ' (temporary)' : ''}: ${n.status}${n.id === view.plan.current ? ' (current)' : ''}`))),
      h('p', {}, 'Next: ', view.next.slice(0, 3).map((n) => `${n.tool} (${num(n.score, 2)})`).join(', ') || 'nothing'),
      h(
        'form',
        { class: 'step-form', onsubmit: (e) => void report(e) },
        h('datalist', { id: `next-${id}` }, ...[...new Set([...view.next.map((n) => n.tool), ...view.plan.nodes.map((n) => n.tool)])].map((t) => h('option', { value: t }))),
        h('label', {}, 'Tool ', tool),
        h('label', {}, success, ' succeeded'),
        h('label', {}, 'Response ', response),
        h('button', { type: 'submit' }, 'Report step'),
        h('button', { type: 'button', class: 'reject', onclick: () => void end() }, 'End session'),
      ),
      stepMessage,
      h(
        'details',
        { open: true },
        h('summary', {}, `Telemetry (${events.length} events)`),
        h('ol', { class: 'timeline' }, ...events.map((e) => h('li', { class: `event ${e.level}` }, h('span', { class: 'at' }, `+${num((Date.parse(e.timestamp) - start) / 1000, 2)} s`), h('span', { class: 'name' }, e.event), h('span', { class: 'data' }, describe(e.data))))),
      ),
    );
  }

  async function refresh(): Promise<void> {
    const ids = knownIds();
    const shown = (await Promise.all(ids.map(card))).filter((c): c is HTMLElement => c !== null);
    replace(cards, ...(shown.length > 0 ? shown : [h('p', {}, 'No session yet: start one above, or open one by its id.')]));
  }

  const add = (id: string): void => {
    remember([id, ...knownIds().filter((known) => known !== id)]);
  };

  const startSession = async (event: Event): Promise<void> => {
    event.preventDefault();
    replace(message);
    try {
      const view = await postJson<SessionView>('/v1/sessions', { intent: intent.value.trim(), mode: mode.value, budgetCents: Number(budget.value) }, true);
      add(view.id);
      await refresh();
    } catch (error) {
      replace(message, notice(messageOf(error), 'error'));
    }
  };

  const openSession = async (event: Event): Promise<void> => {
    event.preventDefault();
    const id = openId.value.trim();
    if (id === '') return;
    add(id);
    openId.value = '';
    await refresh();
  };

  return {
    id: 'sessions',
    title: 'Sessions',
    mount(panel) {
      panel.append(
        h('h2', {}, 'Sessions'),
        h(
          'form',
          { class: 'session-start', onsubmit: (e) => void startSession(e) },
          h('div', { class: 'field' }, h('label', { for: 'session-intent' }, 'Task'), intent),
          h('div', { class: 'field' }, h('label', { for: 'session-mode' }, 'Mode'), mode),
          h('div', { class: 'field' }, h('label', { for: 'session-budget' }, 'Budget (US cents)'), budget),
          h('button', { type: 'submit' }, 'Start session'),
        ),
        h('form', { class: 'toolbar', onsubmit: (e) => void openSession(e) }, h('label', { for: 'session-open' }, 'Open a session by id'), openId, h('button', { type: 'submit' }, 'Open')),
        message,
        cards,
      );
    },
    show() {
      void refresh();
    },
    hide() {},
  };
}
