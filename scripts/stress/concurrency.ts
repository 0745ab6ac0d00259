/**
 * Many writers on one database: N server processes (full suite, each its own --session-id)
 * make mixed writes — create_task, add_task_comment, set_task_status, append_feature_learning,
 * append_progress, append_learning — while another process writes through plain SQL as Ralph would
 * (its own connection and busy timeout, BEGIN IMMEDIATE, ids max(id)+1, O_APPEND progress entries).
 *
 * Every write carries a unique marker, so afterwards each acknowledged write can be looked up: it must
 * be there exactly once (rows by marker, feature learnings by text, state-file entries whole by marker,
 * the session's audit rows by count), no call may fail with busy, and integrity_check must be ok.
 *
 * `runWriters` is shared by the fast test (test/slow/stress.writers.test.ts) and by `run` (npm run stress).
 * `node dist/scripts/stress/concurrency.js plain-writer …` is the plain-SQL writer's child process.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitEntries } from '../../src/domain/stateFiles.js';
import { RpcChild, installExitHooks, parseResult, type Reply } from '../bench/rpc.js';
import { createSampleProject } from '../sampleProject.js';
import type { StressFigures } from './types.js';
import { rng } from '../bench/datagen.js'; // mulberry32: seeded, so a failing run replays with its seed

const HERE = fileURLToPath(import.meta.url);
const REPO = resolve(dirname(HERE), '..', '..', '..');
export const CLI = join(REPO, 'dist', 'ralph-mcp.js');

// ---- small deterministic helpers ---------------------------------------------------------------

export { rng }; // crash.ts imports it from here
const int = (r: () => number, n: number) => Math.floor(r() * n);
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/**
 * Made-up words: two learnings share (almost) no word, so the word-set dedupe of feature learnings
 * never merges two different writes (it would be right to: they would not be different lessons).
 */
export function words(r: () => number, n: number): string {
  const c = 'bcdfghjklmnprstvz';
  const v = 'aeiou';
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = '';
    const syllables = 2 + int(r, 3);
    for (let s = 0; s < syllables; s++) w += c[int(r, c.length)]! + v[int(r, v.length)]!;
    out.push(w);
  }
  return out.join(' ');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the plan of writes ------------------------------------------------------------------------

const TASK_FEATURES = ['recipes', 'search', 'auth'] as const;
const DISCIPLINES = ['frontend', 'backend', 'quality', 'documentation'] as const;
const STATUSES = ['in_progress', 'done', 'blocked', 'pending', 'skipped'] as const;
const SAMPLE_TASKS = 8;
/** Feature learnings per stress feature, under the cap of 50 (past which a write is refused). */
const LEARNINGS_PER_FEATURE = 35;

type Kind =
  | 'create_task'
  | 'add_task_comment'
  | 'set_task_status'
  | 'append_feature_learning'
  | 'append_progress'
  | 'append_learning';
const MIX: readonly [Kind, number][] = [
  ['create_task', 24],
  ['add_task_comment', 20],
  ['set_task_status', 16],
  ['append_feature_learning', 14],
  ['append_progress', 13],
  ['append_learning', 13],
];
const MIX_TOTAL = MIX.reduce((n, [, w]) => n + w, 0);
function pickKind(r: () => number): Kind {
  let x = int(r, MIX_TOTAL);
  for (const [k, w] of MIX) {
    if (x < w) return k;
    x -= w;
  }
  return 'create_task';
}

export interface WritersOptions {
  /** Server processes writing at once (default 8). */
  processes?: number;
  /** Tool calls each makes (all writes). */
  opsPerProcess: number;
  /** At most this many plain-SQL writes by the Ralph-like writer, which stops when the servers are done (0: none). */
  plainOps: number;
  /** Calls each client keeps in flight (default 4). */
  inFlight?: number;
  seed?: number;
  /** Where to make the project (default: a fresh temp dir, removed afterwards). */
  dir?: string;
  /** Extra environment for the servers. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface WritersResult {
  seed: number;
  servers: number;
  /** Tool calls acknowledged ok + plain-SQL writes committed. */
  operations: number;
  toolCalls: number;
  plainWrites: number;
  byKind: Record<string, number>;
  /** Each acknowledged write that is missing, duplicated or not whole: must be empty. */
  lost: string[];
  /** Tool calls (and plain-SQL transactions) that failed with busy/locked: must be 0. */
  busyErrors: number;
  /** The first tool call refused as busy, with its answer. */
  firstBusy?: string;
  plainBusyErrors: number;
  /** Any other failed call, with its error: must be empty. */
  otherErrors: string[];
  /** Servers that exited before we closed them: must be 0. */
  serverCrashes: number;
  integrity: string;
  foreignKeyProblems: number;
  /** The write phase (from the first write to the last answer), and the writes per second in it. */
  seconds: number;
  writesPerSecond: number;
  /** The whole run: servers starting, writing, closing, and the verification. */
  totalSeconds: number;
}

interface Expect {
  tasks: Map<string, number>; // title → acknowledged count (1)
  comments: Map<string, number>; // body → count
  learnings: Map<string, string>; // text → feature
  progress: Map<string, string>; // marker → whole text
  learningsFile: Map<string, string>;
  statusOf: Map<number, string>; // own task id → last acknowledged status
  auditOk: Map<string, number>; // `${session}\t${tool}` → acknowledged count (database tools)
}

/** The entry text of a state-file append: the marker on its own first line, then words over lines. */
const stateText = (marker: string, r: () => number) => `${marker}\n${words(r, 6)}\n${words(r, 9)}\n- ${words(r, 4)}`;

export async function runWriters(opts: WritersOptions): Promise<WritersResult> {
  const servers = opts.processes ?? 8;
  const inFlight = opts.inFlight ?? 4;
  const seed = opts.seed ?? (Math.random() * 2 ** 31) >>> 0;
  const log = opts.log ?? (() => undefined);
  const tStart = performance.now();
  const runId = seed.toString(36);
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'ralph-mcp-stress-'));
  const project = createSampleProject(dir, 'Stress');
  installExitHooks();

  // Enough features that no feature reaches the learnings cap.
  const learningOps = Math.ceil((servers * opts.opsPerProcess * 14) / MIX_TOTAL) + servers * 4;
  const featureCount = Math.max(3, Math.ceil(learningOps / LEARNINGS_PER_FEATURE));
  const features = Array.from({ length: featureCount }, (_, k) => `stress-${k}`);
  {
    const db = new Database(project.dbPath);
    db.pragma('busy_timeout = 5000');
    const ins = db.prepare(
      "INSERT INTO features (name, display_name, acronym, description, created) VALUES (?, ?, ?, 'stress', '2026-01-01')",
    );
    db.transaction(() => {
      for (const [k, f] of features.entries())
        ins.run(f, `Stress ${k}`, `S${k.toString(36).toUpperCase().padStart(3, '0')}`);
    })();
    db.close();
  }

  const exp: Expect = {
    tasks: new Map(),
    comments: new Map(),
    learnings: new Map(),
    progress: new Map(),
    learningsFile: new Map(),
    statusOf: new Map(),
    auditOk: new Map(),
  };
  const byKind: Record<string, number> = {};
  let busyErrors = 0;
  let firstBusy: string | undefined;
  const otherErrors: string[] = [];
  let learningSeq = 0;

  const env = { ...process.env, ...opts.env };
  const sessions = Array.from({ length: servers }, (_, p) => `stress-${runId}-p${p}`);
  const children = sessions.map(
    (sid) =>
      new RpcChild(process.execPath, [CLI, '--project', project.root, '--session-id', sid, '--log-level', 'warn'], {
        env,
        timeoutMs: 120_000,
      }),
  );
  const closing = new Set<RpcChild>();
  let serverCrashes = 0;
  for (const c of children) {
    c.proc.once('exit', () => {
      if (!closing.has(c)) serverCrashes++;
    });
  }
  try {
    await Promise.all(children.map((c) => c.initialize()));
    log(
      `${servers} servers up on ${project.dbPath} (seed ${seed}); ${opts.opsPerProcess} writes each, up to ${opts.plainOps} plain-SQL writes`,
    );

    const t0 = performance.now();
    const plain =
      opts.plainOps > 0
        ? startPlainWriter(project.dbPath, project.progressFile, opts.plainOps, runId, seed)
        : undefined;
    await plain?.ready;

    const client = async (p: number) => {
      const c = children[p]!;
      const session = sessions[p]!;
      const r = rng(seed + 1000 * (p + 1));
      const own: number[] = [];
      let i = 0;
      const one = async (): Promise<void> => {
        const marker = `m-${runId}-p${p}-${i}`;
        let kind = pickKind(r);
        if (kind === 'set_task_status' && own.length === 0) kind = 'create_task';
        i++;
        let args: Record<string, unknown>;
        let onOk: (out: any) => void;
        switch (kind) {
          case 'create_task': {
            const title = `task ${marker}`;
            args = {
              feature: pick(r, TASK_FEATURES),
              discipline: pick(r, DISCIPLINES),
              title,
              description: words(r, 12),
            };
            onOk = (out) => {
              exp.tasks.set(title, (exp.tasks.get(title) ?? 0) + 1);
              own.push(out.task.id as number);
            };
            break;
          }
          case 'add_task_comment': {
            const body = `comment ${marker} ${words(r, 8)}`;
            const target = own.length > 0 && r() < 0.5 ? pick(r, own) : 1 + int(r, SAMPLE_TASKS);
            args = { task_id: target, body, ...(r() < 0.3 ? { priority: 'high' } : {}) };
            onOk = () => exp.comments.set(body, (exp.comments.get(body) ?? 0) + 1);
            break;
          }
          case 'set_task_status': {
            const id = pick(r, own);
            const status = pick(r, STATUSES);
            args = { id, status };
            // The server answers one client's calls in the order they were sent: the last one sent wins.
            onOk = () => exp.statusOf.set(id, status);
            break;
          }
          case 'append_feature_learning': {
            const text = `${marker} ${words(r, 8)}`;
            const feature = features[learningSeq++ % features.length]!;
            args = { feature_name: feature, text };
            onOk = (out) => {
              if (out.outcome !== 'added')
                otherErrors.push(`append_feature_learning ${marker}: outcome ${out.outcome} (matched ${out.matched})`);
              else exp.learnings.set(text, feature);
            };
            break;
          }
          case 'append_progress':
          case 'append_learning': {
            const text = stateText(marker, r);
            args = { text };
            const map = kind === 'append_progress' ? exp.progress : exp.learningsFile;
            onOk = () => map.set(marker, text);
            break;
          }
        }
        let reply: Reply;
        try {
          reply = await c.call(kind, args);
        } catch (err) {
          otherErrors.push(`${session} ${kind}: ${(err as Error).message.split('\n')[0]}`);
          return;
        }
        if (reply.isError) {
          const text = reply.line.slice(0, 400);
          if (reply.errorCode === 'busy' || /\b(busy|locked)\b/i.test(reply.rpcError?.message ?? '')) {
            busyErrors++;
            firstBusy ??= `${session} ${kind}: ${text}`;
          } else otherErrors.push(`${session} ${kind}: ${text}`);
          return;
        }
        onOk(parseResult<{ structuredContent: any }>(reply).structuredContent);
        byKind[kind] = (byKind[kind] ?? 0) + 1;
        if (kind !== 'append_progress' && kind !== 'append_learning') {
          const key = `${session}\t${kind}`;
          exp.auditOk.set(key, (exp.auditOk.get(key) ?? 0) + 1);
        }
      };
      // Keep `inFlight` calls outstanding; a lane sends its next call when its previous one answers.
      const lanes = Array.from({ length: inFlight }, async () => {
        while (i < opts.opsPerProcess && !c.proc.killed && c.proc.exitCode === null) await one();
      });
      await Promise.all(lanes);
    };
    await Promise.all(children.map((_, p) => client(p)));
    const clientsMs = performance.now() - t0;
    plain?.stop();
    const plainResult = plain ? await plain.done : undefined;
    const seconds = (performance.now() - t0) / 1000;
    for (const c of children) closing.add(c);
    await Promise.all(children.map((c) => c.close()));

    // ---- verification ----------------------------------------------------------------------
    const lost: string[] = [];
    const db = new Database(project.dbPath, { readonly: true });
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const foreignKeyProblems = (db.pragma('foreign_key_check') as unknown[]).length;
    // Whole columns read once into counts (title and body have no index; a query per marker would scan).
    const tally = (sql: string) => {
      const m = new Map<string, number>();
      for (const v of db.prepare(sql).pluck().iterate() as Iterable<string>) m.set(v, (m.get(v) ?? 0) + 1);
      return m;
    };
    const titles = tally('SELECT title FROM tasks');
    const bodies = tally('SELECT body FROM task_comments');
    const once = (what: string, n: number) => {
      if (n !== 1) lost.push(`${what}: found ${n} times`);
    };
    for (const title of exp.tasks.keys()) once(`task "${title}"`, titles.get(title) ?? 0);
    for (const body of exp.comments.keys()) once(`comment "${body.slice(0, 40)}"`, bodies.get(body) ?? 0);
    const status = db.prepare('SELECT status FROM tasks WHERE id = ?');
    for (const [id, s] of exp.statusOf) {
      const got = (status.get(id) as { status: string } | undefined)?.status;
      if (got !== s) lost.push(`task ${id}: last acknowledged status ${s}, found ${got}`);
    }
    const stored = new Map<string, number>();
    for (const f of db.prepare("SELECT name, learnings FROM features WHERE name LIKE 'stress-%'").all() as {
      name: string;
      learnings: string;
    }[]) {
      for (const l of JSON.parse(f.learnings) as { text: string }[]) {
        const key = `${f.name}\t${l.text}`;
        stored.set(key, (stored.get(key) ?? 0) + 1);
      }
    }
    for (const [text, f] of exp.learnings)
      once(`learning "${text.slice(0, 40)}" of ${f}`, stored.get(`${f}\t${text}`) ?? 0);
    const audited = tally("SELECT session_id || char(9) || tool FROM ralph_mcp_audit WHERE outcome = 'ok'");
    for (const [key, n] of exp.auditOk) {
      const [sid, tool] = key.split('\t') as [string, string];
      const got = audited.get(key) ?? 0;
      if (got !== n)
        lost.push(
          `${sid} ${tool}: ${n} acknowledged, ${got} audit rows (each write is recorded once, in its own transaction)`,
        );
    }
    if (plainResult) {
      for (const m of plainResult.tasks) once(`plain task ${m}`, titles.get(`plain task ${m}`) ?? 0);
      for (const m of plainResult.comments) once(`plain comment ${m}`, bodies.get(`plain comment ${m}`) ?? 0);
      for (const e of plainResult.errors) otherErrors.push(`plain writer: ${e}`);
    }
    db.close();
    lost.push(...checkStateFile(project.progressFile, exp.progress, plainResult?.progress ?? new Map()));
    lost.push(...checkStateFile(project.learningsFile, exp.learningsFile, new Map()));

    const toolCalls = Object.values(byKind).reduce((a, b) => a + b, 0);
    const plainWrites = plainResult?.committed ?? 0;
    log(
      `clients done in ${(clientsMs / 1000).toFixed(1)} s; verified ${toolCalls} tool writes + ${plainWrites} plain-SQL writes`,
    );
    return {
      seed,
      servers,
      operations: toolCalls + plainWrites,
      toolCalls,
      plainWrites,
      byKind,
      lost,
      busyErrors,
      ...(firstBusy !== undefined ? { firstBusy } : {}),
      plainBusyErrors: plainResult?.busy ?? 0,
      otherErrors,
      serverCrashes,
      integrity,
      foreignKeyProblems,
      seconds,
      writesPerSecond: (toolCalls + plainWrites) / seconds,
      totalSeconds: (performance.now() - tStart) / 1000,
    };
  } finally {
    for (const c of children) closing.add(c);
    await Promise.all(children.map((c) => c.kill()));
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Each acknowledged entry must be in the file exactly once and whole: its header line, then exactly
 * the text that was sent. Entries nobody acknowledged (a call that failed) must not be there at all.
 */
function checkStateFile(file: string, tool: Map<string, string>, plain: Map<string, string>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const name = file.split('/').slice(-1)[0];
  for (const entry of splitEntries(readFileSync(file, 'utf8'))) {
    const nl = entry.indexOf('\n');
    const header = entry.slice(0, nl);
    const body = entry.slice(nl + 1).replace(/\n+$/, '');
    const marker = body.split('\n', 1)[0]!;
    const want = tool.get(marker) ?? plain.get(marker);
    if (!/^## \S+Z · /.test(header) || want === undefined || body !== want) {
      problems.push(
        `${name}: an entry that is not one whole acknowledged write: ${JSON.stringify(entry.slice(0, 120))}`,
      );
      continue;
    }
    seen.set(marker, (seen.get(marker) ?? 0) + 1);
  }
  for (const m of [...tool.keys(), ...plain.keys()])
    if (seen.get(m) !== 1) problems.push(`${name}: entry ${m} found ${seen.get(m) ?? 0} times`);
  return problems;
}

// ---- the plain-SQL writer (a child process, as Ralph is) ----------------------------------------

const MIN_PLAIN_OPS = 40;

interface PlainResult {
  committed: number;
  tasks: string[];
  comments: string[];
  progress: Map<string, string>;
  busy: number;
  errors: string[];
}

/**
 * Starts the plain-SQL writer; `ready` when it has its connection, `stop()` (its stdin closing) ends it
 * when the servers are done (after at least MIN_PLAIN_OPS writes).
 */
function startPlainWriter(
  dbPath: string,
  progressFile: string,
  ops: number,
  runId: string,
  seed: number,
): { ready: Promise<void>; stop: () => void; done: Promise<PlainResult> } {
  const child = spawn(
    process.execPath,
    [HERE, 'plain-writer', dbPath, progressFile, String(ops), runId, String(seed)],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  child.stdin.on('error', () => undefined);
  const ready = new Promise<void>((resolveReady, reject) => {
    child.stdout.once('data', () => resolveReady());
    child.once('exit', (code) => reject(new Error(`plain-SQL writer exited with ${code} before it started`)));
  });
  ready.catch(() => undefined);
  const done = new Promise<PlainResult>((resolvePlain, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`plain-SQL writer exited with ${code}: ${err}`));
      const r = JSON.parse(out.slice(out.indexOf('\n') + 1)) as Omit<PlainResult, 'progress'> & {
        progress: [string, string][];
      };
      resolvePlain({ ...r, progress: new Map(r.progress) });
    });
  });
  return { ready, stop: () => child.stdin.end(), done };
}

/**
 * What Ralph does: its own connection with a busy timeout, short BEGIN IMMEDIATE transactions (a new
 * task with id max(id)+1, a comment, or both), and progress entries appended with O_APPEND, one write
 * each. It paces itself (0-3 ms between writes) and stops after `ops` writes or when its stdin closes
 * (the servers are done) once it has made MIN_PLAIN_OPS, so that it writes throughout their run.
 */
async function plainWriter(
  dbPath: string,
  progressFile: string,
  ops: number,
  runId: string,
  seed: number,
): Promise<void> {
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const r = rng(seed ^ 0x5eed);
  const res = {
    committed: 0,
    tasks: [] as string[],
    comments: [] as string[],
    progress: [] as [string, string][],
    busy: 0,
    errors: [] as string[],
  };
  const nextId = db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM tasks');
  const insTask = db.prepare(
    "INSERT INTO tasks (id, feature, discipline, title, status, created, provenance) VALUES (?, ?, ?, ?, 'pending', '2026-01-01', 'human')",
  );
  const insComment = db.prepare(
    "INSERT INTO task_comments (task_id, author, body, created) VALUES (?, 'human', ?, '2026-01-01T00:00:00Z')",
  );
  let stop = false;
  process.stdin
    .on('close', () => (stop = true))
    .on('end', () => (stop = true))
    .resume();
  process.stdout.write('ready\n');
  for (let i = 0; i < ops && !(stop && i >= MIN_PLAIN_OPS); i++) {
    const m = `plain-${runId}-${i}`;
    const kind = int(r, 4);
    try {
      if (kind === 3) {
        const text = stateText(m, r);
        appendFileSync(progressFile, `## ${new Date().toISOString()} · ralph\n${text}\n\n`);
        res.progress.push([m, text]);
      } else {
        db.transaction(() => {
          if (kind === 0 || kind === 2) {
            const id = (nextId.get() as { id: number }).id;
            insTask.run(id, pick(r, TASK_FEATURES), pick(r, DISCIPLINES), `plain task ${m}`);
            if (kind === 2) insComment.run(id, `plain comment ${m}`);
          } else insComment.run(1 + int(r, SAMPLE_TASKS), `plain comment ${m}`);
        }).immediate();
        if (kind === 0 || kind === 2) res.tasks.push(m);
        if (kind === 1 || kind === 2) res.comments.push(m);
      }
      res.committed++;
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (/BUSY|LOCKED/.test(code)) res.busy++;
      else res.errors.push(`${code} ${(e as Error).message}`);
    }
    await sleep(int(r, 4));
  }
  db.close();
  process.stdout.write(JSON.stringify(res));
}

// ---- npm run stress ------------------------------------------------------------------------------

/** The long version: 8 servers × STRESS_WRITES (default 10000) writes each, with a plain-SQL writer throughout. */
export async function run(): Promise<StressFigures> {
  const ops = Number(process.env.STRESS_WRITES ?? 10000);
  const servers = 8;
  const log = (l: string) => process.stderr.write(`  concurrency: ${l}\n`);
  const r = await runWriters({ processes: servers, opsPerProcess: ops, plainOps: 1_000_000, log });
  const problems = [...r.lost, ...r.otherErrors];
  for (const p of problems.slice(0, 20)) log(`PROBLEM: ${p}`);
  if (r.busyErrors + r.plainBusyErrors > 0)
    log(`PROBLEM: busy: ${r.busyErrors} tool call(s) (first: ${r.firstBusy}), ${r.plainBusyErrors} plain-SQL`);
  if (r.integrity !== 'ok' || r.foreignKeyProblems > 0)
    log(`PROBLEM: integrity_check ${r.integrity}, ${r.foreignKeyProblems} foreign-key problems`);
  const kinds = Object.entries(r.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return {
    name: 'concurrency',
    processes: servers + 1,
    operations: r.operations,
    // A write that failed for any other reason, or an integrity failure, is a lost write too.
    lostWrites: r.lost.length + r.otherErrors.length + (r.integrity === 'ok' && r.foreignKeyProblems === 0 ? 0 : 1),
    busyErrors: r.busyErrors + r.plainBusyErrors,
    crashesSurvived: 0,
    fuzzCases: 0,
    serverCrashes: r.serverCrashes,
    seconds: r.totalSeconds,
    notes: `${servers} servers + 1 plain-SQL writer; ${Math.round(r.writesPerSecond)} writes/s over ${r.seconds.toFixed(1)} s of writing; ${kinds}, plain SQL ${r.plainWrites}; integrity_check ${r.integrity}; seed ${r.seed}`,
  };
}

if (process.argv[1] === HERE && process.argv[2] === 'plain-writer') {
  const [dbPath, progressFile, ops, runId, seed] = process.argv.slice(3) as [string, string, string, string, string];
  await plainWriter(dbPath, progressFile, Number(ops), runId, Number(seed));
}
