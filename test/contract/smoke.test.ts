import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contract } from './harness.js';

contract('smoke', (env) => {
  test('every tool of the full suite answers on the sample', () => {
    const s = env.open();
    const r = s.ok('list_tasks', {});
    assert.equal(r.total, 8);
    const t = s.ok('get_task', { id: 3 });
    assert.equal(t.task.title, 'Recipe editor form');
    const c = s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'New', acceptance_criteria: ['a', 'b'], depends_on: [5], tags: ['x'] });
    assert.deepEqual(c.task.acceptance_criteria, ['a', 'b']);
    s.ok('update_task', { id: c.task.id, title: 'Renamed', depends_on: [1, 5] });
    s.ok('set_task_status', { id: c.task.id, status: 'done' });
    s.ok('add_task_comment', { task_id: 3, author: 'backend', body: 'hi' });
    s.ok('append_feature_learning', { feature_name: 'search', text: 'Use FTS5 with a trigger queue for search' });
    s.ok('search_tasks', { query: 'recipe' });
    s.ok('get_project_progress', {});
    s.ok('claim_next_task', {});
  });
});
