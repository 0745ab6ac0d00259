import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refused, rows, useSession, type AnyRow } from '../helpers/assertions.js';
import { auditRows, ids, insertComment, insertTasks, ralphWrites } from './support.js';

/**
 * Issue 3, search_tasks: ranked full-text search that sees what Ralph writes with plain SQL (after the
 * server started, after a first search), ranks a title match above a comment match, and never fails on
 * quotes, FTS operators or non-ASCII text in the query.
 */

describe('search_tasks sees rows Ralph writes directly (braindump)', () => {
  const ctx = useSession(['--recipe', 'braindump', '--session-id', 'search-1']);

  test('a first search works on the seeded tasks', async () => {
    const r = await ctx.s.ok('search_tasks', { query: 'recipe editor' });
    assert.ok(ids(r.results).includes(3), `task 3 (Recipe editor form) found: ${JSON.stringify(r.results)}`);
    assert.equal(r.matched, 'all');
    const hit = r.results.find((x: AnyRow) => x.id === 3);
    const db = rows(ctx.p, 'SELECT id, title, status, priority, feature, discipline FROM tasks WHERE id = 3')[0]!;
    for (const k of ['title', 'status', 'priority', 'feature', 'discipline']) assert.equal(hit[k], db[k], k);
    assert.equal(typeof hit.score, 'number');
    assert.equal(typeof hit.snippet, 'string');
  });

  test('finds a task inserted by plain SQL after the server started and after the first search', async () => {
    const { s, p } = ctx;
    assert.deepEqual((await s.ok('search_tasks', { query: 'zanzibar' })).results, []);
    insertTasks(p, [{ id: 30, title: 'Zanzibar spice importer', description: 'Import spice blends from a CSV file' }]);
    const r = await s.ok('search_tasks', { query: 'zanzibar' });
    assert.deepEqual(ids(r.results), [30]);
    // Other columns Ralph fills are searchable too: description, hints, acceptance criteria.
    insertTasks(p, [
      {
        id: 31,
        title: 'Untitled',
        hints: 'look at the gooseberry parser',
        acceptance_criteria: ['Handles marzipan units'],
      },
    ]);
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'gooseberry' })).results), [31]);
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'marzipan' })).results), [31]);
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'blends csv' })).results), [30]);
  });

  test('finds a task by a comment Ralph added with SQL', async () => {
    const { s, p } = ctx;
    assert.deepEqual((await s.ok('search_tasks', { query: 'quetzal' })).results, []);
    insertComment(p, 6, 'The quetzal theme needs a darker suggestion list');
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'quetzal' })).results), [6]);
  });

  test('follows SQL updates and deletes of tasks and comments', async () => {
    const { s, p } = ctx;
    ralphWrites(p, (run) => run("UPDATE tasks SET title = 'Kumquat typeahead' WHERE id = 6"));
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'kumquat' })).results), [6]);
    assert.ok(
      !ids((await s.ok('search_tasks', { query: 'suggestions' })).results).includes(6),
      'the old title is gone from the index',
    );
    ralphWrites(p, (run) => run("DELETE FROM task_comments WHERE task_id = 6 AND body LIKE '%quetzal%'"));
    assert.deepEqual((await s.ok('search_tasks', { query: 'quetzal' })).results, []);
    ralphWrites(p, (run) => run('DELETE FROM tasks WHERE id = 30'));
    assert.deepEqual((await s.ok('search_tasks', { query: 'zanzibar' })).results, []);
  });

  test("sees this server's own writes", async () => {
    await ctx.s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Rutabaga ranking tweaks' });
    const r = await ctx.s.ok('search_tasks', { query: 'rutabaga' });
    assert.equal(r.results.length, 1);
  });

  test('searching writes no audit row and no Ralph data', () => {
    assert.deepEqual(auditRows(ctx.p, "tool = 'search_tasks'"), []);
  });
});

describe('search_tasks: a row written before the server ever searched (second session)', () => {
  const ctx = useSession(['--recipe', 'yap']);

  test('a task inserted by SQL before the first search is found', async () => {
    insertTasks(ctx.p, [{ id: 60, title: 'Persimmon import', feature: 'recipes' }]);
    insertComment(ctx.p, 5, 'Remember the persimmon edge case');
    const r = await ctx.s.ok('search_tasks', { query: 'persimmon' });
    assert.deepEqual(ids(r.results), [60, 5], 'title match first, comment match second');
  });
});

describe('search_tasks ranking', () => {
  const ctx = useSession(['--recipe', 'yap']);

  test('a title match ranks above a comment-only match', async () => {
    const { s, p } = ctx;
    // The comment-only task is older (lower id) and mentions the word twice: ranking, not id order, must decide.
    insertTasks(p, [{ id: 40, title: 'Dessert ideas', description: 'Sweet things for the menu' }]);
    insertComment(p, 40, 'Try pomegranate seeds on top; pomegranate molasses in the glaze');
    insertTasks(p, [{ id: 41, title: 'Pomegranate glaze recipe', description: 'A sticky glaze for roasts' }]);
    const r = await s.ok('search_tasks', { query: 'pomegranate' });
    assert.deepEqual(ids(r.results), [41, 40]);
    assert.ok(r.results[0].score > r.results[1].score, `scores ${r.results[0].score} > ${r.results[1].score}`);
  });

  test('a description match ranks above a comment-only match too', async () => {
    const { s, p } = ctx;
    insertTasks(p, [{ id: 42, title: 'Misc', description: 'General notes' }]);
    insertComment(p, 42, 'tamarind paste goes here');
    insertTasks(p, [{ id: 43, title: 'Sauces', description: 'A tamarind sauce for noodles' }]);
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'tamarind' })).results), [43, 42]);
  });
});

describe('search_tasks: hostile and non-ASCII queries', () => {
  const ctx = useSession(['--recipe', 'braindump']);

  test('quotes, FTS operators, column filters, NEAR, stars and minus signs never cause an error', async () => {
    const { s } = ctx;
    const queries = [
      '"unbalanced',
      'unbalanced"',
      '"recipe',
      "recipe's",
      'AND OR NOT',
      'recipe AND',
      'OR recipe',
      'NOT recipe',
      'title:foo',
      'title:recipe',
      '{title description}: recipe',
      'NEAR(a b)',
      'NEAR(recipe editor, 2)',
      'recipe*',
      '*recipe',
      '^recipe',
      '-x',
      '-recipe',
      'recipe -editor',
      '(recipe',
      'recipe)',
      'a + b',
      'rowid:1',
      "'; DROP TABLE tasks; --",
      'ralph_mcp_search MATCH',
      'x'.repeat(500),
    ];
    for (const query of queries) {
      const r = await s.call('search_tasks', { query });
      assert.ok(!r.isError, `${JSON.stringify(query)}: ${JSON.stringify(r.structuredContent)}`);
      assert.ok(Array.isArray((r.structuredContent as AnyRow).results), query);
    }
    // Quotes and operators are searched as plain words.
    for (const query of ['"recipe', 'recipe*', '-recipe', 'NOT recipe', '(recipe', 'recipe)']) {
      const found = ids((await s.ok('search_tasks', { query })).results);
      assert.ok(found.includes(1), `${JSON.stringify(query)} finds task 1 (Recipe table…): ${found.join(', ')}`);
    }
    // "title:recipe" is the two words title and recipe, not a column filter: only task 5 has both
    // ("Search for a word in a title finds the recipe"); a column filter would find 1, 2 and 3 instead.
    assert.deepEqual(ids((await s.ok('search_tasks', { query: 'title:recipe' })).results), [5]);
    assert.equal(rows(ctx.p, 'SELECT count(*) AS n FROM tasks')[0]!.n, 8, 'tasks table intact');
  });

  test('non-ASCII text in the query and in the rows', async () => {
    const { s, p } = ctx;
    insertTasks(p, [
      { id: 50, title: 'Café menu layout', feature: 'recipes', discipline: 'frontend' },
      { id: 51, title: '日本語 レシピ の 翻訳', feature: 'recipes', discipline: 'documentation' },
      { id: 52, title: 'Crème brûlée timing', feature: 'recipes' },
      { id: 53, title: 'Straße names in addresses', feature: 'auth' },
    ]);
    const find = async (query: string) => {
      const r = await s.call('search_tasks', { query });
      assert.ok(!r.isError, `${JSON.stringify(query)}: ${JSON.stringify(r.structuredContent)}`);
      return ids((r.structuredContent as AnyRow).results);
    };
    assert.deepEqual(await find('café'), [50]);
    assert.deepEqual(await find('cafe'), [50], 'diacritics are folded');
    assert.deepEqual(await find('日本語'), [51]);
    assert.deepEqual(await find('brûlée'), [52]);
    assert.deepEqual(await find('Straße'), [53]);
    for (const q of [
      '"café',
      'café*',
      '-日本語',
      'Ωμέγα',
      'naïve AND "x',
      'emoji 🍕 recipe',
      '\u0000recipe',
      'zero\u200bwidth',
    ])
      await find(q);
  });

  test('a query with no letters or digits → invalid_argument', async () => {
    const { s, p } = ctx;
    for (const query of ['*', '"', '""', '-', '()', '*:^', '   ', '🍕🍕', '"*" - ( )']) {
      await refused(s, p, 'search_tasks', { query }, 'invalid_argument');
    }
    await refused(s, p, 'search_tasks', { query: '' }, 'invalid_argument');
    await refused(s, p, 'search_tasks', {}, 'invalid_argument');
    await refused(s, p, 'search_tasks', { query: 'x'.repeat(501) }, 'invalid_argument');
  });
});

describe('search_tasks filters', () => {
  const ctx = useSession(['--recipe', 'braindump']);

  test('status, feature and discipline filters agree with SQL', async () => {
    const { s, p } = ctx;
    const find = async (args: Record<string, unknown>) =>
      ids((await s.ok('search_tasks', args)).results).sort((a, b) => a - b);
    assert.deepEqual(
      await find({ query: 'recipe' }),
      [1, 2, 3, 4, 5],
      'every task mentioning recipe (title, description, comment)',
    );
    assert.deepEqual(await find({ query: 'recipe', status: 'done' }), [1, 2]);
    assert.deepEqual(await find({ query: 'recipe', status: 'pending' }), [4, 5]);
    assert.deepEqual(await find({ query: 'recipe', feature: 'search' }), [5]);
    assert.deepEqual(await find({ query: 'recipe', discipline: 'frontend' }), [3]);
    assert.deepEqual(
      await find({ query: 'recipe', feature: 'recipes', discipline: 'backend', status: 'done' }),
      [1, 2],
    );
    assert.deepEqual(await find({ query: 'sign', feature: 'auth' }), [7, 8]);
    assert.deepEqual(await find({ query: 'sign', discipline: 'documentation' }), [8]);
    assert.deepEqual(await find({ query: 'recipe', status: 'draft' }), []);
    // What SQL says about the same filter (every hit really has that status).
    const done = new Set(rows(p, "SELECT id FROM tasks WHERE status = 'done'").map((r) => r.id));
    for (const id of await find({ query: 'recipe', status: 'done' })) assert.ok(done.has(id));
  });

  test('limit, and the any-word fallback', async () => {
    const { s } = ctx;
    assert.equal((await s.ok('search_tasks', { query: 'recipe', limit: 2 })).results.length, 2);
    const any = await s.ok('search_tasks', { query: 'recipe zzzznotaword' });
    assert.equal(any.matched, 'any');
    assert.ok(any.results.length > 0);
    const none = await s.ok('search_tasks', { query: 'zzzznotaword qqqqnotaword' });
    assert.equal(none.matched, 'none');
    assert.deepEqual(none.results, []);
  });

  test('unknown feature / discipline → not_found; bad status or limit → invalid_argument', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'search_tasks', { query: 'recipe', feature: 'payments' }, 'not_found');
    await refused(s, p, 'search_tasks', { query: 'recipe', discipline: 'design' }, 'not_found');
    await refused(s, p, 'search_tasks', { query: 'recipe', status: 'open' }, 'invalid_argument');
    await refused(s, p, 'search_tasks', { query: 'recipe', limit: 0 }, 'invalid_argument');
    await refused(s, p, 'search_tasks', { query: 'recipe', limit: 101 }, 'invalid_argument');
  });
});
