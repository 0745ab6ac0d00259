/**
 * `npm run bench` (issue 6): cold start, tools/list size, per-tool-family latency and throughput at
 * 1k / 10k / 100k tasks, memory, and concurrent writers — measured on the built artifact
 * (dist/ralph-mcp.js) with a lean JSON-RPC client (scripts/bench/rpc.ts). Prints one report and writes
 * everything to bench/results.json. BENCH_QUICK=1: only 1,000 tasks and fewer iterations (smoke run).
 */
import Database from 'better-sqlite3';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DISCIPLINES, FEATURES, generateProject, int as randInt, paragraph, pick, readyCount, rng, searchQuery, sentence, title, type GenStats } from './datagen.js';
import { int, mb, median, ms, round, summarize, table } from './format.js';
import { RpcChild, installExitHooks, killAll, onExit, parseResult, spawnTimed, type Reply } from './rpc.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(REPO, 'dist', 'ralph-mcp.js');
const OUT = join(REPO, 'bench', 'results.json');
const QUICK = process.env.BENCH_QUICK === '1';
/**
 * The environment every child gets. NODE_EXTRA_CA_CERTS is dropped: Node reads that file at every
 * start (~80 ms on a sandbox that sets it), which would hide the server's own start-up cost inside a
 * slow `node -e 0` baseline. BENCH_KEEP_ENV=1 keeps the environment as it is.
 */
const KEEP_ENV = process.env.BENCH_KEEP_ENV === '1';
const CHILD_ENV: NodeJS.ProcessEnv = (() => {
  const env = { ...process.env };
  if (!KEEP_ENV) delete env.NODE_EXTRA_CA_CERTS;
  return env;
})();
const ENV_NOTE = !KEEP_ENV && process.env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS unset for children (BENCH_KEEP_ENV=1 keeps it)' : '';

const CFG = QUICK
  ? { sizes: [1000], coldRuns: 10, seqWarm: 50, seqMax: 300, seqMin: 10, seqBudgetMs: 800, pipeGetTask: 3000, pipeMax: 2000, pipeMin: 10, pipeBudgetMs: 600, rssCalls: 2000, concSize: 1000, concWrites: 480, concProcs: 8, concRounds: 1 }
  : { sizes: [1000, 10_000, 100_000], coldRuns: 21, seqWarm: 200, seqMax: 2000, seqMin: 10, seqBudgetMs: 2000, pipeGetTask: 20_000, pipeMax: 10_000, pipeMin: 10, pipeBudgetMs: 1500, rssCalls: 10_000, concSize: 10_000, concWrites: 2400, concProcs: 8, concRounds: 2 };

const RECIPES_ALL = ['braindump', 'yap', 'ramble', 'discuss', 'task_execution', 'opus_review', 'enrichment', 'worker'];
const COLD_KINDS = ['task_execution', 'opus_review', 'full suite'] as const;

type Call = readonly [string, Record<string, unknown>];
const T0 = performance.now();
/** Progress goes to stderr; stdout carries only the final report. */
const log = (msg: string) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`);

interface Project {
  size: number;
  dir: string;
  writeDir: string;
  gen: GenStats;
  dbMb: number;
  dbMbIndexed: number;
  firstInitMs: number;
  indexBuildMs: number;
  pendingTaskId: number;
}

const dbPath = (dir: string) => join(dir, '.ralph', 'db', 'ralph.db');
const sqlite = (dir: string) => {
  const db = new Database(dbPath(dir));
  db.pragma('busy_timeout = 5000');
  return db;
};
/** loadavg (1/5/15 min) and, where the kernel has it, the share of the last 60 s some task waited for a CPU. */
interface Load {
  load1: number;
  load5: number;
  load15: number;
  cpu_pressure_avg60_pct?: number;
}
function loadNow(): Load {
  const [load1, load5, load15] = os.loadavg().map((x) => round(x, 2)) as [number, number, number];
  const out: Load = { load1, load5, load15 };
  try {
    const psi = /some avg10=[\d.]+ avg60=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    if (psi) out.cpu_pressure_avg60_pct = Number(psi[1]);
  } catch {
    /* no PSI here */
  }
  return out;
}
const fmtLoad = (l: Load | undefined) =>
  l ? `${l.load1} ${l.load5} ${l.load15}${l.cpu_pressure_avg60_pct !== undefined ? ` (cpu pressure ${l.cpu_pressure_avg60_pct}%)` : ''}` : '-';
const fileMb = (p: string) => (existsSync(p) ? statSync(p).size / 1048576 : 0);

function serverArgs(dir: string, flags: readonly string[] = []): string[] {
  return [CLI, '--project', dir, ...flags, '--log-level', 'warn'];
}

async function session(dir: string, flags: readonly string[] = [], timeoutMs = 60_000): Promise<{ c: RpcChild; initMs: number; init: any }> {
  const c = new RpcChild(process.execPath, serverArgs(dir, flags), { timeoutMs, env: CHILD_ENV });
  try {
    const { result, ms: initMs } = await c.initialize();
    return { c, initMs, init: result };
  } catch (err) {
    await c.kill();
    throw err;
  }
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));

// ---- databases -------------------------------------------------------------------------------

async function prepareProject(tmp: string, size: number): Promise<Project> {
  const dir = join(tmp, `p${size}`);
  log(`generating ${int(size)} tasks`);
  const gen = generateProject(CLI, dir, size, 1000 + size, CHILD_ENV);
  const dbMb = fileMb(dbPath(dir));
  // Warm-up session: the first search builds the FTS5 index (ralph_mcp_search) from every task.
  const { c, initMs } = await session(dir, [], 300_000);
  const t = performance.now();
  await c.ok('search_tasks', { query: 'session token' });
  const indexBuildMs = performance.now() - t;
  await c.ok('get_task', { id: 1 });
  await c.close();
  const db = sqlite(dir);
  const pendingTaskId = (db.prepare("SELECT id FROM tasks WHERE status = 'pending' ORDER BY id LIMIT 1").get() as { id: number }).id;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const dbMbIndexed = fileMb(dbPath(dir));
  log(`  ${int(size)}: generated in ${ms(gen.ms)} ms, ${mb(dbMb)} MB; first session initialize ${ms(initMs)} ms, index build ${ms(indexBuildMs)} ms`);
  const writeDir = join(tmp, `p${size}-write`);
  cpSync(dir, writeDir, { recursive: true });
  return { size, dir, writeDir, gen, dbMb, dbMbIndexed, firstInitMs: initMs, indexBuildMs, pendingTaskId };
}

// ---- cold start ------------------------------------------------------------------------------

function coldFlags(kind: string, p: Project): string[] {
  if (kind === 'full suite') return [];
  if (kind === 'task_execution') return ['--recipe', 'task_execution', '--task', String(p.pendingTaskId)];
  return ['--recipe', kind];
}

async function coldStart(p: Project) {
  const kinds = ['node -e 0', ...COLD_KINDS] as const;
  const samples: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k, []]));
  const once = async (kind: string) => {
    if (kind === 'node -e 0') return spawnTimed(process.execPath, ['-e', '0'], CHILD_ENV);
    const c = new RpcChild(process.execPath, serverArgs(p.dir, coldFlags(kind, p)), { timeoutMs: 20_000, env: CHILD_ENV });
    try {
      return (await c.initialize()).ms;
    } finally {
      await c.kill();
    }
  };
  for (const k of kinds) await once(k); // page cache, compile cache: not counted
  for (let i = 0; i < CFG.coldRuns; i++) {
    // Interleaved, rotating the order so that no kind always runs right after another.
    for (let j = 0; j < kinds.length; j++) {
      const k = kinds[(i + j) % kinds.length]!;
      samples[k]!.push(await once(k));
    }
  }
  const node = median(samples['node -e 0']!);
  return {
    db_tasks: p.size,
    runs: CFG.coldRuns,
    node_e0_ms: round(node, 2),
    recipes: COLD_KINDS.map((k) => {
      const s = summarize(samples[k]!);
      return { recipe: k, median_ms: round(s.p50, 2), min_ms: round(s.min, 2), max_ms: round(s.max, 2), ratio: round(s.p50 / node, 2) };
    }),
    samples_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => round(x, 2))])),
  };
}

// ---- tools/list --------------------------------------------------------------------------------

async function toolsList(p: Project) {
  const out = [];
  for (const recipe of [...RECIPES_ALL, 'full suite']) {
    const flags = recipe === 'full suite' ? [] : recipe === 'task_execution' ? coldFlags(recipe, p) : ['--recipe', recipe];
    const { c, init } = await session(p.dir, flags);
    const r = await c.request('tools/list', {});
    const tools = parseResult<{ tools: { name: string; description?: string; inputSchema: unknown }[] }>(r).tools;
    const mem = c.memory();
    await c.close();
    const bytes = Buffer.byteLength(r.line);
    const visible = tools.map((t) => Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
    const visibleTotal = visible.reduce((a, b) => a + b, 0);
    const largest = tools.map((t, i) => ({ name: t.name, bytes: visible[i]! })).sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    out.push({
      recipe: recipe + (recipe === 'task_execution' ? ' --task' : ''),
      tools: tools.length,
      total_bytes: bytes,
      bytes_per_tool: round(bytes / tools.length, 1),
      model_visible_bytes: visibleTotal,
      model_visible_per_tool: round(visibleTotal / tools.length, 1),
      model_visible_tokens: Math.round(visibleTotal / 4),
      instructions_bytes: Buffer.byteLength(String(init.instructions ?? '')),
      rss_after_initialize_mb: round(mem.rssMb, 1),
      largest_tools: largest,
    });
  }
  return out;
}

// ---- tool families -----------------------------------------------------------------------------

interface FamilyResult {
  family: string;
  tasks: number;
  session: string;
  seq_n: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  pipe_n: number;
  calls_per_s: number;
  errors: number;
  /** Mean size of a reply line (content text + structuredContent + envelope). */
  reply_bytes: number;
  first_error?: string;
  note?: string;
}

/** One family's row, from its sequential samples' summary and its pipelined run. */
function familyResult(a: {
  family: string; tasks: number; session: string; n: number; s: { p50: number; p99: number; mean: number };
  pn: number; pms: number; errors: number; firstError?: string | undefined; replyBytes: number;
}): FamilyResult {
  const res: FamilyResult = {
    family: a.family,
    tasks: a.tasks,
    session: a.session,
    seq_n: a.n,
    p50_ms: round(a.s.p50, 4),
    p99_ms: round(a.s.p99, 4),
    mean_ms: round(a.s.mean, 4),
    pipe_n: a.pn,
    calls_per_s: Math.round((a.pn / a.pms) * 1000),
    errors: a.errors,
    reply_bytes: Math.round(a.replyBytes),
  };
  if (a.firstError) res.first_error = a.firstError;
  return res;
}

const errLine = (r: Reply) => (r.rpcError ? `rpc ${r.rpcError.code}: ${r.rpcError.message}` : `${r.errorCode}: ${r.line.slice(0, 300)}`);

/** Warm-up, then sequential calls (one in flight) timed one by one, then pipelined calls. */
async function measureFamily(c: RpcChild, family: string, tasks: number, sessionName: string, next: () => Call, pipeCap = CFG.pipeMax): Promise<FamilyResult> {
  let errors = 0;
  let firstError: string | undefined;
  const tally = (r: Reply) => {
    if (r.isError) {
      errors++;
      firstError ??= errLine(r);
    }
  };
  const w0 = performance.now();
  const warmTimes: number[] = [];
  for (let i = 0; i < CFG.seqWarm; i++) {
    const t = performance.now();
    tally(await c.call(...next()));
    warmTimes.push(performance.now() - t);
    if (i >= 4 && performance.now() - w0 > CFG.seqBudgetMs / 4) break;
  }
  const per = median(warmTimes); // not the mean: one slow first call must not shrink the run
  const n = clamp(Math.floor(CFG.seqBudgetMs / per), CFG.seqMin, CFG.seqMax);
  const samples: number[] = [];
  let replyBytes = 0;
  for (let i = 0; i < n; i++) {
    const call = next();
    const t = performance.now();
    const r = await c.call(...call);
    samples.push(performance.now() - t);
    tally(r);
    replyBytes += r.line.length + 1;
  }
  const s = summarize(samples);
  const pn = clamp(Math.floor(CFG.pipeBudgetMs / s.p50), CFG.pipeMin, pipeCap);
  const calls = Array.from({ length: pn }, next);
  const { ms: pms, replies } = await c.pipeline(calls, Math.max(60_000, 10 * pn * s.p50));
  replies.forEach(tally);
  const res = familyResult({ family, tasks, session: sessionName, n, s, pn, pms, errors, firstError, replyBytes: replyBytes / n });
  log(`  ${family.padEnd(20)} ${int(tasks).padStart(7)}: p50 ${ms(s.p50)} ms  p99 ${ms(s.p99)} ms  (n=${n})  pipelined ${int(res.calls_per_s)}/s (n=${pn})${errors ? `  ERRORS ${errors}: ${firstError}` : ''}`);
  return res;
}

/**
 * claim_next_task in a worker session: each claim is followed by set_task_status done (not timed in the
 * sequential run; in the pipelined run a claim+done pair counts as one call). Ready work is finite, so
 * the counts are capped by what the database holds.
 */
async function measureClaims(p: Project): Promise<FamilyResult> {
  const db = sqlite(p.writeDir);
  const ready = readyCount(db);
  db.close();
  const { c } = await session(p.writeDir, ['--recipe', 'worker', '--session-id', `bench-worker-${p.size}`]);
  let errors = 0;
  let unclaimed = 0;
  let firstError: string | undefined;
  const tally = (r: Reply, claim: boolean) => {
    if (r.isError) {
      errors++;
      firstError ??= errLine(r);
    } else if (claim && !r.line.includes('"claimed":true')) unclaimed++;
  };
  let replyBytes = 0;
  let claims = 0;
  const cycle = async () => {
    const t = performance.now();
    const r = await c.call('claim_next_task', {});
    const d = performance.now() - t;
    tally(r, true);
    replyBytes += r.line.length + 1;
    claims++;
    tally(await c.call('set_task_status', { status: 'done' }), false);
    return d;
  };
  const warmN = Math.min(10, Math.floor(ready / 10));
  const warmTimes: number[] = [];
  for (let i = 0; i < warmN; i++) warmTimes.push(await cycle());
  const per = median(warmTimes) * 2; // a cycle is claim + done
  let left = ready - warmN - 5;
  const n = Math.max(1, Math.min(clamp(Math.floor(CFG.seqBudgetMs / per), CFG.seqMin, CFG.seqMax), Math.floor(left / 2)));
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await cycle());
  left -= n;
  const s = summarize(samples);
  const pn = Math.max(1, Math.min(clamp(Math.floor(CFG.pipeBudgetMs / (s.p50 * 1.5)), CFG.pipeMin, CFG.pipeMax), left));
  const calls: Call[] = [];
  for (let i = 0; i < pn; i++) calls.push(['claim_next_task', {}], ['set_task_status', { status: 'done' }]);
  const { ms: pms, replies } = await c.pipeline(calls, Math.max(60_000, 20 * pn * s.p50));
  replies.forEach((r, i) => tally(r, i % 2 === 0));
  await c.close();
  const res = familyResult({ family: 'claim_next_task', tasks: p.size, session: 'worker', n, s, pn, pms, errors, firstError, replyBytes: replyBytes / claims });
  res.note = `${int(ready)} ready at start; pipelined = claim+done pairs/s${unclaimed ? `; ${unclaimed} claims found nothing` : ''}`;
  log(`  ${'claim_next_task'.padEnd(20)} ${int(p.size).padStart(7)}: p50 ${ms(s.p50)} ms  p99 ${ms(s.p99)} ms  (n=${n})  pipelined ${int(res.calls_per_s)} pairs/s (n=${pn})  ready ${ready}${errors ? `  ERRORS ${errors}: ${firstError}` : ''}`);
  return res;
}

/** How many tasks a typical bench query matches (what search_tasks ranks before its LIMIT). */
function ftsMatches(dir: string, seed: number): number {
  const r = rng(seed);
  const db = sqlite(dir);
  const st = db.prepare('SELECT count(*) AS n FROM ralph_mcp_search WHERE ralph_mcp_search MATCH ?');
  const counts = Array.from({ length: 21 }, () => (st.get(searchQuery(r).split(' ').map((w) => `"${w}"*`).join(' ')) as { n: number }).n);
  db.close();
  return median(counts);
}

async function measureSize(p: Project): Promise<FamilyResult[]> {
  const N = p.size;
  const out: FamilyResult[] = [];
  const r = rng(7 + N);
  log(`tool families at ${int(N)} tasks`);

  // Reads: one full-suite session on the warmed database.
  {
    const { c } = await session(p.dir, ['--session-id', `bench-read-${N}`]);
    out.push(await measureFamily(c, 'ping (no tool)', N, 'full', () => ['rpc:ping', {}], CFG.pipeGetTask));
    out.push(await measureFamily(c, 'get_task', N, 'full', () => ['get_task', { id: 1 + randInt(r, N) }], CFG.pipeGetTask));
    out.push(await measureFamily(c, 'list_tasks page', N, 'full', () => ['list_tasks', { cursor: String(randInt(r, Math.max(1, N - 50))) }]));
    out.push(await measureFamily(c, 'list_tasks filtered', N, 'full', () => ['list_tasks', { filter_status: 'pending', filter_feature: pick(r, FEATURES)[0] }]));
    const search = await measureFamily(c, 'search_tasks', N, 'full', () => ['search_tasks', { query: searchQuery(r) }]);
    search.note = `median ${int(ftsMatches(p.dir, N))} FTS matches per query (ranked and snippeted before LIMIT 20)`;
    out.push(search);
    out.push(await measureFamily(c, 'get_project_progress', N, 'full', () => ['get_project_progress', {}]));
    await c.close();
  }

  // claim_next_task on a copy (the reads above never see these writes), before the other writes.
  out.push(await measureClaims(p));

  // Writes on the same copy, full suite (nothing scoped).
  {
    const db = sqlite(p.writeDir);
    const statuses = new Map((db.prepare('SELECT id, status FROM tasks WHERE id <= ?').all(N) as { id: number; status: string }[]).map((x) => [x.id, x.status]));
    db.close();
    const { c } = await session(p.writeDir, ['--session-id', `bench-write-${N}`]);
    out.push(
      await measureFamily(c, 'create_task', N, 'full', () => [
        'create_task',
        {
          feature: pick(r, FEATURES)[0],
          discipline: pick(r, DISCIPLINES)[0],
          title: title(r),
          description: paragraph(r, 2, 4),
          acceptance_criteria: [sentence(r, 5, 10)],
          depends_on: [1 + randInt(r, N)],
        },
      ]),
    );
    out.push(
      await measureFamily(c, 'add_task_comment', N, 'full', () => {
        const by = pick(r, DISCIPLINES)[0];
        return ['add_task_comment', { task_id: 1 + randInt(r, N), author: by, discipline: by, body: paragraph(r, 1, 2) }];
      }),
    );
    out.push(
      await measureFamily(c, 'set_task_status', N, 'full', () => {
        const id = 1 + randInt(r, N);
        const next = statuses.get(id) === 'in_progress' ? 'pending' : 'in_progress';
        statuses.set(id, next);
        return ['set_task_status', { id, status: next }];
      }),
    );
    await c.close();
  }
  return out;
}

// ---- memory ------------------------------------------------------------------------------------

async function memory(p: Project) {
  const N = p.size;
  const r = rng(99);
  const { c } = await session(p.dir, ['--session-id', 'bench-rss']);
  const afterInit = c.memory();
  const mix = (): Call => {
    const x = r();
    if (x < 0.9) return ['get_task', { id: 1 + randInt(r, N) }];
    if (x < 0.95) return ['list_tasks', { cursor: String(randInt(r, N)) }];
    if (x < 0.99) return ['add_task_comment', { task_id: 1 + randInt(r, N), author: 'quality', body: sentence(r) }];
    return ['search_tasks', { query: searchQuery(r) }];
  };
  const trend: { calls: number; rss_mb: number }[] = [{ calls: 0, rss_mb: round(afterInit.rssMb, 1) }];
  let errors = 0;
  const total = CFG.rssCalls * 2;
  const step = Math.max(500, total / 40);
  const t0 = performance.now();
  for (let done = 0; done < total; ) {
    const batch = Array.from({ length: Math.min(100, total - done) }, mix);
    const { replies } = await c.pipeline(batch);
    errors += replies.filter((x) => x.isError).length;
    done += batch.length;
    if (done % step === 0) trend.push({ calls: done, rss_mb: round(c.memory().rssMb, 1) });
  }
  const wall = performance.now() - t0;
  const at = (n: number) => trend.find((t) => t.calls === n)?.rss_mb ?? NaN;
  const end = c.memory();
  await c.close();
  const res = {
    tasks: N,
    mix: '90% get_task, 5% list_tasks page, 4% add_task_comment, 1% search_tasks; pipelined in batches of 100',
    rss_after_initialize_mb: round(afterInit.rssMb, 1),
    rss_after_first_mb: at(CFG.rssCalls),
    rss_after_second_mb: at(total),
    calls_per_phase: CFG.rssCalls,
    growth_mb: round(at(total) - at(CFG.rssCalls), 1),
    // V8's heap grows in a sawtooth until a major GC: the medians of each phase's samples are steadier.
    median_first_mb: round(median(trend.filter((t) => t.calls > 0 && t.calls <= CFG.rssCalls).map((t) => t.rss_mb)), 1),
    median_second_mb: round(median(trend.filter((t) => t.calls > CFG.rssCalls).map((t) => t.rss_mb)), 1),
    peak_rss_mb: round(end.hwmMb, 1),
    errors,
    wall_s: round(wall / 1000, 1),
    trend,
  };
  log(`memory: init ${mb(res.rss_after_initialize_mb)} MB, @${int(CFG.rssCalls)} ${mb(res.rss_after_first_mb)} MB, @${int(total)} ${mb(res.rss_after_second_mb)} MB, peak ${mb(res.peak_rss_mb)} MB`);
  return res;
}

// ---- concurrency -------------------------------------------------------------------------------

async function concurrency(tmp: string, p: Project) {
  const dir = join(tmp, 'concurrency');
  cpSync(p.dir, dir, { recursive: true });
  const N = p.size;
  const counts = () => {
    const db = sqlite(dir);
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const res = {
      tasks: one('SELECT count(*) AS n FROM tasks'),
      comments: one('SELECT count(*) AS n FROM task_comments'),
      audit_ok: one("SELECT count(*) AS n FROM ralph_mcp_audit WHERE session_id LIKE 'bench-conc-%' AND outcome = 'ok'"),
    };
    db.close();
    return res;
  };
  const writer = (seed: number) => {
    const r = rng(seed);
    let i = 0;
    return (): Call => {
      switch (i++ % 3) {
        case 0:
          return ['create_task', { feature: pick(r, FEATURES)[0], discipline: pick(r, DISCIPLINES)[0], title: title(r), description: paragraph(r, 2, 3), depends_on: [1 + randInt(r, N)] }];
        case 1:
          return ['add_task_comment', { task_id: 1 + randInt(r, N), author: 'backend', body: sentence(r) }];
        default:
          return ['set_task_status', { id: 1 + randInt(r, N), status: pick(r, ['pending', 'in_progress', 'blocked'] as const) }];
      }
    };
  };
  interface Tally {
    ok: number;
    busy: number;
    otherErrors: number;
    firstError?: string;
    created: number;
    commented: number;
  }
  const newTally = (): Tally => ({ ok: 0, busy: 0, otherErrors: 0, created: 0, commented: 0 });
  const run = async (c: RpcChild, n: number, next: () => Call, t: Tally) => {
    for (let i = 0; i < n; i++) {
      const call = next();
      const r = await c.call(...call);
      if (r.isError) {
        if (r.errorCode === 'busy' || /busy|locked/i.test(r.rpcError?.message ?? '')) t.busy++;
        else t.otherErrors++;
        t.firstError ??= errLine(r);
      } else {
        t.ok++;
        if (call[0] === 'create_task') t.created++;
        if (call[0] === 'add_task_comment') t.commented++;
      }
    }
  };
  const total = CFG.concWrites;
  log(`concurrency: ${CFG.concRounds} round(s) of 1 writer × ${total} writes, then ${CFG.concProcs} writers × ${total / CFG.concProcs} (${int(N)} tasks)`);
  const before = counts();
  const single = newTally();
  const multi = newTally();
  let singleWall = 0;
  let multiWall = 0;
  const rounds: { single_writes_per_s: number; concurrent_writes_per_s: number }[] = [];
  // Rounds alternate the two phases, so that a change in the machine's load hits both alike.
  for (let rd = 0; rd < CFG.concRounds; rd++) {
    // Single writer baseline.
    const s0 = single.ok;
    const { c } = await session(dir, ['--session-id', `bench-conc-single-${rd}`]);
    let t = performance.now();
    await run(c, total, writer(1 + rd), single);
    const sw = performance.now() - t;
    await c.close();
    // 8 server processes on the same database, started first, then writing at the same time.
    const m0 = multi.ok;
    const sessions = await Promise.all(Array.from({ length: CFG.concProcs }, (_, k) => session(dir, ['--session-id', `bench-conc-${rd}-${k}`])));
    t = performance.now();
    await Promise.all(sessions.map(({ c: ck }, k) => run(ck, total / CFG.concProcs, writer(100 * (rd + 1) + k), multi)));
    const mw = performance.now() - t;
    await Promise.all(sessions.map(({ c: ck }) => ck.close()));
    singleWall += sw;
    multiWall += mw;
    rounds.push({ single_writes_per_s: Math.round(((single.ok - s0) / sw) * 1000), concurrent_writes_per_s: Math.round(((multi.ok - m0) / mw) * 1000) });
  }
  const after = counts();
  const singleRate = (single.ok / singleWall) * 1000;
  const multiRate = (multi.ok / multiWall) * 1000;
  const verified =
    after.tasks - before.tasks === single.created + multi.created &&
    after.comments - before.comments === single.commented + multi.commented &&
    after.audit_ok - before.audit_ok === single.ok + multi.ok;
  const res = {
    tasks: N,
    writes_per_phase: total,
    rounds: CFG.concRounds,
    processes: CFG.concProcs,
    mix: 'create_task, add_task_comment, set_task_status in turn; each process one call in flight',
    single: { writes_ok: single.ok, wall_ms: round(singleWall, 1), writes_per_s: Math.round(singleRate), busy_errors: single.busy, other_errors: single.otherErrors, first_error: single.firstError },
    concurrent: { writes_ok: multi.ok, wall_ms: round(multiWall, 1), writes_per_s: Math.round(multiRate), busy_errors: multi.busy, other_errors: multi.otherErrors, first_error: multi.firstError },
    ratio: round(multiRate / singleRate, 2),
    per_round: rounds,
    rows_verified: verified,
    rows: { before, after },
  };
  log(`  single ${int(singleRate)} writes/s; ${CFG.concProcs} procs ${int(multiRate)} writes/s (${res.ratio}×), busy ${multi.busy}, other errors ${multi.otherErrors}, rows verified ${verified}`);
  return res;
}

// ---- report ------------------------------------------------------------------------------------

interface Target {
  id: string;
  target: string;
  measured: string;
  pass: boolean;
}

async function main() {
  installExitHooks();
  const hardStop = setTimeout(() => {
    process.stderr.write('bench: hard time limit (15 min) reached; stopping\n');
    killAll();
    process.exit(1);
  }, 15 * 60_000);
  hardStop.unref();
  if (!existsSync(CLI)) throw new Error(`${CLI} not found: run npm run build first (npm run bench does)`);
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memory_gb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    artifact_kb: Math.round(statSync(CLI).size / 1024),
    env_note: ENV_NOTE || undefined,
  };
  const load: Record<string, Load> = { start: loadNow() };
  const tmp = mkdtempSync(join(os.tmpdir(), 'ralph-mcp-bench-'));
  onExit(() => rmSync(tmp, { recursive: true, force: true }));
  log(`${QUICK ? 'QUICK run' : 'full run'}; temp dir ${tmp}`);
  try {
    const projects: Project[] = [];
    for (const size of CFG.sizes) projects.push(await prepareProject(tmp, size));
    const largest = projects[projects.length - 1]!;
    const coldProject = projects.find((x) => x.size === 10_000) ?? projects[0]!;
    const concProject = projects.find((x) => x.size === CFG.concSize) ?? projects[0]!;

    log(`cold start (${CFG.coldRuns} interleaved runs, ${int(coldProject.size)}-task database)`);
    load.before_cold_start = loadNow();
    const cold = await coldStart(coldProject);
    log(`  node -e 0 ${ms(cold.node_e0_ms)} ms; ${cold.recipes.map((x) => `${x.recipe} ${ms(x.median_ms)} ms (${x.ratio}×)`).join(', ')}`);
    log('tools/list per recipe');
    const lists = await toolsList(coldProject);

    const families: FamilyResult[] = [];
    for (const p of projects) families.push(...(await measureSize(p)));
    log(`memory (${int(largest.size)} tasks)`);
    const mem = await memory(largest);
    const conc = await concurrency(tmp, concProject);
    const runtime = (performance.now() - T0) / 1000;
    load.end = loadNow();

    // ---- targets
    const fam = (f: string, n = largest.size) => families.find((x) => x.family === f && x.tasks === n);
    const full = lists.find((l) => l.recipe === 'full suite')!;
    const te = lists.find((l) => l.recipe.startsWith('task_execution'))!;
    const at = QUICK ? ` (at ${int(largest.size)}, quick run)` : '';
    const targets: Target[] = [];
    const add = (id: string, target: string, measured: string, pass: boolean) => targets.push({ id, target, measured, pass });
    for (const rcp of cold.recipes) add('1', `cold start ${rcp.recipe} ≤ 1.5× node -e 0`, `${ms(rcp.median_ms)} ms = ${rcp.ratio}× (node -e 0: ${ms(cold.node_e0_ms)} ms)`, rcp.ratio <= 1.5);
    add('2', 'full suite model-visible ≤ 400 B/tool', `${full.model_visible_per_tool} B/tool (${full.tools} tools, ${int(full.model_visible_bytes)} B)`, full.model_visible_per_tool <= 400);
    add('2', 'task_execution model-visible ≤ 6 KB', `${int(te.model_visible_bytes)} B (~${int(te.model_visible_tokens)} tokens; + ${int(te.instructions_bytes)} B instructions)`, te.model_visible_bytes <= 6144);
    const g = fam('get_task')!;
    const l = fam('list_tasks page')!;
    const s = fam('search_tasks')!;
    const pr = fam('get_project_progress')!;
    add('3', `get_task p50 ≤ 0.3 ms${at}`, `${ms(g.p50_ms)} ms`, g.p50_ms <= 0.3);
    add('3', `list_tasks page p50 ≤ 5 ms${at}`, `${ms(l.p50_ms)} ms`, l.p50_ms <= 5);
    add('3', `search_tasks p50 ≤ 5 ms${at}`, `${ms(s.p50_ms)} ms`, s.p50_ms <= 5);
    add('3', `get_project_progress p50 ≤ 20 ms${at}`, `${ms(pr.p50_ms)} ms`, pr.p50_ms <= 20);
    add('3', `pipelined get_task ≥ 15,000 calls/s${at}`, `${int(g.calls_per_s)} calls/s`, g.calls_per_s >= 15_000);
    add('4', `RSS ≤ 70 MB after ${int(CFG.rssCalls)} calls`, `${mb(mem.rss_after_first_mb)} MB (peak ${mb(mem.peak_rss_mb)} MB)`, mem.rss_after_first_mb <= 70);
    add('4', `no RSS growth over a further ${int(CFG.rssCalls)} (≤ 5 MB)`, `${mem.growth_mb >= 0 ? '+' : ''}${mb(mem.growth_mb)} MB`, mem.growth_mb <= 5);
    add('5', `${CFG.concProcs} writers: 0 busy errors surfaced`, `${conc.concurrent.busy_errors} busy (${conc.concurrent.other_errors} other errors; rows verified: ${conc.rows_verified})`, conc.concurrent.busy_errors === 0 && conc.rows_verified);
    add('5', `${CFG.concProcs} writers ≥ 70% of 1 writer's writes/s`, `${int(conc.concurrent.writes_per_s)} vs ${int(conc.single.writes_per_s)} writes/s = ${Math.round(conc.ratio * 100)}%`, conc.ratio >= 0.7);
    add('6', 'bench runtime < 10 min (build not included)', `${runtime.toFixed(0)} s`, runtime < 600);

    // ---- print
    const lines: string[] = [];
    const h = (t: string) => lines.push('', `== ${t} ${'='.repeat(Math.max(0, 96 - t.length))}`);
    lines.push(`ralph-mcp bench  ${new Date().toISOString()}${QUICK ? '  (BENCH_QUICK=1)' : ''}`);
    lines.push(`load average (1/5/15 min): start ${fmtLoad(load.start)}; before cold start ${fmtLoad(load.before_cold_start)}; end ${fmtLoad(load.end)}. The bench itself keeps 1–2 cores busy; more means other work shared the machine.`);
    lines.push(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gb} GB, node ${machine.node}, ${machine.platform}; artifact dist/ralph-mcp.js ${machine.artifact_kb} KB${ENV_NOTE ? `; ${ENV_NOTE}` : ''}`);
    h('DATABASES');
    lines.push(
      table(
        ['tasks', 'comments', 'with deps', 'ready', 'generate ms', 'DB MB', 'DB+FTS MB', '1st initialize ms', 'warm-up: 1st search (FTS build) ms'],
        projects.map((p) => [int(p.size), int(p.gen.comments), int(p.gen.withDeps), int(p.gen.ready), ms(p.gen.ms), mb(p.dbMb), mb(p.dbMbIndexed), ms(p.firstInitMs), ms(p.indexBuildMs)]),
      ),
    );
    h(`COLD START  spawn → initialize response, median of ${cold.runs}, interleaved with node -e 0 (${int(cold.db_tasks)} tasks)`);
    lines.push(
      table(
        ['<session', 'median ms', 'min ms', 'max ms', '× node -e 0'],
        [['node -e 0', ms(cold.node_e0_ms), '', '', '1.00'], ...cold.recipes.map((x) => [x.recipe, ms(x.median_ms), ms(x.min_ms), ms(x.max_ms), x.ratio.toFixed(2)])],
      ),
    );
    h('TOOLS/LIST  (model-visible = JSON of {name, description, inputSchema}; tokens ≈ bytes/4)');
    lines.push(
      table(
        ['<recipe', 'tools', 'total B', 'B/tool', 'visible B', 'visible B/tool', '~tokens', 'instructions B', 'RSS init MB', '<largest (visible B)'],
        lists.map((x) => [x.recipe, x.tools, int(x.total_bytes), int(x.bytes_per_tool), int(x.model_visible_bytes), int(x.model_visible_per_tool), int(x.model_visible_tokens), int(x.instructions_bytes), mb(x.rss_after_initialize_mb), x.largest_tools.map((t) => `${t.name} ${t.bytes}`).join(', ')]),
      ),
    );
    for (const p of projects) {
      h(`TOOL FAMILIES at ${int(p.size)} tasks  (sequential over one connection; pipelined calls/s)`);
      lines.push(
        table(
          ['<family', '<session', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'pipelined n', 'calls/s', 'reply B', 'errors', '<note'],
          families.filter((f) => f.tasks === p.size).map((f) => [f.family, f.session, int(f.seq_n), ms(f.p50_ms), ms(f.p99_ms), ms(f.mean_ms), int(f.pipe_n), int(f.calls_per_s), int(f.reply_bytes), f.errors ? `${f.errors} (${f.first_error?.slice(0, 60)})` : 0, f.note ?? '']),
        ),
      );
    }
    h(`MEMORY (${int(mem.tasks)} tasks, full suite; ${mem.mix})`);
    lines.push(
      table(
        ['after initialize MB', `after ${int(CFG.rssCalls)} calls MB`, `after ${int(CFG.rssCalls * 2)} calls MB`, 'growth MB', 'median 1st/2nd half MB', 'peak (VmHWM) MB', 'errors', 'wall s'],
        [[mb(mem.rss_after_initialize_mb), mb(mem.rss_after_first_mb), mb(mem.rss_after_second_mb), mb(mem.growth_mb), `${mb(mem.median_first_mb)} / ${mb(mem.median_second_mb)}`, mb(mem.peak_rss_mb), mem.errors, mem.wall_s]],
      ),
    );
    lines.push(`RSS trend (calls: MB): ${mem.trend.filter((_, i) => i % 2 === 0).map((t) => `${t.calls / 1000}k ${mb(t.rss_mb)}`).join(' · ')}`);
    h(`CONCURRENCY (${int(conc.tasks)} tasks, ${conc.rounds} round(s) alternating 1 and ${conc.processes} processes; ${conc.mix})`);
    lines.push(
      table(
        ['<writers', 'writes ok', 'wall ms', 'writes/s', 'busy errors', 'other errors', '<first error'],
        [
          ['1 process', int(conc.single.writes_ok), int(conc.single.wall_ms), int(conc.single.writes_per_s), conc.single.busy_errors, conc.single.other_errors, conc.single.first_error?.slice(0, 80) ?? ''],
          [`${conc.processes} processes`, int(conc.concurrent.writes_ok), int(conc.concurrent.wall_ms), int(conc.concurrent.writes_per_s), conc.concurrent.busy_errors, conc.concurrent.other_errors, conc.concurrent.first_error?.slice(0, 80) ?? ''],
        ],
      ),
    );
    lines.push(`per round (writes/s, 1 vs ${conc.processes}): ${conc.per_round.map((x) => `${int(x.single_writes_per_s)} vs ${int(x.concurrent_writes_per_s)}`).join('; ')}; rows verified by SQL (tasks, comments, audit rows = ok replies): ${conc.rows_verified}`);
    h('TARGETS');
    lines.push(table(['#', '<target', '<measured', 'result'], targets.map((t) => [t.id, t.target, t.measured, t.pass ? 'PASS' : 'FAIL'])));
    lines.push('', `${targets.filter((t) => t.pass).length}/${targets.length} targets pass; bench runtime ${runtime.toFixed(0)} s; results in ${OUT.slice(REPO.length + 1)}`);
    process.stdout.write(`${lines.join('\n')}\n`);

    mkdirSync(dirname(OUT), { recursive: true });
    const results = {
      format: 'ralph-mcp/bench@1',
      date: new Date().toISOString(),
      quick: QUICK,
      machine,
      load_average: load,
      config: CFG,
      runtime_s: round(runtime, 1),
      databases: projects.map((p) => ({ tasks: p.gen.tasks, comments: p.gen.comments, with_deps: p.gen.withDeps, ready: p.gen.ready, generate_ms: round(p.gen.ms, 1), db_mb: round(p.dbMb, 2), db_with_fts_mb: round(p.dbMbIndexed, 2), first_initialize_ms: round(p.firstInitMs, 1), first_search_index_build_ms: round(p.indexBuildMs, 1) })),
      cold_start: cold,
      tools_list: lists,
      families,
      memory: mem,
      concurrency: conc,
      targets,
    };
    writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    killAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
    killAll();
    process.exit(1);
  },
);
