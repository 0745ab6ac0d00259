import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/** Session scope holds the same on both generations: task, feature and discipline. */
contract('scope', (env) => {
  test('a task session changes only its task, and its feature only', () => {
    const s = env.open({ recipe: 'task_execution', task: '3' });
    assert.equal(s.plan.discipline, 'frontend');
    unchanged(s, () => {
      assert.equal(s.fail('set_task_status', { id: 4, status: 'done' }).code, 'out_of_scope');
      assert.equal(
        s.fail('add_feature_context_file', { feature_name: 'search', file_path: 'x.ts' }).code,
        'out_of_scope',
      );
    });
    assert.equal(s.ok('add_feature_context_file', { file_path: 'src/ui/form.css' }).feature_name, 'recipes');
    assert.equal(s.ok('set_task_status', { status: 'done' }).task.id, 3);
    assert.ok(s.ok('get_task', { id: 1 }).task);
  });

  test('a discipline session changes only its discipline', () => {
    const s = env.open({ recipe: 'discuss', discipline: 'backend' });
    unchanged(s, () =>
      assert.equal(s.fail('update_discipline', { name: 'frontend', conventions: 'x' }).code, 'out_of_scope'),
    );
    s.ok('update_discipline', { name: 'backend', conventions: '- Thin handlers' });
  });

  test('hidden tools are unknown; a recipe sees exactly its list', () => {
    const s = env.open({ recipe: 'yap' });
    assert.deepEqual(s.toolNames(), [
      'list_tasks',
      'get_task',
      'create_task',
      'update_task',
      'set_task_status',
      'search_tasks',
      'add_dependency',
      'remove_dependency',
      'list_features',
      'list_disciplines',
      'get_project_info',
    ]);
    assert.throws(() => s.call('delete_task', { id: 8 }), /Unknown tool: delete_task/);
  });
});
