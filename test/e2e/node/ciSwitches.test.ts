import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO, SNAPSHOT_DIR } from '../../helpers/env.js';

/**
 * Nothing switches a test off under CI (.ci/run sets RALPH_CI=1): a run without Ralph's fixtures
 * fails instead of skipping their tests, and UPDATE_GOLDEN=1 fails instead of rewriting every snapshot.
 */

function runTestFile(file: string, env: NodeJS.ProcessEnv) {
  // Without NODE_TEST_CONTEXT: the inner runner must report on its own, not to ours.
  const { NODE_TEST_CONTEXT: _ours, ...outer } = process.env;
  const r = spawnSync(process.execPath, ['--test', join(REPO, 'dist', 'test', file)], {
    encoding: 'utf8',
    env: { ...outer, ...env },
    timeout: 120_000,
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

const snapshots = () => {
  const files = readdirSync(SNAPSHOT_DIR, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return files.map((f) => [f, readFileSync(join(SNAPSHOT_DIR, f), 'utf8')]);
};

test('under CI, missing fixtures fail the run instead of skipping', () => {
  for (const [file, variable] of [
    ['contract/fixtures.test.js', 'RALPH_FIXTURES'],
    ['contract/headFixtures.test.js', 'RALPH_HEAD_FIXTURES'],
  ] as const) {
    const missing = { [variable]: '/nonexistent/fixtures' };
    const ci = runTestFile(file, { ...missing, RALPH_CI: '1' });
    assert.notEqual(ci.status, 0, `${file} under CI without fixtures must fail`);
    assert.match(ci.output, /under CI \(RALPH_CI=1\) every fixture test must run/);
    const local = runTestFile(file, { ...missing, RALPH_CI: '' });
    assert.equal(local.status, 0, `${file} outside CI skips: ${local.output.slice(-500)}`);
    assert.match(local.output, /# SKIP .*not found in \/nonexistent\/fixtures/);
  }
});

test('under CI, UPDATE_GOLDEN=1 fails and rewrites nothing', () => {
  const before = snapshots();
  const ci = runTestFile('contract/listings.test.js', { UPDATE_GOLDEN: '1', RALPH_CI: '1' });
  assert.notEqual(ci.status, 0);
  assert.match(ci.output, /UPDATE_GOLDEN=1 under CI/);
  assert.deepEqual(snapshots(), before, 'no snapshot was rewritten');
});
