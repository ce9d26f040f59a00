/**
 * Tool search: tools that fit a request in words, ranked by the fitted search weights over the
 * intent association and the lexical index (no context), with context tools adding the graph
 * signals through the next-tool weights. Every item carries its per-signal breakdown; `score`
 * is the ranker's probability over all tools.
 */
import { tokenize } from '../text/tokenize.js';
import { breakdown, collectFeatures, type SignalBreakdown } from './features.js';
import { logNormaliser } from './linear-profile.js';
import { topBuffer, type RecommenderModel } from './model.js';
import { DEFAULT_K } from './predict-next.js';
import { scoreTouchedRows } from './score-rows.js';
import { selectTopK } from './top-k.js';

export interface SearchRequest {
  readonly query: string;
  readonly context?: readonly string[];
  readonly k?: number;
}

export interface SearchItem {
  readonly tool: string;
  readonly kind: 'tool';
  readonly score: number;
  readonly signals: SignalBreakdown;
}

export interface SearchResult {
  readonly kind: 'results';
  readonly version: number;
  readonly items: readonly SearchItem[];
}

export function searchTools(model: RecommenderModel, request: SearchRequest): SearchResult {
  const { graph, scratch, rowScore } = model;
  const context: number[] = [];
  for (const name of request.context ?? []) {
    const index = graph.indexByName.get(name);
    if (index !== undefined) context.push(index);
  }
  const withContext = context.length > 0 && graph.traces > 0;
  collectFeatures(graph, model.text, { context: withContext ? context : [], intent: tokenize(request.query), intentText: request.query }, scratch);
  try {
    const bg = scoreTouchedRows(model, withContext ? 'next' : 'search', true);
    const top = topBuffer(model, Math.min(request.k ?? DEFAULT_K, graph.n));
    selectTopK(scratch, rowScore, bg, top);
    const logZ = logNormaliser(scratch, rowScore, bg);
    const items: SearchItem[] = [];
    for (let i = 0; i < top.size; i++) {
      const c = top.tools[i]!;
      items.push({ tool: graph.names[c]!, kind: 'tool', score: Math.exp(top.scores[i]! - logZ), signals: breakdown(graph, scratch, c) });
    }
    return { kind: 'results', version: graph.version, items };
  } finally {
    scratch.reset();
  }
}
