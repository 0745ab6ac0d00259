// Runs the compiled tests (dist/test) with node's test runner.
//
//   node scripts/run-tests.mjs           every file but test/slow/, the server on Node; then test/e2e/ (not
//                                        e2e/node/) again with the server under Bun and as the single executable
//   node scripts/run-tests.mjs --slow    test/slow/: data-heavy checks (10,000-task brute force, long fuzz)
//   node scripts/run-tests.mjs NAME…     the files whose path contains a NAME, server on Node
//   RALPH_MCP_TEST_RUNTIME=bun node scripts/run-tests.mjs NAME…   those of them that run per runtime, on Bun
//                                        (or exe: the Node executable; bunexe: the Bun executable)
//
// Unit and contract tests run in-process (their runtime is the runner's, Node); only the end-to-end
// layer starts the server, so only it runs again per runtime, and of it only what depends on the runtime:
// transports, startup and refusals at launch, the SQLite driver. NODE_ONLY files state facts about the
// server's logic alone, once under Node; inside the other files a matrix runs whole under Node and one
// case per runtime (their ONCE / SERVER_RUNTIME guards). The single executable is Node running the same
// bundle, so it runs again only what depends on the artifact (EXE: its start, embedded schema and addon,
// the CLI and refusals, the transports, the signals launch). The Bun executable is Bun's own build of the
// server (bytecode, bun:sqlite, embedded files): every file Bun runs runs through it too, copied into a
// directory with no node_modules above it and with no `node` on PATH. The runtimes run side by side.
// (Node 20's --test takes no globs, and a bare directory would also run our helper modules.)
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const repo = new URL('..', import.meta.url).pathname;

const all = readdirSync(root, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .sort();
if (all.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
const paths = (files) => files.map((f) => join(root, f));
const slow = all.filter((f) => f.startsWith('slow/'));
const fast = all.filter((f) => !slow.includes(f));
const NODE_ONLY = ['e2e/node/', 'e2e/dependencyDoctor.', 'e2e/faults.'];
const e2e = all.filter((f) => f.startsWith('e2e/') && !NODE_ONLY.some((n) => f.startsWith(n)));

const EXE = ['smoke', 'startup', 'cli', 'refusal', 'exeAddon', 'generations', 'protocol', 'socket', 'http']
  .concat(['shutdown', 'signalsLaunch', 'security'])
  .map((name) => `e2e/${name}.`);
const exeFiles = e2e.filter((f) => EXE.some((n) => f.startsWith(n)));

/**
 * The Bun executable as a user runs a downloaded binary: copied into a fresh directory with no node_modules
 * above it, and a PATH on which no Node is found (each PATH directory holding `node` replaced by one of
 * links to its other commands). What the tests of that pass need: RALPH_MCP_TEST_BUN_EXE and PATH.
 */
function bunExeApart(built) {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mcp-bunexe-'));
  for (let d = dir; d !== dirname(d); d = dirname(d))
    if (existsSync(join(d, 'node_modules'))) throw new Error(`${d} has node_modules: the copy would not be apart`);
  const copy = join(dir, 'ralph-mcp');
  copyFileSync(built, copy);
  chmodSync(copy, 0o755);
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d, i) => {
      if (!existsSync(join(d, 'node'))) return d;
      const shadow = join(dir, `path-${i}`);
      mkdirSync(shadow);
      for (const name of readdirSync(d))
        if (!/^(node|nodejs|npm|npx|corepack)$/.test(name)) symlinkSync(join(d, name), join(shadow, name));
      return shadow;
    })
    .join(':');
  return {
    env: { RALPH_MCP_TEST_BUN_EXE: copy, PATH: path },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `files` under node --test; `buffered` keeps the output until the end (a pass beside another). */
function pass(
  label,
  files,
  runtime,
  { concurrency = process.env.TEST_CONCURRENCY ?? 4, buffered = false, env = {} } = {},
) {
  if (files.length === 0) {
    console.error(`${label}: no test file matches`);
    return Promise.resolve(false);
  }
  const header = `\n== ${label}: ${files.length} file(s), server on ${runtime} ==\n`;
  const args = ['--test', `--test-concurrency=${concurrency}`, ...paths(files)];
  const child = spawn(process.execPath, args, {
    stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...env, RALPH_MCP_TEST_RUNTIME: runtime },
  });
  if (!buffered) process.stderr.write(header);
  const out = [];
  child.stdout?.on('data', (b) => out.push(b));
  child.stderr?.on('data', (b) => out.push(b));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      if (buffered) process.stderr.write(header + Buffer.concat(out).toString());
      resolve(code === 0);
    }),
  );
}

const only = process.argv.slice(2);
if (only.includes('--slow')) process.exit((await pass('slow', slow, 'node')) ? 0 : 1);
const bun = process.env.BUN ?? join(repo, 'node_modules', '.bin', 'bun');
const exe = process.env.RALPH_MCP_TEST_EXE ?? join(repo, 'dist', 'ralph-mcp-linux-x64');
const bunExe = join(repo, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`);
if (only.length > 0) {
  const runtime = process.env.RALPH_MCP_TEST_RUNTIME ?? 'node';
  const files = { node: all, bun: e2e, exe: exeFiles, bunexe: e2e }[runtime] ?? e2e;
  const apart = runtime === 'bunexe' ? bunExeApart(bunExe) : undefined;
  const ok = await pass(
    'selected',
    files.filter((f) => only.some((o) => f.includes(o))),
    runtime,
    { env: apart?.env },
  );
  apart?.remove();
  process.exit(ok ? 0 : 1);
}

const results = [['node', await pass('every file', fast, 'node')]];
const side = { concurrency: 2, buffered: true };
const apart = existsSync(bunExe) ? bunExeApart(bunExe) : undefined;
const [bunOk, exeOk, bunExeOk] = await Promise.all([
  existsSync(bun)
    ? pass('end-to-end', e2e, 'bun', side)
    : failOrSkip(`Bun not found at ${bun} (npm ci installs it; BUN names another)`),
  existsSync(exe)
    ? pass('end-to-end, what depends on the artifact', exeFiles, 'exe', side)
    : failOrSkip(`no single executable at ${exe} (npm run build:exe makes it)`),
  apart
    ? pass('end-to-end, the Bun executable', e2e, 'bunexe', { ...side, env: apart.env })
    : failOrSkip(`no Bun executable at ${bunExe} (npm run build:exe:bun makes it)`),
]);
apart?.remove();
results.push(['bun', bunOk], ['exe', exeOk], ['bunexe', bunExeOk]);

/** Under CI nothing may be skipped; elsewhere a missing runtime is said and skipped. */
function failOrSkip(why) {
  if (process.env.RALPH_CI === '1') {
    console.error(`\n${why}: under CI (RALPH_CI=1) every runtime must be tested`);
    return false;
  }
  console.error(`\n${why}: skipped`);
  return true;
}

console.error(`\nruntimes: ${results.map(([r, ok]) => `${r} ${ok ? 'passed' : 'FAILED'}`).join(', ')}`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
