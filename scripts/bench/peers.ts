/**
 * ralph-mcp beside its peers, in one interleaved run on one machine (part of `npm run bench`; alone:
 * `node dist/scripts/bench/peers.js [tasks=100000]` after a build):
 * - `node -e 0`, the unit every start-up ratio is given in, and `bun -e 0` beside it;
 * - the floor (floorServer.ts): plain Node + better-sqlite3 answering get_task with the SQL ours runs;
 * - the SDK's one-tool example (mcpServerOutputSchema), @modelcontextprotocol/server-memory and
 *   @modelcontextprotocol/server-filesystem (devDependencies);
 * - ours, every recipe and the full suite, on the legacy generation: as the npm bundle under Node and,
 *   per recipe, under Bun (`bun dist/ralph-mcp.js`), and as each single executable built (Node's, Bun's);
 * - get_task on a normalized project too, ours against the floor running that generation's statements.
 *
 * Measured: cold start (spawn → initialize → tools/list reply, interleaved, the order rotating), get_task
 * per call against the floor (server CPU from /proc, pipelined calls/s), RSS after initialize and after
 * 10,000 calls of each server's own read tool, and tools/list bytes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcChild, spawnTimed } from './rpc.js';
import { median, round } from './format.js';
import { DIRECT_CALLS_ENV } from '../../src/transport/directCalls.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Which artifact of ours a row starts: the npm bundle under Node or Bun, or a single executable. */
export type Artifact = 'bundle' | 'exe' | 'bun' | 'bun exe';

export interface PeerServer {
  name: string;
  kind: 'peer' | 'floor' | 'ours';
  artifact?: Artifact;
  /** The program (default: this Node); args follow it. */
  command?: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** A read call of its own for the per-call and memory runs. */
  call?: readonly [string, (i: number) => Record<string, unknown>];
  /** Who the bench says it is at initialize (ours answers Claude Code with the structured copy alone). */
  clientInfo?: { name: string; version: string };
}

/** What Claude Code says at initialize (what Ralph launches for its sessions). */
export const CLAUDE_CODE = { name: 'claude-code', version: '2.1.280' };

/** A file of an installed package (its exports map would hide the examples and bins). */
const pkgFile = (pkg: string, file: string) => {
  const path = join(REPO, 'node_modules', pkg, file);
  if (!existsSync(path)) throw new Error(`${path} is missing`);
  return path;
};

/** The three SDK-built peers, or none when their packages are missing (said once). */
export function sdkPeers(scratch: string): PeerServer[] {
  try {
    const memoryFile = join(scratch, 'memory.jsonl');
    writeFileSync(memoryFile, '');
    return [
      {
        name: 'sdk one-tool example',
        kind: 'peer',
        args: [pkgFile('@modelcontextprotocol/sdk', 'dist/esm/examples/server/mcpServerOutputSchema.js')],
        call: ['get_weather', () => ({ city: 'Oslo', country: 'NO' })],
      },
      {
        name: 'server-memory',
        kind: 'peer',
        args: [pkgFile('@modelcontextprotocol/server-memory', 'dist/index.js')],
        env: { MEMORY_FILE_PATH: memoryFile },
        call: ['read_graph', () => ({})],
      },
      {
        name: 'server-filesystem',
        kind: 'peer',
        args: [pkgFile('@modelcontextprotocol/server-filesystem', 'dist/index.js'), scratch],
        call: ['list_allowed_directories', () => ({})],
      },
    ];
  } catch (err) {
    process.stderr.write(`bench: peers not installed (${(err as Error).message.split('\n')[0]}); run npm install\n`);
    return [];
  }
}

export function floorServer(dbPath: string, tasks: number): PeerServer {
  return {
    name: 'floor',
    kind: 'floor',
    args: [join(REPO, 'dist', 'scripts', 'bench', 'floorServer.js'), dbPath],
    call: ['get_task', (i) => ({ id: 1 + ((i * 7919) % tasks) })],
  };
}

export function oursServer(
  cli: string,
  project: string,
  flags: string[],
  label: string,
  tasks: number,
  clientInfo?: PeerServer['clientInfo'],
): PeerServer {
  return {
    name: `ralph-mcp ${label}`,
    kind: 'ours',
    artifact: 'bundle',
    args: [cli, '--project', project, '--log-level', 'error', ...flags],
    call: ['get_task', (i) => ({ id: 1 + ((i * 7919) % tasks) })],
    clientInfo,
  };
}

/** Ours as a single executable (npm run build:exe, build:exe:bun): the same flags, no runtime or script before them. */
export function oursExe(
  exe: string,
  project: string,
  flags: string[],
  label: string,
  tasks: number,
  artifact: 'exe' | 'bun exe' = 'exe',
): PeerServer {
  return {
    ...oursServer(exe, project, flags, `${artifact} ${label}`, tasks),
    artifact,
    command: exe,
    args: ['--project', project, '--log-level', 'error', ...flags],
  };
}

/** Ours as `bun dist/ralph-mcp.js` (the launcher loads Bun's bytecode bundle: src/startup/launcher.ts). */
export function oursUnderBun(bun: string, cli: string, project: string, flags: string[], label: string, tasks: number) {
  return { ...oursServer(cli, project, flags, `bun ${label}`, tasks), artifact: 'bun', command: bun } as PeerServer;
}

/** spawn → initialize → notifications/initialized → tools/list reply, in ms; and the reply's bytes. */
async function startToList(
  s: PeerServer,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; bytes: number; rssMb: number }> {
  const c = new RpcChild(s.command ?? process.execPath, s.args, { timeoutMs: 20_000, env: { ...env, ...s.env } });
  try {
    await c.initialize(s.clientInfo);
    const r = await c.request('tools/list', {});
    const ms = performance.now() - c.spawnedAt;
    if (r.isError) throw new Error(`${s.name}: tools/list failed: ${r.line.slice(0, 300)}`);
    return { ms, bytes: Buffer.byteLength(r.line), rssMb: c.memory().rssMb };
  } finally {
    await c.kill();
  }
}

/**
 * One whole session of `s` (initialize, tools/list, a call of its own, 1.2 s, stdin closed): what leaves
 * ours a code cache, as any earlier session on the machine would (the call makes ours its SDK Server).
 */
export async function warmSession(s: PeerServer, env: NodeJS.ProcessEnv): Promise<void> {
  const c = new RpcChild(s.command ?? process.execPath, s.args, { timeoutMs: 20_000, env: { ...env, ...s.env } });
  try {
    await c.initialize(s.clientInfo);
    await c.request('tools/list', {});
    if (s.call) await c.request('tools/call', { name: s.call[0], arguments: s.call[1](0) });
    await new Promise((r) => setTimeout(r, 1200));
  } finally {
    await c.close();
  }
}

export interface ColdRow {
  name: string;
  kind: PeerServer['kind'];
  artifact?: Artifact | undefined;
  median_ms: number;
  ratio_node: number;
  tools_list_bytes: number;
  rss_after_initialize_mb: number;
}

/**
 * Makes the just-built executable's pages in the page cache look like an installed binary's: written
 * to disk and dropped from the cache, to be read back by its first start. A file the build has just
 * written is held in the page cache as it was written, and the kernel maps every cached page around a
 * fault (fault-around), so a session of a just-written executable counted about 15 MB more of the file
 * in its RSS than one of the same executable read from disk (measured: 75.7 against 60.5 MB). Nothing
 * of the server changes; the first, uncounted start reads the file back. GNU dd's `iflag=nocache
 * count=0` drops a file's cached pages (POSIX_FADV_DONTNEED); where it is missing the file stays as built.
 */
export function asInstalled(file: string): void {
  const synced = spawnSync('sync', [file]);
  const dropped =
    synced.status === 0 && spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']).status === 0;
  if (!dropped)
    process.stderr.write(`bench: could not drop ${file} from the page cache; its RSS is measured as just written\n`);
}

/** Cold start of every server, interleaved with `node -e 0` (and `bun -e 0`), rotating the order each run. */
export async function coldStarts(
  servers: PeerServer[],
  runs: number,
  env: NodeJS.ProcessEnv,
  bun?: string,
): Promise<{ node_e0_ms: number; bun_e0_ms: number | null; rows: ColdRow[] }> {
  const NODE = 'node -e 0';
  const BUN = 'bun -e 0';
  const keys = [NODE, ...(bun ? [BUN] : []), ...servers.map((s) => s.name)];
  const samples = new Map<string, number[]>(keys.map((k) => [k, []]));
  const last = new Map<string, { bytes: number; rssMb: number }>();
  const once = async (key: string) => {
    if (key === NODE) return samples.get(key)!.push(await spawnTimed(process.execPath, ['-e', '0'], env));
    if (key === BUN) return samples.get(key)!.push(await spawnTimed(bun!, ['-e', '0'], env));
    const s = servers.find((x) => x.name === key)!;
    const r = await startToList(s, env);
    last.set(key, r);
    samples.get(key)!.push(r.ms);
  };
  // As on a machine that has run a session before: ours writes its code cache once a session has run a
  // second (src/launcher.ts), which the killed runs below never do.
  const bundles = new Map(servers.filter((x) => x.kind === 'ours').map((x) => [x.command ?? x.args[0], x]));
  for (const s of bundles.values()) await warmSession(s, env);
  for (const k of keys) await once(k); // warm the page cache: not counted
  for (const v of samples.values()) v.length = 0;
  for (let i = 0; i < runs; i++) for (let j = 0; j < keys.length; j++) await once(keys[(i + j) % keys.length]!);
  const node = median(samples.get(NODE)!);
  return {
    node_e0_ms: round(node, 2),
    bun_e0_ms: bun ? round(median(samples.get(BUN)!), 2) : null,
    rows: servers.map((s) => {
      const m = median(samples.get(s.name)!);
      return {
        name: s.name,
        kind: s.kind,
        artifact: s.artifact,
        median_ms: round(m, 2),
        ratio_node: round(m / node, 2),
        tools_list_bytes: last.get(s.name)!.bytes,
        rss_after_initialize_mb: round(last.get(s.name)!.rssMb, 1),
      };
    }),
  };
}

/** utime + stime of a process, in ms (/proc/PID/stat; clock ticks are 10 ms on Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface CallRow {
  name: string;
  kind: PeerServer['kind'];
  tool: string;
  calls: number;
  calls_per_s: number;
  cpu_us_per_call: number;
  errors: number;
  rss_after_calls_mb: number;
}

/**
 * `calls` pipelined calls of each server's read tool (batches of 256), after a warm-up; interleaved by server over
 * `rounds`.
 */
export async function callRuns(
  servers: PeerServer[],
  calls: number,
  rounds: number,
  env: NodeJS.ProcessEnv,
): Promise<CallRow[]> {
  const results = new Map<string, { cps: number[]; cpu: number[]; errors: number; rss: number }>();
  for (let round_ = 0; round_ < rounds; round_++) {
    for (let j = 0; j < servers.length; j++) {
      const s = servers[(round_ + j) % servers.length]!;
      if (!s.call) continue;
      const [tool, args] = s.call;
      const c = new RpcChild(s.command ?? process.execPath, s.args, { timeoutMs: 120_000, env: { ...env, ...s.env } });
      try {
        await c.initialize(s.clientInfo);
        await c.pipeline(Array.from({ length: 500 }, (_, i) => [tool, args(i)] as const));
        const cpu0 = cpuMs(c.pid);
        const { ms, replies } = await c.pipeline(
          Array.from({ length: calls }, (_, i) => [tool, args(i + 500)] as const),
        );
        const cpu = cpuMs(c.pid) - cpu0;
        const r = results.get(s.name) ?? { cps: [], cpu: [], errors: 0, rss: 0 };
        r.cps.push((calls / ms) * 1000);
        r.cpu.push((cpu * 1000) / calls);
        r.errors += replies.filter((x) => x.isError).length;
        r.rss = c.memory().rssMb;
        results.set(s.name, r);
      } finally {
        await c.close();
      }
    }
  }
  return servers
    .filter((s) => results.has(s.name))
    .map((s) => {
      const r = results.get(s.name)!;
      return {
        name: s.name,
        kind: s.kind,
        tool: s.call![0],
        calls,
        calls_per_s: Math.round(median(r.cps)),
        cpu_us_per_call: round(median(r.cpu), 1),
        errors: r.errors,
        rss_after_calls_mb: round(r.rss, 1),
      };
    });
}

/** A scratch directory for the peers' own files (server-memory's graph, server-filesystem's root). */
export function peerScratch(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-peers-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface PeersResult {
  cold: { node_e0_ms: number; bun_e0_ms: number | null; rows: ColdRow[] };
  calls: CallRow[];
  targets: { id: string; target: string; measured: string; pass: boolean }[];
}

const RECIPE_FLAGS = (recipe: string, pendingTask: number): string[] =>
  recipe === 'full suite'
    ? []
    : recipe === 'task_execution'
      ? ['--recipe', recipe, '--task', String(pendingTask)]
      : recipe === 'discuss'
        ? ['--recipe', recipe, '--discipline', 'backend']
        : ['--recipe', recipe];

/**
 * The whole side-by-side run: cold starts on `coldDb` (small), per-call and memory on `callDb` (100k),
 * both legacy projects our server has already opened (our indexes made).
 */
export async function besidePeers(o: {
  cli: string;
  /** Another build's bundle (BENCH_BASELINE): its cold starts and calls beside ours, with B targets. */
  baseline?: string | undefined;
  /** The single executable, when built: its cold starts are measured beside the bundle's. */
  exe?: string | undefined;
  /** Bun (a binary), when present: `bun -e 0` and the bundle under Bun, with targets BUN1 and BUN2. */
  bun?: string | undefined;
  /** The Bun single executable, when built (npm run build:exe:bun). */
  bunExe?: string | undefined;
  recipes: string[];
  cold: { dir: string; tasks: number; pendingTask: number };
  calls: { dir: string; tasks: number; pendingTask: number };
  /** A normalized project of the same size: its get_task against the floor on that generation (issue 30, goal 3). */
  normalizedCalls?: { dir: string; tasks: number; pendingTask: number } | undefined;
  coldRuns: number;
  callCount: number;
  callRounds: number;
  env: NodeJS.ProcessEnv;
}): Promise<PeersResult> {
  const scratch = peerScratch();
  try {
    const peers = sdkPeers(scratch.dir);
    const dbOf = (dir: string) => join(dir, '.ralph', 'db', 'ralph.db');
    const ours = [...o.recipes, 'full suite'].map((r) =>
      oursServer(o.cli, o.cold.dir, RECIPE_FLAGS(r, o.cold.pendingTask), r, o.cold.tasks),
    );
    // Each build keeps its code cache in its own directory: a build that writes its cache removes the
    // others' from the directory (src/startup/launcher.ts), which would leave one of the two without.
    const baseEnv = { RALPH_MCP_CACHE_DIR: join(scratch.dir, 'baseline-cache') };
    const base = o.baseline
      ? [...o.recipes, 'full suite'].map((r) => ({
          ...oursServer(o.baseline!, o.cold.dir, RECIPE_FLAGS(r, o.cold.pendingTask), `baseline ${r}`, o.cold.tasks),
          env: baseEnv,
        }))
      : [];
    const exe = o.exe && existsSync(o.exe) ? o.exe : undefined;
    const bun = o.bun && existsSync(o.bun) ? o.bun : undefined;
    const bunExe = o.bunExe && existsSync(o.bunExe) ? o.bunExe : undefined;
    const flagsOf = (r: string) => RECIPE_FLAGS(r, o.cold.pendingTask);
    for (const file of [exe, bunExe]) if (file) asInstalled(file);
    if (exe) ours.push(...o.recipes.map((r) => oursExe(exe, o.cold.dir, flagsOf(r), r, o.cold.tasks)));
    if (bun) ours.push(...o.recipes.map((r) => oursUnderBun(bun, o.cli, o.cold.dir, flagsOf(r), r, o.cold.tasks)));
    if (bunExe) ours.push(...o.recipes.map((r) => oursExe(bunExe, o.cold.dir, flagsOf(r), r, o.cold.tasks, 'bun exe')));
    const cold = await coldStarts(
      [floorServer(dbOf(o.cold.dir), o.cold.tasks), ...peers, ...ours, ...base],
      o.coldRuns,
      o.env,
      bun,
    );
    const callServers = [
      floorServer(dbOf(o.calls.dir), o.calls.tasks),
      oursServer(o.cli, o.calls.dir, ['--recipe', 'yap'], 'yap (Claude Code)', o.calls.tasks, CLAUDE_CODE),
      oursServer(o.cli, o.calls.dir, ['--recipe', 'yap'], 'yap (other client)', o.calls.tasks),
      {
        ...oursServer(
          o.cli,
          o.calls.dir,
          ['--recipe', 'yap'],
          'yap (Claude Code, SDK path)',
          o.calls.tasks,
          CLAUDE_CODE,
        ),
        env: { [DIRECT_CALLS_ENV]: 'off' },
      },
      ...(o.baseline
        ? [
            oursServer(
              o.baseline,
              o.calls.dir,
              ['--recipe', 'yap'],
              'baseline yap (Claude Code)',
              o.calls.tasks,
              CLAUDE_CODE,
            ),
          ]
        : []),
      ...(o.normalizedCalls ? normalizedCallServers(o.cli, o.normalizedCalls) : []),
      ...peers,
    ];
    const calls = await callRuns(callServers, o.callCount, o.callRounds, o.env);

    const targets: PeersResult['targets'] = [];
    const add = (id: string, target: string, measured: string, pass: boolean) =>
      targets.push({ id, target, measured, pass });
    const sdk = cold.rows.filter((r) => r.kind === 'peer');
    const fastestPeer = sdk.length ? sdk.reduce((a, b) => (a.median_ms <= b.median_ms ? a : b)) : undefined;
    // Every recipe, as the bundle (dist/ralph-mcp.js) and, when built, as the single executable.
    const nodeArtifact = (x: ColdRow) => x.artifact === 'bundle' || x.artifact === 'exe';
    for (const r of cold.rows.filter(
      (x) => x.kind === 'ours' && nodeArtifact(x) && x.name !== 'ralph-mcp full suite',
    )) {
      add(
        'P1',
        `${r.name}: cold start to tools/list ≤ 3.0× node -e 0`,
        `${r.median_ms} ms = ${r.ratio_node}×`,
        r.ratio_node <= 3.0,
      );
      if (fastestPeer)
        add(
          'P2',
          `${r.name}: ≤ 0.5× the fastest SDK peer (${fastestPeer.name})`,
          `${round(r.median_ms / fastestPeer.median_ms, 2)}×`,
          r.median_ms <= 0.5 * fastestPeer.median_ms,
        );
    }
    const floor = calls.find((c) => c.kind === 'floor');
    // Ralph launches Claude Code: its sessions are the ones measured against the targets (the other row shows a client
    // given both copies).
    const our = calls.find((c) => c.kind === 'ours');
    const other = calls.find((c) => c.kind === 'ours' && c !== our);
    if (floor && other)
      add(
        'P3b',
        'get_task server CPU per call, client given both copies (no target; for reference)',
        `${other.cpu_us_per_call} µs = ${round(other.cpu_us_per_call / floor.cpu_us_per_call, 2)}× the floor`,
        true,
      );
    if (floor && our) {
      add(
        'P3',
        'get_task server CPU per call ≤ 1.3× the floor (Claude Code client)',
        `${our.cpu_us_per_call} µs vs ${floor.cpu_us_per_call} µs = ${round(our.cpu_us_per_call / floor.cpu_us_per_call, 2)}×`,
        our.cpu_us_per_call <= 1.3 * floor.cpu_us_per_call,
      );
      add(
        'P4',
        `get_task pipelined ≥ 20,000 calls/s at ${o.calls.tasks.toLocaleString('en-US')} tasks`,
        `${our.calls_per_s.toLocaleString('en-US')} calls/s (floor ${floor.calls_per_s.toLocaleString('en-US')})`,
        our.calls_per_s >= 20_000,
      );
    }
    // Under Bun, every recipe: the Bun executable starts as fast as `node -e 0`, the bundle under Bun
    // within twice that (docs/launching.md).
    for (const [id, artifact, times] of [
      ['BUN1', 'bun exe', 1.0],
      ['BUN2', 'bun', 2.0],
    ] as const) {
      for (const r of cold.rows.filter((x) => x.artifact === artifact))
        add(
          id,
          `${r.name}: cold start to tools/list ≤ ${times.toFixed(1)}× node -e 0`,
          `${r.median_ms} ms = ${r.ratio_node}× (bun -e 0: ${cold.bun_e0_ms} ms)`,
          r.ratio_node <= times,
        );
    }
    // Per artifact: the npm package's bundle and the single executable start differently (code cache
    // vs startup snapshot) and hold different memory; each is a target of its own.
    const ourInit = cold.rows.filter((x) => x.kind === 'ours' && x.name !== 'ralph-mcp full suite');
    for (const [artifact, rows] of [
      ['bundle', ourInit.filter((r) => r.artifact === 'bundle')],
      ['executable', ourInit.filter((r) => r.artifact === 'exe')],
    ] as const) {
      if (!rows.length) continue;
      const maxInit = Math.max(...rows.map((r) => r.rss_after_initialize_mb));
      add('P5', `${artifact}: RSS after initialize ≤ 60 MB (every recipe)`, `${maxInit} MB at most`, maxInit <= 60);
    }
    const peerCalls = calls.filter((c) => c.kind === 'peer');
    if (our && peerCalls.length) {
      const lowest = Math.min(...peerCalls.map((c) => c.rss_after_calls_mb));
      add(
        'P6',
        `RSS after ${o.callCount.toLocaleString('en-US')} calls ≤ the lowest peer's`,
        `${our.rss_after_calls_mb} MB vs ${lowest} MB`,
        our.rss_after_calls_mb <= lowest,
      );
    }
    // The shortcut past the SDK (src/transport/directCalls.ts) may stay only while it is worth 10% of a call.
    const sdkPath = calls.find((c) => c.name.endsWith('(Claude Code, SDK path)'));
    if (our && sdkPath)
      add(
        'D1',
        'direct calls worth >= 10% of get_task server CPU (else the SDK path alone)',
        `${our.cpu_us_per_call} µs direct vs ${sdkPath.cpu_us_per_call} µs through the SDK = ${Math.round((1 - our.cpu_us_per_call / sdkPath.cpu_us_per_call) * 100)}% saved`,
        our.cpu_us_per_call <= 0.9 * sdkPath.cpu_us_per_call,
      );
    if (o.baseline) baselineTargets(cold.rows, calls, add);
    floorTargets(calls, add);
    return { cold, calls, targets };
  } finally {
    scratch.remove();
  }
}

/** The floor and ours (a Claude Code session, as Ralph launches) on a normalized project (issue 30, goal 3). */
const NORMALIZED_FLOOR = 'floor normalized';
const NORMALIZED_OURS = 'ralph-mcp normalized yap (Claude Code)';
function normalizedCallServers(cli: string, site: { dir: string; tasks: number }): PeerServer[] {
  return [
    { ...floorServer(join(site.dir, '.ralph', 'db', 'ralph.db'), site.tasks), name: NORMALIZED_FLOOR },
    oursServer(cli, site.dir, ['--recipe', 'yap'], 'normalized yap (Claude Code)', site.tasks, CLAUDE_CODE),
  ];
}

/**
 * Issue 30, goal 3: on each generation, ours (Claude Code client) against the floor running the same
 * statements: server CPU per get_task ≤ 1.2× the floor's, pipelined calls/s ≥ 0.95× the floor's.
 */
function floorTargets(calls: CallRow[], add: (id: string, target: string, measured: string, pass: boolean) => void) {
  for (const [generation, floorName, oursName] of [
    ['legacy', 'floor', 'ralph-mcp yap (Claude Code)'],
    ['normalized', NORMALIZED_FLOOR, NORMALIZED_OURS],
  ] as const) {
    const floor = calls.find((c) => c.name === floorName);
    const our = calls.find((c) => c.name === oursName);
    if (!floor || !our) continue;
    const cpu = round(our.cpu_us_per_call / floor.cpu_us_per_call, 2);
    add(
      '30.3',
      `${generation}: get_task server CPU per call ≤ 1.2× the floor's`,
      `${our.cpu_us_per_call} vs ${floor.cpu_us_per_call} µs = ${cpu}×`,
      cpu <= 1.2,
    );
    const cps = round(our.calls_per_s / floor.calls_per_s, 2);
    add(
      '30.3',
      `${generation}: get_task pipelined calls/s ≥ 0.95× the floor's`,
      `${our.calls_per_s.toLocaleString('en-US')} vs ${floor.calls_per_s.toLocaleString('en-US')} = ${cps}×`,
      cps >= 0.95,
    );
  }
}

/**
 * Ours within 10% of the baseline build, in the same interleaved run: cold start and RSS after
 * initialize per recipe, get_task server CPU, pipelined calls/s and RSS after the calls.
 */
function baselineTargets(
  rows: ColdRow[],
  calls: CallRow[],
  add: (id: string, target: string, measured: string, pass: boolean) => void,
): void {
  for (const b of rows.filter((r) => r.name.startsWith('ralph-mcp baseline '))) {
    const ours = rows.find((r) => r.name === b.name.replace('baseline ', ''));
    if (!ours) continue;
    const recipe = b.name.replace('ralph-mcp baseline ', '');
    const t = round(ours.median_ms / b.median_ms, 2);
    add('B1', `${recipe}: cold start ≤ 1.10× the baseline`, `${ours.median_ms} vs ${b.median_ms} ms = ${t}×`, t <= 1.1);
    const m = round(ours.rss_after_initialize_mb / b.rss_after_initialize_mb, 2);
    add(
      'B4',
      `${recipe}: RSS after initialize ≤ 1.10× the baseline`,
      `${ours.rss_after_initialize_mb} vs ${b.rss_after_initialize_mb} MB = ${m}×`,
      m <= 1.1,
    );
  }
  const our = calls.find((c) => c.name === 'ralph-mcp yap (Claude Code)');
  const base = calls.find((c) => c.name === 'ralph-mcp baseline yap (Claude Code)');
  if (!our || !base) return;
  const cpu = round(our.cpu_us_per_call / base.cpu_us_per_call, 2);
  add(
    'B2',
    'get_task server CPU per call ≤ 1.10× the baseline',
    `${our.cpu_us_per_call} vs ${base.cpu_us_per_call} µs = ${cpu}×`,
    cpu <= 1.1,
  );
  const cps = round(our.calls_per_s / base.calls_per_s, 2);
  add(
    'B3',
    'get_task pipelined calls/s ≥ 1/1.10 of the baseline',
    `${our.calls_per_s} vs ${base.calls_per_s} = ${cps}×`,
    cps >= 1 / 1.1,
  );
  const rss = round(our.rss_after_calls_mb / base.rss_after_calls_mb, 2);
  add(
    'B5',
    'RSS after the calls ≤ 1.10× the baseline',
    `${our.rss_after_calls_mb} vs ${base.rss_after_calls_mb} MB = ${rss}×`,
    rss <= 1.1,
  );
}

/** The report's section for besidePeers' results. */
export function peersReport(r: PeersResult, table: (h: string[], rows: (string | number)[][]) => string): string[] {
  const lines: string[] = [];
  lines.push(
    `cold start: spawn → initialize → tools/list reply; median of the interleaved runs; node -e 0 = ${r.cold.node_e0_ms} ms${r.cold.bun_e0_ms === null ? '' : `, bun -e 0 = ${r.cold.bun_e0_ms} ms`}`,
  );
  const runtimes = [
    ['node -e 0', r.cold.node_e0_ms],
    ...(r.cold.bun_e0_ms === null ? [] : [['bun -e 0', r.cold.bun_e0_ms] as const]),
  ] as const;
  lines.push(
    table(
      ['<server', 'median ms', 'x node -e 0', 'tools/list B', 'RSS after init MB'],
      [
        ...runtimes.map(([name, ms]) => [name, ms, `${round(ms / r.cold.node_e0_ms, 2)}×`, '-', '-']),
        ...r.cold.rows.map((x) => [
          x.name,
          x.median_ms,
          `${x.ratio_node}×`,
          x.tools_list_bytes.toLocaleString('en-US'),
          x.rss_after_initialize_mb,
        ]),
      ],
    ),
  );
  lines.push(
    '',
    "calls: each server's read tool, pipelined (batches of 256), after 500 warm-up calls; server CPU from /proc (10 ms ticks)",
  );
  lines.push(
    table(
      ['<server', '<tool', 'calls', 'calls/s', 'CPU µs/call', 'errors', 'RSS after MB'],
      r.calls.map((x) => [
        x.name,
        x.tool,
        x.calls,
        x.calls_per_s.toLocaleString('en-US'),
        x.cpu_us_per_call,
        x.errors,
        x.rss_after_calls_mb,
      ]),
    ),
  );
  return lines;
}

/**
 * Alone: `node dist/scripts/bench/peers.js [tasks=100000]` (projects generated here: legacy, and a normalized
 * one of `tasks` for the floor on that generation).
 */
async function main(): Promise<void> {
  const { generateProject, pendingTaskId } = await import('./datagen.js');
  const { default: Database } = await import('better-sqlite3');
  const { table } = await import('./format.js');
  const cli = join(REPO, 'dist', 'ralph-mcp.js');
  const tasks = Number(process.argv[2] ?? 100_000);
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const tmp = mkdtempSync(join(tmpdir(), 'ralph-bench-peers-main-'));
  try {
    const project = (n: number, generation: 'legacy' | 'normalized' = 'legacy') => {
      const dir = join(tmp, `p${n}-${generation}`);
      generateProject(cli, dir, n, 42, env, generation);
      // One launch makes our tables and indexes, as the first session on a project does.
      spawnSync(process.execPath, [cli, 'plan', '--project', dir], { env });
      const first = spawnSync(process.execPath, [cli, '--project', dir, '--recipe', 'yap'], { input: '', env });
      if (first.status !== 0) throw new Error(`first launch failed: ${first.stderr}`);
      const db = new Database(join(dir, '.ralph', 'db', 'ralph.db'), { readonly: true });
      const pending = pendingTaskId(db);
      db.close();
      return { dir, tasks: n, pendingTask: pending };
    };
    const small = project(10_000);
    const big = tasks === 10_000 ? small : project(tasks);
    const normalized = project(tasks, 'normalized');
    const r = await besidePeers({
      cli,
      exe: join(REPO, 'dist', `ralph-mcp-${process.platform}-${process.arch}`),
      bun: join(REPO, 'node_modules', '.bin', 'bun'),
      bunExe: join(REPO, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`),
      recipes: ['braindump', 'yap', 'ramble', 'discuss', 'task_execution', 'opus_review', 'enrichment', 'worker'],
      cold: small,
      calls: big,
      normalizedCalls: normalized,
      coldRuns: Number(process.env.PEERS_COLD_RUNS ?? 9),
      callCount: 10_000,
      callRounds: Number(process.env.PEERS_CALL_ROUNDS ?? 3),
      env,
    });
    process.stdout.write(
      `${peersReport(r, table).join('\n')}\n\n${table(
        ['#', '<target', '<measured', 'result'],
        r.targets.map((t) => [t.id, t.target, t.measured, t.pass ? 'PASS' : 'FAIL']),
      )}\n`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    },
  );
}
