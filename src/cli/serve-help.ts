/**
 * What `toolgraph --help`, `serve --help` and `mcp --help` say the servers offer, built from the
 * tables they mount: every HTTP endpoint (routes.ts: the /v1 table and those beside it) and every
 * MCP tool (mcp/tools.ts). Loaded only when a help is shown (command.ts, `help`): the tables bring
 * zod and every request schema with them, which no other command line needs.
 */
import { ROUTES, SERVICE_ENDPOINTS } from '../service/http/routes.js';
import { MCP_TOOLS } from '../service/mcp/tools.js';
import type { CommandHelp } from './command.js';

/** `name  summary` lines under a heading, the names padded to one column. */
function listing(heading: string, rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return `${heading}:\n${rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join('\n')}`;
}

/** The MCP tools as the server registers them (mcp/tools.ts), by name and title. */
function mcpToolsListing(): string {
  return listing('MCP tools', MCP_TOOLS.map((t) => [t.name, `${t.title}${t.write ? ' (writes)' : ''}.`] as const));
}

/** Every HTTP endpoint the server mounts: the /v1 table (routes.ts) and the ones beside it. */
function endpointsListing(): string {
  const rows = [...ROUTES, ...SERVICE_ENDPOINTS].map((r) => [`${r.method} ${r.url}`, r.summary] as const);
  return listing('Endpoints', rows);
}

export function serveHelp(): CommandHelp {
  return {
    summary: `HTTP service: JSON API under /v1 (${ROUTES.length} endpoints), /healthz, /metrics, the MCP server at /mcp (${MCP_TOOLS.length} tools), and the dashboard at /.`,
    details: `${endpointsListing()}\n\n${mcpToolsListing()}`,
  };
}

export function mcpHelp(): CommandHelp {
  return { summary: `MCP server over stdio: ${MCP_TOOLS.map((t) => t.name).join(', ')}.`, details: mcpToolsListing() };
}
