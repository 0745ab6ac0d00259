import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PENDING_TITLES_MAX } from '../../src/store/own/search.js';
import { query } from '../helpers/project.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { insertTasks, ralphRuns, retitle, taskTable } from './support.search.js';

/**
 * Duplicate hints: creates answer with possible_duplicates (similar task titles by word-set
 * similarity over candidates from the search index; similar feature and discipline names), at most 5;
 * an exact duplicate title in the same feature is refused unless the caller says it is intended.
 * Sample titles: 'Recipe REST endpoints' (#2, recipes), 'Search box with suggestions' (#6, search), …
 */
contract('duplicate hints', (env) => {
  const taskCount = (s: InProcSession) =>
    query<{ n: number }>(s.project, `SELECT count(*) AS n FROM ${taskTable(env.generation)}`)[0]!.n;
  const queued = (s: InProcSession) =>
    query<{ task_id: number }>(s.project, 'SELECT task_id FROM ralph_mcp_search_dirty ORDER BY task_id').map(
      (r) => r.task_id,
    );
  /** Titles another program wrote, then indexed (a search catches up): candidates come from the index. */
  const indexed = async (s: InProcSession, feature: string, titles: string[]) => {
    insertTasks(
      s.project,
      env.generation,
      titles.map((title, i) => ({ id: 1000 + i, title, feature })),
    );
    for (let i = 0; i < 5 && (await s.ok('search_tasks', { query: 'quokka' })).index_behind !== undefined; i++);
    assert.deepEqual(queued(s), []);
  };
  const task = (feature: string, title: string, more: Record<string, unknown> = {}) => ({
    feature,
    discipline: 'backend',
    title,
    ...more,
  });
  const hints = (r: { possible_duplicates: any[] }, ...keys: string[]) =>
    r.possible_duplicates.map((h) => keys.map((k) => h[k]));

  test('create_task: near-duplicate titles come back as hints, most similar first, at most 5', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const r = await s.ok('create_task', task('recipes', 'Recipe REST endpoints for tags'));
    // 3 of 5 words ("for" counts: words of 3+ letters, as learnings compare).
    assert.deepEqual(r.possible_duplicates, [
      { id: 2, title: 'Recipe REST endpoints', feature: 'recipes', status: 'done', similarity: 0.6 },
    ]);
    // A title unlike every other: no hints.
    assert.deepEqual((await s.ok('create_task', task('search', 'Quokka importer'))).possible_duplicates, []);
    // In another feature: still a hint (it says where), never a refusal.
    const other = await s.ok('create_task', {
      ...task('recipes', 'Search box with suggestions'),
      discipline: 'frontend',
    });
    assert.deepEqual(hints(other, 'id', 'feature', 'similarity'), [[6, 'search', 1]]);
    for (let i = 0; i < 7; i++)
      await s.ok('create_task', task('auth', `Password reset email flow ${i}`, { duplicate_ok: true }));
    const many = await s.ok('create_task', task('auth', 'Password reset email flow'));
    assert.equal(many.possible_duplicates.length, 5);
    assert.ok(
      many.possible_duplicates.every(
        (h: any) => h.similarity >= 0.5 && h.title.startsWith('Password reset email flow'),
      ),
    );
  });

  test('create_task: a similar older title is found past many newer ones that share only a common word and one more', async () => {
    const s = await env.open({ recipe: 'yap' });
    const old = (await s.ok('create_task', task('search', 'Add nested locale widget'))).task.id;
    const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26));
    await indexed(
      s,
      'search',
      Array.from({ length: 200 }, (_, i) => `Add nested gadget ${letters(i)}x`),
    );
    const r = await s.ok('create_task', task('search', 'Add nested locale hook'));
    assert.deepEqual(hints(r, 'id', 'similarity'), [[old, 0.6]]);
  });

  test('create_task: an exact duplicate title in the same feature is refused and changes nothing; duplicate_ok creates it', async () => {
    const s = await env.open({ recipe: 'yap' });
    const n = taskCount(s);
    await unchanged(s, async () => {
      for (const title of ['Recipe REST endpoints', '  recipe   rest ENDPOINTS ']) {
        const err = await s.fail('create_task', task('recipes', title));
        assert.equal(err.code, 'conflict', title);
        assert.match(err.message, /already has a task titled "Recipe REST endpoints": #2 \(done\).*duplicate_ok: true/);
        assert.deepEqual(err.details.duplicates, [2]);
      }
    });
    // The same title in another feature is only a hint.
    const elsewhere = await s.ok('create_task', task('search', 'Recipe REST endpoints'));
    assert.deepEqual(hints(elsewhere, 'id', 'similarity'), [[2, 1]]);
    const meant = await s.ok('create_task', task('recipes', 'Recipe REST endpoints', { duplicate_ok: true }));
    assert.equal(meant.task.title, 'Recipe REST endpoints');
    assert.deepEqual(
      meant.possible_duplicates.map((h: any) => h.id),
      [elsewhere.task.id, 2],
    );
    assert.equal(taskCount(s), n + 2);
    // A task another program wrote a moment ago counts too (queued, it is compared by its title).
    const title = 'Nightly backup of the recipe database';
    insertTasks(s.project, env.generation, [{ id: 90, title, feature: 'recipes' }]);
    assert.equal((await s.fail('create_task', task('recipes', title))).code, 'conflict');
  });

  test('create_task: an exact duplicate is found however many newer titles start with the same words, and follows titles another program changes', async () => {
    const s = await env.open({ recipe: 'yap' });
    const first = (await s.ok('create_task', task('auth', 'Password reset'))).task.id;
    await indexed(
      s,
      'auth',
      Array.from({ length: 520 }, (_, i) => `Password reset ${i}`),
    );
    const err = await s.fail('create_task', task('auth', 'password  RESET'));
    assert.equal(err.code, 'conflict');
    assert.deepEqual(err.details.duplicates, [first]);
    // Task #2 retitled by another program: the old title is free, the new one taken.
    retitle(s.project, env.generation, 2, 'Recipe REST API');
    assert.deepEqual((await s.fail('create_task', task('recipes', 'Recipe REST API'))).details.duplicates, [2]);
    const freed = await s.ok('create_task', task('recipes', 'Recipe REST endpoints'));
    assert.equal(freed.task.title, 'Recipe REST endpoints');
  });

  test('the change queue holds only what the index reads: a status change queues nothing, a description change queues its task', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await s.ok('search_tasks', { query: 'recipe' }); // brings the index up to date: the queue is empty
    assert.deepEqual(queued(s), []);
    await s.ok('set_task_status', { id: 5, status: 'in_progress' });
    assert.deepEqual(queued(s), []);
    await s.ok('update_task', { id: 5, description: 'Tags come with autocomplete' });
    assert.deepEqual(queued(s), [5]);
    assert.deepEqual(
      (await s.ok('search_tasks', { query: 'autocomplete' })).results.map((h: any) => h.id),
      [5],
    );
    assert.deepEqual(queued(s), []);
  });

  test('creates leave their tasks to the change queue, compared one by one until the index catches up in one batch', async () => {
    const s = await env.open({ recipe: 'yap' });
    const first = (await s.ok('create_task', task('auth', 'Rotate signing keys nightly'))).task.id;
    assert.deepEqual(queued(s), [first]);
    // Queued tasks count as exact and as near duplicates.
    assert.deepEqual((await s.fail('create_task', task('auth', 'rotate SIGNING keys nightly'))).details.duplicates, [
      first,
    ]);
    const near = await s.ok('create_task', task('auth', 'Rotate signing keys weekly'));
    assert.deepEqual(hints(near, 'id', 'title', 'similarity'), [[first, 'Rotate signing keys nightly', 0.6]]);
    // Both indexed now; then another program retitles one and deletes the other: the index still has
    // their old titles, and neither is reported.
    await s.ok('search_tasks', { query: 'signing' });
    assert.deepEqual(queued(s), []);
    retitle(s.project, env.generation, first, 'Audit log retention');
    ralphRuns(
      s.project,
      env.generation,
      'DELETE FROM tasks WHERE id = ?',
      'DELETE FROM runtime_tasks WHERE id = ?',
      near.task.id,
    );
    assert.deepEqual((await s.ok('create_task', task('auth', 'Rotate signing keys nightly'))).possible_duplicates, []);
    assert.deepEqual((await s.fail('create_task', task('auth', 'Audit log retention'))).details.duplicates, [first]);
    // A create that finds more than the bound queued indexes them all first.
    let longest = 0;
    for (let i = 0; longest <= PENDING_TITLES_MAX && i < 3 * PENDING_TITLES_MAX; i++) {
      await s.ok('create_task', task('auth', `Queued title number ${i}`));
      longest = Math.max(longest, queued(s).length);
    }
    assert.equal(longest, PENDING_TITLES_MAX + 1);
    const last = (await s.ok('create_task', task('auth', 'After the batch'))).task.id;
    assert.deepEqual(queued(s), [last]);
    // The batch is searchable, and so is what is still queued (a search catches up first).
    assert.deepEqual(
      (await s.ok('search_tasks', { query: '"Queued title number 3"' })).results.map((h: any) => h.title),
      ['Queued title number 3'],
    );
    assert.equal((await s.ok('search_tasks', { query: 'batch' })).results[0].id, last);
  });

  test('spawn_subtasks: hints per created task, the parent and siblings left out; an exact duplicate refuses the whole split', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    const r = await s.ok('spawn_subtasks', {
      parent_id: 6,
      tasks: [{ title: 'Search box with suggestions' }, { title: 'Recipe REST endpoints cache' }],
    });
    const two = { id: 2, title: 'Recipe REST endpoints', feature: 'recipes', status: 'done', similarity: 0.75 };
    assert.deepEqual(r.possible_duplicates, [{ index: 1, task_id: r.created[1].id, matches: [two] }]);
    await unchanged(s, async () => {
      const tasks = [{ title: 'part one' }, { title: 'Search box with suggestions' }];
      const err = await s.fail('spawn_subtasks', { parent_id: 5, tasks });
      assert.equal(err.code, 'conflict');
      assert.match(err.message, /^tasks\[1\]: .*already has a task titled/);
    });
    const meant = { parent_id: 5, tasks: [{ title: 'Search box with suggestions' }], duplicate_ok: true };
    assert.equal((await s.ok('spawn_subtasks', meant)).created.length, 1);
  });

  test('create_feature / create_discipline: similar names come back as hints', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const feature = async (name: string) =>
      (await s.ok('create_feature', { name, display_name: name })).possible_duplicates;
    const discipline = async (name: string) =>
      (await s.ok('create_discipline', { name, display_name: name, icon: 'Code', color: '#000000' }))
        .possible_duplicates;
    assert.deepEqual(await feature('authentication'), [{ name: 'auth', why: 'contains' }]);
    assert.deepEqual(await feature('recipe'), [{ name: 'recipes', why: 'contains' }]);
    assert.deepEqual(await feature('billing'), []);
    assert.deepEqual(await discipline('front-end'), [{ name: 'frontend', why: 'same_spelling' }]);
    assert.deepEqual(await discipline('qa'), []);
  });
});
