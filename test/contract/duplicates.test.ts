import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { PENDING_TITLES_MAX } from '../../src/store/own/search.js';
import { query } from '../helpers/project.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/**
 * Duplicate hints: creates answer with possible_duplicates (similar task titles by word-set
 * similarity over candidates from the search index; similar feature and discipline names), at most 5;
 * an exact duplicate title in the same feature is refused unless the caller says it is intended.
 * Sample titles: 'Recipe REST endpoints' (#2, recipes), 'Search box with suggestions' (#6, search), …
 */
contract('duplicate hints', (env) => {
  const taskCount = (s: { project: any }) =>
    query<{ n: number }>(
      s.project,
      env.generation === 'legacy' ? 'SELECT count(*) AS n FROM tasks' : 'SELECT count(*) AS n FROM runtime_tasks',
    )[0]!.n;

  test('create_task: near-duplicate titles come back as hints, most similar first, at most 5', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const r = await s.ok('create_task', {
      feature: 'recipes',
      discipline: 'backend',
      title: 'Recipe REST endpoints for tags',
    });
    // 3 of 5 words ("for" counts: words of 3+ letters, as learnings compare).
    assert.deepEqual(r.possible_duplicates, [
      { id: 2, title: 'Recipe REST endpoints', feature: 'recipes', status: 'done', similarity: 0.6 },
    ]);
    // A title unlike every other: no hints.
    assert.deepEqual(
      (await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Quokka importer' }))
        .possible_duplicates,
      [],
    );
    // In another feature: still a hint (it says where), never a refusal.
    const other = await s.ok('create_task', {
      feature: 'recipes',
      discipline: 'frontend',
      title: 'Search box with suggestions',
    });
    assert.deepEqual(
      other.possible_duplicates.map((h: any) => [h.id, h.feature, h.similarity]),
      [[6, 'search', 1]],
    );
    for (let i = 0; i < 7; i++)
      await s.ok('create_task', {
        feature: 'auth',
        discipline: 'backend',
        title: `Password reset email flow ${i}`,
        duplicate_ok: true,
      });
    const many = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Password reset email flow',
    });
    assert.equal(many.possible_duplicates.length, 5);
    assert.ok(
      many.possible_duplicates.every(
        (h: any) => h.similarity >= 0.5 && h.title.startsWith('Password reset email flow'),
      ),
    );
  });

  test('create_task: a similar older title is found past many newer ones that share only a common word and one more', async () => {
    // Many creates: Ralph's read rules are checked once, after them, not after each.
    const s = await env.open({ recipe: 'yap' }, undefined, { invariants: false });
    const old = (
      await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Add nested locale widget' })
    ).task.id;
    const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26));
    for (let i = 0; i < 200; i++)
      await s.ok('create_task', {
        feature: 'search',
        discipline: 'backend',
        title: `Add nested gadget ${letters(i)}x`,
      });
    const r = await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Add nested locale hook' });
    assert.deepEqual(env.invariants(s.project), []);
    assert.deepEqual(
      r.possible_duplicates.map((h: any) => [h.id, h.similarity]),
      [[old, 0.6]],
    );
  });

  test('create_task: an exact duplicate title in the same feature is refused and changes nothing; duplicate_ok creates it', async () => {
    const s = await env.open({ recipe: 'yap' });
    const n = taskCount(s);
    await unchanged(s, async () => {
      for (const title of ['Recipe REST endpoints', '  recipe   rest ENDPOINTS ']) {
        const err = await s.fail('create_task', { feature: 'recipes', discipline: 'backend', title });
        assert.equal(err.code, 'conflict', title);
        assert.match(err.message, /already has a task titled "Recipe REST endpoints": #2 \(done\).*duplicate_ok: true/);
        assert.deepEqual(err.details.duplicates, [2]);
      }
    });
    // The same title in another feature is only a hint.
    const elsewhere = await s.ok('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'Recipe REST endpoints',
    });
    assert.deepEqual(
      elsewhere.possible_duplicates.map((h: any) => [h.id, h.similarity]),
      [[2, 1]],
    );
    const meant = await s.ok('create_task', {
      feature: 'recipes',
      discipline: 'backend',
      title: 'Recipe REST endpoints',
      duplicate_ok: true,
    });
    assert.equal(meant.task.title, 'Recipe REST endpoints');
    assert.deepEqual(
      meant.possible_duplicates.map((h: any) => h.id),
      [elsewhere.task.id, 2],
    );
    assert.equal(taskCount(s), n + 2);
    // A task another program wrote a moment ago counts too (queued, it is compared by its title).
    const title = 'Nightly backup of the recipe database';
    if (env.generation === 'legacy') {
      const db = new Database(s.project.dbPath);
      db.prepare(
        "INSERT INTO tasks (id, feature, discipline, title, status) VALUES (90, 'recipes', 'backend', ?, 'pending')",
      ).run(title);
      db.close();
      assert.equal(
        (await s.fail('create_task', { feature: 'recipes', discipline: 'backend', title })).code,
        'conflict',
      );
    }
  });

  test('create_task: an exact duplicate is found however many newer titles start with the same words, and follows titles another program changes', async () => {
    const s = await env.open({ recipe: 'yap' }, undefined, { invariants: false });
    const first = (await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'Password reset' })).task
      .id;
    for (let i = 0; i < 520; i++)
      await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: `Password reset ${i}` });
    assert.deepEqual(env.invariants(s.project), []);
    const err = await s.fail('create_task', { feature: 'auth', discipline: 'backend', title: 'password  RESET' });
    assert.equal(err.code, 'conflict');
    assert.deepEqual(err.details.duplicates, [first]);
    // Task #2 retitled by another program: the old title is free, the new one taken.
    const db = new Database(s.project.dbPath);
    if (env.generation === 'legacy') db.prepare("UPDATE tasks SET title = 'Recipe REST API' WHERE id = 2").run();
    else
      db.prepare(
        "UPDATE task_details SET title = 'Recipe REST API' WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = 2)",
      ).run();
    db.close();
    assert.deepEqual(
      (await s.fail('create_task', { feature: 'recipes', discipline: 'backend', title: 'Recipe REST API' })).details
        .duplicates,
      [2],
    );
    assert.equal(
      (await s.ok('create_task', { feature: 'recipes', discipline: 'backend', title: 'Recipe REST endpoints' })).task
        .title,
      'Recipe REST endpoints',
    );
  });

  test('the change queue holds only what the index reads: a status change queues nothing, a description change queues its task', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const queued = () =>
      query<{ task_id: number }>(s.project, 'SELECT task_id FROM ralph_mcp_search_dirty ORDER BY task_id').map(
        (r) => r.task_id,
      );
    await s.ok('search_tasks', { query: 'recipe' }); // brings the index up to date: the queue is empty
    assert.deepEqual(queued(), []);
    await s.ok('set_task_status', { id: 5, status: 'in_progress' });
    assert.deepEqual(queued(), []);
    await s.ok('update_task', { id: 5, description: 'Tags come with autocomplete' });
    assert.deepEqual(queued(), [5]);
    assert.deepEqual(
      (await s.ok('search_tasks', { query: 'autocomplete' })).results.map((h: any) => h.id),
      [5],
    );
    assert.deepEqual(queued(), []);
  });

  test('creates leave their tasks to the change queue, compared one by one until the index catches up in one batch', async () => {
    const s = await env.open({ recipe: 'yap' });
    const queued = () =>
      query<{ task_id: number }>(s.project, 'SELECT task_id FROM ralph_mcp_search_dirty ORDER BY task_id').map(
        (r) => r.task_id,
      );
    const first = (
      await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'Rotate signing keys nightly' })
    ).task.id;
    assert.deepEqual(queued(), [first]);
    // Queued tasks count as exact and as near duplicates.
    assert.deepEqual(
      (await s.fail('create_task', { feature: 'auth', discipline: 'backend', title: 'rotate SIGNING keys nightly' }))
        .details.duplicates,
      [first],
    );
    const near = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Rotate signing keys weekly',
    });
    assert.deepEqual(
      near.possible_duplicates.map((h: any) => [h.id, h.title, h.similarity]),
      [[first, 'Rotate signing keys nightly', 0.6]],
    );
    // Both indexed now; then another program retitles one and deletes the other: the index still has
    // their old titles, and neither is reported.
    await s.ok('search_tasks', { query: 'signing' });
    assert.deepEqual(queued(), []);
    const db = new Database(s.project.dbPath);
    if (env.generation === 'legacy') {
      db.prepare("UPDATE tasks SET title = 'Audit log retention' WHERE id = ?").run(first);
      db.prepare('DELETE FROM tasks WHERE id = ?').run(near.task.id);
    } else {
      db.prepare(
        "UPDATE task_details SET title = 'Audit log retention' WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = ?)",
      ).run(first);
      db.prepare('DELETE FROM runtime_tasks WHERE id = ?').run(near.task.id);
    }
    db.close();
    const again = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Rotate signing keys nightly',
    });
    assert.deepEqual(again.possible_duplicates, []);
    assert.deepEqual(
      (await s.fail('create_task', { feature: 'auth', discipline: 'backend', title: 'Audit log retention' })).details
        .duplicates,
      [first],
    );
    // A create that finds more than the bound queued indexes them all first.
    let longest = 0;
    for (let i = 0; longest <= PENDING_TITLES_MAX && i < 3 * PENDING_TITLES_MAX; i++) {
      await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: `Queued title number ${i}` });
      longest = Math.max(longest, queued().length);
    }
    assert.equal(longest, PENDING_TITLES_MAX + 1);
    const last = (await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'After the batch' })).task
      .id;
    assert.deepEqual(queued(), [last]);
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
    assert.deepEqual(r.possible_duplicates, [
      {
        index: 1,
        task_id: r.created[1].id,
        matches: [{ id: 2, title: 'Recipe REST endpoints', feature: 'recipes', status: 'done', similarity: 0.75 }],
      },
    ]);
    await unchanged(s, async () => {
      const err = await s.fail('spawn_subtasks', {
        parent_id: 5,
        tasks: [{ title: 'part one' }, { title: 'Search box with suggestions' }],
      });
      assert.equal(err.code, 'conflict');
      assert.match(err.message, /^tasks\[1\]: .*already has a task titled/);
    });
    assert.equal(
      (
        await s.ok('spawn_subtasks', {
          parent_id: 5,
          tasks: [{ title: 'Search box with suggestions' }],
          duplicate_ok: true,
        })
      ).created.length,
      1,
    );
  });

  test('create_feature / create_discipline: similar names come back as hints', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const auth = await s.ok('create_feature', { name: 'authentication', display_name: 'Authentication' });
    assert.deepEqual(auth.possible_duplicates, [{ name: 'auth', why: 'contains' }]);
    assert.deepEqual((await s.ok('create_feature', { name: 'recipe', display_name: 'Recipe' })).possible_duplicates, [
      { name: 'recipes', why: 'contains' },
    ]);
    assert.deepEqual(
      (await s.ok('create_feature', { name: 'billing', display_name: 'Billing' })).possible_duplicates,
      [],
    );
    assert.deepEqual(
      (
        await s.ok('create_discipline', {
          name: 'front-end',
          display_name: 'Front end',
          icon: 'Code',
          color: '#000000',
        })
      ).possible_duplicates,
      [{ name: 'frontend', why: 'same_spelling' }],
    );
    assert.deepEqual(
      (await s.ok('create_discipline', { name: 'qa', display_name: 'QA', icon: 'Code', color: '#000000' }))
        .possible_duplicates,
      [],
    );
  });
});
