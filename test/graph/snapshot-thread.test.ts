import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { buildSnapshot, secondOrderRow, snapshotInput, type GraphSnapshot } from '../../src/graph/snapshot.js';
import { SnapshotThread } from '../../src/graph/snapshot-thread.js';
import { pairKey, TransitionGraph } from '../../src/graph/transition-graph.js';
import { trace } from '../helpers/traces.js';

function learn(graph: TransitionGraph, seed: number, traces: number, tools: number): void {
  const rng = createRng(seed);
  for (let i = 0; i < traces; i++) {
    const steps = Array.from({ length: 2 + Math.floor(rng() * 4) }, () => ({ name: `t${Math.floor(rng() * tools)}`, ok: rng() < 0.9 }));
    graph.ingest(trace(steps, { success: rng() < 0.8, timestamp: 1_000 * i, intent: `task ${i % 17}` }));
  }
}

/** Every field of two snapshots, the second-order index compared through its lookups. */
function expectSameSnapshot(got: GraphSnapshot, want: GraphSnapshot, graph: TransitionGraph): void {
  const { second: gotSecond, ...gotRest } = got;
  const { second: wantSecond, ...wantRest } = want;
  expect(gotRest).toEqual(wantRest);
  expect(Array.from(gotSecond.offsets)).toEqual(Array.from(wantSecond.offsets));
  expect(Array.from(gotSecond.targets)).toEqual(Array.from(wantSecond.targets));
  expect(Array.from(gotSecond.weights)).toEqual(Array.from(wantSecond.weights));
  expect(Array.from(gotSecond.totals)).toEqual(Array.from(wantSecond.totals));
  expect(gotSecond.rows.size).toBe(wantSecond.rows.size);
  let contexts = 0;
  graph.forEachSecondOrder((a, b) => {
    contexts++;
    expect(gotSecond.rows.get(a, b)).toBe(wantSecond.rows.get(a, b));
    expect(secondOrderRow(gotSecond, a, b)).toEqual(secondOrderRow(wantSecond, a, b));
  });
  expect(contexts).toBeGreaterThan(100);
  expect(pairKey(0, 0)).toBe(0);
}

describe('SnapshotThread', () => {
  const thread = SnapshotThread.start();
  afterAll(() => thread.close());

  it('builds on its worker the snapshot buildSnapshot builds here, for a fresh and for a restored graph', async () => {
    const graph = new TransitionGraph();
    learn(graph, 3, 1_500, 60);
    expectSameSnapshot(await thread.build(snapshotInput(graph)), buildSnapshot(graph), graph);
    // Restored (transitions in CSR order, indexed by PairIndex.sorted), then learning more, with
    // stored communities given as a view into a larger buffer, as a decoded snapshot file holds them.
    const restored = TransitionGraph.fromState(graph.exportState());
    learn(restored, 4, 300, 70);
    const bytes = new Int32Array(restored.toolCount + 8);
    const stored = bytes.subarray(4, 4 + 50).fill(3);
    const options = { seed: 7, communities: { communities: stored, count: 5 } };
    expectSameSnapshot(await thread.build(snapshotInput(restored), options), buildSnapshot(restored, options), restored);
    // Nothing of the caller's was taken by the transfer: the graph goes on learning, and the
    // stored communities' buffer is still whole.
    expect(bytes.buffer.byteLength).toBe(4 * (restored.toolCount + 8));
    expect(stored[0]).toBe(3);
    learn(restored, 5, 200, 80);
    expectSameSnapshot(await thread.build(snapshotInput(restored)), buildSnapshot(restored), restored);
  });

  it('answers builds sent together, each with its own snapshot', async () => {
    const a = new TransitionGraph();
    const b = new TransitionGraph();
    learn(a, 8, 800, 30);
    learn(b, 9, 800, 45);
    const [sa, sb] = await Promise.all([thread.build(snapshotInput(a)), thread.build(snapshotInput(b))]);
    expectSameSnapshot(sa, buildSnapshot(a), a);
    expectSameSnapshot(sb, buildSnapshot(b), b);
  });

  it('fails every build with the reason once its worker is gone', async () => {
    const other = SnapshotThread.start();
    const graph = new TransitionGraph();
    learn(graph, 10, 300, 20);
    const waiting = expect(other.build(snapshotInput(graph))).rejects.toThrow(/closed/);
    await other.close();
    await waiting;
    await expect(other.build(snapshotInput(graph))).rejects.toThrow(/closed/);
  });
});
