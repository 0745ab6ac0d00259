import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { EXE, SERVER_RUNTIME } from '../helpers/env.js';
import { tempDir } from '../helpers/project.js';

/**
 * The single executable's cached addon is loaded only if its bytes hash to the build's (src/startup/sea.ts):
 * a same-size shared object of the same user planted at the cache name is not loaded (its constructor
 * would run at dlopen) but replaced. Needs the exe (RALPH_MCP_TEST_RUNTIME=exe) and a C compiler.
 */

const hasCc = spawnSync('cc', ['--version']).status === 0;
const skip = SERVER_RUNTIME !== 'exe' ? 'runs under RALPH_MCP_TEST_RUNTIME=exe' : !hasCc ? 'needs cc' : false;

const PLANT = `#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void planted(void) {
  const char *p = getenv("RALPH_TEST_PLANT_MARKER");
  if (p) { FILE *f = fopen(p, "w"); if (f) { fputs("planted code ran\\n", f); fclose(f); } }
}
`;

test('a same-size planted addon in the cache is not loaded; the real one is written back', { skip }, () => {
  const cache = tempDir('ralph-exe-cache-');
  const run = (env: Record<string, string> = {}) =>
    spawnSync(EXE, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, RALPH_MCP_CACHE_DIR: cache, ...env },
      timeout: 30_000,
    });
  assert.equal(run().status, 0);
  const [name] = readdirSync(cache).filter((f) => /^better_sqlite3-[0-9a-f]{32}\.node$/.test(f));
  assert.ok(name, `the addon was cached: ${readdirSync(cache).join(', ')}`);
  const cached = join(cache, name);
  const real = readFileSync(cached);

  const work = tempDir('ralph-exe-plant-');
  writeFileSync(join(work, 'plant.c'), PLANT);
  const so = join(work, 'plant.so');
  const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', so, join(work, 'plant.c')], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  assert.ok(statSync(so).size < real.length, 'the planted object fits the size');
  truncateSync(so, real.length); // same size: trailing bytes do not stop it from loading
  writeFileSync(cached, readFileSync(so), { mode: 0o600 });
  chmodSync(cached, 0o600);

  const marker = join(work, 'marker');
  const second = run({ RALPH_TEST_PLANT_MARKER: marker });
  assert.equal(second.status, 0, second.stderr);
  assert.equal(existsSync(marker), false, 'the planted code did not run');
  assert.ok(readFileSync(cached).equals(real), 'the cached addon is the real one again');
});

test("another version's cached addon stays while in use and goes once unused for weeks", {
  skip: SERVER_RUNTIME !== 'exe' && 'runs under RALPH_MCP_TEST_RUNTIME=exe',
}, () => {
  const cache = tempDir('ralph-exe-cache-');
  const other = (n: string) => join(cache, `better_sqlite3-${n.repeat(32)}.node`);
  const daysAgo = (d: number) => new Date(Date.now() - d * 24 * 60 * 60 * 1000);
  for (const [n, age] of [
    ['a', 13],
    ['b', 15],
  ] as const) {
    writeFileSync(other(n), 'another build', { mode: 0o600 });
    utimesSync(other(n), daysAgo(age), daysAgo(age));
  }
  const r = spawnSync(EXE, ['--version'], { encoding: 'utf8', env: { ...process.env, RALPH_MCP_CACHE_DIR: cache } });
  assert.equal(r.status, 0, r.stderr);
  const names = readdirSync(cache);
  assert.ok(names.includes(basename(other('a'))), 'used 13 days ago: kept');
  assert.ok(!names.includes(basename(other('b'))), 'unused for 15 days: removed');
  assert.equal(names.filter((f) => /^better_sqlite3-[0-9a-f]{32}\.node$/.test(f)).length, 2, names.join(', '));
});
