import {
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  PingRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { isPlainInitialize } from './plainInitialize.js';

/** The members a JSON-RPC request may have. */
const REQUEST_MEMBERS = ['jsonrpc', 'id', 'method', 'params'];

/**
 * One line as read: a valid message, or why it is not one and how to answer it. JSON-RPC 2.0 asks for
 * an answer to every request: a line that is not JSON gets -32700; one that is JSON but not a
 * JSON-RPC message gets -32600, with the request's id when it has a usable one. An invalid
 * notification or response gets nothing (neither is ever answered).
 */
export type LineOutcome = { message: JSONRPCMessage } | { reason: string; answer?: ErrorCode; id?: string | number };

/** One line → a valid message, or why it is not one and how (whether) to answer; null for a blank line. */
export function readLine(line: Buffer): LineOutcome | null {
  let text = line.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reason: `Parse error: ${(err as Error).message}`, answer: ErrorCode.ParseError };
  }
  if (isPlainRequest(value)) return sdkParamsChecked(value, true);
  if (isPlainNotification(value)) return { message: value };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return sdkParamsChecked(parsed.data as JSONRPCMessage, false);
  if (Array.isArray(value)) {
    return {
      reason: 'Invalid Request: batches (JSON arrays) are not supported; send one JSON-RPC message per line',
      answer: ErrorCode.InvalidRequest,
    };
  }
  if (value === null || typeof value !== 'object') {
    return { reason: 'Invalid Request: a message must be a JSON-RPC 2.0 object', answer: ErrorCode.InvalidRequest };
  }
  const obj = value as Record<string, unknown>;
  if (!('method' in obj) && ('result' in obj || 'error' in obj)) return { reason: 'invalid JSON-RPC response' };
  if ('method' in obj && !('id' in obj)) return { reason: 'invalid JSON-RPC notification' };
  const id = obj.id;
  const usableId = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  return {
    reason: `Invalid Request: ${requestProblems(obj).join('; ')}`,
    answer: ErrorCode.InvalidRequest,
    ...(usableId !== undefined ? { id: usableId } : {}),
  };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The shape nearly every line has: a request with a usable id, a method and plain params without
 * `_meta`. Checked by hand, it is exactly what JSONRPCMessageSchema accepts for such a line, without
 * zod's copy of the whole message; anything else (notifications, responses, `_meta`) goes to the schema.
 */
export function isPlainRequest(v: unknown): v is JSONRPCMessage {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (!REQUEST_MEMBERS.includes(k)) return false;
  const { id, params } = v;
  if (v.jsonrpc !== '2.0' || typeof v.method !== 'string') return false;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  return params === undefined || (isPlainObject(params) && !('_meta' in params));
}

/**
 * The same for a notification (no id): what JSONRPCNotificationSchema accepts for such a line. Read by
 * hand too, so that a session's start (notifications/initialized) builds none of the SDK's schemas.
 */
export function isPlainNotification(v: unknown): v is JSONRPCMessage {
  if (!isPlainObject(v) || 'id' in v) return false;
  for (const k in v) if (!REQUEST_MEMBERS.includes(k)) return false;
  const { params } = v;
  if (v.jsonrpc !== '2.0' || typeof v.method !== 'string') return false;
  return params === undefined || (isPlainObject(params) && !('_meta' in params));
}

/** What is wrong with an object meant as a request, in words. */
function requestProblems(obj: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (obj.jsonrpc !== '2.0') out.push('jsonrpc must be "2.0"');
  if (typeof obj.id !== 'string' && !(typeof obj.id === 'number' && Number.isSafeInteger(obj.id)))
    out.push('id must be a string or an integer');
  if (typeof obj.method !== 'string') out.push('method must be a string');
  if ('params' in obj && (obj.params === null || typeof obj.params !== 'object' || Array.isArray(obj.params)))
    out.push('params must be an object');
  const extra = Object.keys(obj).filter((k) => !REQUEST_MEMBERS.includes(k));
  if (extra.length > 0)
    out.push(
      `unknown member(s) ${extra
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 64)))
        .join(', ')}; allowed: ${REQUEST_MEMBERS.join(', ')}`,
    );
  if (out.length === 0) out.push('not a valid JSON-RPC 2.0 request');
  return out;
}

/**
 * The requests the SDK's Server answers itself: their params are checked here, because the SDK answers
 * a mismatch with an Internal error (-32603) carrying a raw zod dump. Ours check their own
 * (server/handle.ts). `plain` recognises by hand, among the requests of the plain form (isPlainRequest),
 * those the schema accepts (a plain ping always, the usual initialize), so that a session's start builds
 * neither schema (the bundle builds the SDK's schemas when first used: scripts/lazySchemas.mjs).
 */
// A Map, not an object: a method named "constructor" or "toString" must find nothing.
const SDK_HANDLED = new Map<string, { plain: (m: JSONRPCMessage) => boolean; schema: () => Checker }>([
  ['initialize', { plain: isPlainInitialize, schema: () => InitializeRequestSchema }],
  ['ping', { plain: () => true, schema: () => PingRequestSchema }],
]);
type Checker = { safeParse(v: unknown): { success: boolean; error?: { issues: Issue[] } } };
type Issue = { path: PropertyKey[]; message: string };

function sdkParamsChecked(message: JSONRPCMessage, plain: boolean): LineOutcome {
  const m = message as { id?: string | number; method?: string };
  const handled = m.method !== undefined && m.id !== undefined ? SDK_HANDLED.get(m.method) : undefined;
  if (!handled || (plain && handled.plain(message))) return { message };
  const checked = handled.schema().safeParse(message);
  if (checked.success) return { message };
  const parts = checked
    .error!.issues.slice(0, 10)
    .map((i) => `${i.path.map(String).join('.') || 'request'}: ${i.message}`);
  return {
    reason: `Invalid params for ${m.method}: ${parts.join('; ')}`,
    answer: ErrorCode.InvalidParams,
    id: m.id,
  };
}
