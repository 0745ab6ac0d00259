import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from '../server/createServer.js';

/** RALPH_MCP_DIRECT_CALLS=off: every request goes the SDK's way (to compare, or to rule this out). */
export const DIRECT_CALLS_ENV = 'RALPH_MCP_DIRECT_CALLS';

/**
 * The one shortcut past the SDK: a plain tools/call on a line transport (a name and plain arguments, no
 * `_meta`, no task), once the client has initialized, is answered here with the SDK's response byte for
 * byte (test/e2e/protocol.test.ts); everything else goes to the SDK, and only public members are used:
 * so does a call that waits on the client (a blocking ask put to the person, server/askInClient.ts).
 * It exists because the SDK's repeated zod parsing and copying of each call is a large share of its
 * server time, for synchronous calls that need none of it (figures: docs/architecture.md).
 * An answer may overtake an earlier, asynchronous request's, as JSON-RPC allows.
 */
export function answerPlainCallsDirectly(transport: Transport, mcp: McpSession, env = process.env): void {
  const sdk = transport.onmessage;
  const answer = mcp.answerCall;
  if (!sdk || !answer || env[DIRECT_CALLS_ENV]?.trim().toLowerCase() === 'off') return;
  transport.onmessage = (message, extra) => {
    const id = (message as { id?: unknown }).id;
    if (!isPlainToolCall(message) || mcp.server.getClientVersion() === undefined || mcp.viaSdk?.(message.params))
      return sdk(message, extra);
    let response: JSONRPCMessage;
    try {
      response = { result: answer(message.params), jsonrpc: '2.0', id } as JSONRPCMessage;
    } catch (err) {
      // As the SDK's Protocol turns a handler's throw into a JSON-RPC error.
      const e = err as { code?: unknown; message?: string; data?: unknown };
      const code = Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError;
      const error = { code, message: e.message ?? 'Internal error', ...(e.data !== undefined && { data: e.data }) };
      response = { jsonrpc: '2.0', id, error } as JSONRPCMessage;
    }
    transport.send(response).catch((err: unknown) => transport.onerror?.(new Error(`Failed to send: ${String(err)}`)));
  };
}

type PlainCall = {
  method: 'tools/call';
  id: string | number;
  params: { name: string; arguments?: Record<string, unknown> };
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A tools/call request whose params hold only a string name and plain-object (or no) arguments: what
 * CallToolRequestSchema accepts for them, checked without zod's copy. Anything else (`_meta`, `task`, a
 * wrong type) goes to the SDK, and its messages.
 */
export function isPlainToolCall(message: unknown): message is PlainCall {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'tools/call' || (typeof m.id !== 'number' && typeof m.id !== 'string')) return false;
  const params = m.params;
  if (!isPlainObject(params)) return false;
  for (const k in params) if (k !== 'name' && k !== 'arguments') return false;
  return typeof params.name === 'string' && (params.arguments === undefined || isPlainObject(params.arguments));
}
