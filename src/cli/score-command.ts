/**
 * `toolgraph score FILE`: the value of ReasoningTraces (specs 000/001) with the breakdown of
 * every dimension, each trace at or above the threshold contributed to the novelty memory.
 */
import { ToolgraphError } from '../schema/errors.js';
import { parseJsonlLines, readTextFile } from '../schema/jsonl.js';
import { contributeTrace } from '../scoring/contribute-trace.js';
import { VectorCache } from '../scoring/vector-cache.js';
import { createEmbedder } from '../text/embedder-config.js';
import type { CliOutput, Values } from './command.js';
import { fromFile, parseJson } from './input-files.js';
import { decimalOption } from './options.js';
import { formatTable } from './table.js';

export async function runScore(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const file = positionals[0];
  if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'score: expected FILE (a JSON ReasoningTrace, or JSONL of them)');
  const threshold = decimalOption(values, 'threshold', 0, 1);
  // Each trace with where it was: its line in JSONL, the file for one JSON trace.
  const traces = file.endsWith('.jsonl')
    ? parseJsonlLines(await readTextFile(file), (value, line) => ({ value, at: { file, line } }), file)
    : [{ value: parseJson(await readTextFile(file), file), at: { file } }];
  // Traces are scored in file order; each one at or above the threshold enters the novelty
  // memory, so later traces are novel relative to the contributed earlier ones.
  const spec = typeof values['embedder'] === 'string' ? values['embedder'] : undefined;
  const embedder = values['no-embedder'] === true ? null : await createEmbedder(spec);
  const cache = new VectorCache(embedder === null ? {} : { dimensions: embedder.dimensions });
  const rows: (string | number)[][] = [];
  for (const [i, { value: trace, at }] of traces.entries()) {
    const result = await fromFile(at, () => contributeTrace(trace, { cache, embedder, ...(threshold !== undefined ? { threshold } : {}) }));
    const b = result.breakdown;
    const id = (trace as { id?: unknown }).id;
    if (values['json'] === true) {
      io.out(`${JSON.stringify({ id: typeof id === 'string' ? id : null, contributed: result.contributed, ...b })}\n`);
      continue;
    }
    rows.push([
      typeof id === 'string' ? id : `#${i + 1}`,
      b.score,
      b.dimensions.complexity,
      b.dimensions.novelty,
      b.dimensions.toolDiversity,
      b.dimensions.outcomeConfidence,
      b.profile,
      b.overrides.map((o) => o.rule).join(' ') || '-',
      result.contributed ? 'yes' : 'no',
    ]);
  }
  if (values['json'] !== true) {
    io.out(`${formatTable(['trace', 'value', 'C', 'N', 'D', 'O', 'profile', 'overrides', 'contributed'], rows)}\n`);
  }
}
