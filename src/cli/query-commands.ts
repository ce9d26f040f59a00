/**
 * `toolgraph predict`, `search` and `dag`: one answer of the library, learned in memory from
 * --data / --traces or read from the store, as a table or JSON.
 */
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import { EMPTY_HINT } from '../recommend/empty-store.js';
import { SIGNALS } from '../recommend/features.js';
import { print, type CliOutput, type Values } from './command.js';
import { loadToolgraph } from './learn.js';
import { intOption, listOption, listOptionEither, textOrWords } from './options.js';
import { queryStore, usesStore } from './store-access.js';
import { formatNumber, formatTable } from './table.js';
import type { PredictRequestInput, SearchRequestInput } from '../schema/requests.js';

/** A ranked list as a table: rank, tool, score, the dynamic signals that fired. */
export function itemsTable(items: readonly { tool: string; score: number; signals: Readonly<Record<string, number>>; kind?: string; capability?: string }[]): string {
  // A capability item starts with its predicted tool: shown as the capability, then that tool.
  const label = (it: (typeof items)[number]): string => (it.kind === 'capability' ? `capability ${it.capability ?? ''} (starts with ${it.tool})` : it.tool);
  return formatTable(['#', 'tool', 'score', 'signals'], items.map((it, i) => [i + 1, label(it), it.score, signalsCell(it.signals)]));
}

function signalsCell(signals: Readonly<Record<string, number>>): string {
  return SIGNALS.filter((s) => (signals[s] ?? 0) > 0 && s !== 'pagerank' && s !== 'popularity')
    .map((s) => `${s}=${signals[s]!.toFixed(2)}`)
    .join(' ');
}

/** An answer from a store that knows no tool: the library's hint, said as the store's state. */
function emptyText(hint: string | undefined): string {
  return `empty store: ${(hint ?? EMPTY_HINT).replace(/^the store is empty: /, '')}`;
}

/** A suggested DAG as a table: node, tool, confidence, what it depends on; then the warnings. */
export function dagTable(dag: DagSuggestion): string {
  if (dag.kind === 'empty') return emptyText(dag.hint);
  if (dag.kind === 'no-match') return [`no workflow: nothing fits (${dag.status})`, ...dag.warnings.map((w) => `warning: ${w}`)].join('\n');
  const needs = new Map<string, string[]>();
  for (const e of dag.edges) needs.set(e.to, [...(needs.get(e.to) ?? []), `${e.from} (${e.source}, ${formatNumber(e.confidence)})`]);
  const layerOf = new Map<string, number>();
  dag.layers.forEach((layer, l) => layer.forEach((id) => layerOf.set(id, l)));
  const table = formatTable(
    ['node', 'layer', 'tool', 'confidence', 'after'],
    dag.nodes.map((n) => [
      n.id,
      layerOf.get(n.id) ?? 0,
      n.kind === 'tool' ? n.tool : `capability ${n.capability}: ${n.tools.join(' > ')}`,
      n.confidence,
      (needs.get(n.id) ?? []).join(', ') || '-',
    ]),
  );
  const summary = `confidence ${dag.confidence.toFixed(3)} (${dag.status})`;
  return [table, summary, ...dag.warnings.map((w) => `warning: ${w}`)].join('\n');
}

export async function runPredict(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const request = {
    context: listOptionEither(values, 'after', 'context', 'predict'),
    ...(typeof values['intent'] === 'string' ? { intent: values['intent'] } : {}),
    k: intOption(values, 'k', 5),
    // The request's schema checks the profile's name, as for any caller.
    ...(typeof values['profile'] === 'string' ? { profile: values['profile'] as PredictRequestInput['profile'] } : {}),
  };
  const result = usesStore(values)
    ? await queryStore(values, true, io, (tg) => tg.predictNext(request))
    : (await loadToolgraph(values, io)).predictNext(request);
  print(io, values, result, () => {
    if (result.kind === 'empty') return emptyText(result.hint);
    const head = `${result.kind} (profile ${result.profile}, graph version ${result.version})`;
    const unknown = result.unknownContext.length > 0 ? `\nunknown context tools ignored: ${result.unknownContext.join(', ')}` : '';
    return `${head}${unknown}\n${itemsTable(result.items)}`;
  });
}

export async function runSearch(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const request = {
    query: textOrWords(values, 'query', positionals, 'search'),
    context: listOption(values, 'context'),
    k: intOption(values, 'k', 5),
    ...(typeof values['profile'] === 'string' ? { profile: values['profile'] as SearchRequestInput['profile'] } : {}),
  };
  const result = usesStore(values)
    ? await queryStore(values, false, io, (tg) => tg.searchTools(request))
    : (await loadToolgraph(values, io)).searchTools(request);
  print(io, values, result, () => {
    if (result.kind === 'empty') return emptyText(result.hint);
    const similarity = result.similarity === undefined ? '' : `, similarity ${result.similarity.toFixed(2)}`;
    const head = `${result.kind} (profile ${result.profile}, graph version ${result.version}, coverage ${result.coverage.toFixed(2)}${similarity})`;
    const unknown = result.unknownContext.length > 0 ? `\nunknown context tools ignored: ${result.unknownContext.join(', ')}` : '';
    return `${head}${unknown}\n${result.kind === 'no-match' ? `no match: ${result.hint}\nnearest tools:\n` : ''}${itemsTable(result.items)}`;
  });
}

export async function runDag(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const request = {
    intent: textOrWords(values, 'intent', positionals, 'dag'),
    context: listOption(values, 'context'),
    maxNodes: intOption(values, 'max-nodes', 10),
    expandCapabilities: values['expand'] === true,
  };
  const dag = usesStore(values)
    ? await queryStore(values, true, io, (tg) => tg.suggestDag(request))
    : (await loadToolgraph(values, io)).suggestDag(request);
  print(io, values, dag, () => dagTable(dag));
}
