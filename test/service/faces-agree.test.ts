/**
 * The service answers as the evaluation measures: a Toolgraph given the catalogue with
 * setTools, the traces with ingest and then fit() (what the CLI, HTTP and MCP faces do) gives
 * the same predictions, searches and DAGs as the model the evaluation builds straight from the
 * dataset (bench/eval, trainToolgraph). A field lost on the way in (catalogue outputs once were)
 * shows here as a difference.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainToolgraph } from '../../bench/eval/next-methods.js';
import { buildUniverse } from '../../bench/eval/universe.js';
import { suggestDag } from '../../src/recommend/dag/suggest-dag.js';
import { predictNext } from '../../src/recommend/predict-next.js';
import type { RecommenderModel } from '../../src/recommend/model.js';
import { searchTools } from '../../src/recommend/search-tools.js';
import { loadDataset, type Dataset } from '../../src/schema/dataset.js';
import { workflowToTrace } from '../../src/schema/trace.js';
import { Toolgraph } from '../../src/service/toolgraph.js';

const SAMPLE = join(import.meta.dirname, '..', '..', 'samples', 'nestful');

let dataset: Dataset;
let model: RecommenderModel;
let tg: Toolgraph;

beforeAll(async () => {
  dataset = await loadDataset(SAMPLE);
  const train = dataset.workflows.slice(0, 250);
  ({ model } = trainToolgraph(buildUniverse(dataset.tools, train), train));
  tg = new Toolgraph();
  tg.setTools(dataset.tools);
  // As a caller sends them: compact traces.
  tg.ingest(
    train.map(workflowToTrace).map((t) => ({
      id: t.id,
      intent: t.intent,
      domain: t.domain,
      tools: t.steps.map((s) => ({ name: s.tool, ok: s.ok })),
      success: t.success,
      timestamp: t.timestamp,
    })),
  );
  tg.fit();
}, 120_000);

describe('the service and the evaluated model', () => {
  it('suggest the same workflows, data flow included', () => {
    const held = dataset.workflows.slice(250).filter((w) => w.intent !== '');
    expect(held.length).toBeGreaterThan(40);
    let dataFlow = 0;
    for (const w of held) {
      const served = tg.suggestDag({ intent: w.intent, expandCapabilities: true });
      const evaluated = suggestDag(model, { intent: w.intent, expandCapabilities: true });
      expect({ nodes: served.nodes, edges: served.edges }).toEqual({ nodes: evaluated.nodes, edges: evaluated.edges });
      dataFlow += served.edges.filter((e) => e.source === 'data-flow').length;
    }
    // The comparison covers declared data flow, not only learned order.
    expect(dataFlow).toBeGreaterThan(5);
  });

  it('search and predict the same', () => {
    for (const w of dataset.workflows.slice(250, 290)) {
      if (w.intent === '') continue;
      const served = tg.searchTools({ query: w.intent, k: 5 });
      const evaluated = searchTools(model, { query: w.intent, context: [], k: 5 });
      expect(served.items).toEqual(evaluated.items);
      const context = w.tools.slice(0, 1);
      expect(tg.predictNext({ context, intent: w.intent, k: 5 }).items).toEqual(predictNext(model, { context, intent: w.intent, k: 5 }).items);
    }
  });
});
