import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { wireLine } from './wire.js';

/**
 * The longest line (one JSON-RPC message) read from a client: the SDK's own read-buffer limit.
 * The largest legitimate call (every field of spawn_subtasks at its limit) is a fraction of it.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Backpressure, per connection (stdio, and each `--transport socket` connection): a client that sends
 * requests faster than it reads the answers would otherwise make the server read on and buffer every
 * answer (a client that pipelines large requests and never reads grew a shared server from 71 MB to
 * 843 MB). The server stops reading a connection while more than MAX_UNSENT_BYTES of answers wait to
 * be written to it, or MAX_IN_FLIGHT requests have been read and not yet answered (answers are
 * produced a few microtasks after their request is read, so bytes alone would not stop the rest of a
 * 64 KiB chunk of requests from being dispatched at once). So one connection costs at most about
 * MAX_UNSENT_BYTES plus MAX_IN_FLIGHT answers, and the kernel's socket buffer pushes back on the client.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;
export const MAX_IN_FLIGHT = 64;

/** Flow state of one guarded transport: requests read and not yet answered, by id. */
interface Flow {
  inFlight: Map<string, number>;
  count: number;
  /** Set while the guard itself answers a malformed line: that answer matches no request read. */
  uncounted: boolean;
  /** Called when an answer was sent: reading may resume. */
  answered: () => void;
}
const flows = new WeakMap<StdioServerTransport, Flow>();
const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/** Counts one answer against the requests in flight (call once per message sent). */
function noteSent(transport: StdioServerTransport, message: JSONRPCMessage): void {
  const flow = flows.get(transport);
  if (!flow || flow.uncounted) return;
  const m = message as { id?: unknown; method?: unknown };
  if (m.id === undefined || m.method !== undefined) return;
  const key = idKey(m.id);
  const n = flow.inFlight.get(key);
  if (n === undefined) return;
  if (n <= 1) flow.inFlight.delete(key);
  else flow.inFlight.set(key, n - 1);
  flow.count--;
  flow.answered();
}

/** The members a JSON-RPC request may have. */
const REQUEST_MEMBERS = ['jsonrpc', 'id', 'method', 'params'];

/** The parts of the SDK's StdioServerTransport this guard replaces (an instance field, set in its constructor). */
interface StdioInternals {
  _ondata?: unknown;
  _started?: boolean;
  _stdin?: Readable;
  _stdout?: Writable;
}

/**
 * Makes the SDK's newline-delimited stdio transport (stdio and `--transport socket`) survive any
 * client, as JSON-RPC 2.0 asks:
 *
 * - a line that is not JSON gets a Parse error (-32700); one that is JSON but not a JSON-RPC message
 *   gets an Invalid Request error (-32600), carrying the request's id when it has a usable one, so a
 *   client never waits forever (the SDK drops such lines without an answer); an invalid notification or
 *   response gets nothing (neither is ever answered);
 * - a line longer than `maxBytes` is skipped up to its newline and answered with -32600 (without an id:
 *   it was not read). The SDK closes the whole session instead, which ends the server.
 *
 * Error answers carry no `id` when there is none to give (JSON-RPC says `null`; MCP's schema allows
 * only leaving it out). Valid messages go to the SDK exactly as before. Call before `connect()`;
 * returns false (and changes nothing) if the transport is not the shape this was written against.
 */
export function guardStdioTransport(
  transport: StdioServerTransport,
  log: Logger,
  maxBytes = MAX_MESSAGE_BYTES,
): boolean {
  const internals = transport as unknown as StdioInternals;
  if (typeof internals._ondata !== 'function' || internals._started) {
    log.warn('stdio transport not guarded (unexpected SDK internals): a malformed line may go unanswered');
    return false;
  }
  const input = internals._stdin;
  const output = internals._stdout;
  const flow: Flow = { inFlight: new Map(), count: 0, uncounted: false, answered: () => scheduleWake() };
  flows.set(transport, flow);
  const reply = (error: { code: number; message: string }, id?: string | number) => {
    if (!transport.onmessage) return; // not connected, or shutting down: read nothing, answer nothing
    const msg = { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error } as JSONRPCMessage;
    flow.uncounted = true; // noteSent runs synchronously inside send: this answer frees no request slot
    try {
      transport.send(msg).catch((err: unknown) => log.warn({ err }, 'could not answer a malformed message'));
    } finally {
      flow.uncounted = false;
    }
  };
  // Every answer goes through send: count it (shareDrainWaits, when it replaces send, counts too).
  const sdkSend = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    noteSent(transport, message);
    return sdkSend(message);
  };
  const blocked = () => flow.count >= MAX_IN_FLIGHT || (output?.writableLength ?? 0) >= MAX_UNSENT_BYTES;
  let wakeScheduled = false;
  // Resume on the next macrotask, not inside send: one wake-up for a burst of answers.
  const scheduleWake = () => {
    if (wakeScheduled || !reader.holding) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      if (!transport.onmessage || blocked()) return; // closed, or still backed up: a later answer or drain wakes us
      reader.resume();
      if (!reader.holding) input?.resume();
    });
  };
  output?.on('drain', scheduleWake);
  const reader = new LineReader(
    maxBytes,
    (line) => {
      const outcome = readLine(line);
      if (outcome === null) return;
      if ('message' in outcome) {
        const m = outcome.message as { id?: unknown; method?: unknown };
        if (m.id !== undefined && typeof m.method === 'string') {
          const key = idKey(m.id);
          flow.inFlight.set(key, (flow.inFlight.get(key) ?? 0) + 1);
          flow.count++;
        } else if (m.method === 'notifications/cancelled') {
          // The SDK sends no answer to a cancelled request: free its slot, or 64 cancels would stall the connection.
          const key = idKey((outcome.message as { params?: { requestId?: unknown } }).params?.requestId);
          const n = flow.inFlight.get(key);
          if (n !== undefined) {
            if (n <= 1) flow.inFlight.delete(key);
            else flow.inFlight.set(key, n - 1);
            flow.count--;
            scheduleWake();
          }
        }
        try {
          transport.onmessage?.(outcome.message);
        } catch (err) {
          log.error({ err }, 'message handler failed'); // never let one message take the stream down
        }
        return;
      }
      log.warn({ reason: outcome.reason, excerpt: excerpt(line) }, 'malformed JSON-RPC message');
      if (outcome.answer) reply({ code: outcome.answer, message: outcome.reason }, outcome.id);
    },
    (bytes) => {
      log.warn({ bytes, max: maxBytes }, 'message too large: skipped');
      reply({
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: message longer than ${maxBytes} bytes; skipped`,
      });
    },
    blocked,
    () => {
      // Stop reading: the client's further requests wait in the kernel's buffer, and then in its own.
      input?.pause();
      scheduleWake();
    },
  );
  // The answers given while one chunk of input is read (tools/call is answered synchronously) leave in
  // one write: stdout on a Linux pipe writes synchronously, a system call per line otherwise.
  internals._ondata = (chunk: Buffer | string) => {
    output?.cork();
    try {
      reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    } finally {
      output?.uncork();
    }
  };
  return true;
}

type LineOutcome = { message: JSONRPCMessage } | { reason: string; answer?: ErrorCode; id?: string | number };

/** One line → a valid message, or why it is not one and how (whether) to answer; null for a blank line. */
function readLine(line: Buffer): LineOutcome | null {
  let text = line.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reason: `Parse error: ${(err as Error).message}`, answer: ErrorCode.ParseError };
  }
  if (isPlainRequest(value)) return { message: value };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data as JSONRPCMessage };
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

const excerpt = (line: Buffer): string => line.subarray(0, 120).toString('utf8');

/**
 * Splits a byte stream into lines without ever holding more than `max` bytes of one line: a longer
 * line is dropped as it streams in (reported once), and reading resumes after its newline.
 */
class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  /** The unread rest of a chunk, kept while `blocked()` says the connection has too much unanswered. */
  private held: Buffer | null = null;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly blocked: () => boolean = () => false,
    private readonly onHold: () => void = () => undefined,
  ) {}

  get holding(): boolean {
    return this.held !== null;
  }

  push(chunk: Buffer): void {
    // A chunk already on its way when reading was paused: keep it behind the held rest (one chunk at most).
    if (this.held !== null) this.held = Buffer.concat([this.held, chunk]);
    else this.process(chunk);
  }

  /** Goes on with the held rest (call when no longer blocked). */
  resume(): void {
    const rest = this.held;
    if (rest === null) return;
    this.held = null;
    this.process(rest);
  }

  private process(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      if (this.blocked()) {
        this.held = chunk.subarray(start);
        this.onHold();
        return;
      }
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!this.skipping && this.size + piece.length > this.max) {
        this.skipping = true;
        this.onTooLong(this.size + piece.length);
        this.parts = [];
        this.size = 0;
      } else if (!this.skipping && piece.length > 0) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) return;
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
      this.parts = [];
      this.size = 0;
      this.onLine(line);
    }
  }
}

/**
 * Replaces the SDK transport's send. The SDK adds a `once('drain')` listener per message whenever the
 * pipe is backed up, so thousands of pipelined replies pile up thousands of listeners (quadratic
 * removal work and a MaxListenersExceededWarning). Here every message written while the pipe is full
 * waits on ONE shared drain listener. Order and content are unchanged: each message is still one write.
 */
export function shareDrainWaits(transport: StdioServerTransport): boolean {
  const out = (transport as unknown as { _stdout?: Writable })._stdout;
  if (!out || typeof out.write !== 'function') return false;
  let waiting: (() => void)[] | null = null;
  transport.send = (message: JSONRPCMessage) =>
    new Promise<void>((resolve) => {
      noteSent(transport, message);
      if (out.write(wireLine(message)) && waiting === null) return resolve();
      if (waiting === null) {
        waiting = [];
        out.once('drain', () => {
          const ready = waiting ?? [];
          waiting = null;
          for (const r of ready) r();
        });
      }
      waiting.push(resolve);
    });
  return true;
}
