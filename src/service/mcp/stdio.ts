/**
 * The MCP server over stdio (`toolgraph mcp`): JSON-RPC on stdin/stdout, so nothing else may
 * write to stdout; diagnostics go to stderr. Resolves when the client closes the pipe or the
 * process is asked to stop; the service is closed (pending traces committed) before that.
 *
 * One line of stdin is one message, of at most MAX_MCP_LINE_BYTES (10 MiB). A longer line is
 * answered with JSON-RPC -32600 (invalid request; id null, since its id was not read), noted
 * in one line on stderr and skipped; the session goes on (bounded-lines.ts says why the SDK's
 * transport reads our lines rather than stdin).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MCP_LINE_BYTES } from '../../schema/limits.js';
import type { ToolgraphService } from '../service.js';
import { BoundedLines } from './bounded-lines.js';
import { refuseInvalidToolCalls } from './call-params.js';
import { createMcpServer } from './server.js';

const LIMIT = `${MAX_MCP_LINE_BYTES} bytes (${MAX_MCP_LINE_BYTES / (1024 * 1024)} MiB)`;

export async function serveMcpStdio(service: ToolgraphService, stop: AbortSignal): Promise<void> {
  const server = createMcpServer(service, {
    onInternalError: (error, tool) => process.stderr.write(`toolgraph mcp: ${tool}: ${(error as Error).stack ?? String(error)}\n`),
  });
  const lines = new BoundedLines(MAX_MCP_LINE_BYTES, () => {
    const message = `a message on stdin is longer than ${LIMIT}, the limit of one line; it was skipped`;
    // Whole lines, as the transport writes its own: the two never interleave within a line.
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message } })}\n`);
    process.stderr.write(`toolgraph mcp: skipped a line of stdin longer than ${LIMIT}, the limit of one JSON-RPC message; answered with error ${ErrorCode.InvalidRequest}\n`);
  });
  process.stdin.pipe(lines);
  // Its own bound never applies: every line it reads is one of ours, at most the limit.
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    lines.once('end', () => resolve());
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  refuseInvalidToolCalls(transport);
  await closed;
  await server.close();
  await service.close();
}
