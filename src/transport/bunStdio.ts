import { EventEmitter } from 'node:events';
import type { LineInput, LineOutput } from './lineTransport.js';

/**
 * stdin and stdout for a stdio session under Bun, through Bun's own file I/O (`Bun.stdin.stream()`, a
 * `FileSink` on fd 1) instead of `process.stdin`/`process.stdout`: Bun builds those two from its port of
 * Node's streams (node:stream, internal:fs/streams), which it evaluates at their first use, about 7.5 ms
 * of CPU in every start of the single executable (docs/startup-and-serving.md, "Bun"). The part of the
 * streams' behaviour LineTransport and serve.ts use, and nothing more: flowing `data` events with
 * pause/resume, `end` and `error`; write with `drain`, cork/uncork, writableLength/writableNeedDrain.
 */

/** The subset of Bun's API used here (the project is typed for Node). */
interface FileSink {
  write(chunk: string | Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
}
interface BunIo {
  stdin: { stream(): ReadableStream<Uint8Array> };
  stdout: { writer(): FileSink };
}
const bun = (): BunIo => (globalThis as unknown as { Bun: BunIo }).Bun;

/** Whether this process runs under Bun. */
export const underBun = (): boolean => typeof (process.versions as Record<string, string | undefined>).bun === 'string';

/** fd 0 is a terminal (Bun's tty_wrap binding: asking `process.stdin.isTTY` would build the stream). */
function stdinIsTty(): boolean {
  try {
    return (process as unknown as { binding(name: string): { isTTY(fd: number): boolean } })
      .binding('tty_wrap')
      .isTTY(0);
  } catch {
    return false;
  }
}

/** stdin as flowing `data` chunks, read one at a time while not paused. */
class BunStdin extends EventEmitter implements LineInput {
  readonly isTTY = stdinIsTty();
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private flowing = false;
  private reading = false;
  /** Ended, failed or stopped: nothing more is read or emitted. */
  private done = false;
  /** pause() was called and resume() not since. */
  private paused = false;
  /** A chunk read while paused: given first when reading resumes. */
  private kept: Buffer | undefined;

  constructor() {
    super();
    // As a Node stream: a data listener starts the flow, unless reading was paused before.
    this.on('newListener', (event: string | symbol) => {
      if (event === 'data' && !this.paused) this.resume();
    });
  }

  pause(): this {
    this.flowing = false;
    this.paused = true;
    return this;
  }

  resume(): this {
    this.paused = false;
    if (this.done || this.flowing) return this;
    this.flowing = true;
    queueMicrotask(() => this.pump());
    return this;
  }

  /** Reads no more: a pending read no longer keeps the process alive. */
  stop(): void {
    this.pause();
    this.done = true;
    void this.reader?.cancel().catch(() => undefined);
  }

  private async pump(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      this.reader ??= bun().stdin.stream().getReader();
      if (this.kept !== undefined && this.flowing) {
        const chunk = this.kept;
        this.kept = undefined;
        this.emit('data', chunk);
      }
      while (this.flowing && !this.done) {
        const { value, done } = await this.reader.read();
        if (this.done) return;
        if (done) {
          this.done = true;
          // A macrotask later, as Node's stdin ends: what the last chunk started within microtasks (the SDK's
          // Server made for a call, and that call answered) finishes before the session ends.
          setImmediate(() => this.emit('end'));
          return;
        }
        const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        if (this.flowing) this.emit('data', chunk);
        else this.kept = chunk;
      }
    } catch (err) {
      if (this.done) return;
      this.done = true;
      if (this.listenerCount('error') > 0) this.emit('error', err);
    } finally {
      this.reading = false;
    }
  }
}

/** stdout through one FileSink: each write flushed at once, or at uncork for the writes made while corked. */
class BunStdout extends EventEmitter implements LineOutput {
  private readonly sink = bun().stdout.writer();
  private corked = 0;
  /** Bytes written here that the sink has not yet handed to the kernel (counted since the last drain). */
  writableLength = 0;
  writableNeedDrain = false;
  private failed = false;

  write(chunk: string | Uint8Array, done?: () => void): boolean {
    if (!this.failed) {
      this.writableLength += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      try {
        const written = this.sink.write(chunk);
        if (typeof written !== 'number') this.wait(written);
        if (this.corked === 0) this.flush();
      } catch (err) {
        this.fail(err);
      }
    }
    if (done) this.whenFlushed(done);
    return !this.writableNeedDrain;
  }

  cork(): void {
    this.corked++;
  }

  uncork(): void {
    if (this.corked === 0) return;
    this.corked--;
    if (this.corked === 0) this.flush();
  }

  /** Calls `done` once everything written so far has left (an exit waits for it). */
  whenFlushed(done: () => void): void {
    if (this.writableNeedDrain) this.once('drain', done);
    else done();
  }

  /** Hands what the sink holds to the kernel; what the pipe does not take yet is waited for. */
  private flush(): void {
    const left = this.flushSink();
    if (left instanceof Promise) this.wait(left);
    else if (left !== undefined && !this.writableNeedDrain) this.writableLength = 0;
  }

  /** The sink's flush: bytes written, a promise of them, or undefined once failed. */
  private flushSink(): number | Promise<number> | undefined {
    if (this.failed) return undefined;
    try {
      return this.sink.flush();
    } catch (err) {
      this.fail(err);
      return undefined;
    }
  }

  /** The sink could not write everything at once: writers wait for 'drain', as with a Node stream. */
  private wait(pending: Promise<number>): void {
    this.writableNeedDrain = true;
    pending.then(
      () => this.drained(),
      (err: unknown) => this.fail(err),
    );
  }

  /** A write the sink waited on has gone: drained once the sink holds nothing more. */
  private drained(): void {
    if (!this.writableNeedDrain) return;
    const left = this.flushSink();
    if (left instanceof Promise) this.wait(left);
    else if (left !== undefined) {
      this.writableNeedDrain = false;
      this.writableLength = 0;
      this.emit('drain');
    }
  }

  /** The client is gone (EPIPE): nothing more is written, and the session ends when its stdin does. */
  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.writableNeedDrain = false;
    this.writableLength = 0;
    if (this.listenerCount('error') > 0) this.emit('error', err);
    this.emit('drain');
  }
}

export interface BunStdio {
  input: BunStdin;
  output: BunStdout;
}

/** The session's stdin and stdout under Bun. */
export function bunStdio(): BunStdio {
  return { input: new BunStdin(), output: new BunStdout() };
}
