// Runs every compiled *.test.js under dist/test with node's test runner.
// (Node 20's --test takes no glob patterns, and a bare directory would also run our helper modules.)
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const only = process.argv.slice(2);
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
  .map((f) => join(root, f));
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
