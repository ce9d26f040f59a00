/**
 * An empty store (no trace, no catalogue) says so in the three answers, as data: kind 'empty'
 * and a hint naming how to fill it, never "matched nothing".
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_HINT } from '../../src/recommend/empty-store.js';
import { Toolgraph } from '../../src/service/toolgraph.js';

describe('an empty store', () => {
  it('answers predict, search and dag with kind empty and how to fill it', () => {
    const tg = new Toolgraph();
    const prediction = tg.predictNext({ context: ['a'], intent: 'find flights' });
    expect(prediction).toMatchObject({ kind: 'empty', items: [], unknownContext: ['a'], hint: EMPTY_HINT });
    const search = tg.searchTools({ query: 'find flights' });
    expect(search).toMatchObject({ kind: 'empty', items: [], hint: EMPTY_HINT });
    expect(search.unmatched).toBeUndefined();
    const dag = tg.suggestDag({ intent: 'find flights' });
    expect(dag).toMatchObject({ kind: 'empty', nodes: [], edges: [], layers: [], status: 'reject', hint: EMPTY_HINT, warnings: [EMPTY_HINT] });
    for (const words of ['store is empty', 'toolgraph ingest', 'tools import']) expect(EMPTY_HINT).toContain(words);
    tg.close();
  });

  it('is not empty once a catalogue or a trace is there, before any rebuild', () => {
    const catalogued = new Toolgraph({ rebuildDelayMs: 60_000 });
    catalogued.predictNext({ context: [] });
    catalogued.setTools([{ name: 'search_flights', description: 'find flights' }]);
    expect(catalogued.searchTools({ query: 'find flights' }).kind).not.toBe('empty');
    expect(catalogued.predictNext({ context: [] }).kind).not.toBe('empty');
    catalogued.close();
    const traced = new Toolgraph({ rebuildDelayMs: 60_000 });
    traced.searchTools({ query: 'x' });
    traced.ingest({ intent: 'find flights', tools: ['search_flights', 'book_flight'] });
    const next = traced.predictNext({ context: ['search_flights'] });
    expect(next.kind).toBe('prediction');
    expect(traced.suggestDag({ intent: 'find flights' }).kind).not.toBe('empty');
    traced.close();
  });
});
