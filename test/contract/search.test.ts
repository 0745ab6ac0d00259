import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnyRow, rows } from '../helpers/assertions.js';
import { query } from '../helpers/project.js';
import { SEARCH_BOUNDS } from '../../src/store/searchBounds.js';
import { ralphTask, ralphTaskList } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { insertComment, insertTasks, type RalphTask, ralphRuns, retitle } from './support.search.js';

/**
 * search_tasks on both generations: ranked full-text search that sees what Ralph writes with plain SQL
 * (after the server started, after a first search), ranks a title match above a comment match, and never
 * fails on quotes, FTS operators or non-ASCII text in the query.
 */

const ids = (r: { results: { id: number }[] }): number[] => r.results.map((x) => x.id);

contract('search_tasks', (env) => {
  const legacy = env.generation === 'legacy';
  const tasks = (s: InProcSession, list: RalphTask[]) => insertTasks(s.project, env.generation, list);
  const comment = (s: InProcSession, id: number, body: string) => insertComment(s.project, env.generation, id, body);
  const either = (s: InProcSession, legacySql: string, normalizedSql: string) =>
    ralphRuns(s.project, env.generation, legacySql, normalizedSql);
  const search = (s: InProcSession, query: string) => s.ok('search_tasks', { query });

  test('sees what Ralph writes with SQL after the start and after a first search; its own writes', async () => {
    const s = await env.open({ recipe: 'braindump', sessionId: 'search-1' });
    const find = async (query: string) => ids(await search(s, query));
    const hit = (await search(s, 'recipe editor')).results.find((x: AnyRow) => x.id === 3);
    const three = ralphTask(s.project.dbPath, 3)! as unknown as AnyRow;
    for (const k of ['title', 'status', 'priority', 'feature', 'discipline']) assert.equal(hit[k], three[k], k);
    assert.equal(typeof hit.score, 'number');
    assert.equal(typeof hit.snippet, 'string');

    assert.deepEqual(await find('zanzibar'), []);
    tasks(s, [{ id: 30, title: 'Zanzibar spice importer', description: 'Import spice blends from a CSV file' }]);
    assert.deepEqual(await find('zanzibar'), [30]);
    // Other columns Ralph fills are searchable too: description, hints, acceptance criteria.
    tasks(s, [
      {
        id: 31,
        title: 'Untitled',
        hints: 'look at the gooseberry parser',
        acceptance_criteria: ['Handles marzipan units'],
      },
    ]);
    assert.deepEqual(await find('gooseberry'), [31]);
    assert.deepEqual(await find('marzipan'), [31]);
    assert.deepEqual(await find('blends csv'), [30]);
    assert.deepEqual(await find('quetzal'), []);
    comment(s, 6, 'The quetzal theme needs a darker suggestion list');
    assert.deepEqual(await find('quetzal'), [6]);

    // SQL updates and deletes of tasks and comments.
    retitle(s.project, env.generation, 6, 'Kumquat typeahead');
    assert.deepEqual(await find('kumquat'), [6]);
    assert.ok(!(await find('suggestions')).includes(6), 'the old title is gone from the index');
    either(
      s,
      "DELETE FROM task_comments WHERE task_id = 6 AND body LIKE '%quetzal%'",
      "DELETE FROM task_signals WHERE task_id = 6 AND text LIKE '%quetzal%'",
    );
    assert.deepEqual(await find('quetzal'), []);
    either(s, 'DELETE FROM tasks WHERE id = 30', 'DELETE FROM runtime_tasks WHERE id = 30');
    assert.deepEqual(await find('zanzibar'), []);

    await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Rutabaga ranking tweaks' });
    assert.equal((await find('rutabaga')).length, 1);
    assert.deepEqual(rows(s.project, "SELECT * FROM ralph_mcp_audit WHERE tool = 'search_tasks'"), [], 'no audit row');
  });

  test('ranking: what was written before any search is found; title or description above a comment', async () => {
    const s = await env.open({ recipe: 'yap' });
    tasks(s, [{ id: 60, title: 'Persimmon import', feature: 'recipes' }]);
    comment(s, 5, 'Remember the persimmon edge case');
    assert.deepEqual(ids(await search(s, 'persimmon')), [60, 5], 'title match first');
    // The comment-only task is older (lower id) and mentions the word twice: ranking, not id order, must decide.
    tasks(s, [{ id: 40, title: 'Dessert ideas', description: 'Sweet things for the menu' }]);
    comment(s, 40, 'Try pomegranate seeds on top; pomegranate molasses in the glaze');
    tasks(s, [{ id: 41, title: 'Pomegranate glaze recipe', description: 'A sticky glaze for roasts' }]);
    const r = await search(s, 'pomegranate');
    assert.deepEqual(ids(r), [41, 40]);
    assert.ok(r.results[0].score > r.results[1].score, `scores ${r.results[0].score} > ${r.results[1].score}`);
    tasks(s, [{ id: 42, title: 'Misc', description: 'General notes' }]);
    comment(s, 42, 'tamarind paste goes here');
    tasks(s, [{ id: 43, title: 'Sauces', description: 'A tamarind sauce for noodles' }]);
    assert.deepEqual(ids(await search(s, 'tamarind')), [43, 42]);
  });

  test('quotes, FTS operators, column filters, NEAR, stars and minus signs: plain words, never an error', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const queries = [
      ...['"unbalanced', 'unbalanced"', '"recipe', "recipe's", 'AND OR NOT', 'recipe AND', 'OR recipe', 'NOT recipe'],
      ...['title:foo', 'title:recipe', '{title description}: recipe', 'NEAR(a b)', 'NEAR(recipe editor, 2)'],
      ...['recipe*', '*recipe', '^recipe', '-x', '-recipe', 'recipe -editor', '(recipe', 'recipe)', 'a + b'],
      ...['rowid:1', "'; DROP TABLE tasks; --", 'ralph_mcp_search MATCH', 'x'.repeat(500)],
    ];
    for (const query of queries) {
      const r = await s.call('search_tasks', { query });
      assert.ok(!r.isError, `${JSON.stringify(query)}: ${JSON.stringify(r.structuredContent)}`);
      assert.ok(Array.isArray((r.structuredContent as AnyRow).results), query);
    }
    for (const query of ['"recipe', 'recipe*', '-recipe', 'NOT recipe', '(recipe', 'recipe)']) {
      const found = ids(await search(s, query));
      assert.ok(found.includes(1), `${JSON.stringify(query)} finds task 1 (Recipe table…): ${found.join(', ')}`);
    }
    // "title:recipe" is the two words title and recipe, not a column filter: only task 5 has both
    // ("Search for a word in a title finds the recipe"); a column filter would find 1, 2 and 3 instead.
    assert.deepEqual(ids(await search(s, 'title:recipe')), [5]);
    assert.equal(ralphTaskList(s.project.dbPath).length, 8, 'tasks intact');
  });

  test('non-ASCII text in the query and in the rows; a query with no letters or digits is refused', async () => {
    const s = await env.open({ recipe: 'braindump' });
    tasks(s, [
      { id: 50, title: 'Café menu layout', feature: 'recipes', discipline: 'frontend' },
      { id: 51, title: '日本語 レシピ の 翻訳', feature: 'recipes', discipline: 'documentation' },
      { id: 52, title: 'Crème brûlée timing', feature: 'recipes' },
      { id: 53, title: 'Straße names in addresses', feature: 'auth' },
    ]);
    const find = async (query: string) => {
      const r = await s.call('search_tasks', { query });
      assert.ok(!r.isError, `${JSON.stringify(query)}: ${JSON.stringify(r.structuredContent)}`);
      return ids(r.structuredContent as AnyRow as { results: { id: number }[] });
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
    const noLetters = ['*', '"', '""', '-', '()', '*:^', '   ', '🍕🍕', '"*" - ( )', '', 'x'.repeat(501)];
    for (const args of [...noLetters.map((query) => ({ query })), {}])
      await unchanged(s, async () =>
        assert.equal((await s.fail('search_tasks', args)).code, 'invalid_argument', JSON.stringify(args)),
      );
  });

  test('filters agree with what Ralph stores; limit; the any-word fallback; bad filters refused', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const find = async (args: Record<string, unknown>) =>
      ids(await s.ok('search_tasks', { query: 'recipe', ...args })).sort((a, b) => a - b);
    // Every task mentioning recipe (title, description, comment), then narrowed.
    for (const [args, want] of [
      [{}, [1, 2, 3, 4, 5]],
      [{ status: 'done' }, [1, 2]],
      [{ status: 'pending' }, [4, 5]],
      [{ feature: 'search' }, [5]],
      [{ discipline: 'frontend' }, [3]],
      [{ feature: 'recipes', discipline: 'backend', status: 'done' }, [1, 2]],
      [{ query: 'sign', feature: 'auth' }, [7, 8]],
      [{ query: 'sign', discipline: 'documentation' }, [8]],
      [{ status: 'draft' }, []],
    ] as const)
      assert.deepEqual(await find(args), want, JSON.stringify(args));
    const done = new Set(ralphTaskList(s.project.dbPath).flatMap((t) => (t.status === 'done' ? [t.id] : [])));
    for (const id of await find({ status: 'done' })) assert.ok(done.has(id));

    assert.equal((await s.ok('search_tasks', { query: 'recipe', limit: 2 })).results.length, 2);
    const any = await search(s, 'recipe zzzznotaword');
    assert.equal(any.matched, 'any');
    assert.ok(any.results.length > 0);
    const none = await search(s, 'zzzznotaword qqqqnotaword');
    assert.deepEqual([none.matched, none.results], ['none', []]);
    for (const [args, code] of [
      [{ feature: 'payments' }, 'not_found'],
      [{ discipline: 'design' }, 'not_found'],
      [{ status: 'open' }, 'invalid_argument'],
      [{ limit: 0 }, 'invalid_argument'],
      [{ limit: 101 }, 'invalid_argument'],
    ] as const)
      await unchanged(s, async () =>
        assert.equal((await s.fail('search_tasks', { query: 'recipe', ...args })).code, code, JSON.stringify(args)),
      );
  });

  /**
   * Another program rewrites many titles at once: each request re-indexes one chunk of the queue
   * (SEARCH_BOUNDS.catchUpRows, newest first), leaves the rest out of its answer and says how many.
   */
  const CHUNK = SEARCH_BOUNDS.catchUpRows;
  const MANY = 2 * CHUNK + CHUNK / 2;
  const walruses = (s: InProcSession) =>
    tasks(
      s,
      Array.from({ length: MANY }, (_, i) => ({ id: 1001 + i, title: `Walrus task ${1001 + i}` })),
    );
  const rewrite = (s: InProcSession) =>
    either(
      s,
      "UPDATE tasks SET title = replace(title, 'Walrus', 'Narwhal') || ' v2' WHERE id > 1000",
      `UPDATE task_details SET title = replace(title, 'Walrus', 'Narwhal') || ' v2'
         WHERE id IN (SELECT details_id FROM runtime_tasks WHERE id > 1000)`,
    );
  const queued = (s: InProcSession) =>
    query<{ n: number }>(s.project, 'SELECT count(*) AS n FROM ralph_mcp_search_dirty')[0]!.n;
  const caughtUp = async (s: InProcSession) => {
    for (let i = 0; i < 10 && (await search(s, 'narwhal')).index_behind !== undefined; i++);
    // A slice the last call scheduled runs (and finds nothing to do) before the test writes again.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  const create = (title: string) => ({ feature: 'search', discipline: 'backend', title });

  test('a rewrite of many titles by another program is caught up a chunk per request, never answered stale', async () => {
    const s = await env.open({ recipe: 'yap' }, undefined, { server: { searchCatchUp: false } });
    walruses(s);
    await caughtUp(s);
    assert.equal(queued(s), 0);
    rewrite(s);
    assert.equal(queued(s), MANY);

    // One chunk, newest first; the queued tasks (whose indexed title is the old one) are left out.
    const first = await search(s, 'walrus');
    assert.deepEqual([first.results, first.index_behind], [[], MANY - CHUNK]);
    // A create pays one chunk too, and still compares the queued tasks' titles as they are now.
    const created = await s.ok('create_task', create('Narwhal task 1001 v3'));
    assert.equal(queued(s), MANY - 2 * CHUNK + 1);
    assert.ok(
      created.possible_duplicates.some((h: AnyRow) => h.id === 1001 && h.title === 'Narwhal task 1001 v2'),
      JSON.stringify(created.possible_duplicates),
    );
    const dup = await s.fail('create_task', create('narwhal TASK 1001 v2'));
    assert.deepEqual([dup.code, dup.details.duplicates], ['conflict', [1001]]);
    const partial = await s.ok('search_tasks', { query: 'narwhal', limit: 100 });
    assert.equal(partial.index_behind, undefined, 'the last chunk was re-indexed before the answer');

    // Caught up: the index holds what a rebuild would, and answers in full.
    const titles = query<{ id: number; title: string }>(
      s.project,
      legacy
        ? 'SELECT id, title FROM tasks ORDER BY id'
        : 'SELECT t.id, d.title FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id ORDER BY t.id',
    );
    assert.deepEqual(query(s.project, 'SELECT rowid AS id, title FROM ralph_mcp_search ORDER BY rowid'), titles);
    assert.deepEqual(
      query(s.project, 'SELECT task_id AS id, key FROM ralph_mcp_title_keys ORDER BY task_id'),
      titles.map((t) => ({ id: t.id, key: t.title.toLowerCase() })),
    );
    assert.deepEqual((await search(s, 'walrus')).results, []);
    const full = await s.ok('search_tasks', { query: 'narwhal v2', limit: 100 });
    assert.equal(full.results.length, 100);
    assert.equal(full.index_behind, undefined);
  });

  /**
   * More matches than the ranking window (a word in many tasks): the title matches come first however old
   * they are, a page they fill holds nothing else, and the rest of a page they do not fill is the newest
   * other matches, ranked.
   */
  test('a word in more tasks than the window: title matches first, however old', async () => {
    const s = await env.open({ recipe: 'yap' });
    const W = SEARCH_BOUNDS.window;
    const many = (word: string, from: number, inTitle: number) => [
      ...Array.from({ length: inTitle }, (_, i) => ({ id: from + i, title: `${word} pen ${i}`, description: 'Zoo' })),
      ...Array.from({ length: W + 50 }, (_, i) => ({
        id: from + 1000 + i,
        title: `Enclosure ${i}`,
        description: `Feed the ${word}`,
      })),
    ];
    tasks(s, [...many('Quokka', 2001, 30), ...many('Wombat', 4001, 3)]);
    const find = (query: string) => s.ok('search_tasks', { query, limit: 20 });
    for (let i = 0; i < 20 && (await find('quokka')).index_behind !== undefined; i++);

    const full = await find('quokka');
    assert.equal(full.results.length, 20);
    for (const r of full.results) assert.match(r.title, /^Quokka pen/, JSON.stringify(r));

    const few = await find('wombat');
    assert.deepEqual(
      ids(few)
        .slice(0, 3)
        .sort((a, b) => a - b),
      [4001, 4002, 4003],
      'the three title matches first, older than every other match',
    );
    const rest = few.results.slice(3);
    assert.equal(rest.length, 17);
    for (const r of rest) {
      assert.match(r.title, /^Enclosure/, JSON.stringify(r));
      assert.ok(r.id >= 4001 + 1000 + 50, `${r.id} is among the newest ${W} matches`);
    }
  });

  test('a server catches up between requests, a slice per turn of its event loop', async () => {
    const s = await env.open({ recipe: 'braindump' });
    walruses(s);
    await caughtUp(s);
    rewrite(s);
    assert.equal((await search(s, 'walrus')).index_behind, MANY - CHUNK);
    for (let i = 0; i < 1000 && queued(s) > SEARCH_BOUNDS.pendingTitles; i++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(queued(s), 0, 'no request was needed');
    assert.equal((await s.ok('search_tasks', { query: 'narwhal v2', limit: 100 })).results.length, 100);
  });
});
