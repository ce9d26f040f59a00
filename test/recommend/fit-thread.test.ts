/**
 * Fits on the worker thread (fit-thread.ts, fit-worker.js) against fits on this one: the same
 * report, to the bit, for the built-in embedder and for another embedder's vectors sent as a
 * table; a failed job rejects and leaves the thread usable.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fitWeights } from '../../src/recommend/fit-weights.js';
import { FitThread } from '../../src/recommend/fit-thread.js';
import { loadDataset } from '../../src/schema/dataset.js';
import { workflowToTraceAt } from '../../src/schema/trace.js';
import type { Trace } from '../../src/schema/types.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import type { Embedder } from '../../src/text/embedder.js';
import { hashedEmbedding } from '../../src/text/hashed-embedder.js';
import { hashedTextEmbedding, type TextEmbedding } from '../../src/text/text-embedding.js';
import { toolText } from '../../src/text/tool-vectors.js';

const ROOT = join(import.meta.dirname, '..', '..');

async function sample(): Promise<{ tools: Awaited<ReturnType<typeof loadDataset>>['tools']; traces: Trace[] }> {
  const dataset = await loadDataset(join(ROOT, 'samples', 'nestful'));
  return { tools: dataset.tools, traces: dataset.workflows.map((w, i) => workflowToTraceAt(w, 1_700_000_000_000 + i)) };
}

async function* inPages(traces: readonly Trace[], size: number): AsyncIterable<readonly Trace[]> {
  for (let i = 0; i < traces.length; i += size) yield traces.slice(i, i + size);
}

const engines: Toolgraph[] = [];
afterAll(() => {
  for (const tg of engines) tg.close();
});

function engine(options: ConstructorParameters<typeof Toolgraph>[0] = {}): Toolgraph {
  const tg = new Toolgraph({ seed: 7, learnCapabilities: false, ...options });
  engines.push(tg);
  return tg;
}

describe('fits on the worker thread', () => {
  it('give the report a fit on this thread gives, with the built-in embedder', async () => {
    const { tools, traces } = await sample();
    const here = engine();
    here.setTools(tools);
    here.ingestTraces(traces);
    const expected = here.fit();
    const there = engine();
    there.setTools(tools);
    there.ingestTraces(traces);
    const report = await there.fitOffThread(inPages(traces, 7));
    expect(report).toEqual(expected);
    // Not installed: the caller decides.
    expect(there.fittedWeights.source).toBe('prior');
  });

  it("give, for another embedder, the report of a fit that has every one of its vectors", async () => {
    const { tools, traces } = await sample();
    let calls = 0;
    const embedder: Embedder = {
      dimensions: 384,
      name: 'test-384',
      async embed(texts) {
        calls++;
        return texts.map((t) => hashedEmbedding(t));
      },
    };
    const tg = engine({ embedder });
    tg.setTools(tools);
    tg.ingestTraces(traces);
    const report = await tg.fitOffThread(inPages(traces, 50));
    expect(calls).toBeGreaterThan(1);
    // The built-in embedder's vectors, for the texts the table carries: every tool's and every
    // trace's intent (a workflow's clauses, searched alone, have none, as when served).
    const catalog = new Map(tools.map((t) => [t.name, t]));
    const carried = new Set([...tg.tools().map((t) => toolText(t.name, t.description, t.params)), ...traces.map((t) => t.intent)]);
    const hashed = hashedTextEmbedding();
    const table: TextEmbedding = {
      ...hashed,
      name: 'test-384',
      query: (text) => (carried.has(text) ? hashed.query(text) : null),
      tool: (text) => (carried.has(text) ? hashed.tool(text) : null),
    };
    expect(report).toEqual(fitWeights(traces, catalog, { seed: 7, embedding: table }));
  });

  it('rejects a job that fails, and fits the next one', async () => {
    const thread = FitThread.start();
    try {
      const bad = thread.fit({ catalog: [], traces: [{ id: 'x', intent: '', success: true, steps: [null] } as unknown as Trace], options: {}, embedding: { kind: 'none' } });
      await expect(bad).rejects.toThrow();
      const { tools, traces } = await sample();
      const report = await thread.fit({ catalog: tools, traces, options: { seed: 7 }, embedding: { kind: 'none' } });
      expect(report).toEqual(fitWeights(traces, new Map(tools.map((t) => [t.name, t])), { seed: 7, embedding: null }));
    } finally {
      await thread.close();
    }
    await expect(thread.fit({ catalog: [], traces: [], options: {}, embedding: { kind: 'none' } })).rejects.toThrow('the fit thread was closed');
  });
});
