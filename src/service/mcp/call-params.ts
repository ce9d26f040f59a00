/**
 * `tools/call` requests whose params are not a call (no `name`, a `name` that is not a string,
 * `arguments` that are not an object) are answered with JSON-RPC -32602 (invalid params) and a
 * message naming the field, on any transport.
 *
 * Why at the transport and not in the request handler: the SDK parses a request against the
 * handler's schema before the handler runs, and a failure there goes out as -32603 (internal
 * error) with zod's issue list as its message; its Server's own check of tools/call (-32602)
 * comes after that parse and also sends zod's dump. So the params are checked here, on the
 * message as it arrives, with our own schema and message format (schema/issues.ts), and only
 * requests that pass reach the SDK.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isToolgraphError, ToolgraphError } from '../../schema/errors.js';
import { parseWith } from '../../schema/issues.js';

/** What the SDK's tools/call needs of its params; the rest (`_meta`, `task`) is the SDK's to check. */
const callParamsSchema = z.looseObject({
  name: z.string(),
  arguments: z.looseObject({}).optional(),
});

/** The message saying what is wrong with a tools/call's params, or undefined when they can be called. */
export function invalidCallParams(params: unknown): string | undefined {
  try {
    parseWith(callParamsSchema, params ?? {}, 'tools/call', ['params']);
    return undefined;
  } catch (error) {
    if (isToolgraphError(error)) return error.message;
    throw error;
  }
}

function isToolCall(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number; method: 'tools/call'; params?: unknown } {
  return 'method' in message && message.method === 'tools/call' && 'id' in message && message.id !== undefined;
}

/**
 * Answers invalid tools/call requests on `transport` itself; everything else goes on to the
 * server. Call it after `server.connect(transport)` (which sets `onmessage`), before any
 * message is read.
 */
export function refuseInvalidToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) throw new ToolgraphError('INTERNAL', 'refuseInvalidToolCalls: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    if (isToolCall(message)) {
      const problem = invalidCallParams(message.params);
      if (problem !== undefined) {
        void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } }).catch(() => {});
        return;
      }
    }
    deliver.call(transport, message, extra);
  };
}
