/**
 * The in-memory Toolgraph of the query commands' --data / --traces / --tools: what it learned
 * from those files, fitted or not.
 */
import { ToolgraphError } from '../schema/errors.js';
import { readJsonlFile } from '../schema/jsonl.js';
import { parseTrace, workflowToTrace } from '../schema/trace.js';
import type { Trace } from '../schema/types.js';
import { Toolgraph, type ToolgraphOptions } from '../service/toolgraph.js';
import type { CliOutput, Values } from './command.js';
import { intOption } from './options.js';
import { readDataset } from './read-dataset.js';
import { fromFile, readToolsOption } from './input-files.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** Builds an in-memory Toolgraph from --data / --traces / --tools, fitted on what it learned. */
export async function loadToolgraph(values: Values, io: CliOutput, options: ToolgraphOptions = {}): Promise<Toolgraph> {
  const { tg } = await learnInMemory(values, io, options);
  tg.fit();
  return tg;
}

/** An in-memory Toolgraph that learned from --data / --traces / --tools, not fitted, and the traces it learned. */
export async function learnInMemory(values: Values, io: CliOutput, options: ToolgraphOptions = {}): Promise<{ tg: Toolgraph; traces: readonly Trace[] }> {
  const seed = intOption(values, 'seed', DEFAULT_SEED, 0);
  const tg = new Toolgraph({ seed, ...options });
  const data = values['data'];
  const traces = values['traces'];
  const tools = values['tools'];
  if (data === undefined && traces === undefined) {
    throw new ToolgraphError('INVALID_INPUT', 'expected --data DIR or --traces FILE to learn from');
  }
  let learned: Trace[] = [];
  if (typeof data === 'string') {
    const dataset = await readDataset(data, io);
    tg.setTools(dataset.tools);
    learned = dataset.workflows.map(workflowToTrace);
    tg.ingestTraces(learned);
  }
  if (typeof tools === 'string') {
    const catalog = await readToolsOption(tools, io);
    await fromFile(tools, () => tg.setTools(catalog, { strict: true }));
  }
  if (typeof traces === 'string') {
    const read = await readJsonlFile(traces, (v) => parseTrace(v));
    tg.ingestTraces(read);
    learned = learned.concat(read);
  }
  return { tg, traces: learned };
}
