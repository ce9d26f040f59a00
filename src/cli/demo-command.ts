/**
 * `toolgraph demo`: the main job on the bundled sample (NESTFUL, Apache-2.0, in samples/):
 * store it, learn, fit, then predict, search and suggest a workflow from the store.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolgraphError } from '../schema/errors.js';
import type { CliOutput, Values } from './command.js';
import { dagTable, itemsTable } from './query-commands.js';
import { storeLabel, withLearnedStore } from './store-access.js';
import { ingestSources } from './store-commands.js';

const DEMO_DAG_INTENT = 'Find flights from New York to London on August 15, 2024 and hotels in London';

/** The bundled sample's folder, next to the package (from dist/src/cli or src/cli). */
export function sampleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..']) {
    const candidate = resolve(here, up, 'samples', 'nestful');
    if (existsSync(candidate)) return candidate;
  }
  throw new ToolgraphError('NOT_FOUND', 'toolgraph: bundled samples/nestful not found next to the package');
}

export async function runDemo(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const dir = sampleDir();
  const out = await withLearnedStore(values, async (tg) => {
    // The sample's workflows carry ids: a second run stores nothing new and skips the fit.
    const ingest = await ingestSources({}, [dir], tg);
    const fitted = ingest.ingested > 0 || tg.engine.fittedWeights.source !== 'fitted' ? await tg.fit() : null;
    return {
      ingest,
      fitted: fitted !== null,
      stats: await tg.stats(),
      prediction: await tg.predictNext({ context: ['TripadvisorSearchLocation'], intent: 'Find the best-rated hotels in Rome for next weekend' }),
      search: await tg.searchTools({ query: 'find flights from New York to London' }),
      dag: await tg.suggestDag({ intent: DEMO_DAG_INTENT }),
    };
  });
  const { stats, prediction, search, dag } = out;
  const store = { where: storeLabel(values), stored: out.ingest.ingested, alreadyStored: out.ingest.duplicates, fitted: out.fitted };
  if (values['json'] === true) {
    io.out(`${JSON.stringify({ stats, store })}\n${JSON.stringify({ prediction })}\n${JSON.stringify({ search })}\n${JSON.stringify({ dag })}\n`);
    return;
  }
  io.out(
    [
      `stored ${dir} in ${store.where}: ${store.stored} new traces (${store.alreadyStored} already there)${store.fitted ? ', fitted the ranker' : ''}`,
      `the store now holds ${stats.traces} traces, ${stats.tools} tools, ${stats.transitions} transitions`,
      '',
      'next tool after TripadvisorSearchLocation, intent "Find the best-rated hotels in Rome for next weekend":',
      itemsTable(prediction.items),
      '',
      'tools for "find flights from New York to London":',
      itemsTable(search.items),
      '',
      `a workflow for "${DEMO_DAG_INTENT}":`,
      dagTable(dag),
      '',
    ].join('\n'),
  );
}
