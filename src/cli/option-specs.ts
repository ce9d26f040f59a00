/**
 * Option specs that several commands share, and the values they accept, as the command table
 * (commands.ts) declares them and the implementations check them. Constants only: the table
 * imports this file to print help without loading any command.
 */
import { AUTO_FIT_DEFAULTS } from '../schema/fit-defaults.js';
import { DATABASE_URL_ENV, DEFAULT_DATA_DIR } from '../store/store-location.js';
import type { OptionSpec } from './command.js';

export const DATA_DIR_OPTION: Record<string, OptionSpec> = {
  'data-dir': {
    type: 'string',
    help: `the store's folder (PGlite; default ${DEFAULT_DATA_DIR}/ here); ${DATABASE_URL_ENV} selects PostgreSQL instead`,
  },
};

/** What a query command learns from: --data / --traces (with --tools) in memory, else the store. */
export const SOURCE_OPTIONS: Record<string, OptionSpec> = {
  data: { type: 'string', help: 'a dataset folder (workflows.jsonl, tools.jsonl) to learn from' },
  traces: { type: 'string', help: 'a JSONL file of traces (ReasoningTrace or compact) to learn from' },
  tools: { type: 'string', help: 'a tool catalogue (JSONL, or JSON: array or MCP tools/list result) for --data / --traces' },
  seed: { type: 'string', help: 'seed of every random step (default 42)' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
  // Without --data / --traces, the command answers from the store.
  ...DATA_DIR_OPTION,
};

/** The sources of `serve` and `mcp`: SOURCE_OPTIONS without --json, a catalogue for either, rebuild, capability and fitting settings. */
export const SERVICE_SOURCE_OPTIONS: Record<string, OptionSpec> = {
  ...Object.fromEntries(Object.entries(SOURCE_OPTIONS).filter(([name]) => name !== 'json')),
  tools: { type: 'string', help: 'a tool catalogue (JSONL, or JSON: array or MCP tools/list result), added to the store or to what --data / --traces learn' },
  'rebuild-delay': { type: 'string', help: 'ms from an ingestion to the model rebuild that includes it (default 2000)' },
  'learn-capabilities': { type: 'boolean', help: 'with the store: learn capabilities from the stored traces (more memory as traces grow; the in-memory sources always learn)' },
  'no-auto-fit': { type: 'boolean', help: 'with the store: never fit the weights by itself (toolgraph fit still does)' },
  'fit-first-at': { type: 'string', help: `with the store: stored traces before it fits by itself the first time (default ${AUTO_FIT_DEFAULTS.firstAt})` },
  'fit-growth': { type: 'string', help: `with the store: growth of the stored traces since the last fit that makes it fit again (default ${AUTO_FIT_DEFAULTS.growth}: a fifth more)` },
  'fit-interval': { type: 'string', help: `with the store: least ms from one fit to the next (default ${AUTO_FIT_DEFAULTS.minIntervalMs})` },
  'fit-idle': { type: 'string', help: `with the store: ms without a new trace after which it fits the traces its fit has not read, however few (default ${AUTO_FIT_DEFAULTS.idleMs})` },
  telemetry: { type: 'string', value: 'FILE', help: "append every workflow session's telemetry to FILE (JSON lines)" },
};

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
