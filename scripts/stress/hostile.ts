/**
 * Hostile but valid requests against a big project: every argument within its schema, each
 * chosen to cost the server as much as it can (search words that expand over the whole vocabulary, FTS
 * operators, every filter combination, deep dependency chains, a task row written by others with
 * 300,000 dependencies). The server is single-threaded, so one slow request stalls every session: each
 * request must answer within `maxRequestMs`, and a `ping` on a second connection of the same `--socket`
 * server, sent all along, within `maxPingMs`.
 *
 * `npm run stress` runs it at 100,000 tasks on both generations; test/slow/hostile.test.ts at 10,000.
 * This module starts servers itself (no test helpers that register node:test hooks).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { connectSocket } from '../../test/helpers/socketClient.js';
import { generateProject, type Generation } from '../bench/datagen.js';
import { CLI } from './fuzz.js';
import type { StressFigures } from './types.js';

export interface HostileCase {
  label: string;
  /** A tool call, or a prompt (task_brief). */
  tool?: string;
  args?: Record<string, unknown>;
  prompt?: { name: string; arguments: Record<string, string> };
}

export interface HostileTiming {
  label: string;
  ms: number;
  /** The error code when the server refused (a bounded refusal is a valid answer). */
  error?: string;
}

export interface HostileReport {
  generation: Generation;
  tasks: number;
  timings: HostileTiming[];
  pings: number[];
  /** The first search, which builds the index (not argument-controlled; done before the battery). */
  indexBuildMs: number;
  /** Bytes the database grew by over the battery's unknown-tool calls (audit rows). */
  auditGrowth: number;
}

const STATUSES = ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
const letters = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' ');

/** The id of the task given 300,000 dependencies, and the head of the long chain. */
const HUGE_TASK = 7;
const HUGE_DEPS = 300_000;

export function battery(tasks: number): HostileCase[] {
  const search = (label: string, args: Record<string, unknown>): HostileCase => ({
    label: `search ${label}`,
    tool: 'search_tasks',
    args: { limit: 100, ...args },
  });
  const cases: HostileCase[] = [
    search('26 one-letter words', { query: letters(26) }),
    search('250 one-letter words', { query: letters(250) }),
    search('200-char single term', { query: 'x'.repeat(200) }),
    search('500-char single term', { query: 'a'.repeat(500) }),
    search('quotes, operators, NEAR, column filters', {
      query: '"session" NEAR(token cache, 2) title:invoice OR description:* AND NOT - ^queue {title}: "',
    }),
    search('12 function words', { query: 'the and to of in it when with for on that we' }),
    search('12 three-letter prefixes', { query: 'con pre res sta com sub tra int dis pro rep per' }),
    search('repeated word', { query: Array.from({ length: 60 }, () => 'session').join(' ') }),
  ];
  for (const status of STATUSES) {
    cases.push(search(`one-letter words, status ${status}`, { query: letters(26), status }));
    cases.push(
      search(`function words, ${status} + feature + discipline`, {
        query: 'the and to of in it when with',
        status,
        feature: 'auth',
        discipline: 'backend',
      }),
    );
    cases.push({ label: `list_tasks ${status}`, tool: 'list_tasks', args: { filter_status: status, limit: 500 } });
    cases.push({
      label: `list_tasks ${status} + feature + discipline`,
      tool: 'list_tasks',
      args: { filter_status: status, filter_feature: 'sync', filter_discipline: 'quality', limit: 500 },
    });
  }
  cases.push(
    { label: 'list_tasks no filter, last page', tool: 'list_tasks', args: { limit: 500, cursor: String(tasks - 100) } },
    { label: 'list_tasks page holding the huge row', tool: 'list_tasks', args: { limit: 500 } },
    {
      label: 'get_dependency_details depth 10, deep chain',
      tool: 'get_dependency_details',
      args: { id: tasks, depth: 10 },
    },
    {
      label: 'get_dependency_details depth 10, huge row',
      tool: 'get_dependency_details',
      args: { id: HUGE_TASK, depth: 10 },
    },
    { label: 'get_task, 300,000 dependencies', tool: 'get_task', args: { id: HUGE_TASK } },
    { label: 'get_task, 100 comments', tool: 'get_task', args: { id: HUGE_TASK, comment_limit: 100 } },
    {
      label: 'task_brief, 300,000 dependencies',
      prompt: { name: 'task_brief', arguments: { task_id: String(HUGE_TASK) } },
    },
    { label: 'task_brief, deep chain', prompt: { name: 'task_brief', arguments: { task_id: String(tasks) } } },
    { label: 'claim_next_task', tool: 'claim_next_task', args: {} },
    // The blocked view (issue 27): 100 held rows; the waiting page that starts at the huge row (its
    // 300,000 dependencies, none a task: 5 shown, the rest counted up to 1,000); the flow figures.
    { label: 'blocked_tasks, 100 held', tool: 'blocked_tasks', args: { limit: 100 } },
    {
      label: 'blocked_tasks waiting, from the huge row',
      tool: 'blocked_tasks',
      args: { waiting: true, limit: 100, cursor: `w${HUGE_TASK - 1}` },
    },
    { label: 'get_project_progress', tool: 'get_project_progress', args: {} },
    {
      label: 'unknown tool, 1 MB name and arguments',
      tool: `x${'y'.repeat(1 << 20)}`,
      args: { blob: 'z'.repeat(1 << 20) },
    },
  );
  return cases;
}

/**
 * What a big project looks like after others wrote to it: a chain through every task (task i depends
 * on i-1, so get_dependency_details walks its full depth), and one pending task with 300,000
 * dependencies on done tasks (legacy: one JSON column; normalized: child rows).
 */
function hostileRows(dbPath: string, generation: Generation, tasks: number): void {
  const db = new Database(dbPath);
  db.pragma('foreign_keys = OFF'); // the huge list names tasks that need not exist, as a hand edit may
  const deps = Array.from({ length: HUGE_DEPS }, (_, i) => i + 1_000_000);
  db.transaction(() => {
    if (generation === 'legacy') {
      db.prepare('UPDATE tasks SET depends_on = json_array(id - 1) WHERE id > 1 AND id > ? ').run(tasks - 2000);
      db.prepare("UPDATE tasks SET status = 'pending', depends_on = ? WHERE id = ?").run(
        JSON.stringify(deps),
        HUGE_TASK,
      );
    } else {
      db.prepare(
        'INSERT OR IGNORE INTO task_dependencies (task_id, depends_on_task_id) SELECT id, id - 1 FROM runtime_tasks WHERE id > 1 AND id > ?',
      ).run(tasks - 2000);
      db.prepare("UPDATE runtime_tasks SET status = 'pending' WHERE id = ?").run(HUGE_TASK);
      const ins = db.prepare('INSERT OR IGNORE INTO task_dependencies (task_id, depends_on_task_id) VALUES (?, ?)');
      for (const d of deps) ins.run(HUGE_TASK, d);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function startSocketServer(project: string, socket: string, cli = CLI): Promise<{ stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [cli, '--project', project, '--transport', 'socket', '--socket', socket, '--log-level', 'error'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  // A launch builds the search index first: seconds at 100,000 tasks, more on a loaded machine.
  for (let i = 0; i < 1200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(socket)) {
    child.kill('SIGKILL');
    throw new Error(`socket server did not start: ${err}`);
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function timed(client: Client, c: HostileCase): Promise<HostileTiming> {
  const t0 = performance.now();
  let error: string | undefined;
  try {
    if (c.prompt) await client.getPrompt(c.prompt);
    else {
      const r = await client.callTool({ name: c.tool!, arguments: c.args ?? {} });
      if (r.isError) error = (r.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? 'error';
    }
  } catch (e) {
    error = `protocol: ${(e as Error).message.slice(0, 60)}`;
  }
  const ms = performance.now() - t0;
  return error !== undefined ? { label: c.label, ms, error } : { label: c.label, ms };
}

/** Builds a `tasks`-task project of `generation`, serves it on a socket, runs the battery and the pings. */
export async function runHostile(generation: Generation, tasks: number): Promise<HostileReport> {
  const dir = mkdtempSync(join(tmpdir(), `ralph-hostile-${generation}-`));
  try {
    generateProject(CLI, dir, tasks, 13, process.env, generation);
    const dbPath = join(dir, '.ralph', 'db', 'ralph.db');
    hostileRows(dbPath, generation, tasks);
    const socket = join(dir, 'mcp.sock');
    const server = await startSocketServer(dir, socket);
    const worker = await connectSocket(socket);
    try {
      const t0 = performance.now();
      await worker.callTool({ name: 'search_tasks', arguments: { query: 'warm' } });
      const indexBuildMs = performance.now() - t0;
      const sizeOf = () => {
        const db = new Database(dbPath, { readonly: true });
        try {
          return db
            .prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')
            .get() as { n: number };
        } finally {
          db.close();
        }
      };
      const before = sizeOf().n;
      // The pings come from a thread of their own: on this thread, building and reading the battery's big
      // messages would delay reading the ping's answer and be counted against the server.
      const pinger = new Worker(fileURLToPath(import.meta.url), { workerData: { socket } });
      await new Promise((r) => pinger.once('message', r));
      const timings: HostileTiming[] = [];
      for (const c of battery(tasks)) timings.push(await timed(worker, c));
      const pings = await new Promise<number[]>((r) => {
        pinger.once('message', r);
        pinger.postMessage('stop');
      });
      await pinger.terminate();
      await worker.close();
      await server.stop();
      const auditGrowth = sizeOf().n - before;
      return { generation, tasks, timings, pings, indexBuildMs, auditGrowth };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface RewriteReport {
  generation: Generation;
  tasks: number;
  /** The first requests after the rewrite, in order, each with the index_behind it answered. */
  calls: (HostileTiming & { behind?: number })[];
  pings: number[];
  /** From the rewrite's commit to the first search that reported no index_behind. */
  caughtUpMs: number;
}

/** A connection that subscribes to tasks 1..`count` (a session's cap) and then never reads again. */
async function deafSubscriber(socketPath: string, count: number): Promise<Socket> {
  const s = connect(socketPath);
  const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deaf', version: '0' } };
  const messages = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...Array.from({ length: count }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'resources/subscribe',
      params: { uri: `ralph://tasks/${i + 1}` },
    })),
  ];
  await new Promise<void>((resolve) => {
    let answers = 0;
    let rest = '';
    s.on('data', (b: Buffer) => {
      const lines = (rest + b.toString()).split('\n');
      rest = lines.pop()!;
      answers += lines.filter((l) => l.includes('"id"')).length;
      if (answers <= count) return;
      s.removeAllListeners('data');
      s.pause();
      resolve();
    });
    s.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  });
  return s;
}

/**
 * Another program rewrites every task's title in one statement (an import, a script, Ralph) while a
 * subscriber to 1,000 of them has stopped reading: each of the first requests after it must still
 * answer within the bound (the search index catches up a chunk per request and between requests, the
 * subscriptions are checked in batches, issue 28), and so must a ping on another connection.
 */
export async function runRewrite(generation: Generation, tasks: number, cli = CLI): Promise<RewriteReport> {
  const dir = mkdtempSync(join(tmpdir(), `ralph-rewrite-${generation}-`));
  try {
    generateProject(cli, dir, tasks, 13, process.env, generation);
    const dbPath = join(dir, '.ralph', 'db', 'ralph.db');
    const socket = join(dir, 'mcp.sock');
    const server = await startSocketServer(dir, socket, cli);
    const worker = await connectSocket(socket);
    try {
      await worker.callTool({ name: 'search_tasks', arguments: { query: 'warm' } }); // builds the index
      const deaf = await deafSubscriber(socket, 1000);
      const pinger = new Worker(fileURLToPath(import.meta.url), { workerData: { socket } });
      await new Promise((r) => pinger.once('message', r));
      const db = new Database(dbPath);
      db.prepare(
        generation === 'legacy'
          ? "UPDATE tasks SET title = title || ' v2'"
          : "UPDATE task_details SET title = title || ' v2'",
      ).run();
      db.close();
      const t0 = performance.now();
      const calls: RewriteReport['calls'] = [];
      const call = async (c: HostileCase) => {
        const t = performance.now();
        const r = await worker.callTool({ name: c.tool!, arguments: c.args ?? {} });
        const out = r.structuredContent as { index_behind?: number; error?: { code?: string } } | undefined;
        calls.push({
          label: c.label,
          ms: performance.now() - t,
          ...(r.isError ? { error: out?.error?.code ?? 'error' } : {}),
          ...(out?.index_behind !== undefined ? { behind: out.index_behind } : {}),
        });
        return out?.index_behind;
      };
      const search = { label: 'search_tasks', tool: 'search_tasks', args: { query: 'export v2', limit: 20 } };
      await call(search);
      await call({
        label: 'create_task',
        tool: 'create_task',
        args: { feature: 'auth', discipline: 'backend', title: 'Export audit trail v2' },
      });
      let caughtUpMs = Number.NaN;
      for (let i = 0; i < 2_000; i++) {
        if ((await call(search)) === undefined) {
          caughtUpMs = performance.now() - t0;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      const pings = await new Promise<number[]>((r) => {
        pinger.once('message', r);
        pinger.postMessage('stop');
      });
      await pinger.terminate();
      await worker.close();
      deaf.destroy();
      return { generation, tasks, calls, pings, caughtUpMs };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const MAX_REQUEST_MS = 500;
const MAX_PING_MS = 100;

/** `npm run stress`: 100,000 tasks on each generation. */
export async function run(): Promise<StressFigures> {
  const t0 = performance.now();
  const notes: string[] = [];
  let operations = 0;
  let bad = 0;
  for (const generation of ['legacy', 'normalized'] as const) {
    const r = await runHostile(generation, 100_000);
    operations += r.timings.length + r.pings.length;
    const slow = r.timings.filter((t) => t.ms > MAX_REQUEST_MS);
    const maxPing = Math.max(...r.pings);
    const worst = [...r.timings].sort((a, b) => b.ms - a.ms).slice(0, 3);
    notes.push(
      `${generation}: ${r.timings.length} hostile requests, slowest ${worst.map((t) => `${t.label} ${t.ms.toFixed(0)} ms${t.error ? ` (${t.error})` : ''}`).join('; ')}; ` +
        `${r.pings.length} pings, max ${maxPing.toFixed(1)} ms; index build ${r.indexBuildMs.toFixed(0)} ms (first search, before the battery); audit growth ${r.auditGrowth} bytes`,
    );
    for (const t of r.timings)
      process.stderr.write(`  ${generation} ${t.label}: ${t.ms.toFixed(1)} ms${t.error ? ` (${t.error})` : ''}\n`);
    if (slow.length > 0)
      notes.push(
        `${generation} OVER ${MAX_REQUEST_MS} ms: ${slow.map((t) => `${t.label} ${t.ms.toFixed(0)} ms`).join('; ')}`,
      );
    if (maxPing > MAX_PING_MS) notes.push(`${generation} ping OVER ${MAX_PING_MS} ms: ${maxPing.toFixed(1)} ms`);
    bad += slow.length + (maxPing > MAX_PING_MS ? 1 : 0);
    const w = await runRewrite(generation, 100_000);
    operations += w.calls.length + w.pings.length;
    const wSlow = w.calls.filter((t) => t.ms > MAX_REQUEST_MS);
    const wPing = Math.max(...w.pings);
    const [search, create] = w.calls;
    notes.push(
      `${generation}: after a rewrite of every title (a deaf subscriber to 1,000 tasks), first search ${search!.ms.toFixed(0)} ms (index_behind ${search!.behind}), ` +
        `create_task ${create!.ms.toFixed(0)} ms, slowest of ${w.calls.length} calls ${Math.max(...w.calls.map((c) => c.ms)).toFixed(0)} ms, ` +
        `caught up after ${(w.caughtUpMs / 1000).toFixed(1)} s; ${w.pings.length} pings, max ${wPing.toFixed(1)} ms`,
    );
    if (wSlow.length > 0)
      notes.push(
        `${generation} rewrite OVER ${MAX_REQUEST_MS} ms: ${wSlow.map((t) => `${t.label} ${t.ms.toFixed(0)} ms`).join('; ')}`,
      );
    if (wPing > MAX_PING_MS) notes.push(`${generation} rewrite ping OVER ${MAX_PING_MS} ms: ${wPing.toFixed(1)} ms`);
    bad += wSlow.length + (wPing > MAX_PING_MS ? 1 : 0) + (Number.isNaN(w.caughtUpMs) ? 1 : 0);
  }
  // A request over its bound stalls every session: counted as a busy error (must be zero).
  return {
    name: 'hostile (100k tasks)',
    processes: 2,
    operations,
    lostWrites: 0,
    busyErrors: bad,
    crashesSurvived: 0,
    fuzzCases: 0,
    serverCrashes: 0,
    seconds: (performance.now() - t0) / 1000,
    notes: notes.join('\n'),
  };
}

/** The ping thread: pings every 5 ms until told to stop, then sends back the latencies. */
if (!isMainThread && parentPort) {
  const port = parentPort;
  const client = await connectSocket((workerData as { socket: string }).socket);
  let running = true;
  port.on('message', () => (running = false));
  port.postMessage('ready');
  const pings: number[] = [];
  while (running) {
    const p0 = performance.now();
    await client.ping();
    pings.push(performance.now() - p0);
    await new Promise((r) => setTimeout(r, 5));
  }
  await client.close();
  port.postMessage(pings);
}
