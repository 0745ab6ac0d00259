import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { contract } from './harness.js';

/**
 * Our triggers on Ralph's tables (search change queue, facets mirror) must never fail a write of
 * Ralph's own. SQLite runs a foreign-key action (ON DELETE CASCADE / SET NULL) with the abort policy
 * whatever conflict clause a trigger it fires says, so a trigger that relied on OR IGNORE failed Ralph's
 * delete of a task with two comments (or signals). Written here as Ralph writes: plain SQL, foreign keys on.
 */
contract("Ralph's own writes through our triggers", (env) => {
  function ralph(dbPath: string, sql: string, ...params: unknown[]): void {
    const db = new Database(dbPath);
    try {
      db.pragma('foreign_keys = ON');
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  }

  test('deleting a task with several comments, and a discipline several comments name, succeeds', () => {
    const s = env.open({ recipe: 'opus_review' });
    s.store.prepareSearch(); // our triggers in place, as after any launch that can search
    s.ok('add_task_comment', { task_id: 6, body: 'quokka one' });
    s.ok('add_task_comment', { task_id: 6, body: 'quokka two' });
    assert.equal(s.ok('search_tasks', { query: 'quokka' }).results.length, 1);
    if (env.generation === 'legacy') {
      ralph(s.project.dbPath, "INSERT INTO disciplines (name, display_name, acronym, icon, color) VALUES ('ops', 'Ops', 'OPS', 'x', '#000000')");
      ralph(s.project.dbPath, "UPDATE task_comments SET discipline = 'ops' WHERE task_id = 6");
      ralph(s.project.dbPath, "DELETE FROM disciplines WHERE name = 'ops'");
      ralph(s.project.dbPath, 'DELETE FROM tasks WHERE id = 6');
    } else {
      ralph(s.project.dbPath, 'DELETE FROM runtime_tasks WHERE id = 6');
    }
    assert.equal(s.ok('search_tasks', { query: 'quokka' }).results.length, 0, 'the index followed the deletes');
  });
});
