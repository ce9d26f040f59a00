/**
 * The performance benchmarks as a script: `npm run bench -- [--case C] [--tools N] [--edges M]
 * [--seed S] [--json]` after `npm run build` (or `node --max-semi-space-size=64
 * dist/bench/perf/main.js ...`, the V8 flag the served process runs with). It is not a
 * `toolgraph` command: its reference implementations (graphology-metrics) and load generator
 * (autocannon) are development dependencies, which an installed package does not have.
 *
 * Exit codes as the CLI's: 0 success (and --help), 2 bad usage or an invalid value, 1 any other
 * error.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { intOption } from '../../src/cli/options.js';
import { isToolgraphError, ToolgraphError } from '../../src/schema/errors.js';
import { BENCH_CASES, runBench, type BenchCase } from './run-bench.js';

const USAGE = `usage: npm run bench -- [--case ${BENCH_CASES.join('|')}] [--tools N] [--edges M] [--seed S] [--json]

Performance benchmarks on seeded synthetic graphs with planted communities.

Options:
  --case <value>   one case (${BENCH_CASES.join(', ')}); default all
  --tools <value>  number of tools (default 10000)
  --edges <value>  number of directed edges (default 100000)
  --seed <value>   seed (default 42)
  --json           one JSON line per case
  -h, --help       show this help

Example:
  npm run bench -- --case predict --tools 10000 --edges 100000
`;

/** Runs the benchmarks `argv` asks for and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        case: { type: 'string' },
        tools: { type: 'string' },
        edges: { type: 'string' },
        seed: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const values = parsed.values;
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const only = values.case;
    if (only !== undefined && !(BENCH_CASES as readonly string[]).includes(only)) {
      throw new ToolgraphError('INVALID_INPUT', `--case must be one of ${BENCH_CASES.join(', ')}`);
    }
    await runBench({
      cases: only !== undefined ? [only as BenchCase] : [...BENCH_CASES],
      tools: intOption(values, 'tools', 10_000, 2),
      edges: intOption(values, 'edges', 100_000, 1),
      seed: intOption(values, 'seed', 42, 0),
      json: values.json === true,
    });
    return 0;
  } catch (error) {
    if (isToolgraphError(error)) {
      process.stderr.write(`bench: ${error.code}: ${error.message}\n`);
      return error.code === 'INVALID_INPUT' ? 2 : 1;
    }
    process.stderr.write(`bench: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
