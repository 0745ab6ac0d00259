/**
 * kill -9 in the middle of multi-row writes, round after round. Each round starts two
 * servers on the same database (the one the previous round's killed servers left, hot WAL and all):
 *
 * - A (full suite) gets a stream of spawn_subtasks (4 chained subtasks + the parent's "Split" comment
 *   + a dependent rewired to the last subtask) and skip_task (status + a "Skipped" comment);
 * - B (task_execution --task T) gets report_blocker calls (T's status and blocked_by + a comment on T
 *   + a comment on the upstream task),
 *
 * and both are killed with SIGKILL at a random moment while replies are coming back. Then: the
 * database passes integrity_check and foreign_key_check, every write is all there (rows, comments,
 * rewiring, its audit row) or not at all, and every write that was answered ok is there.
 *
 * `runCrashRounds` is shared by the fast test (test/e2e/faults.test.ts) and by `run` (npm run stress).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcChild, installExitHooks, type Reply } from '../bench/rpc.js';
import { createSampleProject } from '../sampleProject.js';
import { CLI, rng } from './concurrency.js';
import type { StressFigures } from './types.js';

const SUBTASKS = 4;
/** Calls per round: spawn_subtasks and skip_task alternate on A; B reports PER_ROUND blockers. */
const PER_ROUND = 16;

export interface CrashOptions {
  rounds: number;
  seed?: number;
  dir?: string;
  log?: (line: string) => void;
}

export interface CrashResult {
  seed: number;
  rounds: number;
  /** Servers killed with SIGKILL mid-stream, after which the checks passed. */
  kills: number;
  calls: number;
  /** Writes found whole after a kill / found absent / answered ok before the kill. */
  whole: number;
  absent: number;
  answered: number;
  /** Half-written writes, and writes answered ok but missing: must be empty. */
  problems: string[];
  /** Servers that died before we killed them: must be 0. */
  serverCrashes: number;
  seconds: number;
}

interface Issued {
  kind: 'spawn' | 'skip' | 'blocker';
  tag: string;
  args: Record<string, unknown>;
  reply?: Reply;
  // the rows the write involves
  parent?: number;
  dependent?: number;
  target?: number;
}

export async function runCrashRounds(opts: CrashOptions): Promise<CrashResult> {
  const seed = opts.seed ?? (Math.random() * 2 ** 31) >>> 0;
  const r = rng(seed);
  const log = opts.log ?? (() => undefined);
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'ralph-mcp-crash-'));
  const project = createSampleProject(dir, 'Crash');
  installExitHooks();
  const t0 = performance.now();
  const res: CrashResult = {
    seed,
    rounds: 0,
    kills: 0,
    calls: 0,
    whole: 0,
    absent: 0,
    answered: 0,
    problems: [],
    serverCrashes: 0,
    seconds: 0,
  };
  const all: Issued[] = [];
  const live: RpcChild[] = [];
  try {
    for (let round = 0; round < opts.rounds; round++) {
      // Fresh rows for this round, written the way Ralph writes them.
      const db = new Database(project.dbPath);
      db.pragma('busy_timeout = 5000');
      let next = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM tasks').get() as { id: number }).id;
      const ins = db.prepare(
        "INSERT INTO tasks (id, feature, discipline, title, status, depends_on, created, provenance) VALUES (?, 'recipes', 'backend', ?, 'pending', ?, '2026-01-01', 'human')",
      );
      const issued: Issued[] = [];
      let ownTask = 0;
      let upstream = 0;
      db.transaction(() => {
        for (let j = 0; j < PER_ROUND; j++) {
          const tag = `{r${round}j${j}}`;
          if (j % 2 === 0) {
            const parent = next++;
            const dependent = next++;
            ins.run(parent, `parent ${tag}`, '[]');
            ins.run(dependent, `dependent ${tag}`, `[${parent}]`);
            issued.push({
              kind: 'spawn',
              tag,
              parent,
              dependent,
              args: {
                parent_id: parent,
                chain: true,
                tasks: Array.from({ length: SUBTASKS }, (_, k) => ({ title: `sub ${tag} ${k}` })),
              },
            });
          } else {
            const target = next++;
            ins.run(target, `skip target ${tag}`, '[]');
            issued.push({ kind: 'skip', tag, target, args: { id: target, reason: `not needed ${tag}` } });
          }
        }
        ownTask = next++;
        upstream = next++;
        ins.run(ownTask, `blocked one {r${round}}`, '[]');
        ins.run(upstream, `upstream {r${round}}`, '[]');
      })();
      db.close();
      const blockers: Issued[] = Array.from({ length: PER_ROUND }, (_, j) => {
        const tag = `{r${round}b${j}}`;
        return { kind: 'blocker', tag, target: ownTask, args: { reason: `waiting ${tag}`, on_task_id: upstream } };
      });

      const a = new RpcChild(
        process.execPath,
        [CLI, '--project', project.root, '--session-id', `crash-${round}-a`, '--log-level', 'error'],
        { timeoutMs: 30_000 },
      );
      const b = new RpcChild(
        process.execPath,
        [
          CLI,
          '--project',
          project.root,
          '--recipe',
          'task_execution',
          '--task',
          String(ownTask),
          '--session-id',
          `crash-${round}-b`,
          '--log-level',
          'error',
        ],
        {
          timeoutMs: 30_000,
        },
      );
      live.push(a, b);
      let killing = false;
      for (const c of [a, b]) c.proc.once('exit', () => !killing && res.serverCrashes++);
      await Promise.all([a.initialize(), b.initialize()]);

      // Everything is sent at once; the kill lands at a random moment after the first answer.
      const send = (c: RpcChild, name: string, list: Issued[]) =>
        list.map((w) =>
          c.call(name, w.args).then(
            (reply) => (w.reply = reply),
            () => undefined,
          ),
        );
      const firstAnswer = new Promise<void>((resolveFirst) => {
        const pending = [
          ...send(
            a,
            'spawn_subtasks',
            issued.filter((w) => w.kind === 'spawn'),
          ),
          ...send(
            a,
            'skip_task',
            issued.filter((w) => w.kind === 'skip'),
          ),
          ...send(b, 'report_blocker', blockers),
        ];
        for (const p of pending) void p.then(() => resolveFirst());
        void Promise.all(pending).then(() => resolveFirst());
      });
      await firstAnswer;
      await new Promise((resolveWait) => setTimeout(resolveWait, Math.floor(r() * 40)));
      killing = true;
      await Promise.all([a.kill(), b.kill()]);
      live.length = 0;
      res.kills += 2;
      res.rounds++;
      const round_ = [...issued, ...blockers];
      res.calls += round_.length;
      all.push(...round_);
      const before = res.problems.length;
      check(project.dbPath, round_, res);
      if (res.problems.length > before) log(`round ${round}: ${res.problems.length - before} problem(s)`);
      if ((round + 1) % 10 === 0)
        log(
          `${round + 1} rounds: ${res.whole} whole, ${res.absent} absent, ${res.answered} answered, ${res.problems.length} problems`,
        );
    }
    // A last look with every round's writes: later rounds' recovery must not have undone earlier ones.
    const again: CrashResult = { ...res, whole: 0, absent: 0, answered: 0, problems: [] };
    check(project.dbPath, all, again);
    res.problems.push(...again.problems.map((p) => `final check: ${p}`));
  } finally {
    await Promise.all(live.map((c) => c.kill()));
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
  res.seconds = (performance.now() - t0) / 1000;
  return res;
}

/** All-or-nothing and durability for each issued write; integrity of the whole file. */
function check(dbPath: string, writes: Issued[], res: CrashResult): void {
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 5000');
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    if (integrity !== 'ok') res.problems.push(`integrity_check: ${integrity}`);
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length > 0) res.problems.push(`foreign_key_check: ${JSON.stringify(fk.slice(0, 3))}`);
    const n = (sql: string, ...v: unknown[]) => (db.prepare(sql).get(...v) as { n: number }).n;
    const audited = (tool: string, tag: string) =>
      n(
        "SELECT count(*) AS n FROM ralph_mcp_audit WHERE tool = ? AND outcome = 'ok' AND instr(arguments, ?) > 0",
        tool,
        tag,
      );
    const hasAudit =
      (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'ralph_mcp_audit'").get() as unknown) !== undefined;
    for (const w of writes) {
      // Each part of the write, true when present.
      let parts: Record<string, boolean>;
      if (w.kind === 'spawn') {
        const subs = db.prepare('SELECT id FROM tasks WHERE title LIKE ? ORDER BY id').all(`sub ${w.tag} %`) as {
          id: number;
        }[];
        const ids = subs.map((s) => s.id);
        const last = ids[ids.length - 1];
        const dep = JSON.parse(
          (db.prepare('SELECT depends_on AS d FROM tasks WHERE id = ?').get(w.dependent) as { d: string }).d,
        ) as number[];
        if (subs.length !== 0 && subs.length !== SUBTASKS)
          res.problems.push(`spawn ${w.tag}: ${subs.length} of ${SUBTASKS} subtasks`);
        parts = {
          subtasks: subs.length === SUBTASKS,
          comment:
            ids.length > 0 &&
            n(
              'SELECT count(*) AS n FROM task_comments WHERE task_id = ? AND body = ?',
              w.parent,
              `Split: subtasks ${ids.map((i) => `#${i}`).join(', ')}`,
            ) === 1,
          rewired: last !== undefined && dep.includes(last),
          audit: hasAudit && audited('spawn_subtasks', w.tag) === 1,
        };
      } else if (w.kind === 'skip') {
        const t = db.prepare('SELECT status FROM tasks WHERE id = ?').get(w.target) as { status: string };
        parts = {
          status: t.status === 'skipped',
          comment:
            n(
              'SELECT count(*) AS n FROM task_comments WHERE task_id = ? AND body = ?',
              w.target,
              `Skipped: ${w.args.reason as string}`,
            ) === 1,
          audit: hasAudit && audited('skip_task', w.tag) === 1,
        };
      } else {
        const reason = w.args.reason as string;
        const upstream = w.args.on_task_id as number;
        parts = {
          own_comment:
            n(
              'SELECT count(*) AS n FROM task_comments WHERE task_id = ? AND body = ?',
              w.target,
              `Blocked: ${reason} (blocked on task #${upstream})`,
            ) === 1,
          upstream_comment:
            n(
              'SELECT count(*) AS n FROM task_comments WHERE task_id = ? AND body LIKE ?',
              upstream,
              `%is blocked on this task: ${reason}`,
            ) === 1,
          audit: hasAudit && audited('report_blocker', w.tag) === 1,
        };
      }
      const present = Object.values(parts).filter(Boolean).length;
      if (present !== 0 && present !== Object.keys(parts).length)
        res.problems.push(`${w.kind} ${w.tag}: half written ${JSON.stringify(parts)}`);
      else if (present === 0) res.absent++;
      else res.whole++;
      const ok = w.reply !== undefined && !w.reply.isError;
      if (ok) res.answered++;
      if (ok && present === 0) res.problems.push(`${w.kind} ${w.tag}: answered ok but missing after the kill`);
      if (w.reply?.isError)
        res.problems.push(`${w.kind} ${w.tag}: failed before the kill: ${w.reply.line.slice(0, 300)}`);
    }
    // The blocked task's status and blocked_by come from the last report_blocker that committed.
    const byTask = new Map<number, Issued[]>();
    for (const w of writes) if (w.kind === 'blocker') byTask.set(w.target!, [...(byTask.get(w.target!) ?? []), w]);
    for (const [task, list] of byTask) {
      const t = db.prepare('SELECT status, blocked_by FROM tasks WHERE id = ?').get(task) as {
        status: string;
        blocked_by: string | null;
      };
      const lastComment = db
        .prepare("SELECT body FROM task_comments WHERE task_id = ? AND body LIKE 'Blocked: %' ORDER BY id DESC LIMIT 1")
        .get(task) as { body: string } | undefined;
      const committed = lastComment
        ? list.find((w) => lastComment.body.startsWith(`Blocked: ${w.args.reason as string} `))
        : undefined;
      const want = committed
        ? { status: 'blocked', blocked_by: committed.args.reason }
        : { status: 'pending', blocked_by: null };
      if (t.status !== want.status || t.blocked_by !== want.blocked_by) {
        res.problems.push(
          `task ${task}: ${JSON.stringify(t)}, but its last committed report_blocker says ${JSON.stringify(want)}`,
        );
      }
    }
  } finally {
    db.close();
  }
}

// ---- npm run stress ------------------------------------------------------------------------------

/** The long version: STRESS_CRASH_ROUNDS (default 60) rounds of two servers killed mid-stream. */
export async function run(): Promise<StressFigures> {
  const rounds = Number(process.env.STRESS_CRASH_ROUNDS ?? 60);
  const log = (l: string) => process.stderr.write(`  crash: ${l}\n`);
  const r = await runCrashRounds({ rounds, log });
  for (const p of r.problems.slice(0, 20)) log(`PROBLEM: ${p}`);
  return {
    name: 'crash',
    processes: 2,
    operations: r.calls,
    lostWrites: r.problems.length,
    busyErrors: 0,
    crashesSurvived: r.problems.length === 0 ? r.kills : 0,
    fuzzCases: 0,
    serverCrashes: r.serverCrashes,
    seconds: r.seconds,
    notes: `${r.rounds} rounds × 2 servers killed with SIGKILL mid-stream (spawn_subtasks, skip_task, report_blocker); writes whole ${r.whole}, absent ${r.absent} (never started or rolled back), answered ok ${r.answered}; half-written or answered-but-missing ${r.problems.length}; seed ${r.seed}`,
  };
}
