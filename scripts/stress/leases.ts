/**
 * Claims with leases under crashes. Five worker processes (stdio, `--recipe worker
 * --lease-seconds 2`) drain a generated project (every task pending, some depending on others) while
 * two of them are killed with SIGKILL at random moments holding a task, and one socket connection (a
 * sixth worker, on a shared socket server) is closed in the middle of its task. Then:
 * - every task ends `done`, exactly once (one acknowledged set_task_status done per task in ralph_mcp_audit);
 * - no task stays in_progress past its lease: sampled all along, an in_progress task never has a lease
 *   that ran out more than SLACK_MS ago (the next claim takes it over), and none is left at the end;
 * - every takeover is recorded: each `took_over` answer has its audit row (outcome took_over) and its
 *   comment on the task, and the tasks the killed workers held were taken over;
 * - the closed connection's task was given back (comment "Released: connection closed");
 * - the invariant of issue 28, sampled all along: a task in_progress under a worker has exactly one claim row
 *   (none is ever seen without one), and only its holder writes it (replaying ralph_mcp_audit, every acknowledged
 *   set_task_status comes from the session whose claim the task was under). Two of the workers are launched
 *   with one --session-id (`lease-twin`): their leases stay distinct, and a killed twin's task is taken over.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcChild, installExitHooks, track } from '../bench/rpc.js';
import { createSampleProject } from '../sampleProject.js';
import { CLI, rng } from './concurrency.js';
import type { StressFigures } from './types.js';

const TASKS = 80;
const WORKERS = 5;
const LEASE_SECONDS = 2;
/** How long past its lease an in_progress task may be seen before a claim takes it over. */
const SLACK_MS = 1500;

interface Worker {
  call(name: string, args?: Record<string, unknown>): Promise<any>;
}

/** A stdio worker: the structured result of a call (errors as { error }). */
function stdioWorker(c: RpcChild): Worker {
  return {
    async call(name, args = {}) {
      const r = await c.call(name, args);
      const res = JSON.parse(r.line).result as { structuredContent?: any } | undefined;
      return res?.structuredContent ?? { error: { code: 'rpc' } };
    },
  };
}

/** A worker on one socket connection. */
function socketWorker(path: string): Promise<Worker & { sock: Socket }> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    const waiting = new Map<number, (m: any) => void>();
    let buf = '';
    let id = 0;
    sock.on('data', (b: Buffer) => {
      buf += b.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl)) as { id?: number };
        buf = buf.slice(nl + 1);
        if (typeof m.id === 'number') waiting.get(m.id)?.(m);
      }
    });
    sock.once('error', reject);
    const ask = (method: string, params: unknown) =>
      new Promise<any>((r) => {
        const n = ++id;
        waiting.set(n, r);
        sock.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
      });
    sock.once('connect', () => {
      void ask('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'stress-leases', version: '0' },
      }).then(() => {
        sock.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
        resolve({
          sock,
          call: async (name, args = {}) =>
            (await ask('tools/call', { name, arguments: args })).result?.structuredContent ?? {
              error: { code: 'rpc' },
            },
        });
      });
    });
  });
}

/** The last two workers share one --session-id (issue 28): their leases must stay distinct. */
const sessionIdOf = (i: number): string => (i >= WORKERS - 2 ? 'lease-twin' : `lease-w${i}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LeasesResult {
  seed: number;
  tasks: number;
  claims: number;
  takeovers: number;
  kills: number;
  killedHolding: number;
  closedHolding: number;
  calls: number;
  problems: string[];
  busyErrors: number;
  serverCrashes: number;
  maxStaleMs: number;
  /** Samples of the invariant (in_progress tasks checked) and violations seen: in_progress with no claim row. */
  invariantSamples: number;
  unleasedSeen: number;
  /** Acknowledged writes checked against the holder, and those made by another session. */
  writesChecked: number;
  foreignWrites: number;
  seconds: number;
}

export async function runLeases(
  opts: { seed?: number; tasks?: number; log?: (s: string) => void } = {},
): Promise<LeasesResult> {
  const seed = opts.seed ?? (Math.random() * 2 ** 31) >>> 0;
  const r = rng(seed);
  const log = opts.log ?? (() => undefined);
  const n = opts.tasks ?? TASKS;
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mcp-leases-'));
  const project = createSampleProject(dir, 'Leases');
  installExitHooks();
  const t0 = performance.now();
  const problems: string[] = [];
  const res: LeasesResult = {
    seed,
    tasks: n,
    claims: 0,
    takeovers: 0,
    kills: 0,
    killedHolding: 0,
    closedHolding: 0,
    calls: 0,
    problems,
    busyErrors: 0,
    serverCrashes: 0,
    maxStaleMs: 0,
    invariantSamples: 0,
    unleasedSeen: 0,
    writesChecked: 0,
    foreignWrites: 0,
    seconds: 0,
  };
  // The sample's own tasks out of the way (done), then n generated ones, a third depending on an earlier one.
  const ids: number[] = [];
  {
    const db = new Database(project.dbPath);
    db.pragma('busy_timeout = 5000');
    db.transaction(() => {
      db.prepare("UPDATE tasks SET status = 'done', completed = '2026-01-01' WHERE status <> 'done'").run();
      const base = Number((db.prepare('SELECT max(id) AS m FROM tasks').get() as { m: number }).m);
      const ins = db.prepare(
        "INSERT INTO tasks (id, feature, discipline, title, status, priority, tags, depends_on, created, acceptance_criteria, context_files, output_artifacts) VALUES (?, 'search', 'backend', ?, 'pending', ?, '[]', ?, '2026-01-01', '[]', '[]', '[]')",
      );
      for (let i = 1; i <= n; i++) {
        const id = base + i;
        const dep = i > 3 && r() < 0.33 ? [base + 1 + Math.floor(r() * (i - 1))] : [];
        ins.run(id, `Lease task ${i}`, ['high', 'medium', 'low'][Math.floor(r() * 3)], JSON.stringify(dep));
        ids.push(id);
      }
    })();
    db.close();
  }
  const idSet = new Set(ids);
  const flags = [
    '--project',
    project.root,
    '--recipe',
    'worker',
    '--lease-seconds',
    String(LEASE_SECONDS),
    '--log-level',
    'error',
  ];
  const children = Array.from(
    { length: WORKERS },
    (_, i) =>
      new RpcChild(process.execPath, [CLI, ...flags, '--session-id', sessionIdOf(i)], {
        timeoutMs: 60_000,
      }),
  );
  const killed = new Set<RpcChild>();
  for (const c of children) {
    c.proc.once('exit', () => {
      if (!killed.has(c) && !stopping) res.serverCrashes++;
    });
  }
  let stopping = false;
  const socketPath = join(dir, 'mcp.sock');
  const socketServer = spawn(
    process.execPath,
    [CLI, ...flags, '--transport', 'socket', '--socket', socketPath, '--session-id', 'lease-sock'],
    { stdio: 'ignore' },
  );
  track(socketServer);
  socketServer.once('exit', () => void (stopping ? undefined : res.serverCrashes++));
  const db = new Database(project.dbPath, { readonly: true });
  db.pragma('busy_timeout = 5000');
  const remaining = () =>
    Number(
      (db.prepare("SELECT count(*) AS n FROM tasks WHERE id >= ? AND status <> 'done'").get(ids[0]) as { n: number }).n,
    );
  const tookOver: { task: number; from: string }[] = [];
  const heldBy = new Map<Worker, number>();
  /** The tasks the killed workers held when they died: each must be taken over. */
  const victimTasks: number[] = [];
  try {
    await Promise.all(children.map((c) => c.initialize()));
    for (
      let waited = 0;
      !(
        existsSync(`${socketPath}.pid`) && readFileSync(`${socketPath}.pid`, 'utf8').trim() === String(socketServer.pid)
      );
      waited += 25
    ) {
      if (waited > 15_000) throw new Error('socket server did not start');
      await sleep(25);
    }
    log(
      `${WORKERS} stdio workers + a socket server on ${project.dbPath} (seed ${seed}), ${n} tasks, lease ${LEASE_SECONDS}s`,
    );

    // The loop every worker runs: claim, work (a few reads, which renew the lease), done; idle: poll.
    const loop = async (w: Worker, alive: () => boolean, onHolding?: () => void) => {
      while (alive() && remaining() > 0) {
        const c = await w.call('claim_next_task');
        res.calls++;
        if (c.error) {
          if (c.error.code === 'busy') res.busyErrors++;
          else problems.push(`claim_next_task: ${JSON.stringify(c.error)}`);
          await sleep(100);
          continue;
        }
        if (!c.claimed) {
          await sleep(100 + r() * 150);
          continue;
        }
        res.claims++;
        heldBy.set(w, c.task.id);
        if (c.took_over) tookOver.push({ task: c.task.id, from: c.took_over.session_id });
        onHolding?.();
        for (let k = Math.floor(r() * 3); k >= 0 && alive(); k--) {
          await sleep(50 + r() * 200);
          res.calls++;
          await w.call('get_task', {});
        }
        if (!alive()) return;
        res.calls++;
        const d = await w.call('set_task_status', { status: 'done' });
        if (d.error) {
          if (d.error.code === 'busy') res.busyErrors++;
          problems.push(`set_task_status done on ${c.task.id}: ${JSON.stringify(d.error)}`);
        }
        heldBy.delete(w);
      }
    };

    // Two victims, killed with SIGKILL while holding a task, at random moments.
    const victims = new Set([0, 1].map((k) => children[(k + Math.floor(r() * WORKERS)) % WORKERS]!));
    if (victims.size < 2) victims.add(children.find((c) => !victims.has(c))!);
    const loops = children.map((c) => {
      const w = stdioWorker(c);
      const holding = () => heldBy.get(w);
      const victim = victims.has(c);
      const killAfter = performance.now() + 300 + r() * 2000;
      return loop(
        w,
        () => !killed.has(c),
        victim
          ? () => {
              if (!killed.has(c) && performance.now() >= killAfter) {
                killed.add(c);
                const t = holding();
                if (t !== undefined) victimTasks.push(t);
                res.kills++;
                res.killedHolding++;
                c.proc.kill('SIGKILL');
              }
            }
          : undefined,
      ).catch((err: Error) => {
        if (!killed.has(c)) problems.push(`worker: ${err.message.slice(0, 300)}`);
      });
    });
    // The socket worker: works a task or two, then its connection closes mid-task.
    const sockLoop = (async () => {
      const w = await socketWorker(socketPath);
      let closed = false;
      let done = 0;
      await loop(
        w,
        () => !closed,
        () => {
          if (done++ >= 1 + Math.floor(r() * 2)) {
            closed = true;
            res.closedHolding++;
            w.sock.destroy();
          }
        },
      );
    })().catch((err: Error) => problems.push(`socket worker: ${err.message}`));

    // A monitor: no in_progress task of ours past its lease (plus slack), none without a claim.
    let monitoring = true;
    const monitor = (async () => {
      while (monitoring) {
        const now = Date.now();
        const rows = db
          .prepare(
            "SELECT t.id, c.lease_until FROM tasks t LEFT JOIN ralph_mcp_claims c ON c.task_id = t.id WHERE t.status = 'in_progress' AND t.id >= ?",
          )
          .all(ids[0]) as {
          id: number;
          lease_until: string | null;
        }[];
        res.invariantSamples += rows.length;
        for (const row of rows) {
          // Every task here was claimed: in_progress without a claim row would never be taken over.
          if (row.lease_until === null) {
            res.unleasedSeen++;
            problems.push(`task ${row.id} seen in_progress with no claim row`);
            continue;
          }
          const stale = now - Date.parse(row.lease_until);
          res.maxStaleMs = Math.max(res.maxStaleMs, stale);
        }
        await sleep(100);
      }
    })();

    const deadline = performance.now() + 180_000;
    while (remaining() > 0) {
      if (performance.now() > deadline) {
        problems.push(`not drained in 180 s: ${remaining()} tasks left`);
        break;
      }
      await sleep(100);
    }
    await Promise.all([...loops, sockLoop]);
    monitoring = false;
    await monitor;

    // ---- checks ----------------------------------------------------------------------------
    if (res.kills < 2) problems.push(`only ${res.kills} workers were killed holding a task (2 planned)`);
    if (res.closedHolding < 1) problems.push('the socket connection never closed holding a task');
    const statusRows = db.prepare('SELECT id, status FROM tasks WHERE id >= ?').all(ids[0]) as {
      id: number;
      status: string;
    }[];
    for (const row of statusRows)
      if (idSet.has(row.id) && row.status !== 'done') problems.push(`task ${row.id} ends ${row.status}`);
    const doneCounts = db
      .prepare(
        "SELECT task_id, count(*) AS n FROM ralph_mcp_audit WHERE tool = 'set_task_status' AND outcome = 'ok' AND json_extract(arguments, '$.status') = 'done' GROUP BY task_id",
      )
      .all() as { task_id: number; n: number }[];
    const doneOf = new Map(doneCounts.map((d) => [d.task_id, d.n]));
    for (const id of ids) if (doneOf.get(id) !== 1) problems.push(`task ${id} set done ${doneOf.get(id) ?? 0} times`);
    const audited = db
      .prepare(
        "SELECT task_id, json_extract(arguments, '$.took_over.session_id') AS from_session FROM ralph_mcp_audit WHERE outcome = 'took_over' ORDER BY id",
      )
      .all() as {
      task_id: number;
      from_session: string;
    }[];
    res.takeovers = audited.length;
    const comments = Number(
      (
        db.prepare("SELECT count(*) AS n FROM task_comments WHERE body LIKE 'Taken over from session %'").get() as {
          n: number;
        }
      ).n,
    );
    const key = (x: { task: number; from: string }) => `${x.task}<-${x.from}`;
    const seen = new Set(audited.map((a) => key({ task: a.task_id, from: a.from_session })));
    for (const t of tookOver)
      if (!seen.has(key(t))) problems.push(`takeover of task ${t.task} from ${t.from} answered but not recorded`);
    if (audited.length !== tookOver.length)
      problems.push(`${tookOver.length} took_over answers, ${audited.length} audit rows`);
    if (comments !== audited.length) problems.push(`${audited.length} takeovers recorded, ${comments} comments`);
    const takenTasks = new Set(audited.map((a) => a.task_id));
    for (const t of victimTasks) if (!takenTasks.has(t)) problems.push(`task ${t} of a killed worker never taken over`);
    if (victimTasks.length < res.kills) problems.push(`${res.kills} workers killed, ${victimTasks.length} holding`);
    checkHolderWrites(db, idSet, res);
    const released = Number(
      (
        db.prepare("SELECT count(*) AS n FROM task_comments WHERE body = 'Released: connection closed'").get() as {
          n: number;
        }
      ).n,
    );
    if (released !== res.closedHolding)
      problems.push(`${res.closedHolding} connections closed holding a task, ${released} released`);
    if (res.maxStaleMs > SLACK_MS) problems.push(`an in_progress task was seen ${res.maxStaleMs} ms past its lease`);
    const leftover = Number(
      (db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'in_progress'").get() as { n: number }).n,
    );
    if (leftover > 0) problems.push(`${leftover} tasks still in_progress`);
  } finally {
    stopping = true;
    db.close();
    for (const c of children) if (!killed.has(c)) c.proc.kill('SIGTERM');
    socketServer.kill('SIGTERM');
    await sleep(200);
    res.seconds = (performance.now() - t0) / 1000;
    if (problems.length === 0) rmSync(dir, { recursive: true, force: true });
    else log(`kept ${dir} for inspection`);
  }
  return res;
}

export async function run(): Promise<StressFigures> {
  const r = await runLeases({ log: (s) => process.stderr.write(`  ${s}\n`) });
  for (const p of r.problems.slice(0, 20)) process.stderr.write(`  leases: ${p}\n`);
  return {
    name: 'leases: 5 workers, 2 kill -9, 1 socket close',
    processes: WORKERS + 1,
    operations: r.calls,
    lostWrites: r.problems.length,
    busyErrors: r.busyErrors,
    crashesSurvived: r.kills + r.closedHolding,
    fuzzCases: 0,
    serverCrashes: r.serverCrashes,
    seconds: r.seconds,
    notes: `seed ${r.seed}: ${r.tasks} tasks each done exactly once; ${r.claims} claims, ${r.takeovers} takeovers (all recorded: audit row + comment), ${r.killedHolding} workers killed holding a task, ${r.closedHolding} connection closed holding one (released); an in_progress task seen at most ${Math.max(0, r.maxStaleMs)} ms past its lease (lease ${LEASE_SECONDS} s); invariant: ${r.invariantSamples} in_progress samples, ${r.unleasedSeen} without a claim row, ${r.writesChecked} status writes replayed, ${r.foreignWrites} by a non-holder; two workers share --session-id lease-twin`,
  };
}

/**
 * Only its holder writes a task (issue 28): replays ralph_mcp_audit in order, following each task's holder
 * (a claim or a takeover sets it, a release clears it), and counts acknowledged set_task_status calls made by
 * any other session. Twins share a session id, so this sees a twin writing the other's task only through
 * the in_progress-without-a-row check; their claims are distinct rows (one per task) by construction.
 */
function checkHolderWrites(db: Database.Database, ids: Set<number>, res: LeasesResult): void {
  const rows = db
    .prepare(
      "SELECT task_id, session_id, tool, outcome FROM ralph_mcp_audit WHERE outcome IN ('ok', 'took_over') AND task_id IS NOT NULL ORDER BY id",
    )
    .all() as { task_id: number; session_id: string; tool: string; outcome: string }[];
  const holderOf = new Map<number, string | null>();
  for (const r of rows) {
    if (!ids.has(r.task_id)) continue;
    if (r.tool === 'claim_next_task' || r.tool === 'claim_task') holderOf.set(r.task_id, r.session_id);
    else if (r.tool === 'release_task') holderOf.set(r.task_id, null);
    else if (r.tool === 'set_task_status') {
      res.writesChecked++;
      const h = holderOf.get(r.task_id);
      if (h !== r.session_id) {
        res.foreignWrites++;
        res.problems.push(`task ${r.task_id} written by ${r.session_id} while ${h ?? 'nobody'} held it`);
      }
      holderOf.set(r.task_id, null);
    }
  }
}
