/**
 * The CLI's command table: what each command is called, says, takes and shows in its help. A
 * descriptor is data alone; its `run` loads the command's module by dynamic import when the
 * command runs, so any one command loads no other command's code. `serve` and `mcp` list what
 * they offer from the servers' tables (serve-help.ts), loaded by their `help` only for a help.
 */
import type { CliOutput, Command, Values } from './command.js';
import { EVAL_TASK_NAMES } from './eval-tasks.js';
import { DATA_DIR_OPTION, LOG_LEVELS, SERVICE_SOURCE_OPTIONS, SOURCE_OPTIONS } from './option-specs.js';

type Run = (values: Values, positionals: readonly string[], io: CliOutput) => Promise<void>;

/** A `run` that loads its implementation on the first call. */
function lazy(load: () => Promise<Run>): Run {
  return async (values, positionals, io) => (await load())(values, positionals, io);
}

const demo: Command = {
  name: 'demo',
  summary: 'The main job on the bundled sample: store it, learn, fit, then predict, search and suggest a workflow from the store.',
  usage: 'demo [--data-dir DIR] [--json]',
  example: 'toolgraph demo',
  options: { ...DATA_DIR_OPTION, json: { type: 'boolean', help: 'print JSON lines instead of tables' } },
  run: lazy(async () => (await import('./demo-command.js')).runDemo),
};

const predict: Command = {
  name: 'predict',
  summary: 'Rank the next tool after the tools called so far (and the task intent).',
  usage: 'predict [--data DIR | --traces FILE | --data-dir DIR] --after a,b [--intent TEXT] [--k N] [--profile default|seed] [--json]',
  example: 'toolgraph predict --data samples/nestful --after TripadvisorSearchLocation --intent "hotels in Rome"',
  options: {
    ...SOURCE_OPTIONS,
    after: { type: 'string', help: 'comma-separated tools called so far, in order' },
    context: { type: 'string', help: 'the same as --after' },
    intent: { type: 'string', help: "the task's intent in words" },
    k: { type: 'string', help: 'number of results (default 5)' },
    profile: { type: 'string', help: "'default' (fitted) or 'seed' (spec 003 as written)" },
  },
  run: lazy(async () => (await import('./query-commands.js')).runPredict),
};

const search: Command = {
  name: 'search',
  summary: 'Rank the tools that fit a request in words.',
  usage: 'search QUERY [--data DIR | --traces FILE | --data-dir DIR] [--context a,b] [--k N] [--profile default|seed] [--json]',
  example: 'toolgraph search "find flights to Paris" --data samples/nestful',
  positionals: '[query...]',
  options: {
    ...SOURCE_OPTIONS,
    query: { type: 'string', help: 'the request in words, instead of QUERY' },
    context: { type: 'string', help: 'comma-separated tools called so far' },
    k: { type: 'string', help: 'number of results (default 5)' },
    profile: { type: 'string', help: "'default' (fitted) or 'seed' (spec 003 section 1 as written: adaptive alpha)" },
  },
  run: lazy(async () => (await import('./query-commands.js')).runSearch),
};

const dag: Command = {
  name: 'dag',
  summary: 'Suggest a workflow (a DAG of tools with dependencies and confidences) for an intent.',
  usage: 'dag INTENT [--data DIR | --traces FILE | --data-dir DIR] [--context a,b] [--max-nodes N] [--expand] [--json]',
  example: 'toolgraph dag "find flights from New York to London and hotels in London" --data samples/nestful',
  positionals: '[intent...]',
  options: {
    ...SOURCE_OPTIONS,
    intent: { type: 'string', help: 'the task in words, instead of INTENT' },
    context: { type: 'string', help: 'comma-separated tools already called (not suggested again)' },
    'max-nodes': { type: 'string', help: 'largest number of steps (default 10)' },
    expand: { type: 'boolean', help: 'list a capability\'s tools as separate nodes' },
  },
  run: lazy(async () => (await import('./query-commands.js')).runDag),
};

const fit: Command = {
  name: 'fit',
  summary: "Fit the default profile's weights on recorded traces (learning to rank) and print them.",
  usage: 'fit [--data DIR | --traces FILE | --data-dir DIR] [--tools FILE] [--json]',
  example: 'toolgraph fit --data samples/nestful',
  options: SOURCE_OPTIONS,
  run: lazy(async () => (await import('./fit-command.js')).runFit),
};

const score: Command = {
  name: 'score',
  summary: 'Score the value of ReasoningTraces (specs 000/001) with the breakdown of every dimension.',
  usage: 'score FILE [--threshold X] [--embedder SPEC | --no-embedder] [--json]',
  example: 'toolgraph score traces.jsonl --json',
  positionals: '[file]',
  options: {
    threshold: { type: 'string', help: 'value at or above which a trace is contributed to the novelty memory (default 0.75)' },
    'no-embedder': { type: 'boolean', help: 'score without the built-in embedder (novelty 0.5)' },
    embedder: {
      type: 'string',
      value: 'SPEC',
      help: 'hashed, none, transformers:DIR or openai:URL (docs/library.md, Embedders); default $TOOLGRAPH_EMBEDDER, else hashed',
    },
    json: { type: 'boolean', help: 'one JSON line per trace: the full breakdown' },
  },
  run: lazy(async () => (await import('./score-command.js')).runScore),
};

const evaluate: Command = {
  name: 'eval',
  summary: "Evaluate next-tool prediction, tool search, no-match, DAG suggestion, feedback, capability ranking, a store's answers as its traffic grows (online) or workflow sessions on public data, beside the baselines.",
  usage: `eval <${EVAL_TASK_NAMES.join('|')}> --data DIR [--foreign DIR2] [--folds K] [--no-intent] [--context] [--cold-tools] [--validation] [--model-accuracy P] [--json]`,
  example: 'toolgraph eval next --data ../shared/data/ultratool',
  positionals: '[task]',
  options: {
    data: { type: 'string', help: 'a dataset folder, or a folder of dataset folders (all are run)' },
    folds: { type: 'string', help: 'K-fold by a stable hash of ids instead of the split field' },
    'no-intent': { type: 'boolean', help: 'next, feedback: predict without the intent text' },
    context: { type: 'boolean', help: 'search: with the tools called so far (the next-tool positions, the intent as the query)' },
    'cold-tools': { type: 'boolean', help: 'search: a fifth of the tools (by a hash of the name) held out of training with every workflow that calls one; the requests that name one' },
    foreign: { type: 'string', help: 'nomatch: a dataset folder (or folder of them) whose intents must come back no-match' },
    validation: { type: 'boolean', help: 'hold out a quarter of train instead of reading test (for design choices)' },
    alternative: { type: 'string', help: "feedback: the drifted transitions' working alternative, runner-up (default) or random" },
    'model-accuracy': { type: 'string', help: "session: the stand-in model tier's accuracy p (default 0.9)" },
    seed: { type: 'string', help: 'seed of every random step (default 42)' },
    json: { type: 'boolean', help: 'one JSON line per method' },
  },
  run: lazy(async () => (await import('./eval-command.js')).runEval),
};

const ingest: Command = {
  name: 'ingest',
  summary: 'Store traces (JSONL of any trace format, or dataset folders) durably and learn from them.',
  usage: 'ingest FILE... [--data-dir DIR] [--strict] [--json]',
  example: 'toolgraph ingest traces.jsonl ../shared/data/ultratool',
  positionals: '[files...]',
  options: {
    ...DATA_DIR_OPTION,
    strict: { type: 'boolean', help: 'write nothing if any line is rejected (exit 2)' },
    seed: { type: 'string', help: 'seed of every random step (default 42)' },
    json: { type: 'boolean', help: 'print the summary as JSON' },
  },
  run: lazy(async () => (await import('./store-commands.js')).runIngest),
};

const tools: Command = {
  name: 'tools',
  summary: 'Import a tool catalogue (JSONL, a JSON array, an MCP tools/list result, an OpenAPI 3 document) into the store, or list the stored one.',
  usage: 'tools import FILE [--strict] | tools list [--data-dir DIR] [--json]',
  example: 'toolgraph tools import mcp-tools-list.json',
  positionals: '[action] [file]',
  options: {
    ...DATA_DIR_OPTION,
    strict: { type: 'boolean', help: 'import: import nothing if any entry cannot be read (exit 2)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  run: lazy(async () => (await import('./store-commands.js')).runTools),
};

const capabilities: Command = {
  name: 'capabilities',
  summary: 'Register capabilities (named groups of tools) in the store, list them, rank them, or show one.',
  usage: 'capabilities import FILE | list | rank [--intent TEXT] [--context a,b] [--k N] | show ID [--data-dir DIR] [--json]',
  example: 'toolgraph capabilities import capabilities.json && toolgraph capabilities rank --intent "book a hotel"',
  positionals: '[action] [arg]',
  options: {
    ...DATA_DIR_OPTION,
    intent: { type: 'string', help: "rank: the task's intent in words" },
    context: { type: 'string', help: 'rank: comma-separated tools called so far, in order' },
    k: { type: 'string', help: 'rank: number of results (default 5)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  run: lazy(async () => (await import('./store-commands.js')).runCapabilities),
};

const stats: Command = {
  name: 'stats',
  summary: 'What the store has learned: tools, transitions, communities, top tools by PageRank.',
  usage: 'stats [--data-dir DIR] [--top N] [--json]',
  example: 'toolgraph stats --top 5',
  options: {
    ...DATA_DIR_OPTION,
    top: { type: 'string', help: 'how many top tools to list (default 10)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  run: lazy(async () => (await import('./store-commands.js')).runStats),
};

const exportGraph: Command = {
  name: 'export',
  summary: 'Export the learned graph as JSON or GraphML.',
  usage: 'export [--format json|graphml | --json] [--out FILE] [--data-dir DIR]',
  example: 'toolgraph export --format graphml --out toolgraph.graphml',
  options: {
    ...DATA_DIR_OPTION,
    format: { type: 'string', help: "'json' (default) or 'graphml'" },
    json: { type: 'boolean', help: 'the same as --format json (as every command takes --json)' },
    out: { type: 'string', help: 'write to FILE (whole, through a temporary file) instead of stdout' },
  },
  run: lazy(async () => (await import('./store-commands.js')).runExport),
};

const serve: Command = {
  name: 'serve',
  summary: 'HTTP service: JSON API under /v1, /healthz, /metrics, the MCP server at /mcp, and the dashboard at /.',
  help: async () => (await import('./serve-help.js')).serveHelp(),
  usage: 'serve [--data-dir DIR | --data DIR | --traces FILE] [--tools FILE] [--port N] [--host H] [--log-level L] [--allow-origin O,...] [--rebuild-delay MS] [--learn-capabilities] [--no-auto-fit | --fit-first-at N --fit-growth X --fit-interval MS --fit-idle MS] [--telemetry FILE]',
  example: 'TOOLGRAPH_TOKEN=secret toolgraph serve --port 8080',
  options: {
    ...SERVICE_SOURCE_OPTIONS,
    port: { type: 'string', help: 'port to listen on (default 8080; 0 picks a free one)' },
    host: { type: 'string', help: 'address to bind (default 127.0.0.1; 0.0.0.0 for every interface)' },
    'log-level': { type: 'string', help: `request log level: ${LOG_LEVELS.join(', ')} (default info)` },
    'allow-origin': {
      type: 'string',
      help: 'web origins besides loopback ones whose pages may call the server, comma-separated (default: TOOLGRAPH_ALLOWED_ORIGINS); other origins get 403',
    },
  },
  run: lazy(async () => (await import('./serve-commands.js')).runServe),
};

const mcp: Command = {
  name: 'mcp',
  summary: 'MCP server over stdio.',
  help: async () => (await import('./serve-help.js')).mcpHelp(),
  usage: 'mcp [--data-dir DIR | --data DIR | --traces FILE] [--tools FILE] [--rebuild-delay MS] [--learn-capabilities] [--no-auto-fit | --fit-first-at N --fit-growth X --fit-interval MS --fit-idle MS] [--telemetry FILE]',
  example: 'toolgraph mcp',
  options: SERVICE_SOURCE_OPTIONS,
  run: lazy(async () => (await import('./serve-commands.js')).runMcp),
};

const session: Command = {
  name: 'session',
  summary: 'Replay recorded workflows as budget-controlled sessions (spec 002) and print each decision.',
  usage: 'session replay FILE [--data DIR | --traces FILE | --data-dir DIR] [--mode adaptive|deterministic] [--budget CENTS] [--telemetry FILE] [--json]',
  example: 'toolgraph session replay samples/nestful/workflows.jsonl --data samples/nestful',
  positionals: '[action] [file]',
  options: {
    ...SOURCE_OPTIONS,
    mode: { type: 'string', help: "'adaptive' (default: a model tier for the steps the graph is unsure of, with TOOLGRAPH_LLM_URL) or 'deterministic'" },
    budget: { type: 'string', value: 'CENTS', help: "each session's budget in US cents (default SESSION_BUDGET_CENTS, 100)" },
    telemetry: { type: 'string', value: 'FILE', help: "append the sessions' telemetry to FILE (JSON lines)" },
    'rebuild-delay': { type: 'string', help: 'ms from an ingestion to the model rebuild that includes it (default 2000)' },
  },
  run: lazy(async () => (await import('./session-replay.js')).runSessionReplay),
};

export const COMMANDS: readonly Command[] = [demo, predict, search, dag, fit, score, evaluate, session, ingest, tools, capabilities, stats, exportGraph, serve, mcp];
