/**
 * An MCP server (official SDK, `McpServer`) exposing the tool table over any transport: stdio
 * (stdio.ts) or Streamable HTTP (http.ts, mounted at `/mcp` by `toolgraph serve`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { renderError } from '../http/errors.js';
import type { ToolgraphService } from '../service.js';
import { MCP_TOOLS, type McpToolSpec } from './tools.js';

export const SERVER_NAME = 'toolgraph';
export const SERVER_VERSION = '0.1.0';

export interface McpServerOptions {
  /**
   * Whether a call may change state. Gets the call's auth info (set by the HTTP mount when the
   * bearer token matched). Default: always (stdio is a local, trusted pipe).
   */
  readonly canWrite?: (authInfo: unknown) => boolean;
  /** Called with errors that are ours (INTERNAL), for the log. */
  readonly onInternalError?: (error: unknown, tool: string) => void;
}

function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }] };
}

async function runTool(spec: McpToolSpec, service: ToolgraphService, args: Record<string, unknown>, options: McpServerOptions, authInfo: unknown): Promise<CallToolResult> {
  if (spec.write && options.canWrite !== undefined && !options.canWrite(authInfo)) {
    return errorResult('UNAUTHORIZED', `${spec.name} records data: send 'Authorization: Bearer <token>' with the server's TOOLGRAPH_TOKEN`);
  }
  try {
    const result = (await spec.call(service, args)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    const rendered = renderError(error);
    if (rendered.internal) options.onInternalError?.(error, spec.name);
    return errorResult(rendered.body.error.code, rendered.body.error.message);
  }
}

export function createMcpServer(service: ToolgraphService, options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: {} } });
  for (const spec of MCP_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.input,
        outputSchema: spec.output,
        annotations: { readOnlyHint: !spec.write, idempotentHint: !spec.write, openWorldHint: false },
      },
      (args: Record<string, unknown>, extra: { authInfo?: unknown }) => runTool(spec, service, args, options, extra.authInfo),
    );
  }
  return server;
}
