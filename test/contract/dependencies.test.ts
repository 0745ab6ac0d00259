import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { query } from '../helpers/project.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';
import { insertTasks, ralphRuns, taskTable } from './support.search.js';

/**
 * Dependencies: add_dependency / remove_dependency (cycle-checked, limited, idempotent, kept
 * exactly as stored), get_task's dependents, set_task_status done only once dependencies are done (or
 * forced with a recorded reason), and what leaving blocked says about the blocker. Both generations;
 * rows read back in SQL as Ralph reads them.
 *
 * Sample plan: 1 done ← 2 done ← 3 in_progress ← 4 pending; 3 ← 7 blocked ("Waiting for the SMTP credentials").
 */

/** A task's dependencies as stored: the legacy JSON text, or the normalized child rows in order. */
function storedDeps(project: Project, generation: string, id: number): unknown {
  if (generation === 'legacy')
    return query<{ d: string }>(project, 'SELECT depends_on AS d FROM tasks WHERE id = ?', id)[0]!.d;
  return query<{ d: number }>(
    project,
    'SELECT depends_on_task_id AS d FROM task_dependencies WHERE task_id = ? ORDER BY id',
    id,
  ).map((r) => r.d);
}

/** What add_dependency and remove_dependency answer. */
const answer = (task_id: number, depends_on: number[], changed: boolean) => ({ task_id, depends_on, changed });

contract('dependencies', (env) => {
  const legacy = env.generation === 'legacy';

  test('add_dependency / remove_dependency: rows written, idempotent, read back by get_task', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const added = await s.ok('add_dependency', { task_id: 5, depends_on: 1 });
    assert.deepEqual(added, answer(5, [1], true));
    assert.deepEqual(storedDeps(s.project, env.generation, 5), legacy ? '[1]' : [1]);
    assert.deepEqual((await s.ok('add_dependency', { task_id: 5, depends_on: 2 })).depends_on, [1, 2]);
    // Adding one that is there writes nothing.
    await unchanged(s, async () =>
      assert.deepEqual(await s.ok('add_dependency', { task_id: 5, depends_on: 1 }), answer(5, [1, 2], false)),
    );
    assert.deepEqual((await s.ok('get_task', { id: 5 })).task.depends_on, [1, 2]);
    assert.deepEqual((await s.ok('get_task', { id: 1 })).dependents, [2, 5]);

    assert.deepEqual(await s.ok('remove_dependency', { task_id: 5, depends_on: 1 }), answer(5, [2], true));
    assert.deepEqual(storedDeps(s.project, env.generation, 5), legacy ? '[2]' : [2]);
    await unchanged(s, async () =>
      assert.equal((await s.ok('remove_dependency', { task_id: 5, depends_on: 1 })).changed, false),
    );
    assert.deepEqual((await s.ok('get_task', { id: 1 })).dependents, [2]);
  });

  test('add_dependency refuses itself, unknown tasks, cycles and the 101st, changing nothing', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await unchanged(s, async () => {
      assert.match((await s.fail('add_dependency', { task_id: 4, depends_on: 4 })).message, /cannot depend on itself/);
      const missing = await s.fail('add_dependency', { task_id: 4, depends_on: 99 });
      assert.equal(missing.code, 'invalid_argument');
      assert.match(missing.message, /do not exist: 99/);
      assert.equal((await s.fail('add_dependency', { task_id: 99, depends_on: 1 })).code, 'not_found');
      // 4 → 3 → 2 → 1: making 1 wait for 4 closes the loop.
      const cycle = await s.fail('add_dependency', { task_id: 1, depends_on: 4 });
      assert.equal(cycle.code, 'invalid_argument');
      assert.deepEqual(cycle.details.cycle, [1, 4, 3, 2, 1]);
    });
    // 100 dependencies, then one more (yap: opus_review's update_task cannot set depends_on).
    const y = await env.open({ recipe: 'yap' }, s.project);
    const ids = Array.from({ length: 100 }, (_, i) => 100 + i);
    insertTasks(
      s.project,
      env.generation,
      ids.map((id) => ({ id, title: `Prerequisite number ${id}` })),
    );
    await y.ok('update_task', { id: 5, depends_on: ids.slice(0, 99) });
    assert.equal((await s.ok('add_dependency', { task_id: 5, depends_on: ids[99] })).depends_on.length, 100);
    await unchanged(s, async () => {
      const full = await s.fail('add_dependency', { task_id: 5, depends_on: 1 });
      assert.equal(full.code, 'conflict');
      assert.match(full.message, /already has 100 dependencies \(at most 100\)/);
    });
  });

  test('get_task: dependents by id, also for lists written by plain SQL after the server started', async () => {
    const s = await env.open({ recipe: 'yap' });
    assert.deepEqual((await s.ok('get_task', { id: 3 })).dependents, [4, 7]);
    assert.deepEqual((await s.ok('get_task', { id: 8 })).dependents, []);
    // Another program (Ralph) adds a dependency: the next read sees it.
    const either = (legacySql: string, normalizedSql: string) =>
      ralphRuns(s.project, env.generation, legacySql, normalizedSql);
    either(
      "UPDATE tasks SET depends_on = '[3]' WHERE id = 6",
      'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (6, 3)',
    );
    assert.deepEqual((await s.ok('get_task', { id: 3 })).dependents, [4, 6, 7]);
    either('DELETE FROM tasks WHERE id = 6', 'DELETE FROM runtime_tasks WHERE id = 6');
    assert.deepEqual((await s.ok('get_task', { id: 3 })).dependents, [4, 7]);
  });

  test('a task session adds or removes dependencies of its own task only', async () => {
    const s = await env.open({ recipe: 'opus_review', task: 4 });
    await unchanged(s, async () => {
      assert.equal((await s.fail('add_dependency', { task_id: 5, depends_on: 1 })).code, 'out_of_scope');
      assert.equal((await s.fail('remove_dependency', { task_id: 7, depends_on: 3 })).code, 'out_of_scope');
    });
    // task_id defaults to the session's task.
    assert.deepEqual(await s.ok('add_dependency', { depends_on: 1 }), answer(4, [3, 1], true));
  });

  test('set_task_status done: refused while a dependency is not done, unless forced with a reason (kept as a comment)', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await unchanged(s, async () => {
      const refused = await s.fail('set_task_status', { id: 4, status: 'done' });
      assert.equal(refused.code, 'conflict');
      assert.match(refused.message, /task 4 depends on tasks that are not done: #3 \(in_progress\)/);
      assert.deepEqual(refused.details.unfinished_dependencies, [{ id: 3, status: 'in_progress' }]);
      assert.equal((await s.fail('set_task_status', { id: 4, status: 'done', force: true })).code, 'invalid_argument');
      assert.equal(
        (await s.fail('set_task_status', { id: 4, status: 'done', reason: 'why' })).code,
        'invalid_argument',
      );
      assert.equal(
        (await s.fail('set_task_status', { id: 4, status: 'pending', force: true, reason: 'x' })).code,
        'invalid_argument',
      );
    });
    const forced = await s.ok('set_task_status', {
      id: 4,
      status: 'done',
      force: true,
      reason: 'The tests were written against the finished API',
    });
    assert.equal(forced.task.status, 'done');
    assert.deepEqual(forced.unfinished_dependencies, [{ id: 3, status: 'in_progress' }]);
    assert.equal(
      forced.comment.body,
      'Set done with unfinished dependencies #3 (in_progress): The tests were written against the finished API',
    );
    assert.equal(forced.comment.priority, 'high');
    const [stored] = query<{ status: string; completed: string }>(
      s.project,
      `SELECT status, completed FROM ${taskTable(env.generation)} WHERE id = 4`,
    );
    assert.equal(stored!.status, 'done');
    assert.ok(stored!.completed);
    assert.ok(
      (await s.ok('get_task', { id: 4 })).comments.some((c: any) =>
        c.body.startsWith('Set done with unfinished dependencies #3'),
      ),
    );
    // Once every dependency is done, done needs no force (and writes no comment).
    await s.ok('set_task_status', { id: 3, status: 'done' });
    const plain = await s.ok('set_task_status', { id: 5, status: 'done' });
    assert.equal(plain.comment, undefined);
  });

  test("the done signal records Ralph's signal whatever the dependencies (its loop decides), the status unchanged", async () => {
    const s = await env.open({ recipe: 'signals', task: 4 });
    const r = await s.ok('done', { summary: 'all tests written' });
    assert.equal(r.verb, 'done');
    assert.deepEqual(query(s.project, `SELECT status FROM ${taskTable(env.generation)} WHERE id = 4`), [
      { status: 'pending' },
    ]);
  });

  test('leaving blocked says whether the blocker is resolved', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    // Task 7 is blocked on something outside the plan: nobody here can tell.
    const external = await s.ok('set_task_status', { id: 7, status: 'pending' });
    assert.equal(external.blocker.resolved, null);
    assert.match(external.blocker.detail, /SMTP credentials|no blocker was recorded/);
    if (legacy) assert.match(external.blocker.detail, /Waiting for the SMTP credentials/);

    // Blocked on an upstream task (report_blocker's on_task_id): resolved once that task is done.
    const w = await env.open({ recipe: 'task_execution', task: 4 }, s.project);
    await w.ok('report_blocker', { reason: 'The editor form is not finished', on_task_id: 3 });
    const open = await s.ok('set_task_status', { id: 4, status: 'in_progress' });
    assert.deepEqual(
      { ...open.blocker, detail: undefined },
      { resolved: false, upstream_task_id: 3, detail: undefined },
    );
    assert.match(open.blocker.detail, /blocked on task #3 \(Recipe editor form\), which is in_progress/);
    await w.ok('report_blocker', { reason: 'Still waiting for the form', on_task_id: 3 });
    await s.ok('set_task_status', { id: 3, status: 'done' });
    const resolved = await s.ok('set_task_status', { id: 4, status: 'pending' });
    assert.equal(resolved.blocker.resolved, true);
    assert.equal(resolved.blocker.upstream_task_id, 3);
    // Not leaving blocked: no blocker in the answer.
    assert.equal((await s.ok('set_task_status', { id: 4, status: 'in_progress' })).blocker, undefined);
  });
});
