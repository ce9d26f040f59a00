import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { runStages } from '../../src/graph/stages.js';
import type { IntentRecord } from '../../src/graph/transition-graph.js';
import { countedAssociationStages, fitIntentAssociationInterned } from '../../src/text/intent-association.js';
import { intentTokenIds } from '../../src/text/intent-tokens.js';
import { buildTextModel, textModelStages } from '../../src/text/text-model.js';
import { internIds } from '../../src/text/vocabulary.js';
import { expectCode } from '../helpers/expect-code.js';

const WORDS = ['book', 'a', 'hotel', 'in', 'Rome', '__proto__', 'constructor', 'getWeatherForecast', 'flights', 'to', 'Zürich', '東京', 'ran'];

function record(rng: () => number, nTools: number): IntentRecord {
  const words = Array.from({ length: Math.floor(rng() * 7) }, () => WORDS[Math.floor(rng() * WORDS.length)]!);
  // Repeats included: a tool called twice in one trace is one piece of evidence.
  const sequence = Array.from({ length: 1 + Math.floor(rng() * 5) }, () => Math.floor(rng() * nTools));
  return { intent: words.join(' '), tools: sequence, sequence };
}

/** The association laid out from the log's counts, as the text model does. */
function counted(records: readonly IntentRecord[], nTools: number) {
  const tokens = intentTokenIds(records);
  const order = tokens.order();
  const corpus = internIds(tokens.terms, tokens.docs, order);
  const counts = tokens.counts();
  expect(counts).not.toBeNull();
  return { model: runStages(countedAssociationStages(nTools, counts!, order, corpus)), corpus };
}

describe('intent association from counts kept across rebuilds', () => {
  it('equals a fit from scratch as records are appended, through new terms and new tools', () => {
    const rng = createRng(8);
    const records: IntentRecord[] = [];
    let nTools = 3;
    // Small batches are counted one record at a time, from 2,048 records by counting sorts,
    // into postings that are empty (the first) or not (the second).
    for (const batch of [2_500, 1, 5, 40, 0, 300, 2, 3_000, 7]) {
      nTools += Math.floor(rng() * 4);
      for (let i = 0; i < batch; i++) records.push(record(rng, nTools));
      const { model, corpus } = counted(records, nTools);
      expect(model).toEqual(fitIntentAssociationInterned(nTools, records, corpus));
    }
  });

  it('lets a build planned before another that counted further fit from scratch, with the same model', () => {
    const rng = createRng(9);
    const names = ['t0', 't1', 't2', 't3', 't4', 't5'];
    const records = Array.from({ length: 50 }, () => record(rng, 6));
    const early = textModelStages(names, new Map(), records);
    early.next(); // planned: reads the 50 records
    for (let i = 0; i < 20; i++) records.push(record(rng, 6));
    expect(buildTextModel(names, new Map(), records).intents).toBe(70); // counts to 70
    expect(intentTokenIds(records.slice(0, 50)).counts()!.counted).toBe(50);
    const tokens = intentTokenIds(records);
    const corpus50 = internIds(tokens.terms, tokens.docs.slice(0, 50));
    expect(runStages(early).intent).toEqual(fitIntentAssociationInterned(6, records.slice(0, 50), corpus50));
  });

  it('leaves the errors to the fit: a record that calls no tool is refused as before', () => {
    const records: IntentRecord[] = [
      { intent: 'book a hotel', tools: [0], sequence: [0] },
      { intent: 'flights to Rome', tools: [], sequence: [] },
    ];
    expectCode(() => buildTextModel(['a'], new Map(), records), 'INVALID_INPUT', 'calls no tool');
    const tokens = intentTokenIds(records);
    const order = tokens.order();
    expectCode(() => runStages(countedAssociationStages(1, tokens.counts()!, order, internIds(tokens.terms, tokens.docs, order))), 'INVALID_INPUT', 'counts of 2 records');
  });
});
