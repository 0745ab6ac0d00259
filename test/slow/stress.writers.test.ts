import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runWriters } from '../../scripts/stress/concurrency.js';
import { tempDir } from '../helpers/project.js';

/**
 * Issue 7, fast version of `npm run stress` (same machinery, scripts/stress/concurrency.ts): 8 server
 * processes making mixed writes, each with a unique marker, while a plain-SQL process writes as Ralph would.
 */
test('8 servers and a plain-SQL writer at once: every write there exactly once, no busy error, integrity ok', {
  timeout: 120_000,
}, async () => {
  const r = await runWriters({ processes: 8, opsPerProcess: 40, plainOps: 5000, dir: tempDir('ralph-mcp-writers-') });
  const summary = `seed ${r.seed}: ${r.toolCalls} tool writes + ${r.plainWrites} plain-SQL writes in ${r.seconds.toFixed(1)} s (${JSON.stringify(r.byKind)})`;
  console.log(`# ${summary}`);
  assert.deepEqual(r.otherErrors, [], `no call may fail (${summary})`);
  assert.equal(r.busyErrors, 0, 'no tool call failed with busy/locked');
  assert.equal(r.plainBusyErrors, 0, "the plain-SQL writer's transactions never failed with busy either");
  assert.deepEqual(r.lost, [], 'every acknowledged write is there exactly once, and whole');
  assert.equal(r.integrity, 'ok');
  assert.equal(r.foreignKeyProblems, 0);
  assert.equal(r.serverCrashes, 0);
  assert.equal(r.toolCalls, 8 * 40, 'every call was answered ok');
  assert.ok(r.plainWrites >= 40, `the plain-SQL writer wrote throughout (${r.plainWrites} writes)`);
  for (const kind of [
    'create_task',
    'add_task_comment',
    'set_task_status',
    'append_feature_learning',
    'append_progress',
    'append_learning',
  ]) {
    assert.ok((r.byKind[kind] ?? 0) > 0, `the mix included ${kind}`);
  }
});
