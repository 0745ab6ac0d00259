import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
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
});
