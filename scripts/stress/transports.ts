/**
 * The shared transports under clients that misbehave, two rows of the stress table:
 *
 * - socket, non-reading client: one connection pipelines tools/list (full suite: the largest answer)
 *   for up to 15 s or 200 MB without reading, while another connection pings; then it reads. Every
 *   request it got written must be answered exactly once, each answer a whole JSON line; the server's
 *   RSS peak is reported.
 * - HTTP, 1,500 idle sessions: 1,500 initialize requests, none closed; the first 64 open a session,
 *   the rest get 503 with Retry-After; a session opened before is still served; RSS peak reported.
 *
 * lost = requests answered never or twice (socket) / neither served nor refused as documented (HTTP);
 * torn = answer lines that are not whole JSON (counted into lost too, and shown in the notes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSampleProject } from '../sampleProject.js';
import { CLI } from './concurrency.js';
import type { StressFigures } from './types.js';

const rssMb = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

function sampler(pid: number) {
  let peak = rssMb(pid);
  const t = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  return () => {
    clearInterval(t);
    return Math.max(peak, rssMb(pid));
  };
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stress', version: '0' } },
};

/** Sends one line-delimited request and resolves with the answer to `id` (on a reading connection). */
function lineClient(path: string): Promise<{ sock: Socket; ask: (id: number, method: string) => Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    const waiting = new Map<number, (m: unknown) => void>();
    let buf = '';
    sock.on('data', (b: Buffer) => {
      buf += b.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl)) as { id?: number };
        buf = buf.slice(nl + 1);
        if (typeof m.id === 'number') waiting.get(m.id)?.(m);
      }
    });
    sock.once('error', reject);
    sock.once('connect', () => {
      const ask = (id: number, method: string) =>
        new Promise<unknown>((r) => {
          waiting.set(id, r);
          sock.write(`${JSON.stringify({ ...(method === 'initialize' ? INIT : { jsonrpc: '2.0', method }), id })}\n`);
        });
      void ask(0, 'initialize').then(() => {
        sock.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
        resolve({ sock, ask });
      });
    });
  });
}

async function socketFlood(dir: string): Promise<StressFigures> {
  const started = Date.now();
  const project = createSampleProject(join(dir, 'socket-project'));
  const path = join(dir, 'mcp.sock');
  const child = spawn(
    process.execPath,
    [CLI, '--project', project.root, '--transport', 'socket', '--socket', path, '--log-level', 'error'],
    { stdio: 'ignore' },
  );
  // A crash is an exit before we ask for one (it exits 0 on our SIGTERM).
  let stopping = false;
  let crashed = false;
  child.once('exit', () => (crashed = !stopping));
  for (
    let waited = 0;
    !(existsSync(`${path}.pid`) && readFileSync(`${path}.pid`, 'utf8').trim() === String(child.pid));
    waited += 25
  ) {
    if (waited > 15_000) throw new Error('socket server did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  const other = await lineClient(path);
  await other.ask(1, 'tools/list');
  const base = rssMb(child.pid!);
  const peakOf = sampler(child.pid!);

  const flood = await lineClient(path);
  flood.sock.pause(); // reads nothing from here on
  flood.sock.removeAllListeners('data');
  let id = 1;
  let bytes = 0;
  const t0 = Date.now();
  while (bytes < 200 * 1024 * 1024 && Date.now() - t0 < 15_000) {
    let batch = '';
    while (batch.length < 256 * 1024) batch += `{"jsonrpc":"2.0","id":${id++},"method":"tools/list"}\n`;
    bytes += batch.length;
    if (!flood.sock.write(batch)) {
      const drained = await Promise.race([
        new Promise((r) => flood.sock.once('drain', () => r(true))),
        new Promise((r) => setTimeout(() => r(false), 3000)),
      ]);
      if (!drained) break;
    }
  }
  const sent = id - 1;
  let pings = 0;
  for (let k = 0; k < 20; k++)
    if (
      await Promise.race([
        other.ask(100 + k, 'ping').then(() => true),
        new Promise((r) => setTimeout(() => r(false), 10_000)),
      ])
    )
      pings++;
  const peak = peakOf();

  // Now read everything: each request written must have exactly one whole answer.
  const seen = new Map<number, number>();
  let torn = 0;
  await new Promise<void>((resolve) => {
    let buf = '';
    const idle = () => setTimeout(resolve, 5000);
    let timer = idle();
    flood.sock.on('data', (b: Buffer) => {
      buf += b.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const m = JSON.parse(line) as { id?: number; result?: unknown };
          if (typeof m.id === 'number' && m.id > 0 && m.result) seen.set(m.id, (seen.get(m.id) ?? 0) + 1);
        } catch {
          torn++;
        }
      }
      const done = seen.size === sent;
      clearTimeout(timer);
      timer = done ? setTimeout(resolve, 200) : idle();
    });
    flood.sock.resume();
  });
  let lost = 0;
  for (let k = 1; k <= sent; k++) if (seen.get(k) !== 1) lost++;
  lost += 20 - pings;
  flood.sock.destroy();
  other.sock.destroy();
  stopping = true;
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return {
    name: 'socket: non-reading client',
    processes: 1,
    operations: sent + 20,
    lostWrites: lost + torn,
    busyErrors: 0,
    crashesSurvived: 0,
    fuzzCases: 0,
    serverCrashes: crashed ? 1 : 0,
    seconds: (Date.now() - started) / 1000,
    notes: `${sent} tools/list pipelined (${(bytes / 1048576).toFixed(1)} MB) before the server stopped reading; ${lost} lost, ${torn} torn; ${pings}/20 pings on another connection answered meanwhile; server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB (+${(peak - base).toFixed(0)})`,
  };
}

function post(
  port: number,
  token: string,
  body: unknown,
  agent: Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter?: string; sid?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${token}`,
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            sid: res.headers['mcp-session-id'] as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function httpSessions(dir: string): Promise<StressFigures> {
  const started = Date.now();
  const project = createSampleProject(join(dir, 'http-project'));
  const token = 'stress-token-0123456789abcdef0123';
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, '--project', project.root, '--recipe', 'yap', '--transport', 'http', '--port', '0', '--auth-token', token],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  // A crash is an exit before we ask for one (it exits 0 on our SIGTERM).
  let stopping = false;
  let crashed = false;
  child.once('exit', () => (crashed = !stopping));
  let err = '';
  const port = await new Promise<number>((resolve) =>
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /"msg":"listening"/.test(err) && /"port":(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    }),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const first = await post(port, token, INIT, agent);
  const base = rssMb(child.pid!);
  const peakOf = sampler(child.pid!);
  const t0 = Date.now();
  const answers: { status: number; retryAfter?: string }[] = [];
  for (let i = 0; i < 1500; i += 50)
    answers.push(...(await Promise.all(Array.from({ length: 50 }, () => post(port, token, INIT, agent)))));
  const seconds1500 = (Date.now() - t0) / 1000;
  const opened = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 503 && a.retryAfter !== undefined).length;
  const still = await post(port, token, { jsonrpc: '2.0', id: 9, method: 'ping' }, agent, {
    'Mcp-Session-Id': first.sid ?? '',
    'Mcp-Protocol-Version': '2025-06-18',
  });
  const peak = peakOf();
  // lost: anything but "opened up to the cap, then refused with Retry-After", or the old session not served.
  const lost =
    answers.length - opened - refused + (opened === 63 ? 0 : Math.abs(opened - 63)) + (still.status === 200 ? 0 : 1);
  agent.destroy();
  stopping = true;
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return {
    name: 'http: 1,500 idle sessions',
    processes: 1,
    operations: 1502,
    lostWrites: lost,
    busyErrors: 0,
    crashesSurvived: 0,
    fuzzCases: 0,
    serverCrashes: crashed ? 1 : 0,
    seconds: (Date.now() - started) / 1000,
    notes: `1,500 initializes in ${seconds1500.toFixed(1)} s: ${opened} opened (+1 before: cap 64), ${refused} refused 503 + Retry-After; the earlier session ${still.status === 200 ? 'still served' : `answered ${still.status}`}; ${lost} lost, 0 torn; server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB (+${(peak - base).toFixed(0)})`,
  };
}

export async function run(): Promise<StressFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mcp-stress-transports-'));
  try {
    return [await socketFlood(dir), await httpSessions(dir)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
