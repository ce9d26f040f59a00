/**
 * A catalogue's declared outputs (the data flow DAG suggestion reads) survive every way into the
 * service: a dataset line (`output_parameters`), a ToolInfo read back (`outputs`: GET /v1/tools,
 * the store, a loaded dataset), and a restart from the PGlite store. They used to be dropped
 * whenever a ToolInfo went through setTools again, so served DAGs had no data-flow edges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { DagSuggestion } from '../../src/recommend/dag/suggest-dag.js';
import { openToolgraph } from '../../src/service/durable-toolgraph.js';
import { Toolgraph } from '../../src/service/toolgraph.js';

const param = (name: string) => ({ name, type: 'string', description: '', required: true });

/** As a dataset's tools.jsonl writes them. */
const datasetLines = [
  { name: 'search_airport', description: 'Find an airport by city name', params: [param('query')], output_parameters: ['skyId', 'entityId'] },
  { name: 'search_flights', description: 'Search flights between airports', params: [param('originSkyId'), param('destinationSkyId')], output_parameters: ['flightId'] },
  { name: 'book_flight', description: 'Book a flight', params: [param('flightId')], output_parameters: ['bookingId'] },
  { name: 'get_weather', description: 'Weather forecast for a city', params: [param('city')] },
];

const OUTPUTS = { search_airport: ['skyId', 'entityId'], search_flights: ['flightId'], book_flight: ['bookingId'], get_weather: undefined };

const traces = Array.from({ length: 6 }, (_, i) => ({
  id: `f${i}`,
  intent: `find the airport of city ${i} and search flights to the coast, then book the flight`,
  tools: ['search_airport', 'search_flights', 'book_flight'],
  success: true,
}));

const INTENT = 'find the airport of city 9 and search flights to the coast, then book the flight';

function dataFlowEdges(dag: DagSuggestion): string[] {
  const toolOf = new Map(dag.nodes.map((n) => [n.id, n.kind === 'tool' ? n.tool : n.tools.join('+')]));
  return dag.edges.filter((e) => e.source === 'data-flow').map((e) => `${toolOf.get(e.from)} -> ${toolOf.get(e.to)}`);
}

function outputsOf(tools: readonly { name: string; outputs?: readonly string[] }[]): Record<string, readonly string[] | undefined> {
  return Object.fromEntries(tools.map((t) => [t.name, t.outputs]));
}

describe('catalogue outputs through the service', () => {
  it('keeps them from dataset lines and when its own catalogue is set again, and the DAG follows them', () => {
    const tg = new Toolgraph({ seed: 1 });
    tg.setTools(datasetLines);
    expect(outputsOf(tg.tools())).toEqual(OUTPUTS);
    // What GET /v1/tools returns, put back as it is.
    tg.setTools(tg.tools().map((t) => ({ ...t })));
    expect(outputsOf(tg.tools())).toEqual(OUTPUTS);
    tg.ingest(traces);
    const edges = dataFlowEdges(tg.suggestDag({ intent: INTENT, expandCapabilities: true }));
    expect(edges).toEqual(['search_airport -> search_flights', 'search_flights -> book_flight']);
  });

  describe('durable (PGlite)', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgraph-outputs-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('keeps them in the engine after import and after a restart', async () => {
      const dataDir = join(root, 'data');
      const first = await openToolgraph({ dataDir, seed: 1, rebuildDelayMs: 10 });
      try {
        await first.setTools(datasetLines);
        await first.ingest(traces);
        expect(outputsOf(await first.tools())).toEqual(OUTPUTS);
        // The traces reach the model after the rebuild's debounce.
        await vi.waitFor(async () => {
          expect(dataFlowEdges(await first.suggestDag({ intent: INTENT, expandCapabilities: true }))).toEqual([
            'search_airport -> search_flights',
            'search_flights -> book_flight',
          ]);
        });
      } finally {
        await first.close();
      }
      const again = await openToolgraph({ dataDir, seed: 1 });
      try {
        expect(outputsOf(await again.tools())).toEqual(OUTPUTS);
        expect(dataFlowEdges(await again.suggestDag({ intent: INTENT, expandCapabilities: true }))).toEqual([
          'search_airport -> search_flights',
          'search_flights -> book_flight',
        ]);
      } finally {
        await again.close();
      }
    }, 60_000);
  });
});
