import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { fitWeights, NO_MATCH_FOLDS } from '../../src/recommend/fit-weights.js';
import { BACKOFF_WEIGHTS, LEXICAL_WEIGHTS } from '../../src/recommend/simple-rules.js';
import { fitNoMatch, fits, NO_MATCH_QUANTILE, type MatchEvidence } from '../../src/recommend/no-match.js';
import { SIGNALS } from '../../src/recommend/features.js';
import { foldOf } from '../../src/recommend/folds.js';
import { buildModel, PRIOR_WEIGHTS, type FittedWeights, type RecommenderModel } from '../../src/recommend/model.js';
import { coverage, queryWords } from '../../src/recommend/query-coverage.js';
import { searchEvidence, searchTools } from '../../src/recommend/search-tools.js';
import { tokenizeByWord } from '../../src/text/tokenize.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { trace } from '../helpers/traces.js';

/** After `open`, the intent alone says whether `read` or `write` comes next. */
function intentDecides(n: number): Trace[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? trace(['open', 'read', 'close'], { id: `r${i}`, intent: `please read the report number ${i}` })
      : trace(['open', 'write', 'close'], { id: `w${i}`, intent: `please write the memo number ${i}` }),
  );
}

/**
 * Twelve tools called for requests in their own words: the even ones described in those words,
 * the odd ones in words no request uses (only the traces tell what they are for).
 */
const TOPICS = ['weather forecast', 'flight booking', 'hotel room', 'currency exchange', 'news headline', 'stock price', 'movie ticket', 'recipe search', 'train timetable', 'parcel tracking', 'music playlist', 'translate text'];
const topicTool = (k: number): string => (k % 2 === 0 ? TOPICS[k]!.replace(' ', '_') : `utility_${k}`);
function topicCatalog(): Map<string, ToolInfo> {
  return new Map(TOPICS.map((t, k) => [topicTool(k), { name: topicTool(k), description: k % 2 === 0 ? `${t} service` : `utility number ${k}`, params: [] }]));
}
function topicTraces(): Trace[] {
  return TOPICS.flatMap((t, k) => Array.from({ length: 20 }, (_, i) => trace([topicTool(k)], { id: `${k}-${i}`, intent: `please ${t} ${i}` })));
}

/** The model of every catalogue entry and trace, ranking with `weights`. */
function modelOf(catalog: Map<string, ToolInfo>, traces: readonly Trace[], weights: FittedWeights): RecommenderModel {
  const graph = new TransitionGraph();
  for (const tool of catalog.keys()) graph.addTool(tool);
  for (const t of traces) graph.ingest(t);
  return buildModel(graph, catalog, weights);
}

describe('fitWeights', () => {
  it('fits weights that use the intent where the intent decides, and reports them', () => {
    const report = fitWeights(intentDecides(80), new Map());
    expect(report.weights.source).toBe('fitted');
    for (const w of [report.weights.next, report.weights.nextNoIntent, report.weights.search]) expect(w).toHaveLength(SIGNALS.length);
    expect(report.next.queries).toBeGreaterThan(100);
    expect(report.next.loss).toBeLessThan(report.next.initialLoss);
    // The intent separates read from write. The rule reads the request's words too (here the
    // tools' names), but only where no transition speaks: the fitted ranker is better still.
    expect(report.next.hit1Fitted).toBeGreaterThan(report.next.hit1Backoff + 0.1);
    expect(report.next.selected).toBe('fitted');
  });

  it('keeps, for a task without held-out queries, what an unfitted model ranks with, and says so', () => {
    // No intents: nothing to fit search on. Its weights stayed the fit's starting point, marked
    // fitted, and lost the unfitted search's lift of never-called tools.
    const chains = Array.from({ length: 60 }, (_, i) => trace(['a', 'b', 'c', 'd'], { id: `t${i}` }));
    const report = fitWeights(chains, new Map());
    expect(report.search).toMatchObject({ queries: 0, selected: 'prior' });
    expect(report.weights.search).toEqual(PRIOR_WEIGHTS.search);
    expect(report.weights.source).toBe('fitted');
    // One trace: no fold holds out a query anywhere. The weights are the prior's, and say so.
    const one = fitWeights([trace(['a', 'b'], { id: 'only', intent: 'do a then b' })], new Map());
    expect([one.next.queries, one.nextNoIntent.queries, one.search.queries]).toEqual([0, 0, 0]);
    expect(one.weights).toEqual({ ...PRIOR_WEIGHTS });
  });

  it('refits the weight of never-called tools alone on searches for tools the fold never saw', () => {
    // Twelve tools called for requests in their own words: half have descriptions in those words,
    // half descriptions that share none (only the traces tell what they are for, so the fitted
    // ranker beats the lexical rule), and one catalogue entry no trace calls. In the plain folds
    // every gold tool has traces: the fit saw no request for a tool without intent evidence and
    // left such a tool far behind (metatool's never-called tools: Hit@1 0.025 against BM25's
    // 0.427 on validation).
    const catalog = topicCatalog();
    catalog.set('kangaroo_tracker', { name: 'kangaroo_tracker', description: 'kangaroo sightings tracker', params: [] });
    const traces = topicTraces();
    const report = fitWeights(traces, catalog);
    expect(report.search.selected).toBe('fitted');
    expect(report.searchUnseen).toMatchObject({ refitted: true });
    expect(report.searchUnseen.queries).toBeGreaterThan(0);
    expect(report.searchUnseen.loss).toBeLessThan(report.searchUnseen.initialLoss);
    expect(report.searchUnseen.hit1After).toBeGreaterThan(report.searchUnseen.hit1Before);
    const fitted = modelOf(catalog, traces, report.weights);
    expect(searchTools(fitted, { query: 'please kangaroo sightings', context: [], k: 3 }).items[0]!.tool).toBe('kangaroo_tracker');
    // The tools the traces know are still found by their own requests.
    expect(searchTools(fitted, { query: 'please stock price 7', context: [], k: 1 }).items[0]!.tool).toBe('utility_5');
  });

  it('does not let never-called tools that share a request\'s words take it from the tool its traces name', () => {
    // As above, and a catalogue that has grown many entries no trace calls, each sharing the words
    // of some traced requests (an archive of every topic). The never-called tools' weight is
    // refitted on requests for tools a fold never saw, so it favours such tools: here it must
    // still leave every traced request to its own tool, whose description may share no word
    // with it, while the one request only a never-called entry answers finds that entry.
    const catalog = topicCatalog();
    for (const t of TOPICS) {
      for (const kind of ['archive', 'history', 'statistics']) {
        const entry = `${t.replace(' ', '_')}_${kind}`;
        catalog.set(entry, { name: entry, description: `${t} ${kind}`, params: [] });
      }
    }
    catalog.set('kangaroo_tracker', { name: 'kangaroo_tracker', description: 'kangaroo sightings tracker', params: [] });
    const traces = topicTraces();
    const report = fitWeights(traces, catalog);
    expect(report.search.selected).toBe('fitted');
    const fitted = modelOf(catalog, traces, report.weights);
    // Every traced request goes to its own tool, described in its words or not.
    for (const [k, t] of TOPICS.entries()) expect([t, searchTools(fitted, { query: `please ${t} 7`, context: [], k: 1 }).items[0]!.tool]).toEqual([t, topicTool(k)]);
    // A request only a never-called entry's words answer still finds it.
    expect(searchTools(fitted, { query: 'please kangaroo sightings', context: [], k: 3 }).items[0]!.tool).toBe('kangaroo_tracker');
  });

  it('asks for never-called tools that only the traces name (no catalogue)', () => {
    // Without a catalogue, a tool held out of a fold's training was no candidate at all in its
    // model: its requests asked only for the tools the fold had seen, and the refit drove the
    // weight to 0, so a tool registered later by name alone was never found.
    const name = (k: number): string => TOPICS[k % 12]!.replace(' ', '_');
    const traces = TOPICS.flatMap((t, k) =>
      Array.from({ length: 20 }, (_, i) => trace([name(k), name(k + 1)], { id: `${k}-${i}`, intent: `please ${t} then ${TOPICS[(k + 1) % 12]} ${i}` })),
    );
    const report = fitWeights(traces, new Map());
    expect(report.searchUnseen.refitted).toBe(true);
    expect(report.weights.search[SIGNALS.indexOf('lexicalUnseen')]).toBeGreaterThan(1);
    const graph = new TransitionGraph();
    for (const t of traces) graph.ingest(t);
    graph.addTool('kangaroo_tracker');
    const fitted = buildModel(graph, new Map(), report.weights);
    expect(searchTools(fitted, { query: 'kangaroo tracker', context: [], k: 3 }).items[0]!.tool).toBe('kangaroo_tracker');
  });

  it('leaves the lexical rule alone: it already ranks never-called tools by their words', () => {
    // Every tool's description holds its requests' words and traces are few: search keeps the
    // lexical rule, and there is no fitted ranker to refit.
    const catalog = new Map<string, ToolInfo>(['alpha', 'beta', 'gamma'].map((n) => [n, { name: n, description: `${n} tool`, params: [] }]));
    const traces = ['alpha', 'beta', 'gamma'].flatMap((n) => Array.from({ length: 6 }, (_, i) => trace([n], { id: `${n}${i}`, intent: `${n} ${i}` })));
    const report = fitWeights(traces, catalog);
    if (report.search.selected === 'fitted') return expect.unreachable('the fixture is meant to keep the lexical rule');
    expect(report.searchUnseen.refitted).toBe(false);
    // The rule as it ranks, its scores scaled to probabilities on the held-out searches.
    expect(report.search.ruleScale).toBeGreaterThan(0);
    expect(report.weights.search).toEqual(report.search.selected === 'backoff' ? LEXICAL_WEIGHTS.map((w) => w * report.search.ruleScale) : PRIOR_WEIGHTS.search);
  });

  it('keeps the back-off rule when the fitted ranker is not clearly better (one-standard-error rule)', () => {
    // A deterministic chain: every held-out query is answered equally by both.
    const traces = Array.from({ length: 60 }, (_, i) => trace(['a', 'b', 'c', 'd'], { id: `t${i}` }));
    const report = fitWeights(traces, new Map());
    expect(report.nextNoIntent.hit1Backoff).toBe(1);
    expect(report.nextNoIntent.selected).toBe('backoff');
    // Kept as it is: one factor cannot scale its two tiers (fit-weights.ts).
    expect(report.weights.nextNoIntent).toEqual(BACKOFF_WEIGHTS);
    expect(report.nextNoIntent.ruleScale).toBe(1);
  });

  it("scales a kept lexical rule's scores to the held-out shares of its tools", () => {
    // Requests that name "alpha" want the alpha tool 60% of the time and beta the rest; both
    // descriptions hold the word, alpha's is shorter, so the lexical rule always ranks alpha first.
    const catalog = new Map<string, ToolInfo>([
      ['alpha', { name: 'alpha', description: 'alpha tool', params: [] }],
      ['beta', { name: 'beta', description: 'alpha beta tool', params: [] }],
    ]);
    const traces = Array.from({ length: 100 }, (_, i) => trace([i % 5 < 3 ? 'alpha' : 'beta'], { id: `t${i}`, intent: `alpha ${i}` }));
    const report = fitWeights(traces, catalog, { seed: 3 });
    if (report.search.selected !== 'backoff') return expect.unreachable('the fixture is meant to keep the lexical rule');
    expect(report.search.ruleScale).toBeGreaterThan(0);
    expect(report.search.ruleScale).toBeLessThan(1);
    expect(report.weights.search).toEqual(LEXICAL_WEIGHTS.map((w) => w * report.search.ruleScale));
    const graph = new TransitionGraph();
    for (const t of traces) graph.ingest(t);
    const shares = (weights: readonly number[]): Map<string, number> =>
      new Map(searchTools(buildModel(graph, catalog, { ...report.weights, search: weights }), { query: 'alpha please', context: [], k: 2 }).items.map((it) => [it.tool, it.score]));
    // The same ranking, as sure as the held-out requests allow: 0.6 and 0.4.
    const scaled = shares(report.weights.search);
    expect([...scaled.keys()]).toEqual(['alpha', 'beta']);
    expect(scaled.get('alpha')).toBeCloseTo(0.6, 1);
    expect(scaled.get('beta')).toBeCloseTo(0.4, 1);
    // The rule unscaled is certain of alpha.
    expect(shares(LEXICAL_WEIGHTS).get('alpha')).toBeGreaterThan(0.999);
  });

  it('fits the no-match rule on the held-out requests as the served weights search them, not on their gold tools', () => {
    const traces = intentDecides(80);
    // A tool no trace calls whose description holds every request's words (the number too):
    // search returns it, and it explains more of each held-out request than its gold tools,
    // which never saw that request's number.
    const ledger = { name: 'ledger', description: traces.map((t) => t.intent).join('. '), params: [] };
    const catalog = new Map([[ledger.name, ledger]]);
    const report = fitWeights(traces, catalog, { seed: 3 });
    const calibration = report.weights.noMatch!;
    expect(report.noMatch).toEqual({ requests: traces.length, calibration });
    // The same folds by hand: each held-out request searched in the model of the other folds,
    // with the search weights the fit serves; more folds than the weights' fit (NO_MATCH_FOLDS).
    expect(NO_MATCH_FOLDS).toBeGreaterThan(report.folds);
    const held: MatchEvidence[] = [];
    const gold: number[] = [];
    for (let k = 0; k < NO_MATCH_FOLDS; k++) {
      const graph = new TransitionGraph();
      graph.addTool(ledger.name);
      for (const t of traces) if (foldOf(t.id, NO_MATCH_FOLDS) !== k) graph.ingest(t);
      const model = buildModel(graph, catalog, { ...PRIOR_WEIGHTS, search: report.weights.search }, { seed: 3 });
      for (const t of traces.filter((x) => foldOf(x.id, NO_MATCH_FOLDS) === k)) {
        held.push(searchEvidence(model, t.intent));
        const tools = [...new Set(t.steps.map((s) => model.graph.indexByName.get(s.tool)!))];
        gold.push(coverage(model.text, queryWords(model.text, tokenizeByWord(t.intent)), tools, tools.length).best);
      }
    }
    expect(calibration).toEqual(fitNoMatch(held));
    expect(calibration.coverage).toHaveLength(traces.length);
    expect(calibration.coverage[0]).toBeGreaterThan(Math.min(...gold));
    expect(calibration.similarity[0]).toBeGreaterThan(0);
    // The rule turns away at most its quantile of the requests it was fitted on.
    const refused = held.filter((e) => !fits(calibration, e, false)).length;
    expect(refused).toBeLessThanOrEqual(Math.floor(NO_MATCH_QUANTILE * traces.length));
  });

  it('is deterministic for the same traces and seed', () => {
    const a = fitWeights(intentDecides(40), new Map(), { seed: 3 });
    const b = fitWeights(intentDecides(40), new Map(), { seed: 3 });
    expect(a.weights).toEqual(b.weights);
  });

  it('returns the prior unchanged with no usable traces', () => {
    const report = fitWeights([trace(['a'], { success: false })], new Map());
    expect(report.next.queries).toBe(0);
    expect(report.nextNoIntent.queries).toBe(0);
  });
});

describe('fitWeights on too little data', () => {
  it('keeps finite weights when Newton diverges on a few separable queries', async () => {
    const { loadDataset } = await import('../../src/schema/dataset.js');
    const { workflowToTrace } = await import('../../src/schema/trace.js');
    const data = await loadDataset(new URL('../fixtures/schema/tiny', import.meta.url).pathname);
    const catalog = new Map(data.tools.map((t) => [t.name, t]));
    const { hashedTextEmbedding } = await import('../../src/text/text-embedding.js');
    const report = fitWeights(data.workflows.map(workflowToTrace), catalog, { seed: 42, embedding: hashedTextEmbedding() });
    for (const w of [report.weights.next, report.weights.nextNoIntent, report.weights.search]) expect(w.every(Number.isFinite)).toBe(true);
    // On this fixture the search fit diverges (loss NaN): the lexical rule is kept and said so.
    expect(Number.isFinite(report.search.loss)).toBe(false);
    expect(report.search.selected).toBe('backoff');
  });
});
