import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ralphTask, ralphTaskList } from '../helpers/ralphRead.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/**
 * The task tools on both generations: the same calls give the same answers, and what they write is
 * what Ralph's own code reads back (ralphRead: Ralph's queries for the generation at hand).
 */
contract('task tools', (env) => {
  test('list_tasks: every task by id, filters, pages, totals', async () => {
    const s = await env.open();
    const all = await s.ok('list_tasks', {});
    assert.equal(all.total, 8);
    assert.deepEqual(
      all.tasks.map((t: any) => t.id),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    const { template_id, ...row } = all.tasks[3];
    assert.deepEqual(row, {
      id: 4,
      title: 'Editor end-to-end tests',
      status: 'pending',
      priority: 'medium',
      feature: 'recipes',
      discipline: 'quality',
      depends_on: [3],
      held_by: null,
    });
    // Templates exist on Ralph's current schema only: there every row says which one a task came from.
    assert.equal(template_id, env.generation === 'normalized' ? null : undefined);
    const ralph = ralphTaskList(s.project.dbPath);
    assert.deepEqual(
      all.tasks.map((t: any) => [t.id, t.title, t.status, t.feature, t.discipline]),
      ralph.map((t) => [t.id, t.title, t.status, t.subsystem, t.discipline]),
    );
    for (const [args, ids] of [
      [{ filter_status: 'pending' }, [4, 5]],
      [{ filter_feature: 'recipes' }, [1, 2, 3, 4]],
      [{ filter_discipline: 'backend' }, [1, 2, 5, 7]],
      [{ filter_feature: 'auth', filter_discipline: 'backend', filter_status: 'blocked' }, [7]],
    ] as const) {
      const r = await s.ok('list_tasks', args);
      assert.deepEqual(
        r.tasks.map((t: any) => t.id),
        ids,
        JSON.stringify(args),
      );
      assert.equal(r.total, ids.length);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await s.ok('list_tasks', { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.tasks.map((t: any) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal((await s.fail('list_tasks', { filter_feature: 'nope' })).code, 'not_found');
    assert.equal((await s.fail('list_tasks', { cursor: 'x' })).code, 'invalid_argument');
  });

  test('get_task: fields, comments oldest first, dependencies', async () => {
    const s = await env.open();
    const r = await s.ok('get_task', { id: 3 });
    assert.equal(r.task.title, 'Recipe editor form');
    assert.equal(r.task.feature, 'recipes');
    assert.deepEqual(r.task.acceptance_criteria, [
      'Ingredients can be added and removed',
      'Shows server validation errors',
    ]);
    assert.deepEqual(r.task.tags, ['ui', 'forms']);
    assert.deepEqual(r.task.depends_on, [2]);
    assert.deepEqual(r.dependencies, [{ id: 2, title: 'Recipe REST endpoints', status: 'done' }]);
    assert.deepEqual(
      r.comments.map((c: any) => [c.author, c.discipline, c.priority, c.body]),
      [['frontend', 'frontend', 'high', 'The API returns 422 with a field map on validation errors.']],
    );
    assert.equal((await s.ok('get_task', { id: 7 })).task.blocked_by, 'Waiting for the SMTP credentials');
    const missing = await s.fail('get_task', { id: 99 });
    assert.equal(missing.code, 'not_found');
    assert.match(missing.message, /task ids in this project run from 1 to 8 \(8 tasks\)/);
  });

  test('create_task: one task with all its lists, as Ralph reads it; ids never reused', async () => {
    const s = await env.open();
    const r = await s.ok('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'Rank results',
      description: 'bm25',
      priority: 'high',
      acceptance_criteria: ['first', 'second', 'third'],
      depends_on: [5],
      tags: ['search'],
      context_files: ['./src/search.ts'],
      output_artifacts: ['src/rank.ts'],
      hints: 'see FTS5 docs',
      estimated_turns: 4,
      status: 'draft',
    });
    assert.equal(r.task.id, 9);
    const t = ralphTask(s.project.dbPath, 9)!;
    assert.deepEqual(
      [t.title, t.description, t.status, t.priority, t.feature, t.discipline, t.provenance, t.hints, t.estimated_turns],
      ['Rank results', 'bm25', 'draft', 'high', 'search', 'backend', 'agent', 'see FTS5 docs', 4],
    );
    assert.deepEqual(t.acceptance_criteria, ['first', 'second', 'third']);
    assert.deepEqual(t.depends_on, [5]);
    assert.deepEqual(t.context_files, ['src/search.ts']);
    assert.deepEqual(t.output_artifacts, ['src/rank.ts']);
    assert.match(t.created!, /^\d{4}-\d{2}-\d{2}$/);
    await s.ok('delete_task', { id: 9 });
    assert.equal(
      (await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Next' })).task.id,
      env.generation === 'normalized' ? 10 : 9,
    );
  });

  test('create_task refusals name what is wrong and change nothing', async () => {
    const s = await env.open();
    const base = { feature: 'search', discipline: 'backend', title: 'x' };
    await unchanged(s, async () => {
      const f = await s.fail('create_task', { ...base, feature: 'nope' });
      assert.equal(f.code, 'not_found');
      assert.match(f.message, /"nope" does not exist; existing features.*: auth, recipes, search/);
      assert.equal((await s.fail('create_task', { ...base, discipline: 'nope' })).code, 'not_found');
      assert.match((await s.fail('create_task', { ...base, depends_on: [42] })).message, /do not exist: 42/);
      assert.equal(
        (await s.fail('create_task', { ...base, context_files: ['../etc/passwd'] })).code,
        'invalid_argument',
      );
      assert.equal((await s.fail('create_task', { ...base, title: '  ' })).code, 'invalid_argument');
      assert.equal((await s.fail('create_task', { ...base, status: 'done' })).code, 'invalid_argument');
    });
  });

  test('update_task: only the given fields; lists replaced whole; cycles refused', async () => {
    const s = await env.open();
    const r = await s.ok('update_task', {
      id: 5,
      title: 'FTS5 index',
      acceptance_criteria: ['b', 'a'],
      tags: [],
      depends_on: [1],
    });
    assert.deepEqual(r.changed, ['title', 'acceptance_criteria', 'depends_on', 'tags']);
    const t = ralphTask(s.project.dbPath, 5)!;
    assert.equal(t.title, 'FTS5 index');
    assert.equal(t.description, 'SQLite FTS5 table kept in sync by triggers');
    assert.deepEqual(t.acceptance_criteria, ['b', 'a']);
    assert.deepEqual(t.tags, []);
    assert.deepEqual(t.depends_on, [1]);
    assert.match(r.task.updated, /^\d{4}-\d{2}-\d{2}$/);
    await unchanged(s, async () => {
      const cycle = await s.fail('update_task', { id: 1, depends_on: [4] });
      assert.equal(cycle.code, 'invalid_argument');
      assert.match(cycle.message, /cycle: 1 → 4 → 3 → 2 → 1/);
      assert.equal((await s.fail('update_task', { id: 5 })).code, 'invalid_argument');
      assert.equal((await s.fail('update_task', { id: 77, title: 'x' })).code, 'not_found');
    });
  });

  test("updated reads as the day, whichever form Ralph's triggers leave it in", async () => {
    const s = await env.open();
    await s.ok('update_task', { id: 5, hints: 'one' });
    await s.ok('update_task', { id: 5, hints: 'two' }); // the same day again: Ralph's head's trigger rewrites `updated`
    const stored = ralphTask(s.project.dbPath, 5)!.updated!;
    assert.match(
      stored,
      env.generation === 'normalized' ? /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/ : /^\d{4}-\d{2}-\d{2}$/,
    );
    assert.equal((await s.ok('get_task', { id: 5 })).task.updated, stored.slice(0, 10));
  });

  test('set_task_status: done stamps completed, reopening clears it; only the six statuses', async () => {
    const s = await env.open();
    const done = await s.ok('set_task_status', { id: 5, status: 'done' });
    assert.equal(done.previous_status, 'pending');
    assert.match(ralphTask(s.project.dbPath, 5)!.completed!, /^\d{4}-\d{2}-\d{2}$/);
    await s.ok('set_task_status', { id: 5, status: 'in_progress' });
    assert.equal(ralphTask(s.project.dbPath, 5)!.completed, null);
    assert.equal((await s.ok('set_task_status', { id: 5, status: 'in_progress' })).changed, false);
    await unchanged(s, async () =>
      assert.equal((await s.fail('set_task_status', { id: 5, status: 'failed' })).code, 'invalid_argument'),
    );
  });

  test('delete_task: refused while depended on; its comments go with it', async () => {
    const s = await env.open();
    await unchanged(s, async () => {
      const refused = await s.fail('delete_task', { id: 3 });
      assert.equal(refused.code, 'conflict');
      assert.deepEqual(refused.details, { dependents: [4, 7] });
    });
    const r = await s.ok('delete_task', { id: 7 });
    assert.equal(r.deleted_comments, env.generation === 'normalized' ? 2 : 1); // + the blocked signal migrate made of blocked_by
    assert.equal(ralphTask(s.project.dbPath, 7), undefined);
  });

  test('enrich_task: a draft becomes pending with pseudocode; others refused', async () => {
    const s = await env.open();
    const r = await s.ok('enrich_task', {
      id: 6,
      pseudocode: 'debounce, then query',
      acceptance_criteria: ['shows 5 suggestions'],
    });
    assert.equal(r.task.status, 'pending');
    const t = ralphTask(s.project.dbPath, 6)!;
    assert.equal(t.pseudocode, 'debounce, then query');
    assert.deepEqual(t.acceptance_criteria, ['shows 5 suggestions']);
    assert.ok(t.enriched_at);
    await unchanged(s, async () =>
      assert.equal((await s.fail('enrich_task', { id: 5, pseudocode: 'x' })).code, 'conflict'),
    );
  });
});
