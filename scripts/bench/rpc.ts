import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A lean MCP client for benchmarks: newline-delimited JSON-RPC over a child's stdin/stdout and an
 * id → resolver map. No schema validation and no full JSON.parse on the hot path (the SDK writes
 * `{"result":…,"jsonrpc":"2.0","id":N}`, so the id is read from the end of the line); a reply is
 * parsed only when it is an error or when the caller asks for its body.
 */

export interface Reply {
  id: number;
  line: string;
  /** A tool result with isError: true (its structuredContent.error.code in errorCode), or a JSON-RPC error. */
  isError: boolean;
  errorCode?: string;
  rpcError?: { code: number; message: string };
}

export const parseResult = <T = any>(r: Reply): T => (JSON.parse(r.line) as { result: T }).result;

/** Every child any RpcChild or spawnTimed started: killed at exit, whatever happens. */
const live = new Set<ChildProcess>();
export function track(c: ChildProcess): void {
  live.add(c);
  c.once('exit', () => live.delete(c));
}
export function killAll(): void {
  for (const c of live) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}
let hooked = false;
const cleanups: (() => void)[] = [];
/** Runs at exit (also after SIGINT/SIGTERM), after the children are killed; must be synchronous. */
export function onExit(fn: () => void): void {
  cleanups.push(fn);
}
function runCleanups(): void {
  for (const fn of cleanups.splice(0)) {
    try {
      fn();
    } catch {
      /* best effort */
    }
  }
}
export function installExitHooks(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    killAll();
    runCleanups();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.stderr.write(`bench: ${sig}, children killed\n`);
      process.exit(130);
    });
  }
}

const callMessage = (name: string, args: Record<string, unknown>): [string, unknown] =>
  name.startsWith('rpc:') ? [name.slice(4), args] : ['tools/call', { name, arguments: args }];

const TAIL_ID = /"id":(\d+)\}$/;
const IS_ERROR_TAIL = '"isError":true},"jsonrpc":"2.0","id":';

interface Pending {
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
  deadline: number;
}

export interface SpawnOptions {
  /** Per-request timeout, checked by a 250 ms watchdog (no timer per request). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export class RpcChild {
  readonly proc: ChildProcess;
  readonly spawnedAt: number;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private partial = '';
  private stderrTail = '';
  private readonly watchdog: NodeJS.Timeout;
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;
  timeoutMs: number;

  constructor(cmd: string, args: string[], opts: SpawnOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.spawnedAt = performance.now();
    this.proc = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    track(this.proc);
    this.proc.stdout!.setEncoding('utf8');
    this.proc.stdout!.on('data', (chunk: string) => this.onData(chunk));
    this.proc.stderr!.setEncoding('utf8');
    this.proc.stderr!.on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-4000);
    });
    this.proc.stdin!.on('error', () => undefined); // EPIPE after the child died: reported via exit
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        this.failAll(
          new Error(
            `server exited (code ${code}, signal ${signal}) with ${this.pending.size} request(s) pending; stderr:\n${this.stderrTail}`,
          ),
        );
        resolve();
      });
      this.proc.once('error', (err) => {
        this.failAll(err);
        resolve();
      });
    });
    this.watchdog = setInterval(() => {
      const now = performance.now();
      for (const [id, p] of this.pending) {
        if (now > p.deadline) {
          this.pending.delete(id);
          p.reject(new Error(`request ${id} timed out; stderr:\n${this.stderrTail}`));
        }
      }
    }, 250);
    this.watchdog.unref();
  }

  get pid(): number {
    return this.proc.pid!;
  }

  stderr(): string {
    return this.stderrTail;
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private onData(chunk: string): void {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      const line = this.partial ? this.partial + chunk.slice(start, nl) : chunk.slice(start, nl);
      this.partial = '';
      start = nl + 1;
      if (line.length > 0) this.onLine(line);
    }
    if (start < chunk.length) this.partial += chunk.slice(start);
  }

  private onLine(line: string): void {
    let id: number | undefined;
    let reply: Reply | undefined;
    const m = line.startsWith('{"result":') ? TAIL_ID.exec(line) : null;
    if (m) {
      id = Number(m[1]);
      reply = { id, line, isError: false };
      if (line.includes(IS_ERROR_TAIL)) {
        const r = JSON.parse(line).result as { structuredContent?: { error?: { code?: string } } };
        reply.isError = true;
        reply.errorCode = r.structuredContent?.error?.code ?? 'unknown';
      }
    } else {
      let msg: { id?: unknown; error?: { code: number; message: string } };
      try {
        msg = JSON.parse(line);
      } catch {
        return; // not JSON-RPC (should not happen: stdout is MCP only)
      }
      if (typeof msg.id !== 'number') return; // a notification or a server→client request
      id = msg.id;
      reply = { id, line, isError: msg.error !== undefined };
      if (msg.error) reply.rpcError = msg.error;
    }
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(reply);
  }

  /** Registers a request and returns its line (not yet written) and the promise of its reply. */
  prepare(method: string, params: unknown, timeoutMs = this.timeoutMs): { line: string; reply: Promise<Reply> } {
    const id = this.nextId++;
    const line = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`;
    const reply = new Promise<Reply>((resolve, reject) => {
      if (this.exitCode !== undefined) reject(new Error(`server already exited; stderr:\n${this.stderrTail}`));
      else this.pending.set(id, { resolve, reject, deadline: performance.now() + timeoutMs });
    });
    return { line, reply };
  }

  request(method: string, params: unknown = {}): Promise<Reply> {
    const { line, reply } = this.prepare(method, params);
    this.proc.stdin!.write(line);
    return reply;
  }

  notify(method: string, params?: unknown): void {
    this.proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  /**
   * One tool call; the reply line is parsed only if the caller asks (parseResult). A name of the form
   * `rpc:METHOD` sends that JSON-RPC method with `args` as params instead (e.g. `rpc:ping`).
   */
  call(name: string, args: Record<string, unknown> = {}): Promise<Reply> {
    return this.request(...callMessage(name, args));
  }

  /** A tool call that must succeed; returns its structuredContent. */
  async ok<T = any>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const r = await this.call(name, args);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${r.line.slice(0, 500)}`);
    return parseResult<{ structuredContent: T }>(r).structuredContent;
  }

  /** MCP handshake: initialize (as `clientInfo`), then notifications/initialized. Returns the initialize result. */
  async initialize(
    clientInfo: { name: string; version: string } = { name: 'ralph-mcp-bench', version: '0.0.0' },
  ): Promise<{ result: any; ms: number }> {
    const r = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo });
    const ms = performance.now() - this.spawnedAt;
    if (r.isError) throw new Error(`initialize failed: ${r.line}\n${this.stderrTail}`);
    this.notify('notifications/initialized');
    return { result: parseResult(r), ms };
  }

  /**
   * Writes many calls at once (in chunks, honouring back-pressure) and waits for every reply.
   * Returns the wall time from the first write to the last reply.
   */
  async pipeline(
    calls: ReadonlyArray<readonly [string, Record<string, unknown>]>,
    timeoutMs = this.timeoutMs,
    chunk = 256,
  ): Promise<{ ms: number; replies: Reply[] }> {
    const prepared = calls.map(([name, args]) => this.prepare(...callMessage(name, args), timeoutMs));
    const all = Promise.all(prepared.map((p) => p.reply));
    all.catch(() => undefined); // rejections are rethrown by the await below
    const stdin = this.proc.stdin!;
    const t0 = performance.now();
    for (let i = 0; i < prepared.length; i += chunk) {
      let text = '';
      for (let j = i; j < Math.min(i + chunk, prepared.length); j++) text += prepared[j]!.line;
      if (!stdin.write(text)) {
        await Promise.race([
          new Promise<void>((resolve) => stdin.once('drain', () => resolve())),
          this.exited,
          new Promise<void>((_, reject) =>
            setTimeout(() => reject(new Error('stdin did not drain in 60 s')), 60_000).unref(),
          ),
        ]);
        if (this.exitCode !== undefined) break;
      }
    }
    const replies = await all;
    return { ms: performance.now() - t0, replies };
  }

  /** VmRSS / VmHWM of the server process, in MB. */
  memory(): { rssMb: number; hwmMb: number } {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  }

  /** Ends the session (stdin closed), then SIGKILL if the server is still there after 3 s. */
  async close(): Promise<void> {
    clearInterval(this.watchdog);
    if (this.exitCode !== undefined) return;
    this.proc.stdin!.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
  }

  /** Immediate SIGKILL (cold-start loops do not need a clean shutdown). */
  async kill(): Promise<void> {
    clearInterval(this.watchdog);
    if (this.exitCode !== undefined) return;
    this.proc.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
  }
}

/** Spawns `cmd args` and resolves with the time from spawn to exit (ms); rejects after timeoutMs. */
export function spawnTimed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 20_000,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(cmd, args, { stdio: 'ignore', env });
    track(c);
    const timer = setTimeout(() => {
      c.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    c.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    c.once('exit', (code) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`));
      else resolve(ms);
    });
  });
}
