import { describe, expect, it } from 'vitest';
import type { IntentRecord } from '../../src/graph/transition-graph.js';
import type { ToolInfo } from '../../src/schema/types.js';
import { scoreBm25 } from '../../src/text/bm25.js';
import { hashedTextEmbedding, type TextEmbedding } from '../../src/text/text-embedding.js';
import { buildTextModel } from '../../src/text/text-model.js';
import { expectCode } from '../helpers/expect-code.js';

const tool = (name: string, description: string): ToolInfo => ({ name, description, params: [] });
const names = ['weather_forecast', 'flight_search'];
const intents: IntentRecord[] = [{ intent: 'will it rain', tools: [0], sequence: [0] }];

function catalogue(): Map<string, ToolInfo> {
  return new Map([tool('weather_forecast', 'Get the weather forecast'), tool('flight_search', 'Search flights')].map((t) => [t.name, t]));
}

/** BM25 score of each tool for one word. */
function lexical(model: ReturnType<typeof buildTextModel>, word: string): number[] {
  const out = new Float64Array(model.bm25.nDocs);
  scoreBm25(model.bm25, [word], out);
  return [...out];
}

describe('buildTextModel between rebuilds', () => {
  it('refuses an intent record that credits no tool: the similar tasks share its index with the examples', () => {
    const stray: IntentRecord = { intent: 'just thinking', tools: [], sequence: [] };
    expectCode(() => buildTextModel(names, catalogue(), [stray, ...intents]), 'INVALID_INPUT', 'calls no tool');
  });

  it("reuses the catalogue's index and vectors while the tools' texts are the same", () => {
    const catalog = catalogue();
    const embedding = hashedTextEmbedding();
    const first = buildTextModel(names, catalog, intents, embedding);
    const second = buildTextModel(names, catalog, [...intents, { intent: 'fly to Rome', tools: [1], sequence: [1] }], embedding);
    expect(second.bm25).toBe(first.bm25);
    expect(second.vectors).toBe(first.vectors);
    // The intents are not the catalogue's: the association is refitted.
    expect(second.intents).toBe(2);
    expect(second.intent).not.toBe(first.intent);
  });

  it('sees a catalogue entry replaced, or edited in place, at the next build', () => {
    const catalog = catalogue();
    const embedding = hashedTextEmbedding();
    const first = buildTextModel(names, catalog, intents, embedding);
    expect(lexical(first, 'airport')).toEqual([0, 0]);

    catalog.set('flight_search', tool('flight_search', 'Search flights between an airport and another'));
    const replaced = buildTextModel(names, catalog, intents, embedding);
    expect(replaced.bm25).not.toBe(first.bm25);
    expect(replaced.vectors).not.toBe(first.vectors);
    expect(lexical(replaced, 'airport')[1]).toBeGreaterThan(0);

    (catalog.get('weather_forecast') as { description: string }).description = 'Get the weather forecast at an airport';
    const edited = buildTextModel(names, catalog, intents, embedding);
    expect(lexical(edited, 'airport')[0]).toBeGreaterThan(0);

    // A new tool (known from traces only) and another embedding are changes too.
    expect(buildTextModel([...names, 'hotel_book'], catalog, intents, embedding).bm25.nDocs).toBe(3);
    const other = hashedTextEmbedding();
    expect(buildTextModel(names, catalog, intents, other).vectors).not.toBe(edited.vectors);
  });

  it('rebuilds the vectors while a tool is still waiting for its vector', () => {
    let ready = false;
    const d = 4;
    const pending: TextEmbedding = {
      name: 'pending',
      dimensions: d,
      query: () => null,
      tool: (text) => (ready || text.startsWith('weather') ? Float32Array.from([1, 0, 0, 1]) : null),
      retain: () => {},
    };
    const catalog = catalogue();
    const first = buildTextModel(names, catalog, intents, pending);
    expect(first.vectors!.missing).toBe(1);
    ready = true;
    const second = buildTextModel(names, catalog, intents, pending);
    expect(second.vectors).not.toBe(first.vectors);
    expect(second.vectors!.missing).toBe(0);
    expect(buildTextModel(names, catalog, intents, pending).vectors).toBe(second.vectors);
  });
});
