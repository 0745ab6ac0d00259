import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { readLine } from './jsonRpcLine.js';
import { HeldUpdates } from './heldUpdates.js';
import { LineReader } from './lineReader.js';
import { wireLine } from './wire.js';
import { REQUEST_BOUNDS } from '../domain/limits.js';

/**
 * The longest line (one JSON-RPC message) read from a client: the SDK's own read-buffer limit.
 * The largest legitimate call (every field of spawn_subtasks at its limit) is a fraction of it.
 */
export const MAX_MESSAGE_BYTES = REQUEST_BOUNDS.messageBytes;

/**
 * Backpressure, per connection, in bytes: no further request is read (nor computed) while
 * MAX_UNSENT_BYTES or more of answers wait to be written. A request the SDK answers a few microtasks
 * after its line was handed over holds the next request back one macrotask, so that answer is counted
 * before another starts (notifications behind it, such as its cancellation, are still read at once).
 * A client that never reads costs at most MAX_UNSENT_BYTES plus one answer, whatever the answer size;
 * the kernel then pushes back on it. MAX_IN_FLIGHT bounds only requests left waiting on the client.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;
export const MAX_IN_FLIGHT = 64;

/**
 * What LineTransport uses of its input and output: a Node stream pair (process.stdin/stdout, a socket)
 * or, for stdio under Bun, bunStdio.ts's.
 */
export interface LineInput {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  listenerCount(event: 'data'): number;
}
export interface LineOutput {
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
  write(chunk: string): boolean;
  cork(): void;
  uncork(): void;
  readonly writableNeedDrain: boolean;
  readonly writableLength: number;
}

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;
const isRequest = (message: JSONRPCMessage): boolean => {
  const m = message as { id?: unknown; method?: unknown };
  return m.id !== undefined && typeof m.method === 'string';
};

/**
 * MCP over newline-delimited JSON-RPC on a pair of streams: stdio, and each `--transport socket`
 * connection. Unlike the SDK's StdioServerTransport it survives any client: a malformed line is
 * answered as JSON-RPC asks (jsonRpcLine.ts) and skipped, an oversized one is skipped up to its
 * newline and answered -32600 (the SDK's ends the session), and a client that does not read its
 * answers is not read either. Answers given while one chunk is read leave in one write.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private started = false;
  private closed = false;
  /** Requests read and not yet answered, by id (a client may reuse an id). */
  private readonly inFlight = new Map<string, number>();
  private inFlightCount = 0;
  private wakeScheduled = false;
  /** A request handed over in this macrotask is still unanswered: its answer's size is not known yet. */
  private awaitingAnswer = false;
  /** The request read while one was awaited: dispatched on the next wake, reading held until then. */
  private deferred: JSONRPCMessage | null = null;
  /** Senders waiting for the one shared 'drain' (a listener per message piles up under load). */
  private drainWaiters: (() => void)[] | null = null;
  private readonly reader: LineReader;
  private readonly heldUpdates: HeldUpdates;

  constructor(
    private readonly input: LineInput,
    private readonly output: LineOutput,
    private readonly log: Logger,
    maxBytes = MAX_MESSAGE_BYTES,
  ) {
    this.heldUpdates = new HeldUpdates(log);
    this.reader = new LineReader(
      maxBytes,
      (line) => this.onLine(line),
      (bytes) => {
        log.warn({ bytes, max: maxBytes }, 'message too large: skipped');
        this.answerError({
          code: ErrorCode.InvalidRequest,
          message: `Invalid Request: message longer than ${maxBytes} bytes; skipped`,
        });
      },
      () => this.blocked(),
      () => {
        // Stop reading: the client's further requests wait in the kernel's buffer, and then in its own.
        input.pause();
        this.scheduleWake();
      },
    );
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
    this.output.on('drain', this.onDrain);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.heldUpdates.hold(message, this.output.writableNeedDrain)) return Promise.resolve();
    this.countAnswer(message);
    return new Promise<void>((resolve) => {
      if (this.output.write(wireLine(message)) && this.drainWaiters === null) return resolve();
      this.drainWaiters ??= [];
      this.drainWaiters.push(resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    this.output.off('drain', this.onDrain);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void =>
    this.corked(() => this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));

  /**
   * Answers given while `read` reads (direct calls answer at once) leave in one write: a chunk's lines, or
   * the held rest read on a wake (else each answer of a pipelined burst is a write of its own). Holding
   * the stream any longer would delay every answer.
   */
  private corked(read: () => void): void {
    this.output.cork();
    try {
      read();
    } finally {
      this.output.uncork();
    }
  }

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private readonly onDrain = (): void => {
    const ready = this.drainWaiters ?? [];
    this.drainWaiters = null;
    for (const resolve of ready) resolve();
    if (!this.closed) this.heldUpdates.release((message) => this.output.write(wireLine(message)));
    this.scheduleWake();
  };

  private onLine(line: Buffer): void {
    let outcome: ReturnType<typeof readLine>;
    try {
      outcome = readLine(line);
    } catch (err) {
      // A line we failed to read is that line's problem, never the session's end.
      this.log.error({ err, excerpt: line.subarray(0, 120).toString('utf8') }, 'could not read a message');
      this.answerError({ code: ErrorCode.InternalError, message: 'Internal error: the message could not be read' });
      return;
    }
    if (outcome === null) return;
    if (!('message' in outcome)) {
      this.log.warn({ reason: outcome.reason, excerpt: line.subarray(0, 120).toString('utf8') }, 'malformed message');
      if (outcome.answer) this.answerError({ code: outcome.answer, message: outcome.reason }, outcome.id);
      return;
    }
    if (this.awaitingAnswer && isRequest(outcome.message)) this.deferred = outcome.message;
    else this.dispatch(outcome.message);
  }

  private dispatch(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    const request = isRequest(message);
    if (request) this.track(m.id, +1);
    // The SDK sends no answer to a cancelled request: free its slot, or 64 cancels would stall reading.
    else if (m.method === 'notifications/cancelled') this.track(m.params?.requestId, -1);
    const unanswered = this.inFlightCount;
    try {
      this.onmessage?.(message);
    } catch (err) {
      this.log.error({ err }, 'message handler failed'); // one message never takes the stream down
    }
    if (request && this.inFlightCount >= unanswered) this.awaitingAnswer = true;
  }

  /** An answer of ours to a line no request was read from: it frees no request slot. */
  private answerError(error: { code: number; message: string }, id?: string | number): void {
    if (this.closed || !this.onmessage) return;
    const msg = { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error } as JSONRPCMessage;
    this.output.write(wireLine(msg));
  }

  private countAnswer(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown };
    if (m.id !== undefined && m.method === undefined) this.track(m.id, -1);
  }

  private track(id: unknown, delta: 1 | -1): void {
    const key = idKey(id);
    const n = this.inFlight.get(key) ?? 0;
    if (delta === 1) this.inFlight.set(key, n + 1);
    else if (n === 0) return;
    else if (n === 1) this.inFlight.delete(key);
    else this.inFlight.set(key, n - 1);
    this.inFlightCount += delta;
    if (delta === -1) this.scheduleWake();
  }

  /** Reading waits: a request is deferred, or the output is over its bound. */
  private blocked(): boolean {
    return this.deferred !== null || this.backedUp();
  }

  private backedUp(): boolean {
    return this.inFlightCount >= MAX_IN_FLIGHT || this.output.writableLength >= MAX_UNSENT_BYTES;
  }

  /** Resumes reading on the next macrotask, not inside send: one wake-up for a burst of answers. */
  private scheduleWake(): void {
    if (this.wakeScheduled || !this.reader.holding) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      // A macrotask later, a request the SDK answers has been answered (handlers are synchronous); one
      // still unanswered waits on the client, and MAX_IN_FLIGHT bounds those.
      this.awaitingAnswer = false;
      if (this.closed || this.backedUp()) return; // still backed up: a later answer or drain wakes us
      const next = this.deferred;
      this.deferred = null;
      if (next !== null) this.dispatch(next);
      if (this.awaitingAnswer || this.backedUp()) return this.scheduleWake();
      this.corked(() => this.reader.resume());
      if (!this.reader.holding) this.input.resume();
    });
  }
}
