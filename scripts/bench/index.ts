/**
 * `npm run bench`: cold start, tools/list size, per-tool-family latency and throughput at
 * 1k / 10k / 100k tasks, memory, and concurrent writers — measured on the built artifact
 * (dist/ralph-mcp.js) with a lean JSON-RPC client (scripts/bench/rpc.ts). Prints one report and writes
 * everything to bench/results.json. BENCH_QUICK=1: only 1,000 tasks and fewer iterations (smoke run; it
 * still exercises both generations and, with BENCH_BASELINE, the baseline).
 *
 * Both of Ralph's schema generations (scripts/bench/datagen.ts writes the same project, from the same
 * seed, on either): legacy (936f316: features, tasks with JSON lists, task_comments) and normalized
 * (Ralph's head: subsystems, task_details + runtime_tasks, task_signals). Each table and each row of
 * results.json names its configuration: `ours-legacy`, `ours-normalized`, `baseline-legacy`.
 * - 1k and 10k tasks: the tool families on ours-legacy only (to keep the run near 10 minutes).
 * - 100k tasks: the tool families in interleaved rounds — every configuration once per round, the order
 *   rotating from round to round, each run on a fresh copy of its database — so that the machine's noise
 *   hits all alike; each family's p50, p99 and calls/s are the medians over the rounds. A comparison table
 *   puts the configurations side by side (always ours-normalized / ours-legacy; with a baseline also
 *   ours / baseline, with targets: p50 ≤ 1.10× and calls/s ≥ 1/1.10 of the baseline's).
 * - Cold start of every configuration (10k tasks), interleaved with `node -e 0`: to the initialize
 *   response, and on to the tools/list reply and the RSS then, for the bundle, the single executable
 *   (when built) and the floor; tools/list, memory and concurrency on both of our generations.
 * - `ralph-mcp migrate` on a fresh legacy project of the comparison size (100k; quick 1k), timed once.
 * - List shapes: the model-visible bytes of a page of list_tasks, search_tasks and next_tasks in each
 *   `fields` shape, on both generations (scripts/bench/shapes.ts; alone: node dist/scripts/bench/shapes.js).
 *
 * A baseline: another build of ralph-mcp (e.g. the commit before a change), measured beside ours on the
 * legacy database (an older build may open nothing else). Build it in a worktree, then point
 * BENCH_BASELINE at its bundle:
 *
 *   git worktree add /tmp/ralph-baseline <ref> && cd /tmp/ralph-baseline && npm ci && npm run build
 *
 * then, back in this checkout:
 *
 *   BENCH_BASELINE=/tmp/ralph-baseline/dist/ralph-mcp.js npm run bench
 *
 * (remove it later with `git worktree remove /tmp/ralph-baseline`). The baseline gets a copy of the very
 * legacy database ours-legacy gets, taken before either server opened it; it builds its own search index.
 * BENCH_ROUNDS overrides the number of interleaved rounds at 100k (default 5; quick 2).
 * BENCH_FAMILIES=name,… measures only the tool families whose names start with one of these (e.g.
 * `search_tasks` for both search families), in the interleaved rounds at the comparison size, and prints
 * their tables and targets; nothing else runs and bench/results.json is left as it was.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  COMMON_WORDS,
  commonSearchQuery,
  DISCIPLINES,
  FEATURES,
  generateProject,
  int as randInt,
  paragraph,
  pendingTaskId,
  pick,
  readyCount,
  rng,
  rowCounts,
  searchQuery,
  sentence,
  taskStatuses,
  title,
  type GenStats,
  type Generation,
} from './datagen.js';
import { int, mb, median, ms, round, summarize, table } from './format.js';
import { recipeByName } from '../../src/registry/recipes.js';
import { RpcChild, installExitHooks, killAll, onExit, parseResult, spawnTimed, type Reply } from './rpc.js';
import { asInstalled, besidePeers, floorServer, peersReport, warmSession } from './peers.js';
import { SHAPE_HEADER, listShapes, shapeTable } from './shapes.js';
import { generationNoise, generationTargets } from './generationTargets.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(REPO, 'dist', 'ralph-mcp.js');
const OUT = join(REPO, 'bench', 'results.json');
const QUICK = process.env.BENCH_QUICK === '1';
const BASELINE_CLI = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
/**
 * The environment every child gets. NODE_EXTRA_CA_CERTS is dropped: Node reads that file at every
 * start (~80 ms on a sandbox that sets it), which would hide the server's own start-up cost inside a
 * slow `node -e 0` baseline. BENCH_KEEP_ENV=1 keeps the environment as it is.
 */
const KEEP_ENV = process.env.BENCH_KEEP_ENV === '1';
/**
 * Ours keeps its code cache (and the executable its addon) in a directory of the bench's own, unless
 * RALPH_MCP_CACHE_DIR says where: the shared ~/.cache/ralph-mcp holds one bundle's cache at a time, and
 * a session of another checkout on the machine replaced ours mid-run (every start then compiled anew:
 * 4× node -e 0 instead of 2.3×).
 */
const CACHE_DIR = process.env.RALPH_MCP_CACHE_DIR ?? mkdtempSync(join(os.tmpdir(), 'ralph-mcp-bench-cache-'));
const CHILD_ENV: NodeJS.ProcessEnv = (() => {
  const env: NodeJS.ProcessEnv = { ...process.env, RALPH_MCP_CACHE_DIR: CACHE_DIR };
  if (!KEEP_ENV) delete env.NODE_EXTRA_CA_CERTS;
  return env;
})();
const ENV_NOTE =
  !KEEP_ENV && process.env.NODE_EXTRA_CA_CERTS
    ? 'NODE_EXTRA_CA_CERTS unset for children (BENCH_KEEP_ENV=1 keeps it)'
    : '';

/** How long a family is measured: warm-up calls, sequential samples, pipelined calls. */
interface Budget {
  seqWarm: number;
  seqMax: number;
  seqMin: number;
  seqBudgetMs: number;
  pipeGetTask: number;
  pipeMax: number;
  pipeMin: number;
  pipeBudgetMs: number;
}
const CFG = QUICK
  ? {
      sizes: [1000],
      coldSize: 1000,
      coldRuns: 8,
      rounds: 2,
      rssCalls: 2000,
      concSize: 1000,
      concWrites: 480,
      concProcs: 8,
      concRounds: 1,
      single: {
        seqWarm: 50,
        seqMax: 300,
        seqMin: 10,
        seqBudgetMs: 800,
        pipeGetTask: 3000,
        pipeMax: 2000,
        pipeMin: 10,
        pipeBudgetMs: 600,
      },
      compare: {
        seqWarm: 50,
        seqMax: 300,
        seqMin: 10,
        seqBudgetMs: 500,
        pipeGetTask: 2000,
        pipeMax: 1000,
        pipeMin: 10,
        pipeBudgetMs: 400,
      },
    }
  : {
      sizes: [1000, 10_000, 100_000],
      coldSize: 10_000,
      coldRuns: 15,
      // Five: a run's own server differs from the next by up to ~12% even on ping, which reads nothing
      // (docs/storage.md, Figures); the median of three still carried that into 10% targets.
      rounds: 5,
      rssCalls: 10_000,
      concSize: 10_000,
      concWrites: 2400,
      concProcs: 8,
      concRounds: 2,
      single: {
        seqWarm: 200,
        seqMax: 2000,
        seqMin: 10,
        seqBudgetMs: 2000,
        pipeGetTask: 20_000,
        pipeMax: 10_000,
        pipeMin: 10,
        pipeBudgetMs: 1500,
      },
      // Each round measures every configuration: shorter per run, the medians over the rounds steady it.
      // Five rounds of these cost what three of 1.2 s + 1.0 s did, keeping the run under ten minutes.
      compare: {
        seqWarm: 100,
        seqMax: 2000,
        seqMin: 10,
        seqBudgetMs: 800,
        pipeGetTask: 12_000,
        pipeMax: 6000,
        pipeMin: 10,
        pipeBudgetMs: 700,
      },
    };
/** BENCH_FAMILIES: the families to measure (by name prefix), or every one. */
const ONLY = process.env.BENCH_FAMILIES?.split(',')
  .map((x) => x.trim())
  .filter(Boolean);
const wanted = (family: string) => !ONLY || ONLY.some((x) => family.startsWith(x));
const WRITE_FAMILIES = ['claim_next_task', 'create_task', 'add_task_comment', 'set_task_status'];
if (process.env.BENCH_ROUNDS) CFG.rounds = Math.max(1, Number(process.env.BENCH_ROUNDS) || CFG.rounds);
/** The size the configurations are compared at (the largest). */
const CMP_SIZE = CFG.sizes[CFG.sizes.length - 1]!;

const RECIPES_ALL = ['braindump', 'yap', 'ramble', 'discuss', 'task_execution', 'opus_review', 'enrichment', 'worker'];
const COLD_KINDS = ['task_execution', 'opus_review', 'full suite'] as const;

/** A build (ours, or the baseline's bundle) on one generation of Ralph's database. */
interface Config {
  name: 'baseline-legacy' | 'ours-legacy' | 'ours-normalized';
  build: 'baseline' | 'ours';
  cli: string;
  generation: Generation;
}
const OURS_LEGACY: Config = { name: 'ours-legacy', build: 'ours', cli: CLI, generation: 'legacy' };
const OURS_NORMALIZED: Config = { name: 'ours-normalized', build: 'ours', cli: CLI, generation: 'normalized' };
const BASELINE: Config | undefined = BASELINE_CLI
  ? { name: 'baseline-legacy', build: 'baseline', cli: BASELINE_CLI, generation: 'legacy' }
  : undefined;
/** Every configuration, the baseline first. */
const CONFIGS: Config[] = [...(BASELINE ? [BASELINE] : []), OURS_LEGACY, OURS_NORMALIZED];
const OURS: Config[] = [OURS_LEGACY, OURS_NORMALIZED];

type Call = readonly [string, Record<string, unknown>];
const T0 = performance.now();
/** Progress goes to stderr; stdout carries only the final report. */
const log = (msg: string) =>
  process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`);

interface Project {
  config: Config;
  size: number;
  dir: string;
  gen: GenStats;
  /** Where the rows came from: generated, or a copy of ours-legacy's database (the baseline's). */
  source: string;
  dbMb: number;
  dbMbIndexed: number;
  firstInitMs: number;
  indexBuildMs: number;
  pendingTaskId: number;
  /** Median FTS matches of a bench query (computed once, for a note). */
  ftsMatches?: number;
  /** The same for the common-word queries. */
  commonMatches?: number;
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
  l
    ? `${l.load1} ${l.load5} ${l.load15}${l.cpu_pressure_avg60_pct !== undefined ? ` (cpu pressure ${l.cpu_pressure_avg60_pct}%)` : ''}`
    : '-';
const fileMb = (p: string) => (existsSync(p) ? statSync(p).size / 1048576 : 0);

function serverArgs(cli: string, dir: string, flags: readonly string[] = []): string[] {
  return [cli, '--project', dir, ...flags, '--log-level', 'warn'];
}

async function session(
  cli: string,
  dir: string,
  flags: readonly string[] = [],
  timeoutMs = 60_000,
): Promise<{ c: RpcChild; initMs: number; init: any }> {
  const c = new RpcChild(process.execPath, serverArgs(cli, dir, flags), { timeoutMs, env: CHILD_ENV });
  try {
    const { result, ms: initMs } = await c.initialize();
    return { c, initMs, init: result };
  } catch (err) {
    await c.kill();
    throw err;
  }
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const fmtRatio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '-');

// ---- databases -------------------------------------------------------------------------------

/**
 * A project for one configuration: generated by datagen (ours), or a copy of `pristine` (the
 * baseline's: ours-legacy's rows before any server opened them). Then a warm-up session with the
 * configuration's own build: its first search builds the FTS5 index (ralph_mcp_search) from every task.
 * `keepPristine`: where to copy the database to before that warm-up.
 */
async function prepareProject(
  tmp: string,
  size: number,
  config: Config,
  from?: { dir: string; gen: GenStats },
  keepPristine?: string,
): Promise<Project> {
  const dir = join(tmp, `${config.name}-${size}`);
  let gen: GenStats;
  let source: string;
  if (from) {
    const t = performance.now();
    cpSync(from.dir, dir, { recursive: true });
    gen = { ...from.gen, ms: performance.now() - t };
    source = 'copy of ours-legacy';
    log(`${config.name} ${int(size)}: copied ours-legacy's database`);
  } else {
    log(`${config.name} ${int(size)}: generating ${int(size)} tasks (${config.generation})`);
    gen = generateProject(CLI, dir, size, 1000 + size, CHILD_ENV, config.generation);
    source = 'generated';
  }
  if (keepPristine) cpSync(dir, keepPristine, { recursive: true });
  const dbMb = fileMb(dbPath(dir));
  const { c, initMs } = await session(config.cli, dir, [], 300_000);
  const t = performance.now();
  await c.ok('search_tasks', { query: 'session token' });
  const indexBuildMs = performance.now() - t;
  await c.ok('get_task', { id: 1 });
  await c.close();
  const db = sqlite(dir);
  const pending = pendingTaskId(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const dbMbIndexed = fileMb(dbPath(dir));
  log(
    `  ${config.name} ${int(size)}: ${source} in ${ms(gen.ms)} ms, ${mb(dbMb)} MB; first session initialize ${ms(initMs)} ms, index build ${ms(indexBuildMs)} ms`,
  );
  return {
    config,
    size,
    dir,
    gen,
    source,
    dbMb,
    dbMbIndexed,
    firstInitMs: initMs,
    indexBuildMs,
    pendingTaskId: pending,
  };
}

/** A fresh copy of a project's (warmed) database for a run that writes; removed with removeCopy. */
function writeCopy(p: Project, tag: string): string {
  const dir = `${p.dir}-write-${tag}`;
  rmSync(dir, { recursive: true, force: true });
  cpSync(p.dir, dir, { recursive: true });
  // On disk before the run: left to the kernel, the copy's 200-300 MB are written back during a later
  // measurement, or all at once by the first checkpoint's fsync of the database file.
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const fd = openSync(join(f.parentPath ?? f.path, f.name), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  return dir;
}
const removeCopy = (dir: string) => rmSync(dir, { recursive: true, force: true });

// ---- cold start ------------------------------------------------------------------------------

function coldFlags(kind: string, p: Project): string[] {
  if (kind === 'full suite') return [];
  if (kind === 'task_execution') return ['--recipe', 'task_execution', '--task', String(p.pendingTaskId)];
  return ['--recipe', kind];
}

/**
 * A build's environment: the baseline keeps its code cache apart, since a build that writes its cache
 * removes the others' from the directory (src/startup/launcher.ts) and would leave one of the two without.
 */
const envOf = (config: Config): NodeJS.ProcessEnv =>
  config.build === 'baseline' ? { ...CHILD_ENV, RALPH_MCP_CACHE_DIR: join(CACHE_DIR, 'baseline') } : CHILD_ENV;

/** The single executable (npm run build:exe, which npm run bench runs): measured beside the bundle. */
const EXE = join(REPO, 'dist', `ralph-mcp-${process.platform}-${process.arch}`);

/** What a cold start runs: ours as the bundle or the single executable, or the floor (scripts/bench/floorServer.ts). */
type ColdRuntime = 'bundle' | 'exe' | 'floor';

/**
 * Every configuration's cold start, interleaved with `node -e 0`: spawn → initialize response (rows
 * `recipes`, the bundle), and on in the same runs to the tools/list reply and the RSS then (rows
 * `to_tools_list`: the bundle, the single executable when built, and the floor on the legacy project).
 */
async function coldStart(projects: Project[]) {
  const NODE = 'node -e 0';
  const kinds: { key: string; p?: Project; recipe?: string; runtime?: ColdRuntime }[] = [{ key: NODE }];
  const exe = existsSync(EXE) ? EXE : undefined;
  for (const p of projects)
    for (const recipe of COLD_KINDS) {
      kinds.push({ key: `${p.config.name}|${recipe}`, p, recipe, runtime: 'bundle' });
      if (exe && p.config.build === 'ours')
        kinds.push({ key: `${p.config.name} exe|${recipe}`, p, recipe, runtime: 'exe' });
    }
  const legacy = projects.find((p) => p.config === OURS_LEGACY);
  if (legacy) kinds.push({ key: 'floor', p: legacy, runtime: 'floor' });
  const samples: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k.key, []]));
  const toList: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k.key, []]));
  const rss: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k.key, []]));
  const firstCall: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k.key, []]));
  const rssAfterCall: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k.key, []]));
  const command = (k: (typeof kinds)[number]): [string, string[]] => {
    const p = k.p!;
    if (k.runtime === 'floor') return [process.execPath, floorServer(dbPath(p.dir), p.size).args];
    const args = serverArgs(p.config.cli, p.dir, coldFlags(k.recipe!, p));
    return k.runtime === 'exe' ? [exe!, args.slice(1)] : [process.execPath, args];
  };
  const once = async (k: (typeof kinds)[number]) => {
    if (!k.p) return samples[k.key]!.push(await spawnTimed(process.execPath, ['-e', '0'], CHILD_ENV));
    const [cmd, args] = command(k);
    const c = new RpcChild(cmd, args, { timeoutMs: 20_000, env: envOf(k.p.config) });
    try {
      samples[k.key]!.push((await c.initialize()).ms);
      const r = await c.request('tools/list', {});
      if (r.isError) throw new Error(`${k.key}: tools/list failed: ${r.line.slice(0, 300)}`);
      toList[k.key]!.push(performance.now() - c.spawnedAt);
      rss[k.key]!.push(c.memory().rssMb);
      // Then a first call (shown, not judged): ours makes the SDK's Server at it (src/transport/sdkOnDemand.ts).
      const t = performance.now();
      await c.request('tools/call', { name: 'get_task', arguments: { id: 1 } });
      firstCall[k.key]!.push(performance.now() - t);
      rssAfterCall[k.key]!.push(c.memory().rssMb);
    } finally {
      await c.kill();
    }
  };
  // Each build's code cache (ours: src/launcher.ts), as after any earlier session on the machine.
  for (const p of projects)
    await warmSession(
      {
        name: p.config.name,
        kind: 'ours',
        args: serverArgs(p.config.cli, p.dir, coldFlags('task_execution', p)),
        call: ['get_task', () => ({ id: 1 })],
      },
      envOf(p.config),
    );
  if (exe) asInstalled(exe); // its pages read back from disk, as an installed file's (scripts/bench/peers.ts)
  for (const k of kinds) await once(k); // page cache, the executable's addon: not counted
  for (const v of [samples, toList, rss, firstCall, rssAfterCall].flatMap((x) => Object.values(x))) v.length = 0;
  for (let i = 0; i < CFG.coldRuns; i++) {
    // Interleaved, rotating the order so that no kind always runs right after another.
    for (let j = 0; j < kinds.length; j++) {
      const k = kinds[(i + j) % kinds.length]!;
      await once(k);
    }
  }
  const node = median(samples[NODE]!);
  const rows = kinds
    .filter((k) => k.p && k.runtime === 'bundle')
    .map((k) => {
      const s = summarize(samples[k.key]!);
      return {
        config: k.p!.config.name,
        generation: k.p!.config.generation,
        recipe: k.recipe!,
        median_ms: round(s.p50, 2),
        min_ms: round(s.min, 2),
        max_ms: round(s.max, 2),
        ratio: round(s.p50 / node, 2),
        vs_baseline: null as number | null,
      };
    });
  for (const r of rows) {
    const base = rows.find((b) => b.config === 'baseline-legacy' && b.recipe === r.recipe);
    r.vs_baseline = base && r.config !== base.config ? round(r.median_ms / base.median_ms, 3) : null;
  }
  const listRows = kinds
    .filter((k) => k.p)
    .map((k) => ({
      config: k.runtime === 'floor' ? 'floor' : k.p!.config.name,
      generation: k.p!.config.generation,
      runtime: k.runtime!,
      recipe: k.recipe ?? '(get_task)',
      median_ms: round(median(toList[k.key]!), 2),
      ratio: round(median(toList[k.key]!) / node, 2),
      rss_mb: round(median(rss[k.key]!), 1),
      first_call_ms: round(median(firstCall[k.key]!), 2),
      rss_after_first_call_mb: round(median(rssAfterCall[k.key]!), 1),
    }));
  return {
    db_tasks: projects[0]!.size,
    runs: CFG.coldRuns,
    node_e0_ms: round(node, 2),
    recipes: rows,
    to_tools_list: listRows,
    samples_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => round(x, 2))])),
  };
}

// ---- tools/list --------------------------------------------------------------------------------

async function toolsList(p: Project) {
  const out = [];
  for (const recipe of [...RECIPES_ALL, 'full suite']) {
    // A recipe that changes one discipline is launched with one (the generated projects have backend).
    const target = recipeByName(recipe)?.needsDiscipline ? ['--discipline', 'backend'] : [];
    const flags =
      recipe === 'full suite'
        ? []
        : recipe === 'task_execution'
          ? coldFlags(recipe, p)
          : ['--recipe', recipe, ...target];
    const { c, init } = await session(p.config.cli, p.dir, flags);
    const r = await c.request('tools/list', {});
    const tools = parseResult<{ tools: { name: string; description?: string; inputSchema: unknown }[] }>(r).tools;
    const mem = c.memory();
    await c.close();
    const bytes = Buffer.byteLength(r.line);
    const visible = tools.map((t) =>
      Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    );
    const visibleTotal = visible.reduce((a, b) => a + b, 0);
    const largest = tools
      .map((t, i) => ({ name: t.name, bytes: visible[i]! }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3);
    out.push({
      config: p.config.name,
      generation: p.config.generation,
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
  /** The configuration: build and generation (ours-legacy, ours-normalized, baseline-legacy). */
  config: string;
  generation: Generation;
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
  /** Which interleaved round (per-round rows), or how many rounds a median row summarizes. */
  round?: number;
  rounds?: number;
  p50_by_round?: number[];
  calls_per_s_by_round?: number[];
}

/** One family's row, from its sequential samples' summary and its pipelined run. */
function familyResult(a: {
  family: string;
  p: Project;
  session: string;
  n: number;
  s: { p50: number; p99: number; mean: number };
  pn: number;
  pms: number;
  errors: number;
  firstError?: string | undefined;
  replyBytes: number;
}): FamilyResult {
  const res: FamilyResult = {
    family: a.family,
    config: a.p.config.name,
    generation: a.p.config.generation,
    tasks: a.p.size,
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

const errLine = (r: Reply) =>
  r.rpcError ? `rpc ${r.rpcError.code}: ${r.rpcError.message}` : `${r.errorCode}: ${r.line.slice(0, 300)}`;
const tag = (p: Project) => `${p.config.name.padEnd(15)} ${int(p.size).padStart(7)}`;

/** Warm-up, then sequential calls (one in flight) timed one by one, then pipelined calls. */
async function measureFamily(
  c: RpcChild,
  b: Budget,
  p: Project,
  family: string,
  sessionName: string,
  next: () => Call,
  pipeCap = b.pipeMax,
): Promise<FamilyResult> {
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
  for (let i = 0; i < b.seqWarm; i++) {
    const t = performance.now();
    tally(await c.call(...next()));
    warmTimes.push(performance.now() - t);
    if (i >= 4 && performance.now() - w0 > b.seqBudgetMs / 4) break;
  }
  const per = median(warmTimes); // not the mean: one slow first call must not shrink the run
  const n = clamp(Math.floor(b.seqBudgetMs / per), b.seqMin, b.seqMax);
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
  const pn = clamp(Math.floor(b.pipeBudgetMs / s.p50), b.pipeMin, pipeCap);
  const calls = Array.from({ length: pn }, next);
  const { ms: pms, replies } = await c.pipeline(calls, Math.max(60_000, 10 * pn * s.p50));
  replies.forEach(tally);
  const res = familyResult({
    family,
    p,
    session: sessionName,
    n,
    s,
    pn,
    pms,
    errors,
    firstError,
    replyBytes: replyBytes / n,
  });
  log(
    `  ${tag(p)} ${family.padEnd(20)}: p50 ${ms(s.p50)} ms  p99 ${ms(s.p99)} ms  (n=${n})  pipelined ${int(res.calls_per_s)}/s (n=${pn})${errors ? `  ERRORS ${errors}: ${firstError}` : ''}`,
  );
  return res;
}

/**
 * claim_next_task in a worker session: each claim is followed by set_task_status done (not timed in the
 * sequential run; in the pipelined run a claim+done pair counts as one call). Ready work is finite, so
 * the counts are capped by what the database holds.
 */
async function measureClaims(p: Project, writeDir: string, b: Budget, sessionId: string): Promise<FamilyResult> {
  const db = sqlite(writeDir);
  const ready = readyCount(db);
  db.close();
  const { c } = await session(p.config.cli, writeDir, ['--recipe', 'worker', '--session-id', sessionId]);
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
  const n = Math.max(1, Math.min(clamp(Math.floor(b.seqBudgetMs / per), b.seqMin, b.seqMax), Math.floor(left / 2)));
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await cycle());
  left -= n;
  const s = summarize(samples);
  const pn = Math.max(1, Math.min(clamp(Math.floor(b.pipeBudgetMs / (s.p50 * 1.5)), b.pipeMin, b.pipeMax), left));
  const calls: Call[] = [];
  for (let i = 0; i < pn; i++) calls.push(['claim_next_task', {}], ['set_task_status', { status: 'done' }]);
  const { ms: pms, replies } = await c.pipeline(calls, Math.max(60_000, 20 * pn * s.p50));
  for (const [i, r] of replies.entries()) tally(r, i % 2 === 0);
  await c.close();
  const res = familyResult({
    family: 'claim_next_task',
    p,
    session: 'worker',
    n,
    s,
    pn,
    pms,
    errors,
    firstError,
    replyBytes: replyBytes / claims,
  });
  res.note = `${int(ready)} ready at start; pipelined = claim+done pairs/s${unclaimed ? `; ${unclaimed} claims found nothing` : ''}`;
  log(
    `  ${tag(p)} ${'claim_next_task'.padEnd(20)}: p50 ${ms(s.p50)} ms  p99 ${ms(s.p99)} ms  (n=${n})  pipelined ${int(res.calls_per_s)} pairs/s (n=${pn})  ready ${ready}${errors ? `  ERRORS ${errors}: ${firstError}` : ''}`,
  );
  return res;
}

/**
 * How many tasks a typical query of `queries` matches (what search_tasks ranks before its LIMIT): its
 * words whole, or as prefixes when `prefixes` or when the whole words match nothing (as search_tasks does).
 */
function ftsMatches(dir: string, seed: number, queries: (r: () => number) => string, prefixes: boolean): number {
  const r = rng(seed);
  const db = sqlite(dir);
  const st = db.prepare('SELECT count(*) AS n FROM ralph_mcp_search WHERE ralph_mcp_search MATCH ?');
  const count = (words: string[], star: string) =>
    (st.get(words.map((w) => `"${w}"${star}`).join(' ')) as { n: number }).n;
  const counts = Array.from({ length: 21 }, () => {
    const words = queries(r).split(' ');
    return prefixes ? count(words, '*') : count(words, '') || count(words, '*');
  });
  db.close();
  return median(counts);
}

/**
 * Every tool family on one project (BENCH_FAMILIES: those it names): reads on its warmed database, claims
 * and writes on `writeDir` (a fresh copy, so that the reads never see these writes; none when no writing
 * family is measured). The call arguments come from a seed that depends only on the size: every
 * configuration gets the same calls.
 */
async function measureSize(
  p: Project,
  writeDir: string | undefined,
  b: Budget,
  runTag: string,
): Promise<FamilyResult[]> {
  const N = p.size;
  const out: FamilyResult[] = [];
  // Each family draws its arguments from its own seed: every configuration gets the same calls, however
  // many calls the families before it made.
  let family = 0;
  const fresh = () => rng(7 + N + 1000 * family++);
  let r = fresh();
  /** One family on session `c`, unless BENCH_FAMILIES leaves it out. */
  const measure = async (c: RpcChild, name: string, next: () => Call, pipeCap = b.pipeMax) => {
    if (!wanted(name)) return undefined;
    const res = await measureFamily(c, b, p, name, 'full', next, pipeCap);
    out.push(res);
    return res;
  };

  // Reads: one full-suite session on the warmed database.
  {
    const { c } = await session(p.config.cli, p.dir, ['--session-id', `bench-read-${runTag}`]);
    await measure(c, 'ping (no tool)', () => ['rpc:ping', {}], b.pipeGetTask);
    r = fresh();
    await measure(c, 'get_task', () => ['get_task', { id: 1 + randInt(r, N) }], b.pipeGetTask);
    r = fresh();
    await measure(c, 'list_tasks page', () => ['list_tasks', { cursor: String(randInt(r, Math.max(1, N - 50))) }]);
    r = fresh();
    await measure(c, 'list_tasks filtered', () => [
      'list_tasks',
      { filter_status: 'pending', filter_feature: pick(r, FEATURES)[0] },
    ]);
    r = fresh();
    const search = await measure(c, 'search_tasks', () => ['search_tasks', { query: searchQuery(r) }]);
    if (search) {
      p.ftsMatches ??= ftsMatches(p.dir, N, searchQuery, true);
      search.note = `median ${int(p.ftsMatches)} FTS matches per query (ranked and snippeted before LIMIT 20)`;
    }
    // Issue 30: words each in about a third of the tasks (datagen's COMMON_WORDS). A seed outside fresh()'s
    // sequence, so that the families after it keep theirs.
    const common = rng(5 + N);
    const commonSearch = await measure(c, 'search_tasks common words', () => [
      'search_tasks',
      { query: commonSearchQuery(common) },
    ]);
    if (commonSearch) {
      p.commonMatches ??= ftsMatches(p.dir, 5 + N, commonSearchQuery, false);
      commonSearch.note = `one word, two or a prefix of ${COMMON_WORDS.join(', ')}; median ${int(p.commonMatches)} FTS matches per query`;
    }
    r = fresh();
    await measure(c, 'get_project_progress', () => ['get_project_progress', {}]);
    // The blocked view's first page and its count (issue 27): the same call each time, so no seed of its
    // own (a fresh() here would move the seeds of the families after it). A baseline may predate the tool.
    if (p.config.build !== 'baseline') {
      await measure(c, 'blocked_tasks', () => ['blocked_tasks', {}]);
      await measure(c, 'blocked_tasks waiting', () => ['blocked_tasks', { waiting: true }]);
      // The next ready tasks (issue 30 names it among the reads): the same call each time, no seed of its own.
      await measure(c, 'next_tasks', () => ['next_tasks', {}]);
    }
    await c.close();
  }
  if (!writeDir) return out;

  // claim_next_task on the copy, before the other writes.
  if (wanted('claim_next_task')) out.push(await measureClaims(p, writeDir, b, `bench-worker-${runTag}`));

  // Writes on the same copy, full suite (nothing scoped).
  {
    const db = sqlite(writeDir);
    const statuses = taskStatuses(db, N);
    db.close();
    const { c } = await session(p.config.cli, writeDir, ['--session-id', `bench-write-${runTag}`]);
    r = fresh();
    await measure(c, 'create_task', () => [
      'create_task',
      {
        feature: pick(r, FEATURES)[0],
        discipline: pick(r, DISCIPLINES)[0],
        title: title(r),
        description: paragraph(r, 2, 4),
        acceptance_criteria: [sentence(r, 5, 10)],
        depends_on: [1 + randInt(r, N)],
      },
    ]);
    r = fresh();
    // A build from before comments' authors were set by the server requires `author`; later ones refuse
    // it. Asked once, on a comment of the measured kind: every call must be one the build accepts.
    const wantsAuthor = (await c.call('add_task_comment', { task_id: 1, body: 'probe', author: 'backend' })).isError
      ? false
      : p.config.build === 'baseline';
    await measure(c, 'add_task_comment', () => {
      const by = pick(r, DISCIPLINES)[0];
      const author = wantsAuthor ? { author: by } : {};
      return ['add_task_comment', { task_id: 1 + randInt(r, N), discipline: by, body: paragraph(r, 1, 2), ...author }];
    });
    r = fresh();
    await measure(c, 'set_task_status', () => {
      const id = 1 + randInt(r, N);
      const next = statuses.get(id) === 'in_progress' ? 'pending' : 'in_progress';
      statuses.set(id, next);
      return ['set_task_status', { id, status: next }];
    });
    await c.close();
  }
  return out;
}

/**
 * One run of every family (BENCH_FAMILIES: those it names) on a fresh copy of the project's database
 * (removed afterwards; none when no writing family is measured).
 */
async function measureRun(p: Project, b: Budget, runTag: string): Promise<FamilyResult[]> {
  const writeDir = WRITE_FAMILIES.some(wanted) ? writeCopy(p, runTag) : undefined;
  try {
    return await measureSize(p, writeDir, b, `${p.config.name}-${p.size}-${runTag}`);
  } finally {
    if (writeDir) removeCopy(writeDir);
  }
}

/** The median of a few numbers (an even count: the mean of the middle two, not the lower one). */
function middle(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Per family, the medians of a configuration's rounds (p50, p99, mean, calls/s); counts summed. */
function medianOfRounds(runs: FamilyResult[][]): FamilyResult[] {
  return runs[0]!.map((first) => {
    const rows = runs.map((run) => run.find((f) => f.family === first.family)!);
    const med = (k: 'p50_ms' | 'p99_ms' | 'mean_ms' | 'calls_per_s' | 'reply_bytes') => middle(rows.map((x) => x[k]));
    const res: FamilyResult = {
      ...first,
      seq_n: rows.reduce((a, x) => a + x.seq_n, 0),
      p50_ms: round(med('p50_ms'), 4),
      p99_ms: round(med('p99_ms'), 4),
      mean_ms: round(med('mean_ms'), 4),
      pipe_n: rows.reduce((a, x) => a + x.pipe_n, 0),
      calls_per_s: Math.round(med('calls_per_s')),
      errors: rows.reduce((a, x) => a + x.errors, 0),
      reply_bytes: Math.round(med('reply_bytes')),
      rounds: rows.length,
      p50_by_round: rows.map((x) => x.p50_ms),
      calls_per_s_by_round: rows.map((x) => x.calls_per_s),
    };
    delete res.round;
    const firstError = rows.find((x) => x.first_error)?.first_error;
    if (firstError) res.first_error = firstError;
    else delete res.first_error;
    return res;
  });
}

/**
 * The comparison at CMP_SIZE: `rounds` rounds, each measuring every configuration once, the order
 * rotating (round k starts with configuration k), each run on a fresh copy of that configuration's
 * database. Returns each run's rows and, per configuration, the medians over the rounds.
 */
async function compareRounds(
  projects: Project[],
): Promise<{ runs: FamilyResult[]; medians: FamilyResult[]; order: string[][] }> {
  const byConfig = new Map<string, FamilyResult[][]>(projects.map((p) => [p.config.name, []]));
  const runs: FamilyResult[] = [];
  const order: string[][] = [];
  for (let rd = 0; rd < CFG.rounds; rd++) {
    const ps = projects.map((_, i) => projects[(i + rd) % projects.length]!);
    order.push(ps.map((p) => p.config.name));
    log(
      `comparison round ${rd + 1}/${CFG.rounds} at ${int(CMP_SIZE)} tasks: ${ps.map((p) => p.config.name).join(' → ')} (load ${fmtLoad(loadNow())})`,
    );
    for (const p of ps) {
      const rows = await measureRun(p, CFG.compare, `r${rd + 1}`);
      for (const x of rows) x.round = rd + 1;
      byConfig.get(p.config.name)!.push(rows);
      runs.push(...rows);
    }
  }
  const medians = projects.flatMap((p) => medianOfRounds(byConfig.get(p.config.name)!));
  return { runs, medians, order };
}
// ---- memory ------------------------------------------------------------------------------------

async function memory(p: Project) {
  const N = p.size;
  const r = rng(99);
  const { c } = await session(p.config.cli, p.dir, ['--session-id', `bench-rss-${p.config.name}`]);
  const afterInit = c.memory();
  const mix = (): Call => {
    const x = r();
    if (x < 0.9) return ['get_task', { id: 1 + randInt(r, N) }];
    if (x < 0.95) return ['list_tasks', { cursor: String(randInt(r, N)) }];
    if (x < 0.99) return ['add_task_comment', { task_id: 1 + randInt(r, N), body: sentence(r) }];
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
    config: p.config.name,
    generation: p.config.generation,
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
  log(
    `memory ${p.config.name}: init ${mb(res.rss_after_initialize_mb)} MB, @${int(CFG.rssCalls)} ${mb(res.rss_after_first_mb)} MB, @${int(total)} ${mb(res.rss_after_second_mb)} MB, peak ${mb(res.peak_rss_mb)} MB`,
  );
  return res;
}

// ---- concurrency -------------------------------------------------------------------------------

async function concurrency(tmp: string, p: Project) {
  const dir = join(tmp, `concurrency-${p.config.name}`);
  cpSync(p.dir, dir, { recursive: true });
  const N = p.size;
  const counts = () => {
    const db = sqlite(dir);
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    // tasks / comment rows of either generation (normalized: runtime_tasks / task_signals)
    const res = {
      ...rowCounts(db),
      audit_ok: one(
        "SELECT count(*) AS n FROM ralph_mcp_audit WHERE session_id LIKE 'bench-conc-%' AND outcome = 'ok'",
      ),
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
          return [
            'create_task',
            {
              feature: pick(r, FEATURES)[0],
              discipline: pick(r, DISCIPLINES)[0],
              title: title(r),
              description: paragraph(r, 2, 3),
              depends_on: [1 + randInt(r, N)],
            },
          ];
        case 1:
          return ['add_task_comment', { task_id: 1 + randInt(r, N), body: sentence(r) }];
        default:
          return [
            'set_task_status',
            { id: 1 + randInt(r, N), status: pick(r, ['pending', 'in_progress', 'blocked'] as const) },
          ];
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
  log(
    `concurrency ${p.config.name}: ${CFG.concRounds} round(s) of 1 writer × ${total} writes, then ${CFG.concProcs} writers × ${total / CFG.concProcs} (${int(N)} tasks)`,
  );
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
    const { c } = await session(p.config.cli, dir, ['--session-id', `bench-conc-single-${rd}`]);
    let t = performance.now();
    await run(c, total, writer(1 + rd), single);
    const sw = performance.now() - t;
    await c.close();
    // 8 server processes on the same database, started first, then writing at the same time.
    const m0 = multi.ok;
    const sessions = await Promise.all(
      Array.from({ length: CFG.concProcs }, (_, k) =>
        session(p.config.cli, dir, ['--session-id', `bench-conc-${rd}-${k}`]),
      ),
    );
    t = performance.now();
    await Promise.all(
      sessions.map(({ c: ck }, k) => run(ck, total / CFG.concProcs, writer(100 * (rd + 1) + k), multi)),
    );
    const mw = performance.now() - t;
    await Promise.all(sessions.map(({ c: ck }) => ck.close()));
    singleWall += sw;
    multiWall += mw;
    rounds.push({
      single_writes_per_s: Math.round(((single.ok - s0) / sw) * 1000),
      concurrent_writes_per_s: Math.round(((multi.ok - m0) / mw) * 1000),
    });
  }
  const after = counts();
  const singleRate = (single.ok / singleWall) * 1000;
  const multiRate = (multi.ok / multiWall) * 1000;
  const verified =
    after.tasks - before.tasks === single.created + multi.created &&
    after.comments - before.comments === single.commented + multi.commented &&
    after.audit_ok - before.audit_ok === single.ok + multi.ok;
  const res = {
    config: p.config.name,
    generation: p.config.generation,
    tasks: N,
    writes_per_phase: total,
    rounds: CFG.concRounds,
    processes: CFG.concProcs,
    mix: 'create_task, add_task_comment, set_task_status in turn; each process one call in flight',
    single: {
      writes_ok: single.ok,
      wall_ms: round(singleWall, 1),
      writes_per_s: Math.round(singleRate),
      busy_errors: single.busy,
      other_errors: single.otherErrors,
      first_error: single.firstError,
    },
    concurrent: {
      writes_ok: multi.ok,
      wall_ms: round(multiWall, 1),
      writes_per_s: Math.round(multiRate),
      busy_errors: multi.busy,
      other_errors: multi.otherErrors,
      first_error: multi.firstError,
    },
    ratio: round(multiRate / singleRate, 2),
    per_round: rounds,
    rows_verified: verified,
    rows: { before, after },
  };
  log(
    `  ${p.config.name}: single ${int(singleRate)} writes/s; ${CFG.concProcs} procs ${int(multiRate)} writes/s (${res.ratio}×), busy ${multi.busy}, other errors ${multi.otherErrors}, rows verified ${verified}`,
  );
  return res;
}

// ---- migrate -----------------------------------------------------------------------------------

/** The time `ralph-mcp migrate` takes a legacy project of the comparison size to Ralph's normalized schema. */
interface MigrateResult {
  tasks: number;
  generate_ms: number;
  db_mb: number;
  /** spawn → exit of `node dist/ralph-mcp.js migrate --project DIR`. */
  wall_ms: number;
  db_after_mb: number;
  output: string;
}

/**
 * A fresh legacy project (datagen, as Ralph writes rows; nothing of ours in it yet), migrated once by the
 * built CLI: the write, the checks (every record read back through both stores) and the swap.
 */
function migrateTiming(tmp: string, size: number): MigrateResult {
  const dir = join(tmp, `migrate-${size}`);
  log(`migrate: generating ${int(size)} tasks (legacy)`);
  const gen = generateProject(CLI, dir, size, 3000 + size, CHILD_ENV, 'legacy');
  const dbMb = fileMb(dbPath(dir));
  log(`migrate: node dist/ralph-mcp.js migrate --project … (${int(size)} tasks, ${mb(dbMb)} MB)`);
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'migrate', '--project', dir], {
    encoding: 'utf8',
    env: CHILD_ENV,
    timeout: 300_000,
  });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`ralph-mcp migrate failed (${r.status}): ${r.stderr || r.stdout}`);
  const res = {
    tasks: size,
    generate_ms: round(gen.ms, 1),
    db_mb: round(dbMb, 2),
    wall_ms: round(wall, 1),
    db_after_mb: round(fileMb(dbPath(dir)), 2),
    output: r.stdout.trim(),
  };
  log(`  migrate ${int(size)} tasks: ${(wall / 1000).toFixed(1)} s`);
  rmSync(dir, { recursive: true, force: true });
  return res;
}

// ---- report ------------------------------------------------------------------------------------

interface Target {
  id: string;
  target: string;
  measured: string;
  pass: boolean;
}

/** The ratios the comparison shows: each of ours against the baseline, and normalized against legacy. */
const PAIRS: { a: string; b: string; label: string; target: boolean }[] = [
  ...(BASELINE
    ? [
        { a: 'ours-legacy', b: 'baseline-legacy', label: 'ours-leg/base', target: true },
        { a: 'ours-normalized', b: 'baseline-legacy', label: 'ours-norm/base', target: true },
      ]
    : []),
  { a: 'ours-normalized', b: 'ours-legacy', label: 'norm/leg', target: false },
];
/** Ours may be this much slower than the baseline (p50), or this much fewer calls/s. */
const TOLERANCE = 1.1;

/** A family's row at a size (the comparison size by default) for a configuration, if it was measured. */
type FamilyOf = (config: string, family: string, n?: number) => FamilyResult | undefined;
/** What a target measured, and whether it passed. */
type Judged = [string, boolean];

/**
 * The per-family targets on both of our generations, at the comparison size: goal 3's latencies and
 * throughput, and issue 30's goal 2 (search_tasks ≤ 5 ms p50 and ≤ 10 ms p99 for any query, the
 * common-word queries included). A family that was not measured (BENCH_FAMILIES) has no row.
 */
function familyTargets(fam: FamilyOf, at: string): Target[] {
  const out: Target[] = [];
  /** `target` (after the configuration's name) judged on `family`'s row, if it was measured. */
  const row = (id: string, config: string, family: string, target: string, judge: (f: FamilyResult) => Judged) => {
    const f = fam(config, family);
    if (!f) return;
    const [measured, pass] = judge(f);
    out.push({ id, target: `${config}: ${target}${at}`, measured, pass });
  };
  const p50 = (id: string, config: string, family: string, max: number) =>
    row(id, config, family, `${family} p50 ≤ ${max} ms`, (f) => [`${ms(f.p50_ms)} ms`, f.p50_ms <= max]);
  const p99 = (id: string, config: string, family: string, max: number) =>
    row(id, config, family, `${family} p99 ≤ ${max} ms`, (f) => [`${ms(f.p99_ms)} ms`, f.p99_ms <= max]);
  for (const g of OURS) {
    p50('3', g.name, 'get_task', 0.3);
    p50('3', g.name, 'list_tasks page', 5);
    p50('3', g.name, 'search_tasks', 5);
    p50('3', g.name, 'get_project_progress', 20);
    for (const f of ['blocked_tasks', 'blocked_tasks waiting']) p50('3', g.name, f, 20);
    row('3', g.name, 'get_task', 'pipelined get_task ≥ 15,000 calls/s', (f) => [
      `${int(f.calls_per_s)} calls/s`,
      f.calls_per_s >= 15_000,
    ]);
    for (const f of ['search_tasks', 'search_tasks common words']) {
      if (f !== 'search_tasks') p50('30.2', g.name, f, 5);
      p99('30.2', g.name, f, 10);
    }
  }
  return out;
}

/** The families every configuration ran (a baseline may predate a tool: blocked_tasks), in legacy's order. */
const comparedFamilies = (medians: FamilyResult[], fam: FamilyOf): string[] =>
  medians
    .filter((f) => f.config === OURS_LEGACY.name)
    .map((f) => f.family)
    .filter((f) => CONFIGS.every((c) => fam(c.name, f) !== undefined));

/** The comparison's targets (only against a baseline: normalized vs legacy is shown, not judged). */
function baselineTargets(familyNames: string[], fam: FamilyOf, at: string): Target[] {
  const out: Target[] = [];
  for (const pair of PAIRS.filter((x) => x.target)) {
    for (const f of familyNames) {
      const a = fam(pair.a, f)!;
      const b = fam(pair.b, f)!;
      const rp = ratio(a.p50_ms, b.p50_ms);
      const rc = ratio(a.calls_per_s, b.calls_per_s);
      out.push({
        id: '7',
        target: `${pair.a}: ${f} p50 ≤ ${TOLERANCE.toFixed(2)}× baseline${at}`,
        measured: `${ms(a.p50_ms)} vs ${ms(b.p50_ms)} ms = ${fmtRatio(rp)}`,
        pass: rp <= TOLERANCE,
      });
      out.push({
        id: '7',
        target: `${pair.a}: ${f} calls/s ≥ baseline / ${TOLERANCE.toFixed(2)}${at}`,
        measured: `${int(a.calls_per_s)} vs ${int(b.calls_per_s)} calls/s = ${fmtRatio(rc)}`,
        pass: rc >= 1 / TOLERANCE,
      });
    }
  }
  return out;
}

/** The table of some families' rows. */
const familyTable = (rows: FamilyResult[]) =>
  table(
    [
      '<family',
      '<config',
      '<session',
      'n',
      'p50 ms',
      'p99 ms',
      'mean ms',
      'pipelined n',
      'calls/s',
      'reply B',
      'errors',
      '<note',
    ],
    rows.map((f) => [
      f.family,
      f.config,
      f.session,
      int(f.seq_n),
      ms(f.p50_ms),
      ms(f.p99_ms),
      ms(f.mean_ms),
      int(f.pipe_n),
      int(f.calls_per_s),
      int(f.reply_bytes),
      f.errors ? `${f.errors} (${f.first_error?.slice(0, 60)})` : 0,
      f.note ?? '',
    ]),
  );

/** The comparison at CMP_SIZE: each configuration's p50 and calls/s side by side, ratios, p50 per round. */
function comparisonLines(
  cmp: { medians: FamilyResult[]; order: string[][] },
  fam: FamilyOf,
  familyNames: string[],
): string[] {
  const out: string[] = [];
  out.push(
    ...heading(
      `COMPARISON at ${int(CMP_SIZE)} tasks  (median over ${CFG.rounds} interleaved round(s) of each run's p50 and calls/s; ratio = first / second)`,
    ),
  );
  const cfgNames = CONFIGS.map((c) => c.name);
  const short = (n: string) =>
    n.replace('baseline-legacy', 'base').replace('ours-legacy', 'ours-leg').replace('ours-normalized', 'ours-norm');
  out.push(
    table(
      [
        '<family',
        ...cfgNames.map((n) => `${short(n)} p50 ms`),
        ...PAIRS.map((x) => `p50 ${x.label}`),
        ...cfgNames.map((n) => `${short(n)} calls/s`),
        ...PAIRS.map((x) => `calls/s ${x.label}`),
      ],
      familyNames.map((f) => {
        const rows = cfgNames.map((n) => fam(n, f)!);
        return [
          f,
          ...rows.map((x) => ms(x.p50_ms)),
          ...PAIRS.map((x) => fmtRatio(ratio(fam(x.a, f)!.p50_ms, fam(x.b, f)!.p50_ms))),
          ...rows.map((x) => int(x.calls_per_s)),
          ...PAIRS.map((x) => fmtRatio(ratio(fam(x.a, f)!.calls_per_s, fam(x.b, f)!.calls_per_s))),
        ];
      }),
    ),
  );
  out.push(
    `round order: ${cmp.order.map((o, i) => `${i + 1}: ${o.map(short).join(' → ')}`).join('; ')}${BASELINE ? `; targets: ours p50 ≤ ${TOLERANCE.toFixed(2)}× baseline, calls/s ≥ baseline / ${TOLERANCE.toFixed(2)}` : ''}`,
  );
  out.push('p50 per round (ms):');
  out.push(
    table(
      ['<family', ...cfgNames.map(short)],
      familyNames.map((f) => [
        f,
        ...cfgNames.map((n) =>
          fam(n, f)!
            .p50_by_round!.map((x) => ms(x))
            .join(' / '),
        ),
      ]),
    ),
  );
  return out;
}

/** A section's heading line (after a blank line). */
const heading = (t: string) => ['', `== ${t} ${'='.repeat(Math.max(0, 96 - t.length))}`];

/**
 * BENCH_FAMILIES: the projects at the comparison size (every configuration), the named families in the
 * interleaved rounds, and their tables and targets; bench/results.json is left as the last full run wrote it.
 */
async function familiesOnly(tmp: string, load: Record<string, Load>): Promise<void> {
  const pristine = BASELINE ? join(tmp, `pristine-legacy-${CMP_SIZE}`) : undefined;
  const leg = await prepareProject(tmp, CMP_SIZE, OURS_LEGACY, undefined, pristine);
  const projects = [leg];
  if (BASELINE && pristine)
    projects.push(await prepareProject(tmp, CMP_SIZE, BASELINE, { dir: pristine, gen: leg.gen }));
  projects.push(await prepareProject(tmp, CMP_SIZE, OURS_NORMALIZED));
  load.before_comparison = loadNow();
  const cmp = await compareRounds(CONFIGS.map((c) => projects.find((p) => p.config === c)!));
  load.end = loadNow();
  const fam: FamilyOf = (config, f, n = CMP_SIZE) =>
    cmp.medians.find((x) => x.family === f && x.tasks === n && x.config === config);
  const at = QUICK ? ` (at ${int(CMP_SIZE)}, quick run)` : '';
  const familyNames = comparedFamilies(cmp.medians, fam);
  const targets = [...familyTargets(fam, at), ...baselineTargets(familyNames, fam, at)];
  const lines = [
    `ralph-mcp bench, families ${ONLY!.join(', ')}  ${new Date().toISOString()}${QUICK ? '  (BENCH_QUICK=1)' : ''}; configurations: ${CONFIGS.map((c) => c.name).join(', ')}`,
    `load average (1/5/15 min): start ${fmtLoad(load.start)}; before comparison ${fmtLoad(load.before_comparison)}; end ${fmtLoad(load.end)}`,
  ];
  for (const c of CONFIGS) {
    lines.push(
      ...heading(
        `TOOL FAMILIES at ${int(CMP_SIZE)} tasks, ${c.name}  (medians of ${CFG.rounds} interleaved round(s); n summed)`,
      ),
    );
    lines.push(familyTable(cmp.medians.filter((f) => f.config === c.name)));
  }
  lines.push(...comparisonLines(cmp, fam, familyNames), ...heading('TARGETS'), targetTable(targets));
  lines.push('', `${targets.filter((t) => t.pass).length}/${targets.length} targets pass`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The targets, one row each, PASS or FAIL. */
const targetTable = (targets: Target[]) =>
  table(
    ['#', '<target', '<measured', 'result'],
    targets.map((t) => [t.id, t.target, t.measured, t.pass ? 'PASS' : 'FAIL']),
  );

async function main() {
  installExitHooks();
  const hardStop = setTimeout(() => {
    process.stderr.write('bench: hard time limit (15 min) reached; stopping\n');
    killAll();
    process.exit(1);
  }, 15 * 60_000);
  hardStop.unref();
  if (!existsSync(CLI)) throw new Error(`${CLI} not found: run npm run build first (npm run bench does)`);
  if (BASELINE_CLI && !existsSync(BASELINE_CLI))
    throw new Error(
      `BENCH_BASELINE=${BASELINE_CLI} not found: build the baseline first (see the top of scripts/bench/index.ts)`,
    );
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memory_gb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    artifact_kb: Math.round(statSync(CLI).size / 1024),
    baseline: BASELINE_CLI
      ? { path: BASELINE_CLI, artifact_kb: Math.round(statSync(BASELINE_CLI).size / 1024) }
      : undefined,
    env_note: ENV_NOTE || undefined,
  };
  const load: Record<string, Load> = { start: loadNow() };
  const tmp = mkdtempSync(join(os.tmpdir(), 'ralph-mcp-bench-'));
  onExit(() => rmSync(tmp, { recursive: true, force: true }));
  if (CACHE_DIR !== process.env.RALPH_MCP_CACHE_DIR) onExit(() => rmSync(CACHE_DIR, { recursive: true, force: true }));
  log(
    `${QUICK ? 'QUICK run' : 'full run'}${ONLY ? ` of the families ${ONLY.join(', ')}` : ''}; configurations ${CONFIGS.map((c) => c.name).join(', ')}${BASELINE_CLI ? ` (baseline ${BASELINE_CLI})` : ''}; temp dir ${tmp}`,
  );
  try {
    if (ONLY) return await familiesOnly(tmp, load);
    // ours-legacy at every size; ours-normalized and the baseline where they are measured (cold start,
    // concurrency, the comparison). The baseline's database is ours-legacy's, copied before either opened it.
    const projects: Project[] = [];
    const baselineSizes = new Set([CFG.coldSize, CMP_SIZE]);
    const normalizedSizes = new Set([CFG.coldSize, CFG.concSize, CMP_SIZE]);
    for (const size of CFG.sizes) {
      const pristine = BASELINE && baselineSizes.has(size) ? join(tmp, `pristine-legacy-${size}`) : undefined;
      const leg = await prepareProject(tmp, size, OURS_LEGACY, undefined, pristine);
      projects.push(leg);
      if (BASELINE && pristine) {
        projects.push(await prepareProject(tmp, size, BASELINE, { dir: pristine, gen: leg.gen }));
        rmSync(pristine, { recursive: true, force: true });
      }
      if (normalizedSizes.has(size)) projects.push(await prepareProject(tmp, size, OURS_NORMALIZED));
    }
    const proj = (config: Config, size: number) => projects.find((p) => p.config === config && p.size === size);
    const need = (config: Config, size: number) => {
      const p = proj(config, size);
      if (!p) throw new Error(`no ${config.name} project at ${size} tasks`);
      return p;
    };

    log(
      `cold start (${CFG.coldRuns} interleaved runs, ${int(CFG.coldSize)}-task databases: ${CONFIGS.map((c) => c.name).join(', ')})`,
    );
    load.before_cold_start = loadNow();
    const cold = await coldStart(CONFIGS.map((c) => need(c, CFG.coldSize)));
    log(
      `  node -e 0 ${ms(cold.node_e0_ms)} ms; ${cold.recipes.map((x) => `${x.config} ${x.recipe} ${ms(x.median_ms)} ms (${x.ratio}×)`).join(', ')}`,
    );
    log('tools/list per recipe (ours, both generations)');
    const lists = [
      ...(await toolsList(need(OURS_LEGACY, CFG.coldSize))),
      ...(await toolsList(need(OURS_NORMALIZED, CFG.coldSize))),
    ];
    log('list shapes: a page of each task list in each shape (ours, both generations)');
    const shapes = [];
    for (const c of OURS)
      shapes.push(...(await listShapes(c.cli, need(c, CFG.coldSize).dir, c.name, c.generation, CHILD_ENV)));

    // The tool families: the smaller sizes once (ours-legacy), the largest in interleaved rounds.
    const families: FamilyResult[] = [];
    for (const size of CFG.sizes.filter((s) => s !== CMP_SIZE)) {
      log(`tool families at ${int(size)} tasks (ours-legacy)`);
      families.push(...(await measureRun(need(OURS_LEGACY, size), CFG.single, 'once')));
    }
    load.before_comparison = loadNow();
    log(
      `tool families at ${int(CMP_SIZE)} tasks: ${CFG.rounds} interleaved round(s) of ${CONFIGS.map((c) => c.name).join(', ')}`,
    );
    const cmp = await compareRounds(CONFIGS.map((c) => need(c, CMP_SIZE)));
    families.push(...cmp.medians);

    const mems = [];
    for (const c of OURS) {
      log(`memory (${c.name}, ${int(CMP_SIZE)} tasks)`);
      mems.push(await memory(need(c, CMP_SIZE)));
    }
    const concs = [];
    for (const c of OURS) concs.push(await concurrency(tmp, need(c, CFG.concSize)));
    const migrated = migrateTiming(tmp, CMP_SIZE);
    log(
      'beside the peers (floor, SDK one-tool example, server-memory, server-filesystem): cold start to tools/list, calls, memory',
    );
    const site = (p: Project) => ({ dir: p.dir, tasks: p.size, pendingTask: p.pendingTaskId });
    const peers = await besidePeers({
      cli: CLI,
      baseline: BASELINE_CLI,
      exe: join(REPO, 'dist', `ralph-mcp-${process.platform}-${process.arch}`),
      bun: process.env.BUN ?? join(REPO, 'node_modules', '.bin', 'bun'),
      bunExe: join(REPO, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`),
      recipes: RECIPES_ALL,
      cold: site(need(OURS_LEGACY, CFG.coldSize)),
      calls: site(need(OURS_LEGACY, CMP_SIZE)),
      normalizedCalls: site(need(OURS_NORMALIZED, CMP_SIZE)),
      coldRuns: CFG.coldRuns,
      callCount: QUICK ? 2_000 : 10_000,
      // Beside a baseline, more rounds: the B targets compare two servers whose difference is small.
      callRounds: QUICK ? 1 : BASELINE_CLI ? 5 : 3,
      env: CHILD_ENV,
    });
    const runtime = (performance.now() - T0) / 1000;
    load.end = loadNow();

    // ---- targets
    const fam = (config: string, f: string, n = CMP_SIZE) =>
      families.find((x) => x.family === f && x.tasks === n && x.config === config);
    const at = QUICK ? ` (at ${int(CMP_SIZE)}, quick run)` : '';
    const targets: Target[] = [];
    const add = (id: string, target: string, measured: string, pass: boolean) =>
      targets.push({ id, target, measured, pass });
    targets.push(...peers.targets);
    for (const rcp of cold.recipes.filter((x) => x.config !== 'baseline-legacy')) {
      add(
        '1',
        `${rcp.config}: cold start ${rcp.recipe} ≤ 1.5× node -e 0`,
        `${ms(rcp.median_ms)} ms = ${rcp.ratio}× (node -e 0: ${ms(cold.node_e0_ms)} ms)`,
        rcp.ratio <= 1.5,
      );
    }
    // Issue 30, goal 4: to the tools/list reply, the single executable ≤ 2.0× node -e 0 and the bundle ≤ 2.5×,
    // every recipe, both generations; the RSS then ≤ 50 MB, the floor's (measured in the same runs: shown).
    const floorRow = cold.to_tools_list.find((x) => x.runtime === 'floor');
    const oursToList = cold.to_tools_list.filter((x) => x.runtime !== 'floor' && x.config !== 'baseline-legacy');
    for (const r of oursToList) {
      const limit = r.runtime === 'exe' ? 2 : 2.5;
      add(
        '30.4',
        `${r.config} ${r.runtime}: cold start to tools/list, ${r.recipe} ≤ ${limit.toFixed(1)}× node -e 0`,
        `${ms(r.median_ms)} ms = ${r.ratio}× (node -e 0: ${ms(cold.node_e0_ms)} ms)`,
        r.ratio <= limit,
      );
    }
    for (const key of new Set(oursToList.map((r) => `${r.config} ${r.runtime}`))) {
      const most = Math.max(...oursToList.filter((r) => `${r.config} ${r.runtime}` === key).map((r) => r.rss_mb));
      add(
        '30.4',
        `${key}: RSS after initialize (at the tools/list reply) ≤ 50 MB, every recipe`,
        `${mb(most)} MB at most${floorRow ? ` (floor: ${mb(floorRow.rss_mb)} MB)` : ''}`,
        most <= 50,
      );
    }
    for (const rcp of cold.recipes.filter((x) => x.vs_baseline != null)) {
      const base = cold.recipes.find((b) => b.config === 'baseline-legacy' && b.recipe === rcp.recipe)!;
      add(
        '1',
        `${rcp.config}: cold start ${rcp.recipe} ≤ ${TOLERANCE.toFixed(2)}× baseline`,
        `${ms(rcp.median_ms)} vs ${ms(base.median_ms)} ms = ${rcp.vs_baseline!.toFixed(2)}×`,
        rcp.vs_baseline! <= TOLERANCE,
      );
    }
    for (const g of OURS) {
      const full = lists.find((l) => l.config === g.name && l.recipe === 'full suite')!;
      const te = lists.find((l) => l.config === g.name && l.recipe.startsWith('task_execution'))!;
      add(
        '2',
        `${g.name}: full suite model-visible ≤ 400 B/tool`,
        `${full.model_visible_per_tool} B/tool (${full.tools} tools, ${int(full.model_visible_bytes)} B)`,
        full.model_visible_per_tool <= 400,
      );
      add(
        '2',
        `${g.name}: task_execution model-visible ≤ 6 KB`,
        `${int(te.model_visible_bytes)} B (~${int(te.model_visible_tokens)} tokens; + ${int(te.instructions_bytes)} B instructions)`,
        te.model_visible_bytes <= 6144,
      );
    }
    targets.push(...familyTargets(fam, at));
    for (const mem of mems) {
      add(
        '4',
        `${mem.config}: RSS ≤ 70 MB after ${int(CFG.rssCalls)} calls`,
        `${mb(mem.rss_after_first_mb)} MB (peak ${mb(mem.peak_rss_mb)} MB)`,
        mem.rss_after_first_mb <= 70,
      );
      add(
        '4',
        `${mem.config}: no RSS growth over a further ${int(CFG.rssCalls)} (≤ 5 MB)`,
        `${mem.growth_mb >= 0 ? '+' : ''}${mb(mem.growth_mb)} MB`,
        mem.growth_mb <= 5,
      );
    }
    for (const conc of concs) {
      add(
        '5',
        `${conc.config}: ${CFG.concProcs} writers: 0 busy errors surfaced`,
        `${conc.concurrent.busy_errors} busy (${conc.concurrent.other_errors} other errors; rows verified: ${conc.rows_verified})`,
        conc.concurrent.busy_errors === 0 && conc.rows_verified,
      );
      add(
        '5',
        `${conc.config}: ${CFG.concProcs} writers ≥ 70% of 1 writer's writes/s`,
        `${int(conc.concurrent.writes_per_s)} vs ${int(conc.single.writes_per_s)} writes/s = ${Math.round(conc.ratio * 100)}%`,
        conc.ratio >= 0.7,
      );
    }
    // Issue 27's aim for list shapes, set as beads sets its brief: against the same tasks in full. Our list row
    // is already ids, names and enums (~170 B), so brief ÷ row (37-48%, the table's "of row") is mostly the
    // title and is shown, not judged (docs/lists.md).
    for (const x of shapes.filter((r) => r.shape === 'brief' && r.tool === 'list_tasks')) {
      const whole = shapes.find((r) => r.config === x.config && r.tool === x.tool && r.shape.startsWith('(whole'))!;
      add(
        'L1',
        `${x.config}: list_tasks brief ≤ 20% of the same page as whole tasks (${x.rows} rows)`,
        `${int(x.visible_bytes)} vs ${int(whole.visible_bytes)} B = ${Math.round((x.visible_bytes / whole.visible_bytes) * 100)}%`,
        x.visible_bytes <= 0.2 * whole.visible_bytes,
      );
    }
    add('6', 'bench runtime < 10 min (build not included)', `${runtime.toFixed(0)} s`, runtime < 600);
    add(
      '30.5',
      `migrate ${int(migrated.tasks)} tasks ≤ 20 s${QUICK ? ' (quick run)' : ''}`,
      `${(migrated.wall_ms / 1000).toFixed(1)} s (${mb(migrated.db_mb)} MB legacy → ${mb(migrated.db_after_mb)} MB)`,
      migrated.wall_ms <= 20_000,
    );
    const familyNames = comparedFamilies(cmp.medians, fam);
    targets.push(...baselineTargets(familyNames, fam, at));

    targets.push(...generationTargets(cmp.medians, at));

    // ---- print
    const lines: string[] = [];
    const h = (t: string) => lines.push('', `== ${t} ${'='.repeat(Math.max(0, 96 - t.length))}`);
    lines.push(
      `ralph-mcp bench  ${new Date().toISOString()}${QUICK ? '  (BENCH_QUICK=1)' : ''}; configurations: ${CONFIGS.map((c) => c.name).join(', ')}`,
    );
    lines.push(
      `load average (1/5/15 min): start ${fmtLoad(load.start)}; before cold start ${fmtLoad(load.before_cold_start)}; before comparison ${fmtLoad(load.before_comparison)}; end ${fmtLoad(load.end)}. The bench itself keeps 1–2 cores busy; more means other work shared the machine.`,
    );
    lines.push(
      `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gb} GB, node ${machine.node}, ${machine.platform}; artifact dist/ralph-mcp.js ${machine.artifact_kb} KB${ENV_NOTE ? `; ${ENV_NOTE}` : ''}`,
    );
    if (machine.baseline)
      lines.push(
        `baseline: ${machine.baseline.path} (${machine.baseline.artifact_kb} KB), on a copy of ours-legacy's database`,
      );
    h('DATABASES  (same seed per size: the same project on either generation)');
    lines.push(
      table(
        [
          '<config',
          '<generation',
          'tasks',
          'comments',
          'comment rows',
          'with deps',
          'ready',
          'rows',
          '<source',
          'ms',
          'DB MB',
          'DB+FTS MB',
          '1st initialize ms',
          'warm-up: 1st search (FTS build) ms',
        ],
        projects.map((p) => [
          p.config.name,
          p.config.generation,
          int(p.size),
          int(p.gen.comments),
          int(p.gen.commentRows),
          int(p.gen.withDeps),
          int(p.gen.ready),
          int(p.gen.rows),
          p.source,
          ms(p.gen.ms),
          mb(p.dbMb),
          mb(p.dbMbIndexed),
          ms(p.firstInitMs),
          ms(p.indexBuildMs),
        ]),
      ),
    );
    lines.push(
      'comment rows: the table the server reads comments from (normalized: task_signals, i.e. the comments as learned signals + a blocked signal per blocked task, its blocked_by).',
    );
    h(
      `COLD START  spawn → initialize response, median of ${cold.runs}, interleaved with node -e 0 (${int(cold.db_tasks)} tasks)`,
    );
    lines.push(
      table(
        ['<config', '<session', 'median ms', 'min ms', 'max ms', '× node -e 0', ...(BASELINE ? ['× baseline'] : [])],
        [
          ['', 'node -e 0', ms(cold.node_e0_ms), '', '', '1.00', ...(BASELINE ? [''] : [])],
          ...cold.recipes.map((x) => [
            x.config,
            x.recipe,
            ms(x.median_ms),
            ms(x.min_ms),
            ms(x.max_ms),
            x.ratio.toFixed(2),
            ...(BASELINE ? [x.vs_baseline != null ? x.vs_baseline.toFixed(2) : ''] : []),
          ]),
        ],
      ),
    );
    h(
      `COLD START TO TOOLS/LIST  spawn → tools/list reply, same runs; RSS then (issue 30: exe ≤ 2.0×, bundle ≤ 2.5× node -e 0; ≤ 50 MB); then a first get_task, shown`,
    );
    lines.push(
      table(
        ['<config', '<runtime', '<session', 'median ms', '× node -e 0', 'RSS MB', 'then get_task ms', 'RSS then MB'],
        cold.to_tools_list.map((x) => [
          x.config,
          x.runtime,
          x.recipe,
          ms(x.median_ms),
          x.ratio.toFixed(2),
          mb(x.rss_mb),
          ms(x.first_call_ms),
          mb(x.rss_after_first_call_mb),
        ]),
      ),
    );
    h('TOOLS/LIST  (model-visible = JSON of {name, description, inputSchema}; tokens ≈ bytes/4)');
    lines.push(
      table(
        [
          '<config',
          '<recipe',
          'tools',
          'total B',
          'B/tool',
          'visible B',
          'visible B/tool',
          '~tokens',
          'instructions B',
          'RSS init MB',
          '<largest (visible B)',
        ],
        lists.map((x) => [
          x.config,
          x.recipe,
          x.tools,
          int(x.total_bytes),
          int(x.bytes_per_tool),
          int(x.model_visible_bytes),
          int(x.model_visible_per_tool),
          int(x.model_visible_tokens),
          int(x.instructions_bytes),
          mb(x.rss_after_initialize_mb),
          x.largest_tools.map((t) => `${t.name} ${t.bytes}`).join(', '),
        ]),
      ),
    );
    h(`LIST SHAPES  (${int(CFG.coldSize)} tasks; visible = the text block, one copy of the structured JSON)`);
    lines.push(table(SHAPE_HEADER, shapeTable(shapes)));
    for (const size of CFG.sizes.filter((s) => s !== CMP_SIZE)) {
      h(`TOOL FAMILIES at ${int(size)} tasks, ours-legacy  (sequential over one connection; pipelined calls/s)`);
      lines.push(familyTable(families.filter((f) => f.tasks === size)));
    }
    for (const c of CONFIGS) {
      h(
        `TOOL FAMILIES at ${int(CMP_SIZE)} tasks, ${c.name}  (medians of ${CFG.rounds} interleaved round(s); n summed)`,
      );
      lines.push(familyTable(cmp.medians.filter((f) => f.config === c.name)));
    }
    lines.push(...comparisonLines(cmp, fam, familyNames));
    for (const mem of mems) {
      h(`MEMORY ${mem.config} (${int(mem.tasks)} tasks, full suite; ${mem.mix})`);
      lines.push(
        table(
          [
            'after initialize MB',
            `after ${int(CFG.rssCalls)} calls MB`,
            `after ${int(CFG.rssCalls * 2)} calls MB`,
            'growth MB',
            'median 1st/2nd half MB',
            'peak (VmHWM) MB',
            'errors',
            'wall s',
          ],
          [
            [
              mb(mem.rss_after_initialize_mb),
              mb(mem.rss_after_first_mb),
              mb(mem.rss_after_second_mb),
              mb(mem.growth_mb),
              `${mb(mem.median_first_mb)} / ${mb(mem.median_second_mb)}`,
              mb(mem.peak_rss_mb),
              mem.errors,
              mem.wall_s,
            ],
          ],
        ),
      );
      lines.push(
        `RSS trend (calls: MB): ${mem.trend
          .filter((_, i) => i % 2 === 0)
          .map((t) => `${t.calls / 1000}k ${mb(t.rss_mb)}`)
          .join(' · ')}`,
      );
    }
    for (const conc of concs) {
      h(
        `CONCURRENCY ${conc.config} (${int(conc.tasks)} tasks, ${conc.rounds} round(s) alternating 1 and ${conc.processes} processes; ${conc.mix})`,
      );
      lines.push(
        table(
          ['<writers', 'writes ok', 'wall ms', 'writes/s', 'busy errors', 'other errors', '<first error'],
          [
            [
              '1 process',
              int(conc.single.writes_ok),
              int(conc.single.wall_ms),
              int(conc.single.writes_per_s),
              conc.single.busy_errors,
              conc.single.other_errors,
              conc.single.first_error?.slice(0, 80) ?? '',
            ],
            [
              `${conc.processes} processes`,
              int(conc.concurrent.writes_ok),
              int(conc.concurrent.wall_ms),
              int(conc.concurrent.writes_per_s),
              conc.concurrent.busy_errors,
              conc.concurrent.other_errors,
              conc.concurrent.first_error?.slice(0, 80) ?? '',
            ],
          ],
        ),
      );
      lines.push(
        `per round (writes/s, 1 vs ${conc.processes}): ${conc.per_round.map((x) => `${int(x.single_writes_per_s)} vs ${int(x.concurrent_writes_per_s)}`).join('; ')}; rows verified by SQL (tasks, comment rows, audit rows = ok replies): ${conc.rows_verified}`,
      );
    }
    h(`MIGRATE  a fresh legacy project (datagen) to Ralph's normalized schema, once`);
    lines.push(
      table(
        ['tasks', 'legacy DB MB', 'normalized DB MB', 'migrate s'],
        [[int(migrated.tasks), mb(migrated.db_mb), mb(migrated.db_after_mb), (migrated.wall_ms / 1000).toFixed(1)]],
      ),
    );
    lines.push('node dist/ralph-mcp.js migrate --project DIR, spawn to exit: the write, every check, the swap.');
    h(`BESIDE THE PEERS (legacy; cold start on ${int(CFG.coldSize)} tasks, calls on ${int(CMP_SIZE)})`);
    lines.push(...peersReport(peers, table));
    h('TARGETS');
    lines.push(targetTable(targets));
    const noise = generationNoise(cmp.medians);
    if (noise) lines.push(noise);
    lines.push(
      '',
      `${targets.filter((t) => t.pass).length}/${targets.length} targets pass; bench runtime ${runtime.toFixed(0)} s; results in ${OUT.slice(REPO.length + 1)}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);

    mkdirSync(dirname(OUT), { recursive: true });
    const results = {
      format: 'ralph-mcp/bench@2',
      date: new Date().toISOString(),
      quick: QUICK,
      machine,
      configurations: CONFIGS.map((c) => ({ name: c.name, build: c.build, generation: c.generation, cli: c.cli })),
      load_average: load,
      config: CFG,
      runtime_s: round(runtime, 1),
      databases: projects.map((p) => ({
        config: p.config.name,
        generation: p.config.generation,
        tasks: p.gen.tasks,
        source: p.source,
        comments: p.gen.comments,
        comment_rows: p.gen.commentRows,
        with_deps: p.gen.withDeps,
        ready: p.gen.ready,
        rows: p.gen.rows,
        generate_ms: round(p.gen.ms, 1),
        db_mb: round(p.dbMb, 2),
        db_with_fts_mb: round(p.dbMbIndexed, 2),
        first_initialize_ms: round(p.firstInitMs, 1),
        first_search_index_build_ms: round(p.indexBuildMs, 1),
      })),
      cold_start: cold,
      tools_list: lists,
      list_shapes: shapes,
      /** 1k/10k: one run (ours-legacy); the largest size: per configuration, medians of the rounds. */
      families,
      comparison: {
        tasks: CMP_SIZE,
        rounds: CFG.rounds,
        order: cmp.order,
        tolerance: BASELINE ? TOLERANCE : undefined,
        ratios: familyNames.map((f) => ({
          family: f,
          ...Object.fromEntries(
            PAIRS.flatMap((x) => [
              [`p50 ${x.a}/${x.b}`, round(ratio(fam(x.a, f)!.p50_ms, fam(x.b, f)!.p50_ms), 3)],
              [`calls_per_s ${x.a}/${x.b}`, round(ratio(fam(x.a, f)!.calls_per_s, fam(x.b, f)!.calls_per_s), 3)],
            ]),
          ),
        })),
        runs: cmp.runs,
      },
      memory: mems,
      concurrency: concs,
      migrate: migrated,
      peers,
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
