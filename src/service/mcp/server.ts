/**
 * An MCP server (the official SDK's `Server`) exposing the tool table (tools.ts) over any
 * transport: stdio (stdio.ts) or Streamable HTTP (http.ts, mounted at `/mcp` by `serve`).
 *
 * We answer `tools/list` and `tools/call` ourselves rather than through `McpServer.registerTool`
 * so that argument validation goes through our zod boundary (`parseWith`): a bad argument then
 * comes back as the same `{error: {code, message}}` as on HTTP, with a stable code and a path,
 * instead of the SDK's own zod message. Schemas are listed as JSON Schema draft-07, which is
 * what the SDK's client validates structured results with.
 */
import { VERSION } from '../../schema/version.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseWith } from '../../schema/issues.js';
import { renderError } from '../http/errors.js';
import type { ToolgraphService } from '../service.js';
import { MCP_TOOLS, type McpToolSpec } from './tools.js';

export const SERVER_NAME = 'toolgraph';
/** The version the MCP handshake gives: the package's. */
export const SERVER_VERSION = VERSION;

export interface McpServerOptions {
  /**
   * Whether a call may change state, given the call's auth info (set by the HTTP mount when the
   * bearer token matched). Default: always (stdio is a local, trusted pipe).
   */
  readonly canWrite?: (authInfo: unknown) => boolean;
  /** Called with errors that are ours (INTERNAL), for the log. */
  readonly onInternalError?: (error: unknown, tool: string) => void;
}

function objectJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest as Tool['inputSchema'];
}

/** The `tools/list` entries, computed once: the table does not change at run time. */
function listing(specs: readonly McpToolSpec[]): Tool[] {
  return specs.map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: objectJsonSchema(spec.input, 'input'),
    outputSchema: objectJsonSchema(spec.output, 'output') as Tool['outputSchema'],
    annotations: { title: spec.title, readOnlyHint: !spec.write, idempotentHint: !spec.write, openWorldHint: false },
  }));
}

let cachedListing: Tool[] | undefined;

function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }] };
}

async function callTool(service: ToolgraphService, name: string, args: unknown, authInfo: unknown, options: McpServerOptions): Promise<CallToolResult> {
  const spec = MCP_TOOLS.find((s) => s.name === name);
  if (spec === undefined) return errorResult('NOT_FOUND', `no tool named ${JSON.stringify(name.slice(0, 100))}; tools: ${MCP_TOOLS.map((s) => s.name).join(', ')}`);
  if (spec.write && options.canWrite !== undefined && !options.canWrite(authInfo)) {
    return errorResult('UNAUTHORIZED', `${spec.name} records data: send 'Authorization: Bearer <token>' with the server's TOOLGRAPH_TOKEN`);
  }
  try {
    // Validated here for the error, but the raw arguments go on: zod's record drops an own
    // `__proto__` key, which the service's strict trace schema must see to reject.
    const raw = (args ?? {}) as Record<string, unknown>;
    parseWith(spec.input, raw, spec.name);
    const result = (await spec.call(service, raw)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    const rendered = renderError(error);
    if (rendered.internal) options.onInternalError?.(error, spec.name);
    return errorResult(rendered.body.error.code, rendered.body.error.message);
  }
}

export function createMcpServer(service: ToolgraphService, options: McpServerOptions = {}): Server {
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (cachedListing ??= listing(MCP_TOOLS)) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(service, request.params.name, request.params.arguments, extra.authInfo, options),
  );
  return server;
}

