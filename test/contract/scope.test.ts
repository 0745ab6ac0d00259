import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/** Session scope holds the same on both generations: task, feature and discipline. */
contract('scope', (env) => {
  test('a task session changes only its task, and its feature only', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '3' });
    assert.equal(s.plan.discipline, 'frontend');
    await unchanged(s, async () => {
      assert.equal((await s.fail('set_task_status', { id: 4, status: 'done' })).code, 'out_of_scope');
      assert.equal(
        (await s.fail('add_feature_context_file', { feature_name: 'search', file_path: 'x.ts' })).code,
        'out_of_scope',
      );
    });
    assert.equal((await s.ok('add_feature_context_file', { file_path: 'src/ui/form.css' })).feature_name, 'recipes');
    assert.equal((await s.ok('set_task_status', { status: 'done' })).task.id, 3);
    assert.ok((await s.ok('get_task', { id: 1 })).task);
  });

  test('a discipline session changes only its discipline', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'backend' });
    await unchanged(s, async () =>
      assert.equal((await s.fail('update_discipline', { name: 'frontend', conventions: 'x' })).code, 'out_of_scope'),
    );
    await s.ok('update_discipline', { name: 'backend', conventions: '- Thin handlers' });
  });

  test('hidden tools are unknown; a recipe sees exactly its list', async () => {
    const s = await env.open({ recipe: 'yap' });
    assert.deepEqual(await s.toolNames(), [
      'list_tasks',
      'get_task',
      'create_task',
      'update_task',
      'set_task_status',
      'search_tasks',
      'add_dependency',
      'remove_dependency',
      'dependency_problems',
      'blocked_tasks',
      // Ralph's task templates exist on its normalized schema only.
      ...(env.generation === 'normalized' ? ['list_templates', 'create_task_from_template'] : []),
      'list_features',
      'list_disciplines',
      'get_project_info',
    ]);
    await assert.rejects(s.call('delete_task', { id: 8 }), /Unknown tool: delete_task/);
  });
});
