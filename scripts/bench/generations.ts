import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
/**
 * The two generations side by side, in process: each of `npm run bench`'s tool families (the same
 * arguments, from the same seeds) through the tools/call path (validation, the store's statements, the
 * answer), on one 100,000-task project of each generation, interleaved (legacy, normalized, normalized,
 * legacy, …) and timed in CPU µs per call — the quick way to see what a change to one generation's
 * statements does, without the bench's processes and pipes (issue 30).
 *
 *   npm run build && node dist/scripts/bench/generations.js [tasks=100000] [rounds=5] [family…]
 *
 * Families are named as in the bench (a prefix is enough: `list` runs both list families). The projects
 * are generated into a temporary folder, or read from GENERATIONS_DIR (its `legacy` and `normalized`
 * folders, kept between runs; writes go to copies). GENERATIONS_SERVER=1 measures the built server
 * instead, as the bench does (one process per generation, the lean client): each family's sequential
 * p50, its pipelined calls/s and the server's CPU per call, rounds interleaved.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectPaths } from '../../src/domain/project.js';
import { createLogger } from '../../src/server/log.js';
import { openSession, prepareDatabase } from '../../src/session/open.js';
import { Session } from '../../src/session/session.js';
import { GENERATIONS, type Generation } from '../../src/store/records.js';
import {
  DISCIPLINES,
  FEATURES,
  generateProject,
  int as randInt,
  paragraph,
  pick,
  rng,
  searchQuery,
  sentence,
  title,
} from './datagen.js';
import { median } from './format.js';
import { RpcChild } from './rpc.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(REPO, 'dist', 'ralph-mcp.js');

type Args = Record<string, unknown>;
interface Family {
  name: string;
  write?: true;
  /** Each call's arguments, drawn from the family's own seed (the same on both generations). */
  args: (r: () => number, n: number) => Args;
  tool: string;
}

/** The bench's families (scripts/bench/index.ts), with its arguments. */
export const FAMILIES: Family[] = [
  { name: 'get_task', tool: 'get_task', args: (r, n) => ({ id: 1 + randInt(r, n) }) },
  {
    name: 'list_tasks page',
    tool: 'list_tasks',
    args: (r, n) => ({ cursor: String(randInt(r, Math.max(1, n - 50))) }),
  },
  {
    name: 'list_tasks filtered',
    tool: 'list_tasks',
    args: (r) => ({ filter_status: 'pending', filter_feature: pick(r, FEATURES)[0] }),
  },
  { name: 'search_tasks', tool: 'search_tasks', args: (r) => ({ query: searchQuery(r) }) },
  { name: 'get_project_progress', tool: 'get_project_progress', args: () => ({}) },
  { name: 'next_tasks', tool: 'next_tasks', args: () => ({}) },
  { name: 'blocked_tasks', tool: 'blocked_tasks', args: () => ({}) },
  { name: 'blocked_tasks waiting', tool: 'blocked_tasks', args: () => ({ waiting: true }) },
  {
    name: 'create_task',
    tool: 'create_task',
    write: true,
    args: (r, n) => ({
      feature: pick(r, FEATURES)[0],
      discipline: pick(r, DISCIPLINES)[0],
      title: title(r),
      description: paragraph(r, 2, 4),
      acceptance_criteria: [sentence(r, 5, 10)],
      depends_on: [1 + randInt(r, n)],
    }),
  },
  {
    name: 'add_task_comment',
    tool: 'add_task_comment',
    write: true,
    args: (r, n) => ({ task_id: 1 + randInt(r, n), discipline: pick(r, DISCIPLINES)[0], body: paragraph(r, 1, 2) }),
  },
  {
    name: 'set_task_status',
    tool: 'set_task_status',
    write: true,
    // Alternating between two statuses any task may take from any (no done: it needs its dependencies done).
    args: (r, n) => ({ id: 1 + randInt(r, n), status: r() < 0.5 ? 'in_progress' : 'pending' }),
  },
];

/** Refusals per family (search_tasks may stop at its time budget on a loaded machine), and the first. */
const errors = new Map<string, { n: number; first: string }>();

/** CPU µs per call of `calls` calls (after a warm-up of a tenth as many). */
function cpuPerCall(session: Session, f: Family, r: () => number, n: number, calls: number): number {
  const once = () => {
    const res = session.call(f.tool, f.args(r, n)) as CallToolResult;
    if (!res.isError) return;
    const e = errors.get(f.name) ?? { n: 0, first: JSON.stringify(res.structuredContent).slice(0, 200) };
    e.n++;
    errors.set(f.name, e);
  };
  for (let i = 0; i < Math.max(3, calls / 10); i++) once();
  const c0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) once();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / calls;
}

/** utime + stime of a process, in µs (/proc/PID/stat; clock ticks are 10 ms on Linux). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** One family on a running server: sequential p50 (ms), then pipelined calls/s and server CPU µs per call. */
async function serverRun(c: RpcChild, f: Family, r: () => number, n: number, calls: number) {
  const next = () => [f.tool, f.args(r, n)] as const;
  for (let i = 0; i < Math.max(5, calls / 20); i++) await c.call(...next());
  const times: number[] = [];
  for (let i = 0; i < Math.max(20, calls / 5); i++) {
    const t = performance.now();
    await c.call(...next());
    times.push(performance.now() - t);
  }
  const cpu0 = cpuUs(c.pid);
  const { ms, replies } = await c.pipeline(Array.from({ length: calls }, next));
  for (const x of replies) if (x.isError) errors.set(f.name, { n: (errors.get(f.name)?.n ?? 0) + 1, first: x.line });
  return { p50: median(times), cps: (calls / ms) * 1000, cpu: (cpuUs(c.pid) - cpu0) / calls };
}

/** GENERATIONS_SERVER=1: both generations' servers, the families interleaved by round. */
async function serverMain(dirs: Record<Generation, string>, families: Family[], n: number, rounds: number) {
  const cli = join(REPO, 'dist', 'ralph-mcp.js');
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const servers = {} as Record<Generation, RpcChild>;
  for (const g of GENERATIONS) {
    servers[g] = new RpcChild(process.execPath, [cli, '--project', dirs[g], '--log-level', 'warn'], { env });
    await servers[g].initialize();
  }
  type Sample = { p50: number; cps: number; cpu: number };
  const samples = new Map(families.map((f) => [f.name, { legacy: [] as Sample[], normalized: [] as Sample[] }]));
  for (let rd = 0; rd < rounds; rd++) {
    const order: Generation[] = rd % 2 === 0 ? ['legacy', 'normalized'] : ['normalized', 'legacy'];
    for (const [k, f] of families.entries())
      for (const g of order) {
        const calls = f.tool === 'get_task' ? 6000 : f.write || f.tool === 'next_tasks' ? 600 : 300;
        const slow = f.tool === 'get_project_progress' || f.tool === 'blocked_tasks' ? 60 : calls;
        samples.get(f.name)![g].push(await serverRun(servers[g], f, rng(7 + n + 1000 * k + 17 * rd), n, slow));
      }
  }
  for (const g of GENERATIONS) await servers[g].close();
  const pad = (x: string, w: number) => x.padStart(w);
  process.stdout.write(
    `${'family'.padEnd(24)}${pad('p50 ms leg/norm', 20)}${pad('×', 7)}${pad('calls/s leg/norm', 20)}${pad('×', 7)}${pad('CPU µs leg/norm', 18)}${pad('×', 7)}\n`,
  );
  for (const f of families) {
    const s = samples.get(f.name)!;
    const m = (g: Generation, k: keyof Sample) => median(s[g].map((x) => x[k]));
    const row = (k: keyof Sample, digits: number) =>
      `${pad(`${m('legacy', k).toFixed(digits)} / ${m('normalized', k).toFixed(digits)}`, 20)}${pad((m('normalized', k) / m('legacy', k)).toFixed(2), 7)}`;
    process.stdout.write(`${f.name.padEnd(24)}${row('p50', 3)}${row('cps', 0)}${row('cpu', 0)}\n`);
  }
  process.stdout.write(`(medians of ${rounds} interleaved rounds; ${n} tasks; server CPU from /proc, 10 ms ticks)\n`);
}

async function main(): Promise<void> {
  const [tasksArg, roundsArg, ...names] = process.argv.slice(2);
  const n = Number(tasksArg ?? 100_000);
  const rounds = Number(roundsArg ?? 5);
  const families = FAMILIES.filter((f) => names.length === 0 || names.some((x) => f.name.startsWith(x)));
  const keep = process.env.GENERATIONS_DIR;
  const tmp = mkdtempSync(join(tmpdir(), 'ralph-bench-generations-'));
  try {
    const dirs = {} as Record<Generation, string>;
    for (const g of GENERATIONS) {
      const kept = keep ? join(keep, g) : undefined;
      if (kept && existsSync(kept)) dirs[g] = kept;
      else {
        dirs[g] = kept ?? join(tmp, g);
        const s = generateProject(CLI, dirs[g], n, 1000 + n, process.env, g);
        process.stderr.write(`${g}: ${n} tasks generated in ${(s.ms / 1000).toFixed(1)} s\n`);
      }
    }
    // Writes change the project: they run on copies, so that kept projects stay as generated.
    const writes = families.some((f) => f.write);
    if (process.env.GENERATIONS_SERVER === '1') {
      const copies = {} as Record<Generation, string>;
      for (const g of GENERATIONS) {
        copies[g] = writes ? join(tmp, `${g}-copy`) : dirs[g];
        if (writes) cpSync(dirs[g], copies[g], { recursive: true });
      }
      await serverMain(copies, families, n, rounds);
      for (const [name, e] of errors) process.stdout.write(`${name}: ${e.n} refused, e.g. ${e.first.slice(0, 200)}\n`);
      return;
    }
    const open = (g: Generation) => {
      let dir = dirs[g];
      if (writes) {
        dir = join(tmp, `${g}-copy`);
        rmSync(dir, { recursive: true, force: true });
        cpSync(dirs[g], dir, { recursive: true });
      }
      const { store, plan } = openSession({ project: projectPaths(dir).root });
      const log = createLogger('silent');
      prepareDatabase(store, log, plan);
      return { store, session: new Session(plan, store, log) };
    };
    const opened = { legacy: open('legacy'), normalized: open('normalized') };
    const samples = new Map(families.map((f) => [f.name, { legacy: [] as number[], normalized: [] as number[] }]));
    for (let rd = 0; rd < rounds; rd++) {
      // ABBA: each generation goes first in every other round.
      const order: Generation[] = rd % 2 === 0 ? ['legacy', 'normalized'] : ['normalized', 'legacy'];
      for (const [k, f] of families.entries()) {
        for (const g of order) {
          const r = rng(7 + n + 1000 * k + 17 * rd);
          const calls = f.write || f.tool === 'search_tasks' || f.tool.startsWith('list') ? 300 : 2000;
          samples.get(f.name)![g].push(cpuPerCall(opened[g].session, f, r, n, f.tool === 'get_task' ? 10_000 : calls));
        }
      }
    }
    for (const g of GENERATIONS) opened[g].store.close();
    const pad = (s: string, w: number) => s.padStart(w);
    process.stdout.write(
      `${'family'.padEnd(24)}${pad('legacy µs', 11)}${pad('normalized µs', 15)}${pad('norm/leg', 10)}   (CPU per call, median of ${rounds} interleaved rounds; ${n} tasks)\n`,
    );
    for (const f of families) {
      const s = samples.get(f.name)!;
      const l = median(s.legacy);
      const m = median(s.normalized);
      process.stdout.write(
        `${f.name.padEnd(24)}${pad(l.toFixed(1), 11)}${pad(m.toFixed(1), 15)}${pad(`${(m / l).toFixed(2)}×`, 10)}\n`,
      );
      const e = errors.get(f.name);
      if (e) process.stdout.write(`  ${e.n} refused, e.g. ${e.first}\n`);
    }
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
