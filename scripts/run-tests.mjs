// Runs every compiled *.test.js under dist/test with node's test runner, then the core end-to-end files
// again with the server under Bun and as the single executable (test/helpers/env.ts, SERVER_RUNTIME).
// (Node 20's --test takes no glob patterns, and a bare directory would also run our helper modules.)
//
//   node scripts/run-tests.mjs              every file (server on Node), then the core files on Bun and the executable
//   node scripts/run-tests.mjs NAME…        the files whose path contains a NAME, server on Node
//   RALPH_MCP_TEST_RUNTIME=bun node scripts/run-tests.mjs NAME…   the same files, server on Bun (or exe)
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const repo = new URL('..', import.meta.url).pathname;

/**
 * The end-to-end files that run once more per other runtime: the protocol, the goldens, the CLI and
 * startup refusals, scope, resources, both schema generations and Ralph's fixtures, HTTP, faults, leases.
 * (In-process files test the storage driver of the runner itself, which is Node.)
 */
const CORE_E2E = [
  'smoke',

  'startup',
  'cli',
  'refusal',
  'wire',
  'resources',
  'hidden',
  'fixtures',
  'headFixtures',
  'scope.test',
  'security.scope',
  'generations',
  'http.test',
  'faults',
  'robustness',
  'leases',
];

const all = readdirSync(root, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .sort();
if (all.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
const matching = (names) => all.filter((f) => names.some((o) => f.includes(o))).map((f) => join(root, f));

function pass(label, files, runtime) {
  if (files.length === 0) {
    console.error(`${label}: no test file matches`);
    return false;
  }
  console.error(`\n== ${label}: ${files.length} file(s), server on ${runtime} ==`);
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, RALPH_MCP_TEST_RUNTIME: runtime },
  });
  return r.status === 0;
}

const only = process.argv.slice(2);
if (only.length > 0) {
  process.exit(pass('selected', matching(only), process.env.RALPH_MCP_TEST_RUNTIME ?? 'node') ? 0 : 1);
}

const results = [
  [
    'node',
    pass(
      'every file',
      all.map((f) => join(root, f)),
      'node',
    ),
  ],
];
const bun = process.env.BUN ?? join(repo, 'node_modules', '.bin', 'bun');
if (existsSync(bun)) results.push(['bun', pass('core end-to-end', matching(CORE_E2E), 'bun')]);
else results.push(['bun', failOrSkip(`Bun not found at ${bun} (npm ci installs it; BUN names another)`)]);
const exe = process.env.RALPH_MCP_TEST_EXE ?? join(repo, 'dist', 'ralph-mcp-linux-x64');
if (existsSync(exe)) results.push(['exe', pass('core end-to-end', matching(CORE_E2E), 'exe')]);
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
