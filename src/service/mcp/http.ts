/**
 * The MCP server over Streamable HTTP, mounted at `/mcp` on the Fastify app (`toolgraph serve`).
 *
 * Stateless: every POST gets a fresh McpServer and transport (no session id), answered with JSON
 * rather than an SSE stream. Our tools are request/response and never notify, so sessions would
 * only add state to lose on restart; a stateless server also scales out behind a load balancer
 * and lets graceful shutdown finish in-flight calls without long-lived streams to cut. GET and
 * DELETE (the SSE stream and session end of stateful servers) answer 405, as the SDK's own
 * stateless example does.
 *
 * Auth: the bearer token is checked here and handed to the SDK as `authInfo`; write tools
 * refuse a call without it (tool error UNAUTHORIZED) while read tools stay open, as on `/v1`.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ToolgraphService } from '../service.js';
import { refuseInvalidToolCalls } from './call-params.js';
import { createMcpServer } from './server.js';

export interface McpHttpOptions {
  readonly path?: string;
  /** Whether the request's `Authorization` header carries the write token. */
  readonly authorized: (header: string | undefined) => boolean;
  readonly bodyLimit: number;
  /** True once the server is shutting down: responses then close their connection. */
  readonly closing: () => boolean;
}

const METHOD_NOT_ALLOWED = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC requests to this path' },
  id: null,
});

export function mountMcpHttp(app: FastifyInstance, service: ToolgraphService, options: McpHttpOptions): void {
  const path = options.path ?? '/mcp';
  app.post(path, { bodyLimit: options.bodyLimit }, async (request, reply) => {
    const raw = request.raw as typeof request.raw & { auth?: { token: string; clientId: string; scopes: string[] } };
    const header = request.headers.authorization;
    if (options.authorized(header)) raw.auth = { token: 'bearer', clientId: 'bearer', scopes: ['write'] };
    const server = createMcpServer(service, {
      canWrite: (authInfo) => authInfo !== undefined,
      onInternalError: (error, tool) => request.log.error({ err: error, tool }, 'mcp tool failed'),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    if (options.closing()) reply.raw.setHeader('connection', 'close');
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      refuseInvalidToolCalls(transport);
      await transport.handleRequest(raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  });
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').type('application/json').send(METHOD_NOT_ALLOWED);
  app.get(path, notAllowed);
  app.delete(path, notAllowed);
}
