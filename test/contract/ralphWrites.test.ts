import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { TASK_COLUMNS, TASK_JOINS } from '../../src/store/normalized/sql.js';
import { query } from '../helpers/project.js';
import { contract } from './harness.js';

/**
 * Our triggers on Ralph's tables (search change queue, facets mirror) must never fail a write of
 * Ralph's own. SQLite runs a foreign-key action (ON DELETE CASCADE / SET NULL) with the abort policy
 * whatever conflict clause a trigger it fires says, so a trigger that relied on OR IGNORE failed Ralph's
 * delete of a task with two comments (or signals). Written here as Ralph writes: plain SQL, foreign keys on.
 */
contract("Ralph's own writes through our triggers", (env) => {
  /** Each statement in turn, on a connection of its own. */
  function ralph(dbPath: string, ...statements: string[]): void {
    for (const sql of statements) {
      const db = new Database(dbPath);
      try {
        db.pragma('foreign_keys = ON');
        db.prepare(sql).run();
      } finally {
        db.close();
      }
    }
  }

  test('deleting a task with several comments, and a discipline several comments name, succeeds', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    s.store.search.prepareSearch(); // our triggers in place, as after any launch that can search
    await s.ok('add_task_comment', { task_id: 6, body: 'quokka one' });
    await s.ok('add_task_comment', { task_id: 6, body: 'quokka two' });
    assert.equal((await s.ok('search_tasks', { query: 'quokka' })).results.length, 1);
    if (env.generation === 'legacy') {
      ralph(
        s.project.dbPath,
        `INSERT INTO disciplines (name, display_name, acronym, icon, color)
         VALUES ('ops', 'Ops', 'OPS', 'x', '#000000')`,
        "UPDATE task_comments SET discipline = 'ops' WHERE task_id = 6",
        "DELETE FROM disciplines WHERE name = 'ops'",
        'DELETE FROM tasks WHERE id = 6',
      );
    } else {
      ralph(s.project.dbPath, 'DELETE FROM runtime_tasks WHERE id = 6');
    }
    assert.equal((await s.ok('search_tasks', { query: 'quokka' })).results.length, 0, 'the index followed the deletes');
  });

  test("the facets mirror follows every write to the columns it copies, ours and Ralph's", {
    skip: env.generation !== 'normalized',
  }, async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await s.ok('set_task_status', { id: 4, status: 'in_progress' }); // our tables and triggers in place
    const columns = 'status, subsystem_id, details_id, discipline_id, priority';
    const mirror = () => query(s.project, `SELECT task_id, ${columns} FROM ralph_mcp_task_facets ORDER BY task_id`);
    const truth = () =>
      query(
        s.project,
        `SELECT t.id AS task_id, t.status, t.subsystem_id, t.details_id, d.discipline_id, d.priority
         FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id ORDER BY t.id`,
      );
    assert.deepEqual(mirror(), truth());
    await s.ok('set_task_status', { id: 5, status: 'done' });
    await s.ok('move_task_to_feature', { id: 5, feature: 'search' });
    await s.ok('update_task', { id: 3, priority: 'critical' });
    ralph(
      s.project.dbPath,
      "UPDATE runtime_tasks SET status = 'blocked' WHERE id = 3",
      `UPDATE runtime_tasks SET status = 'skipped', subsystem_id = (SELECT id FROM subsystems WHERE name = 'auth')
       WHERE id = 6`,
      'UPDATE runtime_tasks SET details_id = (SELECT details_id FROM runtime_tasks WHERE id = 2) WHERE id = 7',
      "UPDATE task_details SET priority = 'low' WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = 2)",
    );
    assert.deepEqual(mirror(), truth());
    // A row missing from the mirror is made again by the task's next status change.
    ralph(s.project.dbPath, 'DELETE FROM ralph_mcp_task_facets WHERE task_id = 4');
    await s.ok('set_task_status', { id: 4, status: 'pending' });
    assert.deepEqual(mirror(), truth());
    // An older ralph-mcp beside us puts its trigger back: the next session takes it out again.
    ralph(
      s.project.dbPath,
      `CREATE TRIGGER ralph_mcp_facets_runtime_au_v2 AFTER UPDATE OF status, subsystem_id, details_id
       ON runtime_tasks BEGIN DELETE FROM ralph_mcp_task_facets WHERE task_id = NEW.id; END`,
    );
    const next = await env.open({ recipe: 'opus_review' }, s.project);
    await next.ok('set_task_status', { id: 4, status: 'in_progress' });
    const old = query(s.project, "SELECT name FROM sqlite_master WHERE name = 'ralph_mcp_facets_runtime_au_v2'");
    assert.deepEqual(old, []);
    assert.deepEqual(mirror(), truth());
  });
  test("the task-row mirror: another connection's writes show on the next read; a row is the joined read", {
    skip: env.generation !== 'normalized',
  }, async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await s.ok('set_task_status', { id: 4, status: 'in_progress' }); // our tables and triggers in place
    const truthSql = `SELECT ${TASK_COLUMNS} ${TASK_JOINS} ORDER BY t.id`;
    const rows = () =>
      query(s.project, 'SELECT * FROM ralph_mcp_task_rows ORDER BY task_id').map((r) => {
        const { task_id, template_details_id: _d, ...rest } = r as Record<string, unknown>;
        return { id: task_id, ...rest };
      });
    const truth = () => query(s.project, truthSql);
    /** Every row the mirror holds is what the joined read gives now (a stale one would differ). */
    const fresh = () => {
      const now = new Map(truth().map((r) => [r.id, r]));
      for (const r of rows()) assert.deepEqual(r, now.get(r.id), `task ${String(r.id)}'s row`);
    };
    assert.deepEqual(rows(), truth(), 'every task has its row');
    const details = (id: number) => `(SELECT details_id FROM runtime_tasks WHERE id = ${id})`;
    await s.ok('get_task', { id: 3 });
    // Ralph's app (another connection) changes what rows copy: each shows on the very next read.
    const listed = async (id: number) =>
      (await s.ok('list_tasks', { limit: 100 })).tasks.find((t: { id: number }) => t.id === id);
    assert.equal((await listed(3)).title, 'Recipe editor form');
    ralph(s.project.dbPath, `UPDATE task_details SET title = 'Editor, by Ralph' WHERE id = ${details(3)}`);
    assert.equal((await s.ok('get_task', { id: 3 })).task.title, 'Editor, by Ralph');
    assert.equal((await listed(3)).title, 'Editor, by Ralph');
    ralph(s.project.dbPath, "INSERT INTO task_tags (task_id, tag) VALUES (3, 'ralph')");
    assert.deepEqual((await s.ok('get_task', { id: 3 })).task.tags.at(-1), 'ralph');
    ralph(s.project.dbPath, "UPDATE subsystems SET name = 'cookbook' WHERE name = 'recipes'");
    assert.equal((await s.ok('get_task', { id: 3 })).task.feature, 'cookbook');
    ralph(s.project.dbPath, "UPDATE disciplines SET name = 'web' WHERE name = 'frontend'");
    assert.equal((await s.ok('get_task', { id: 3 })).task.discipline, 'web');
    ralph(
      s.project.dbPath,
      "UPDATE runtime_tasks SET status = 'blocked' WHERE id = 5",
      `INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status)
       VALUES ('ralph-s', 900, 'manual', 'human', 5, '2026-02-01T00:00:00Z', '2026-02-01T00:00:00Z', 'finished')`,
      `INSERT INTO task_signals (task_id, session_id, verb, "on", kind, created)
       VALUES (5, 'ralph-s', 'blocked', 'the payment provider', 'external', '2026-02-01T00:00:00Z')`,
    );
    const five = (await s.ok('get_task', { id: 5 })).task;
    assert.deepEqual([five.status, five.blocked_by], ['blocked', 'the payment provider']);
    fresh();
    // Our next write makes the rows the other connection left stale again, exactly as read.
    await s.ok('add_task_comment', { task_id: 1, body: 'rows again' });
    assert.deepEqual(rows(), truth(), 'every task has its row again');
    assert.equal((await listed(5)).status, 'blocked');
    // A rebuild of one of Ralph's tables drops the triggers on it: rows are no longer taken, however
    // stale they may be, until a launch makes the triggers and the rows again.
    ralph(
      s.project.dbPath,
      'DROP TRIGGER ralph_mcp_rows_details_copy',
      `UPDATE task_details SET title = 'Unseen by the mirror' WHERE id = ${details(3)}`,
    );
    assert.equal((await s.ok('get_task', { id: 3 })).task.title, 'Unseen by the mirror');
    const next = await env.open({ recipe: 'opus_review' }, s.project);
    assert.equal((await next.ok('get_task', { id: 3 })).task.title, 'Unseen by the mirror');
    assert.deepEqual(rows(), truth(), 'rebuilt whole');
  });
});
