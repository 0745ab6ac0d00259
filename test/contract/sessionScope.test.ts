import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { contract, openInProc } from './harness.js';
import { unchanged } from './support.js';
import { auditRows, exec } from './support.claims.js';
import { query } from '../helpers/project.js';

/**
 * A session's scope is fixed by its launch (or its claim) and only ever narrows: its own writes
 * cannot widen it, a write that fails leaves it as it was, and the most restrictive override applies.
 * On both generations, in-process through the server's call path.
 */

/** Sets a discipline's overrides as stored (any text: tests plant malformed values too). */
async function setOverrides(project: Project, discipline: string, raw: string | null): Promise<void> {
  const s = await openInProc(project, {});
  try {
    s.store.ensureOwnTables();
    s.store.write(() => s.store.disciplines.writeToolOverrides(discipline, raw));
  } finally {
    await s.close();
  }
}

/**
 * Makes the COMMIT of any transaction that records an `ok` call of `tool` fail: the audit row inserts
 * a child whose deferred foreign key has no parent, which SQLite checks only at commit (as a full
 * disk or an I/O error would fail it there).
 */
function failCommitOf(project: Project, tool: string): void {
  exec(
    project,
    `CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
     CREATE TABLE test_child (parent INTEGER REFERENCES test_parent(id) DEFERRABLE INITIALLY DEFERRED);
     CREATE TRIGGER test_fail_commit AFTER INSERT ON ralph_mcp_audit WHEN NEW.tool = '${tool}' AND NEW.outcome = 'ok'
     BEGIN INSERT INTO test_child (parent) VALUES (424242); END;`,
  );
}

contract('session scope cannot drift', (env) => {
  const status = (p: Project, id: number) =>
    query<{ status: string }>(
      p,
      `SELECT status FROM ${env.generation === 'legacy' ? 'tasks' : 'runtime_tasks'} WHERE id = ?`,
      id,
    )[0]?.status;

  test('a task session keeps its launch feature when it moves its own task', async () => {
    const s = await env.open({ recipe: 'opus_review', task: '5' }); // task 5 is in search
    assert.equal((await s.ok('move_task_to_feature', { feature: 'auth' })).changed, true);
    await unchanged(s, async () => {
      for (const [name, args] of [
        ['update_feature', { name: 'auth', description: 'widened' }],
        ['append_feature_learning', { feature_name: 'auth', text: 'Tokens rotate hourly' }],
      ] as const) {
        const err = await s.fail(name, args);
        assert.equal(err.code, 'out_of_scope', name);
        assert.match(err.message, /search/, `${name} names the launch feature`);
      }
    });
    // Its own feature still defaults and is still writable.
    const learned = await s.ok('append_feature_learning', { text: 'Rank title matches first in search' });
    assert.ok(learned.learning_count > 0);
    assert.equal((await s.ok('move_task_to_feature', { feature: 'search' })).changed, true);
  });

  test('a claim whose COMMIT fails leaves the session holding nothing', async () => {
    const p = env.sample();
    const warm = await env.open({ recipe: 'yap' }, p);
    await warm.ok('set_task_status', { id: 6, status: 'draft' }); // our tables exist before the trigger is planted
    failCommitOf(p, 'claim_next_task');
    const s = await env.open({ recipe: 'worker' }, p);
    const err = await s.fail('claim_next_task', {});
    assert.notEqual(err.code, 'ok');
    assert.equal(status(p, 5), 'pending', 'the claim rolled back');
    assert.equal(s.plan.scope.taskId, null, 'the session holds no task');
    assert.equal(s.plan.scope.claimed, false);
    await unchanged(s, async () => {
      const refused = await s.fail('set_task_status', { id: 5, status: 'done' });
      assert.equal(refused.code, 'out_of_scope', 'the task another worker may claim stays out of reach');
    });
    exec(p, 'DROP TRIGGER test_fail_commit');
    assert.equal((await s.ok('claim_next_task', {})).task.id, 5);
    assert.equal(s.plan.scope.taskId, 5);
  });

  test('an audit row commits with its write or neither does', async () => {
    const p = env.sample();
    const warm = await env.open({ recipe: 'yap' }, p);
    await warm.ok('set_task_status', { id: 6, status: 'draft' });
    failCommitOf(p, 'create_task');
    const created = () => auditRows(p, "tool = 'create_task' AND outcome = 'ok'").length;
    const before = created();
    const s = await env.open({ recipe: 'yap' }, p);
    await unchanged(s, async () =>
      assert.notEqual(
        (await s.fail('create_task', { title: 'Never lands', feature: 'search', discipline: 'backend' })).code,
        'ok',
      ),
    );
    assert.equal(created(), before);
  });

  test("--discipline on a task of another discipline keeps what the task's discipline removes", async () => {
    const p = env.sample();
    await setOverrides(p, 'frontend', JSON.stringify({ additional_disabled: ['append_learning'] }));
    const own = await env.open({ recipe: 'task_execution', task: '3' }, p);
    assert.ok(!(await own.toolNames()).includes('append_learning'));
    const flagged = await env.open({ recipe: 'task_execution', task: '3', discipline: 'backend' }, p);
    assert.ok(!(await flagged.toolNames()).includes('append_learning'), 'the flag restores nothing');
    await assert.rejects(flagged.call('append_learning', { text: 'x' }), /Unknown tool: append_learning/);
  });

  test("a claim narrows a worker to what the claimed task's discipline allows, and never widens it again", async () => {
    const p = env.sample();
    await setOverrides(p, 'backend', JSON.stringify({ additional_disabled: ['append_learning'] }));
    const s = await env.open({ recipe: 'worker' }, p);
    assert.ok((await s.toolNames()).includes('append_learning'), 'no discipline yet: nothing removed');
    const claimed = await s.ok('claim_next_task', {});
    assert.equal(claimed.task.discipline, 'backend');
    assert.ok(!(await s.toolNames()).includes('append_learning'));
    await assert.rejects(s.call('append_learning', { text: 'x' }), /Unknown tool: append_learning/);
    assert.equal(s.plan.scope.discipline, 'backend', "comments are signed as the claimed task's discipline");
    await s.ok('set_task_status', { status: 'done' });
    await s.ok('claim_next_task', {}); // whatever comes next (or nothing): the removal stays
    assert.ok(!(await s.toolNames()).includes('append_learning'));
  });

  test('overrides that cannot be read refuse the claim and change nothing', async () => {
    const p = env.sample();
    await setOverrides(p, 'backend', JSON.stringify({ disabled_tools: ['append_learning'] }));
    const s = await env.open({ recipe: 'worker' }, p);
    await unchanged(s, async () => {
      const err = await s.fail('claim_next_task', {});
      assert.equal(err.code, 'conflict');
      assert.match(err.message, /unknown key\(s\) "disabled_tools"/);
    });
    assert.equal(s.plan.scope.taskId, null);
  });

  test('a launch refuses overrides with an unknown key, and discuss without a discipline', async () => {
    const p = env.sample();
    await setOverrides(p, 'backend', JSON.stringify({ additional_disabled: [], disabled_tools: ['delete_task'] }));
    await assert.rejects(
      openInProc(p, { recipe: 'yap', discipline: 'backend' }),
      /unknown key\(s\) "disabled_tools"; the only key is "additional_disabled"/,
    );
    await assert.rejects(
      openInProc(env.sample(), { recipe: 'discuss' }),
      /recipe discuss changes one discipline and none was given; pass --discipline NAME/,
    );
  });
});
