import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ralphComments, ralphTask } from '../helpers/ralphRead.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/** The workflow tools (what agents run into) on both generations. */
contract('workflow tools', (env) => {
  test('report_blocker: the task blocked, the reason recorded, the upstream task told', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4', discipline: 'quality' });
    const r = await s.ok('report_blocker', { reason: 'The editor has no test ids', on_task_id: 3 });
    assert.equal(r.task.status, 'blocked');
    assert.equal(r.task.blocked_by, 'The editor has no test ids');
    assert.deepEqual(
      r.comments.map((c: any) => [c.task_id, c.priority, c.body]),
      [
        [4, 'high', 'Blocked: The editor has no test ids (blocked on task #3)'],
        [3, 'high', 'Task #4 (Editor end-to-end tests) is blocked on this task: The editor has no test ids'],
      ],
    );
    assert.equal(ralphTask(s.project.dbPath, 4)!.status, 'blocked');
    const own = ralphComments(s.project.dbPath, 4).at(-1)!;
    if (own.generation === 'normalized')
      assert.deepEqual(
        [own.verb, own.on, own.kind, own.detail],
        ['blocked', 'task #3', 'upstream_task', 'The editor has no test ids'],
      );
    await unchanged(s, async () =>
      assert.equal((await s.fail('report_blocker', { reason: 'x', on_task_id: 4 })).code, 'invalid_argument'),
    );
  });

  test('skip_task and spawn_subtasks: all or nothing, dependents rewired', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    const split = await s.ok('spawn_subtasks', {
      parent_id: 3,
      tasks: [{ title: 'Form layout' }, { title: 'Validation messages' }],
      chain: true,
      skip_parent: true,
    });
    const [a, b] = split.created.map((t: any) => t.id);
    assert.deepEqual(
      split.created.map((t: any) => [t.feature, t.discipline, t.depends_on]),
      [
        ['recipes', 'frontend', [2]],
        ['recipes', 'frontend', [a]],
      ],
    );
    assert.deepEqual(split.rewired, [4, 7]);
    assert.deepEqual(ralphTask(s.project.dbPath, 4)!.depends_on, [b]);
    assert.equal(ralphTask(s.project.dbPath, 3)!.status, 'skipped');
    await unchanged(s, async () => {
      const r = await s.fail('spawn_subtasks', {
        parent_id: 5,
        tasks: [{ title: 'ok' }, { title: 'bad', feature: 'nope' }],
      });
      assert.equal(r.code, 'not_found');
      assert.match(r.message, /^tasks\[1\]: .*nothing was created/);
      assert.equal((await s.fail('skip_task', { id: 1, reason: 'x' })).code, 'conflict');
    });
  });

  test('move_task_to_feature and update_task_context', async () => {
    const s = await env.open();
    assert.equal((await s.ok('move_task_to_feature', { id: 5, feature: 'recipes' })).previous_feature, 'search');
    assert.equal(ralphTask(s.project.dbPath, 5)!.feature, 'recipes');
    const ctx = await s.ok('update_task_context', {
      id: 3,
      add_context_files: ['src/ui/Field.tsx'],
      remove_context_files: ['./src/ui/RecipeForm.tsx'],
      hints: 'new hint',
    });
    assert.deepEqual([ctx.added, ctx.removed], [['src/ui/Field.tsx'], ['src/ui/RecipeForm.tsx']]);
    const t = ralphTask(s.project.dbPath, 3)!;
    assert.deepEqual([t.context_files, t.hints], [['src/ui/Field.tsx'], 'new hint']);
  });

  test('get_dependency_details: transitive, with comments', async () => {
    const s = await env.open();
    const r = await s.ok('get_dependency_details', { id: 4 });
    assert.deepEqual(
      r.dependencies.map((d: any) => [d.id, d.depth, d.status]),
      [
        [3, 1, 'in_progress'],
        [2, 2, 'done'],
        [1, 3, 'done'],
      ],
    );
    assert.deepEqual(
      r.dependencies[1].comments.map((c: any) => c.body),
      ['Done: endpoints in src/api/recipes.ts; validation in src/api/validate.ts.'],
    );
  });

  test('claim_next_task: the highest priority ready task, then the next', async () => {
    const s = await env.open({ recipe: 'worker' });
    const first = await s.ok('claim_next_task', {});
    assert.deepEqual(
      [first.claimed, first.task.id, first.task.status, first.ready_remaining],
      [true, 5, 'in_progress', 0],
    );
    assert.equal(ralphTask(s.project.dbPath, 5)!.status, 'in_progress');
    assert.equal((await s.fail('claim_next_task', {})).code, 'conflict');
    await s.ok('set_task_status', { status: 'done' });
    assert.deepEqual(await s.ok('claim_next_task', {}), { claimed: false, task: null, ready_remaining: 0 });
  });

  test('search_tasks: ranked, filtered, sees writes made since', async () => {
    const s = await env.open();
    const r = await s.ok('search_tasks', { query: 'recipe editor' });
    assert.equal(r.matched, 'all');
    assert.deepEqual(r.results.map((h: any) => h.id).sort(), [3, 4]);
    assert.deepEqual(
      (await s.ok('search_tasks', { query: 'typeahead', feature: 'search' })).results.map((h: any) => h.id),
      [6],
    );
    await s.ok('add_task_comment', { task_id: 8, body: 'Mention the zebra fallback' });
    assert.deepEqual(
      (await s.ok('search_tasks', { query: 'zebra' })).results.map((h: any) => h.id),
      [8],
    );
    await s.ok('update_task', { id: 1, title: 'Recipe table with quokka migrations' });
    assert.deepEqual(
      (await s.ok('search_tasks', { query: 'quokka' })).results.map((h: any) => h.id),
      [1],
    );
    assert.equal((await s.ok('search_tasks', { query: 'nothingmatchesthis' })).matched, 'none');
  });

  test('get_project_info and get_project_progress', async () => {
    const s = await env.open();
    assert.equal((await s.ok('get_project_info', {})).title, 'Recipe Box');
    const p = await s.ok('get_project_progress', {});
    assert.deepEqual([p.total, p.done, p.percent_done], [8, 2, 25]);
    assert.deepEqual(p.by_status, { draft: 1, pending: 2, in_progress: 1, done: 2, blocked: 1, skipped: 1 });
    assert.deepEqual(p.by_feature, [
      { name: 'auth', done: 0, total: 2 },
      { name: 'recipes', done: 2, total: 4 },
      { name: 'search', done: 0, total: 2 },
    ]);
  });
});
