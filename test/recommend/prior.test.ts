/**
 * The prior (PRIOR_WEIGHTS, simple-rules.ts): what a store answers before its first fit. Its
 * rankings must be the simple rules' own, written here from their definitions independently of
 * the ranker: next tool by the back-off Markov rule (the most frequent successor of the last two
 * tools, then of the last one, then BM25 of the request, then popularity), search by BM25 of the
 * request against the catalogue with popularity breaking ties, and ties left by both by tool index.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { buildModel, PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import { scoreAllTools } from '../../src/recommend/score-all.js';
import { searchTools } from '../../src/recommend/search-tools.js';
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { scoreBm25 } from '../../src/text/bm25.js';
import { tokenize } from '../../src/text/tokenize.js';
import { trace } from '../helpers/traces.js';

const WORDS = ['flight', 'hotel', 'weather', 'email', 'book', 'search', 'convert', 'currency', 'city', 'report', 'send', 'read', 'map', 'route', 'price'];

function world(seed: number): { catalog: Map<string, ToolInfo>; traces: Trace[] } {
  const rng = createRng(seed);
  const pick = (): string => WORDS[Math.floor(rng() * WORDS.length)]!;
  const n = 12 + Math.floor(rng() * 12);
  const catalog = new Map<string, ToolInfo>();
  for (let i = 0; i < n; i++) {
    const name = `tool_${i}`;
    catalog.set(name, { name, description: Array.from({ length: 2 + Math.floor(rng() * 5) }, pick).join(' '), params: [] });
  }
  const traces: Trace[] = [];
  for (let t = 0; t < 60 + Math.floor(rng() * 60); t++) {
    const len = 1 + Math.floor(rng() * 4);
    // Few starting tools and short hops: repeated contexts, so both Markov orders have counts.
    const steps = [`tool_${Math.floor(rng() * 5)}`];
    for (let i = 1; i < len; i++) steps.push(`tool_${(Number(steps[i - 1]!.slice(5)) + 1 + Math.floor(rng() * 3)) % n}`);
    traces.push(trace(steps, { intent: `${pick()} ${pick()} ${pick()}` }));
  }
  return { catalog, traces };
}

/** Indices ranked by the keys, each higher first, then by index. */
function lexicographic(n: number, keys: readonly ((c: number) => number)[]): number[] {
  return Array.from({ length: n }, (_, c) => c).sort((a, b) => {
    for (const key of keys) if (key(a) !== key(b)) return key(b) - key(a);
    return a - b;
  });
}

function denseOrder(scores: Float64Array): number[] {
  return Array.from({ length: scores.length }, (_, c) => c).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

describe('the prior', () => {
  it('ranks the next tool by the back-off Markov rule, the request\'s words before popularity, on random graphs', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { catalog, traces } = world(seed);
      const g = new TransitionGraph();
      for (const name of catalog.keys()) g.addTool(name);
      for (const t of traces) g.ingest(t);
      const model = buildModel(g, catalog, PRIOR_WEIGHTS);
      const index = model.graph.indexByName;
      // The rule's counts, from the traces.
      const first = new Map<string, number>();
      const second = new Map<string, number>();
      const calls = new Float64Array(model.graph.n);
      for (const t of traces) {
        const ids = t.steps.map((s) => index.get(s.tool)!);
        ids.forEach((c, i) => {
          calls[c]!++;
          if (i >= 1) first.set(`${ids[i - 1]} ${c}`, (first.get(`${ids[i - 1]} ${c}`) ?? 0) + 1);
          if (i >= 2) second.set(`${ids[i - 2]} ${ids[i - 1]} ${c}`, (second.get(`${ids[i - 2]} ${ids[i - 1]} ${c}`) ?? 0) + 1);
        });
      }
      const dense = new Float64Array(model.graph.n);
      const bm25 = new Float64Array(model.graph.n);
      let compared = 0;
      for (const t of traces) {
        const ids = t.steps.map((s) => index.get(s.tool)!);
        for (let i = 1; i <= ids.length; i++) {
          const context = ids.slice(0, i);
          const last = context[context.length - 1]!;
          const prev = context.length >= 2 ? context[context.length - 2]! : -1;
          scoreBm25(model.text.bm25, tokenize(t.intent), bm25);
          const expected = lexicographic(model.graph.n, [
            (c) => (prev >= 0 ? (second.get(`${prev} ${last} ${c}`) ?? 0) : 0),
            (c) => first.get(`${last} ${c}`) ?? 0,
            (c) => bm25[c]!,
            (c) => calls[c]!,
          ]);
          scoreAllTools(model, context, t.intent, 'next', dense);
          expect(denseOrder(dense), `seed ${seed}, context ${context.join(',')}`).toEqual(expected);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(60);
    }
  });

  it('ranks search by BM25 with popularity breaking ties, on random catalogues', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { catalog, traces } = world(seed);
      const g = new TransitionGraph();
      for (const name of catalog.keys()) g.addTool(name);
      for (const t of traces) g.ingest(t);
      const model = buildModel(g, catalog, PRIOR_WEIGHTS);
      const rng = createRng(seed + 100);
      const bm25 = new Float64Array(model.graph.n);
      const dense = new Float64Array(model.graph.n);
      for (let q = 0; q < 30; q++) {
        const query = Array.from({ length: 1 + Math.floor(rng() * 3) }, () => WORDS[Math.floor(rng() * WORDS.length)]!).join(' ');
        scoreBm25(model.text.bm25, tokenize(query), bm25);
        const expected = lexicographic(model.graph.n, [(c) => bm25[c]!, (c) => model.graph.calls[c]!]);
        scoreAllTools(model, [], query, 'search', dense);
        expect(denseOrder(dense), `seed ${seed}, query '${query}'`).toEqual(expected);
        // The service's answer is the same ranking's head, each score a probability.
        const answer = searchTools(model, { query, k: 5 });
        expect(answer.items.map((item) => item.tool)).toEqual(expected.slice(0, 5).map((c) => model.graph.names[c]));
        for (const item of answer.items) expect(item.score > 0 && item.score <= 1).toBe(true);
      }
    }
  });

  it('reads a first-order estimate as a probability where no second-order context was seen', () => {
    const g = new TransitionGraph();
    for (let i = 0; i < 3; i++) g.ingest(trace(['a', 'b']));
    g.ingest(trace(['a', 'c']));
    const model = buildModel(g, new Map(), PRIOR_WEIGHTS);
    const items = predictNext(model, { context: ['a'], k: 3 }).items;
    expect(items.map((i) => i.tool)).toEqual(['b', 'c', 'a']);
    // P1(b | a) = 3/4 and P1(c | a) = 1/4, floored at EPSILON = 1e-3 and normalised over the tools.
    const z = 0.75 + 1e-3 + (0.25 + 1e-3) + 1e-3;
    expect(items[0]!.score).toBeCloseTo((0.75 + 1e-3) / z, 2);
    expect(items[1]!.score).toBeCloseTo((0.25 + 1e-3) / z, 2);
  });
});
