/**
 * The MCP server over stdio (`toolgraph mcp`): JSON-RPC on stdin/stdout, so nothing else may
 * write to stdout; diagnostics go to stderr. Resolves when the client closes the pipe or the
 * process is asked to stop; the service is closed (pending traces committed) before that.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolgraphService } from '../service.js';
import { refuseInvalidToolCalls } from './call-params.js';
import { createMcpServer } from './server.js';

export async function serveMcpStdio(service: ToolgraphService, stop: AbortSignal): Promise<void> {
  const server = createMcpServer(service, {
    onInternalError: (error, tool) => process.stderr.write(`toolgraph mcp: ${tool}: ${(error as Error).stack ?? String(error)}\n`),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  refuseInvalidToolCalls(transport);
  await closed;
  await server.close();
  await service.close();
}
