/**
 * The ask view: the three questions on one form (next tool `POST /v1/predict`, tool search
 * `POST /v1/search`, workflow `POST /v1/dag`), and the answer with each item's per-signal
 * breakdown as bars, the no-match verdict with its unmatched words and hint, and a workflow drawn
 * by its layers with its confidence and status.
 */
import { postJson, type Dag, type Ranking, type RankedItem } from '../api.js';
import { h, messageOf, notice, num, replace } from '../dom.js';
import { layeredDag } from '../charts/layered-dag.js';
import { signalBars } from '../charts/signal-bars.js';
import type { App, View } from '../view.js';

type Question = 'predict' | 'search' | 'dag';

const QUESTIONS: readonly { readonly id: Question; readonly label: string; readonly text: string }[] = [
  { id: 'predict', label: 'Next tool', text: 'Task intent (optional)' },
  { id: 'search', label: 'Tool search', text: 'Request in words' },
  { id: 'dag', label: 'Workflow (DAG)', text: 'Task in words' },
];

function itemName(item: RankedItem): string {
  if (item.kind === 'capability' && item.tools !== undefined) return `${item.tool ?? item.capability ?? ''} (capability: ${item.tools.join(' → ')})`;
  return item.tool ?? item.capability ?? '?';
}

function verdict(kind: string, unmatched: readonly string[] | undefined, hint: string | undefined): HTMLElement | null {
  if (kind !== 'no-match' && kind !== 'empty' && kind !== 'cold-start') return null;
  const title = kind === 'no-match' ? 'No match' : kind === 'empty' ? 'The graph is empty' : 'Cold start: nothing learned after these tools';
  return h(
    'div',
    { class: 'verdict', role: 'status' },
    h('strong', {}, title),
    unmatched !== undefined && unmatched.length > 0 ? h('p', {}, 'Words that matched nothing: ', ...unmatched.flatMap((w, i) => [i > 0 ? ', ' : '', h('code', {}, w)])) : null,
    hint !== undefined ? h('p', { class: 'hint' }, hint) : null,
  );
}

function rankingAnswer(answer: Ranking): HTMLElement {
  return h(
    'div',
    { class: 'answer' },
    h('p', {}, `Answer: ${answer.kind}${answer.coverage !== undefined ? `, coverage ${num(answer.coverage, 2)}` : ''}`),
    verdict(answer.kind, answer.unmatched, answer.hint),
    answer.unknownContext !== undefined && answer.unknownContext.length > 0 ? notice(`Tools the graph does not know, ignored: ${answer.unknownContext.join(', ')}`) : null,
    answer.kind !== 'no-match' && answer.hint !== undefined ? h('p', { class: 'hint' }, answer.hint) : null,
    h(
      'ol',
      { class: 'ranked' },
      ...answer.items.map((item) =>
        h('li', { class: 'ranked-item' }, h('div', { class: 'item-head' }, h('span', { class: 'tool' }, itemName(item)), h('span', { class: 'score' }, `score ${num(item.score, 4)}`), item.reliability !== undefined ? h('span', {}, `reliability ${num(item.reliability, 2)}`) : null), signalBars(item.signals)),
      ),
    ),
  );
}

function dagAnswer(dag: Dag): HTMLElement {
  return h(
    'div',
    { class: 'answer' },
    h('p', {}, `Answer: ${dag.kind}, status `, h('strong', { class: `status-${dag.status}` }, dag.status), `, confidence ${num(dag.confidence, 3)}`),
    verdict(dag.kind, dag.unmatched, dag.hint),
    dag.warnings.length > 0 ? h('ul', { class: 'warnings' }, ...dag.warnings.map((w) => h('li', {}, w))) : null,
    dag.nodes.length > 0 ? layeredDag(dag) : null,
  );
}

export function askView(): View {
  let app: App;
  let question: Question = 'predict';
  const result = h('section', { class: 'result', 'aria-label': 'answer', 'aria-live': 'polite' });
  const textLabel = h('label', { for: 'ask-text' }, QUESTIONS[0]!.text);
  const text = h('input', { id: 'ask-text', type: 'text', autocomplete: 'off' });
  const context = h('input', { id: 'ask-context', type: 'text', list: 'ask-tools', autocomplete: 'off', placeholder: 'tool_a, tool_b' });
  const k = h('input', { id: 'ask-k', type: 'number', min: 1, max: 50, value: 5 });
  const tools = h('datalist', { id: 'ask-tools' });

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const contextTools = context.value.split(',').map((t) => t.trim()).filter((t) => t !== '');
    const words = text.value.trim();
    replace(result, h('p', {}, 'Asking…'));
    try {
      if (question === 'predict') {
        const answer = await postJson<Ranking>('/v1/predict', { context: contextTools, ...(words !== '' ? { intent: words } : {}), k: Number(k.value) });
        replace(result, rankingAnswer(answer));
      } else if (question === 'search') {
        const answer = await postJson<Ranking>('/v1/search', { query: words, ...(contextTools.length > 0 ? { context: contextTools } : {}), k: Number(k.value) });
        replace(result, rankingAnswer(answer));
      } else {
        const answer = await postJson<Dag>('/v1/dag', { intent: words, ...(contextTools.length > 0 ? { context: contextTools } : {}) });
        replace(result, dagAnswer(answer));
      }
    } catch (error) {
      replace(result, notice(messageOf(error), 'error'));
    }
  };

  return {
    id: 'ask',
    title: 'Ask',
    mount(panel, shell) {
      app = shell;
      const choices = QUESTIONS.map((q, i) => {
        const input = h('input', { type: 'radio', name: 'question', id: `ask-${q.id}`, value: q.id, checked: i === 0 });
        input.addEventListener('change', () => {
          question = q.id;
          textLabel.textContent = q.text;
          k.disabled = q.id === 'dag';
        });
        return [input, h('label', { for: `ask-${q.id}` }, q.label)];
      });
      panel.append(
        h('h2', {}, 'Ask'),
        h(
          'form',
          { class: 'ask', onsubmit: (e) => void submit(e) },
          h('fieldset', { class: 'inline' }, h('legend', {}, 'Question'), ...choices.flat()),
          h('div', { class: 'field' }, textLabel, text),
          h('div', { class: 'field' }, h('label', { for: 'ask-context' }, 'Tools called so far (comma-separated)'), context, tools),
          h('div', { class: 'field' }, h('label', { for: 'ask-k' }, 'Items'), k),
          h('button', { type: 'submit' }, 'Ask'),
        ),
        result,
      );
    },
    show() {
      if (tools.childElementCount === 0) replace(tools, ...app.toolNames().map((name) => h('option', { value: name })));
    },
    hide() {},
  };
}
