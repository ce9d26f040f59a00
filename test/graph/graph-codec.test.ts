import { describe, expect, it } from 'vitest';
import { decodeGraph, encodeGraph, GRAPH_CODEC_FORMAT, GraphCodecError, type StoredCaches } from '../../src/graph/graph-codec.js';
import { createRng } from '../../src/graph/rng.js';
import { buildSnapshot } from '../../src/graph/snapshot.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { buildModel } from '../../src/recommend/model.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import type { Trace } from '../../src/schema/types.js';
import { exportIntentTokens } from '../../src/text/intent-tokens.js';
import { hashedTextEmbedding } from '../../src/text/text-embedding.js';
import { buildToolVectors, storeToolVectors } from '../../src/text/tool-vectors.js';
import { trace } from '../helpers/traces.js';

/** Seeded traces over `tools` names, with failures, failed steps, intents and odd names. */
function randomTraces(seed: number, count: number, tools: readonly string[]): Trace[] {
  const rng = createRng(seed);
  const out: Trace[] = [];
  for (let i = 0; i < count; i++) {
    const len = 1 + Math.floor(rng() * 6);
    const steps = Array.from({ length: len }, () => ({ name: tools[Math.floor(rng() * tools.length)]!, ok: rng() > 0.1 }));
    out.push(trace(steps, { success: rng() > 0.2, intent: rng() > 0.3 ? `intent ${Math.floor(rng() * 50)} \ud800 ✓` : '', timestamp: Math.floor(rng() * 1e12), id: `r${i}` }));
  }
  return out;
}

const NAMES = ['__proto__', 'constructor', 'a\u0000b', 'lone \udc00', '🛠️', 'search', 'book', 'pay', 'x'.repeat(1_024), ...Array.from({ length: 40 }, (_, i) => `t${i}`)];

function graphOf(traces: readonly Trace[]): TransitionGraph {
  const g = new TransitionGraph();
  for (const t of traces) g.ingest(t, { value: 0.25 + (t.steps.length % 3) / 4 });
  return g;
}

describe('graph codec', () => {
  it('round-trips a graph exactly: state, iteration order, version, and the snapshot built from it', () => {
    const g = graphOf(randomTraces(7, 2_000, NAMES));
    g.addTool('catalogue only');
    const state = g.exportState();
    const bytes = encodeGraph(state);
    const decoded = decodeGraph(bytes);
    expect(decoded.format).toBe(GRAPH_CODEC_FORMAT);
    expect(decoded.signals).toBeNull();
    expect(decoded.state).toEqual(state);
    const back = TransitionGraph.fromState(decoded.state);
    expect(back.exportState()).toEqual(state);
    expect(back.version).toBe(g.version);
    expect(back.traces).toBe(g.traces);
    expect(back.successfulTraces).toBe(g.successfulTraces);
    expect(back.intents()).toEqual(g.intents());
    for (const name of NAMES) expect(back.indexOf(name)).toBe(g.indexOf(name));
    // The same edges with the same statistics.
    expect(back.edgeCount).toBe(g.edgeCount);
    back.forEachTransition((source, target, stats) => {
      const { count, success, failure, evidence, lastSeen, recentSuccess, recentFailure } = stats;
      expect({ count, success, failure, evidence, lastSeen, recentSuccess, recentFailure }).toEqual(g.transition(source, target));
    });
    const a = buildSnapshot(g, { seed: 3 });
    const b = buildSnapshot(back, { seed: 3 });
    expect(b.communities).toEqual(a.communities);
    expect(b.pagerank).toEqual(a.pagerank);
    expect(b.out).toEqual(a.out);
    expect(b.second).toEqual(a.second);
    // The feedback loop's decayed evidence and clock survive: edge reliability is the same.
    expect(back.newest).toBe(g.newest);
    expect(state.edges.recentFailure.some((x) => x > 0)).toBe(true);
    expect(b.reliability).toEqual(a.reliability);
    // Ingestion goes on from the restored graph as from the original.
    const more = randomTraces(8, 50, [...NAMES, 'new tool']);
    for (const t of more) {
      g.ingest(t);
      back.ingest(t);
    }
    expect(back.exportState()).toEqual(g.exportState());
  });

  it('keeps signals, and restored communities give the same predictions as computed ones', () => {
    const g = graphOf(randomTraces(11, 3_000, NAMES));
    const model = buildModel(g, new Map(), undefined, { seed: 5 });
    const snap = model.graph;
    const bytes = encodeGraph(g.exportState(), { version: g.version, communities: snap.communities, communityCount: snap.communityCount, pagerank: snap.pagerank });
    const { state, signals } = decodeGraph(bytes);
    expect(signals).not.toBeNull();
    expect(signals!.version).toBe(g.version);
    expect(signals!.communities).toEqual(snap.communities);
    expect(signals!.pagerank).toEqual(snap.pagerank);
    const back = TransitionGraph.fromState(state);
    const restored = buildModel(back, new Map(), undefined, { seed: 5, communities: { communities: signals!.communities, count: signals!.communityCount } });
    expect(restored.graph.communities).toEqual(snap.communities);
    for (const context of [['search'], ['__proto__', 'book'], ['t3', 't7'], ['lone \udc00']]) {
      expect(predictNext(restored, { context, k: 5 })).toEqual(predictNext(model, { context, k: 5 }));
    }
  });

  it('round-trips an empty graph, and reads an unaligned copy', () => {
    const empty = new TransitionGraph().exportState();
    expect(decodeGraph(encodeGraph(empty)).state).toEqual(empty);
    const state = graphOf(randomTraces(3, 100, NAMES)).exportState();
    const bytes = encodeGraph(state);
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    expect(decodeGraph(shifted.subarray(3)).state).toEqual(state);
  });

  it('refuses bytes that are not a snapshot, of another format, truncated, or with trailing data', () => {
    const bytes = encodeGraph(graphOf(randomTraces(5, 200, NAMES)).exportState());
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array(0), /bad magic/],
      [new TextEncoder().encode('{"not": "a snapshot"}'.padEnd(200)), /bad magic/],
      [bytes.subarray(0, bytes.byteLength - 9), /truncated/],
      [Uint8Array.from([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]), /unexpected bytes/],
    ];
    const future = bytes.slice();
    new DataView(future.buffer).setUint32(4, GRAPH_CODEC_FORMAT + 1, true);
    cases.push([future, new RegExp(`format ${GRAPH_CODEC_FORMAT + 1}, this toolgraph reads formats 2 and ${GRAPH_CODEC_FORMAT}`)]);
    for (const [input, message] of cases) {
      let thrown: unknown;
      try {
        decodeGraph(input);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(GraphCodecError);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  /** A graph's state with its caches, as a service stores them. */
  function withCaches(seed: number): { state: ReturnType<TransitionGraph['exportState']>; caches: StoredCaches } {
    const g = graphOf(randomTraces(seed, 300, NAMES));
    const embedding = hashedTextEmbedding();
    const texts = g.names.map((name) => `${name} does things`);
    return {
      state: g.exportState(),
      caches: { intentTokens: exportIntentTokens(g.intents()), toolVectors: storeToolVectors(texts, buildToolVectors(texts, embedding), embedding) },
    };
  }

  it('round-trips the caches at any alignment, and reads a format-2 snapshot (none) as before', () => {
    const { state, caches } = withCaches(11);
    expect(caches.intentTokens!.tokens.length).toBeGreaterThan(100);
    expect(caches.toolVectors!.rowDims.length).toBeGreaterThan(100);
    const bytes = encodeGraph(state, null, caches);
    for (const shift of [0, 3]) {
      const at = new Uint8Array(bytes.byteLength + shift);
      at.set(bytes, shift);
      const decoded = decodeGraph(at.subarray(shift));
      expect(decoded.state).toEqual(state);
      expect(decoded.caches).toEqual(caches);
    }
    // Format 2 is format 3 without the caches section (its flags, when there are none).
    const none = encodeGraph(state);
    expect(decodeGraph(none).caches).toEqual({ intentTokens: null, toolVectors: null });
    const old = none.slice(0, none.byteLength - 8);
    new DataView(old.buffer).setUint32(4, 2, true);
    const decoded = decodeGraph(old);
    expect(decoded.format).toBe(2);
    expect(decoded.caches).toBeNull();
    expect(decoded.state).toEqual(state);
  });

  it('refuses damaged caches: tokens or dimensions out of range, decreasing starts, unknown flags', () => {
    const { state, caches } = withCaches(12);
    const tokens = caches.intentTokens!;
    const vectors = caches.toolVectors!;
    const damaged: [StoredCaches, RegExp][] = [
      [{ ...caches, intentTokens: { ...tokens, tokens: tokens.tokens.map((t, i) => (i === 5 ? tokens.terms.length : t)) } }, /intent token is out of range/],
      [{ ...caches, intentTokens: { ...tokens, start: tokens.start.map((x, i) => (i === 1 ? tokens.tokens.length : x)) } }, /intent token starts must not decrease/],
      [{ ...caches, toolVectors: { ...vectors, rowDims: vectors.rowDims.map((d, i) => (i === 7 ? vectors.dimensions : d)) } }, /vector dimension is out of range/],
      [{ ...caches, toolVectors: { ...vectors, rowStart: vectors.rowStart.map((x, i) => (i === 1 ? vectors.rowDims.length : x)) } }, /vector row starts must not decrease/],
    ];
    for (const [input, message] of damaged) expect(() => decodeGraph(encodeGraph(state, null, input))).toThrow(message);
    const bytes = encodeGraph(state);
    new DataView(bytes.buffer).setFloat64(bytes.byteLength - 8, 4, true);
    expect(() => decodeGraph(bytes)).toThrow(/cache flags must be 0-3/);
    // Caches that do not cover the state are refused when writing.
    expect(() => encodeGraph(state, null, { ...caches, intentTokens: { ...tokens, start: tokens.start.subarray(1) } })).toThrow(RangeError);
  });

  it('fromState refuses an inconsistent state', () => {
    const state = graphOf([trace(['a', 'b', 'c'])]).exportState();
    expect(() => TransitionGraph.fromState({ ...state, to: Int32Array.from([0, 9]) })).toThrow(RangeError);
    expect(() => TransitionGraph.fromState({ ...state, names: ['a', 'a', 'c'] })).toThrow(/appears twice/);
    expect(() => TransitionGraph.fromState({ ...state, calls: new Float64Array(1) })).toThrow(RangeError);
    // Transitions out of order are indexed the slow way, and a repeated one is still caught there.
    expect(Array.from(state.from)).toEqual([0, 1]);
    expect(() => TransitionGraph.fromState({ ...state, from: Int32Array.from([0, 0]), to: Int32Array.from([1, 1]) })).toThrow(/transition appears twice/);
    const swap = (column: Float64Array): Float64Array => Float64Array.from([column[1]!, column[0]!]);
    const edges = Object.fromEntries(Object.entries(state.edges).map(([name, column]) => [name, swap(column)])) as unknown as typeof state.edges;
    const unsorted = TransitionGraph.fromState({ ...state, from: Int32Array.from([1, 0]), to: Int32Array.from([2, 1]), edges });
    expect(unsorted.transition(0, 1)).toEqual(graphOf([trace(['a', 'b', 'c'])]).transition(0, 1));
    expect(unsorted.transition(1, 2)).toEqual(graphOf([trace(['a', 'b', 'c'])]).transition(1, 2));
  });
});
