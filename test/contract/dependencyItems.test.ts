import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { dump, query, sampleProject, sql } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';
import type { InProcSession } from './harness.js';

/**
 * Legacy depends_on lists as other writers leave them (outside the contract suite, whose after-write
 * check refuses what Ralph itself could not read): add/remove_dependency change only the item asked
 * for, and keep the rest as stored; the dependents mirror follows plain-SQL writes and is rebuilt when
 * one of its triggers went missing.
 */
type Project = ReturnType<typeof sampleProject>;
const exec = (p: Project, text: string) => {
  const db = sql(p);
  db.exec(text);
  db.close();
};
const deps = (p: Project, id: number) =>
  query<{ d: string }>(p, 'SELECT depends_on AS d FROM tasks WHERE id = ?', id)[0]!.d;
/** A session on `p`, closed when the test ends. */
const open = async (t: TestContext, p: Project, recipe: string, checked = true) => {
  const s = await startInProc(p, ['--recipe', recipe], { invariants: checked });
  t.after(() => s.close());
  return s;
};
const triggerExists = (p: Project, name: string) =>
  query(p, 'SELECT 1 FROM sqlite_master WHERE name = ?', name).length === 1;

test('add/remove_dependency keep stored items they do not understand; a list that is not an array is refused', async (t) => {
  const p = sampleProject();
  exec(
    p,
    `UPDATE tasks SET depends_on = '[{"id":1,"note":"x"},"2",2.5]' WHERE id = 5; UPDATE tasks SET depends_on = 'garbage' WHERE id = 6`,
  );
  const s = await open(t, p, 'opus_review', false);
  const added = await s.ok('add_dependency', { task_id: 5, depends_on: 3 });
  assert.deepEqual(added, { task_id: 5, depends_on: [2, 3], changed: true });
  assert.equal(deps(p, 5), '[{"id":1,"note":"x"},"2",2.5,3]');
  // "2" names task 2, as every dependency read takes it.
  assert.equal((await s.ok('add_dependency', { task_id: 5, depends_on: 2 })).changed, false);
  await s.ok('remove_dependency', { task_id: 5, depends_on: 2 });
  assert.equal(deps(p, 5), '[{"id":1,"note":"x"},2.5,3]');
  assert.deepEqual((await s.ok('get_task', { id: 3 })).dependents, [4, 5, 7]);
  const before = dump(p);
  const err = await s.fail('add_dependency', { task_id: 6, depends_on: 1 });
  assert.equal(err.code, 'conflict');
  assert.match(err.message, /does not hold a JSON array/);
  assert.equal(dump(p), before);
});

test('the dependents mirror is rebuilt whole when one of its triggers went missing', async (t) => {
  const p = sampleProject();
  const a = await startInProc(p, ['--recipe', 'yap']);
  assert.deepEqual((await a.ok('get_task', { id: 3 })).dependents, [4, 7]);
  await a.close();
  // A rebuild of Ralph's table drops our triggers; rows changed meanwhile were never mirrored.
  exec(p, "DROP TRIGGER ralph_mcp_deps_au; UPDATE tasks SET depends_on = '[3]' WHERE id = 6");
  const b = await open(t, p, 'yap');
  assert.deepEqual((await b.ok('get_task', { id: 3 })).dependents, [4, 6, 7]);
  assert.ok(triggerExists(p, 'ralph_mcp_deps_au'));
});

test('the tags mirror follows plain-SQL writes (strings only, duplicates once) and is rebuilt when a trigger went missing', async (t) => {
  const p = sampleProject();
  const tagged = async (s: InProcSession, tag: string) =>
    (await s.ok('list_tasks', { filter_tag: tag, limit: 500 })).tasks.map((t: any) => t.id);
  const a = await startInProc(p, ['--recipe', 'yap']);
  try {
    exec(p, `UPDATE tasks SET tags = '["ui"]' WHERE id = 7`);
    const before = await tagged(a, 'ui');
    assert.ok(before.includes(7), 'a plain-SQL tag is found');
    // As Ralph (or a person) writes: a repeated tag, a number, not an array at all.
    exec(p, `UPDATE tasks SET tags = '["ui","ui",7]' WHERE id = 6; UPDATE tasks SET tags = 'garbage' WHERE id = 7`);
    assert.deepEqual(
      await tagged(a, 'ui'),
      [...new Set([...before.filter((id: number) => id !== 7), 6])].sort((x: number, y: number) => x - y),
    );
    assert.deepEqual(await tagged(a, '7'), [], 'a number in the list is not a tag');
    const uiRows = query(p, "SELECT count(*) AS n FROM ralph_mcp_task_tags WHERE task_id = 6 AND tag = 'ui'");
    assert.deepEqual(uiRows, [{ n: 1 }]);
  } finally {
    await a.close();
  }
  exec(p, 'DROP TRIGGER ralph_mcp_tags_au; UPDATE tasks SET tags = \'["late"]\' WHERE id = 2');
  const b = await open(t, p, 'yap');
  assert.deepEqual(await tagged(b, 'late'), [2]);
  assert.ok(triggerExists(p, 'ralph_mcp_tags_au'));
});

test('readiness, unfinished dependencies and the blocked view read a list as get_task does', async (t) => {
  const p = sampleProject();
  // Items that name no task (Ralph reads such a list as no dependencies at all) never hold a task back.
  exec(
    p,
    `UPDATE tasks SET status = 'pending', depends_on = '["abc",null,2.5,{"id":4}]' WHERE id = 5;
     UPDATE tasks SET status = 'pending', depends_on = '[4,"x",""]' WHERE id = 6`,
  );
  const s = await open(t, p, 'opus_review', false);
  const ready: number[] = (await s.ok('list_tasks', { ready: true })).tasks.map((t: { id: number }) => t.id);
  const waiting: number[] = (await s.ok('blocked_tasks', { waiting: true })).tasks.map((t: { id: number }) => t.id);
  for (const id of [5, 6]) {
    const t = (await s.ok('get_task', { id })).task;
    const statuses = await Promise.all(
      t.depends_on.map(async (d: number) => (await s.ok('get_task', { id: d })).task.status),
    );
    const isReady = statuses.every((x) => x === 'done');
    assert.equal(ready.includes(id), isReady, `task ${id} (depends_on ${JSON.stringify(t.depends_on)}) ready`);
    assert.equal(waiting.includes(id), !isReady, `task ${id} waiting`);
  }
  assert.ok(ready.includes(5), 'task 5 names no task: ready');
});
