/**
 * get_task's server CPU per call and pipelined calls/s, builds against each other and the floor, as
 * `npm run bench` measures them: a fresh server per build and round, initialized as Claude Code, 500
 * calls, then `calls` pipelined ones timed; rounds interleaved, the order rotating; medians. Each build
 * is a `dist` folder (its package root beside it); the projects are copies of GENERATIONS_DIR's
 * `legacy` and `normalized` (100,000 tasks), which the servers may write into (docs/startup-and-serving.md,
 * "The call path against the floor").
 *
 *   node dist/scripts/bench/callAb.js PROJECTS_DIR ROUNDS DIST… [floor]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installExitHooks, RpcChild } from './rpc.js';

const [dir, roundsArg, ...builds] = process.argv.slice(2);
if (!dir || !roundsArg || builds.length === 0) {
  process.stderr.write('usage: callAb.js PROJECTS_DIR ROUNDS DIST… [floor]\n');
  process.exit(2);
}
const rounds = Number(roundsArg);
const calls = Number(process.env.CALLS ?? 10_000);
const TASKS = 100_000;
const FLOOR = join(dirname(fileURLToPath(import.meta.url)), 'floorServer.js');
const idOf = (i: number) => ({ id: 1 + ((i * 7919) % TASKS) });

/** utime + stime of a process, in µs (clock ticks are 10 ms). */
const cpuUs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
const argsOf = (build: string, project: string): string[] =>
  build === 'floor'
    ? [FLOOR, join(project, '.ralph', 'db', 'ralph.db')]
    : [join(build, 'ralph-mcp.js'), '--project', project, '--log-level', 'error'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

installExitHooks();
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
type Run = { gen: string; build: string; cpu: number[]; cps: number[] };
const runs: Run[] = ['legacy', 'normalized'].flatMap((gen) =>
  builds.map((build) => ({ gen, build, cpu: [], cps: [] })),
);
for (let r = 0; r < rounds; r++) {
  for (let j = 0; j < runs.length; j++) {
    const run = runs[(j + r) % runs.length]!;
    const c = new RpcChild(process.execPath, argsOf(run.build, join(dir, run.gen)), { env, timeoutMs: 120_000 });
    try {
      await c.initialize({ name: 'claude-code', version: '2.1.280' });
      await c.pipeline(Array.from({ length: 500 }, (_, i) => ['get_task', idOf(i)] as const));
      const cpu0 = cpuUs(c.pid);
      const { ms } = await c.pipeline(Array.from({ length: calls }, (_, i) => ['get_task', idOf(i + 500)] as const));
      run.cpu.push((cpuUs(c.pid) - cpu0) / calls);
      run.cps.push((calls / ms) * 1000);
    } finally {
      await c.close();
    }
  }
}
for (const run of runs) {
  const floor = runs.find((x) => x.gen === run.gen && x.build === 'floor');
  const vs = (a: number[], b: number[] | undefined) => (b ? ` ${(median(a) / median(b)).toFixed(2)}×` : '');
  process.stdout.write(
    `${run.gen.padEnd(11)} ${run.build.padEnd(40)} CPU ${median(run.cpu).toFixed(0)} µs${vs(run.cpu, floor?.cpu)}` +
      `  ${median(run.cps).toFixed(0)} calls/s${vs(run.cps, floor?.cps)}\n`,
  );
}
