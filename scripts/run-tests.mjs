// Runs the compiled tests (dist/test) with node's test runner.
//
//   node scripts/run-tests.mjs           every file but test/slow/, the server on Node; then test/e2e/ (not
//                                        e2e/node/) again with the server under Bun and as the single executable
//   node scripts/run-tests.mjs --slow    test/slow/: data-heavy checks (10,000-task brute force, long fuzz)
//   node scripts/run-tests.mjs NAME…     the files whose path contains a NAME, server on Node
//   RALPH_MCP_TEST_RUNTIME=bun node scripts/run-tests.mjs NAME…   those of them that run per runtime, on Bun (or exe)
//
// Unit and contract tests run in-process (their runtime is the runner's, Node); only the end-to-end
// layer starts the server, so only it runs again per runtime, and of it only what depends on the runtime:
// transports, startup and refusals at launch, the SQLite driver. NODE_ONLY files state facts about the
// server's logic alone, once under Node; inside the other files a matrix runs whole under Node and one
// case per runtime (their ONCE / SERVER_RUNTIME guards). (Node 20's --test takes no globs, and a bare
// directory would also run our helper modules.)
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

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

function pass(label, files, runtime) {
  if (files.length === 0) {
    console.error(`${label}: no test file matches`);
    return false;
  }
  console.error(`\n== ${label}: ${files.length} file(s), server on ${runtime} ==`);
  const args = ['--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`, ...paths(files)];
  const r = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, RALPH_MCP_TEST_RUNTIME: runtime },
  });
  return r.status === 0;
}

const only = process.argv.slice(2);
if (only.includes('--slow')) process.exit(pass('slow', slow, 'node') ? 0 : 1);
if (only.length > 0) {
  const runtime = process.env.RALPH_MCP_TEST_RUNTIME ?? 'node';
  const files = (runtime === 'node' ? all : e2e).filter((f) => only.some((o) => f.includes(o)));
  process.exit(pass('selected', files, runtime) ? 0 : 1);
}

const results = [['node', pass('every file', fast, 'node')]];
const bun = process.env.BUN ?? join(repo, 'node_modules', '.bin', 'bun');
if (existsSync(bun)) results.push(['bun', pass('end-to-end', e2e, 'bun')]);
else results.push(['bun', failOrSkip(`Bun not found at ${bun} (npm ci installs it; BUN names another)`)]);
const exe = process.env.RALPH_MCP_TEST_EXE ?? join(repo, 'dist', 'ralph-mcp-linux-x64');
if (existsSync(exe)) results.push(['exe', pass('end-to-end', e2e, 'exe')]);
else results.push(['exe', failOrSkip(`no single executable at ${exe} (npm run build:exe makes it)`)]);

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
