import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnyRow, rows } from '../helpers/assertions.js';
import { query, sql } from '../helpers/project.js';
import { SEARCH_BOUNDS } from '../../src/store/searchBounds.js';
import { ralphTask, ralphTaskList } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';

/**
 * search_tasks on both generations: ranked full-text search that sees what Ralph writes with plain SQL
 * (after the server started, after a first search), ranks a title match above a comment match, and never
 * fails on quotes, FTS operators or non-ASCII text in the query.
 */

interface RalphTask {
  id: number;
  title: string;
  description?: string;
  feature?: string;
  discipline?: string;
  hints?: string;
  acceptance_criteria?: string[];
}

const ids = (r: { results: { id: number }[] }): number[] => r.results.map((x) => x.id);

contract('search_tasks', (env) => {
  const legacy = env.generation === 'legacy';

  /** Statements on a second connection, in one transaction, the way Ralph writes. */
  function ralph(s: InProcSession, fn: (run: (text: string, ...params: unknown[]) => void) => void): void {
    const db = sql(s.project);
    try {
      db.pragma('foreign_keys = ON');
      db.transaction(() => fn((text, ...params) => void db.prepare(text).run(...params)))();
    } finally {
      db.close();
    }
  }

  /** Pending, medium-priority tasks as Ralph inserts them: legacy JSON columns, or normalized child rows. */
  const insertTasks = (s: InProcSession, tasks: RalphTask[]) =>
    ralph(s, (run) => {
      for (const t of tasks) {
        const [feature, discipline] = [t.feature ?? 'search', t.discipline ?? 'backend'];
        const criteria = t.acceptance_criteria ?? [];
        if (legacy) {
          run(
            `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, created,
               acceptance_criteria, hints, provenance)
             VALUES (?, ?, ?, ?, ?, 'pending', 'medium', '2026-02-01', ?, ?, 'human')`,
            ...[t.id, feature, discipline, t.title, t.description ?? null, JSON.stringify(criteria), t.hints ?? null],
          );
          continue;
        }
        run(
          `INSERT INTO task_details (discipline_id, title, description, priority, hints, created)
             VALUES ((SELECT id FROM disciplines WHERE name = ?), ?, ?, 'medium', ?, '2026-02-01')`,
          ...[discipline, t.title, t.description ?? null, t.hints ?? null],
        );
        run(
          `INSERT INTO runtime_tasks (id, subsystem_id, details_id, status, provenance, created)
             VALUES (?, (SELECT id FROM subsystems WHERE name = ?), last_insert_rowid(), 'pending', 'human',
               '2026-02-01')`,
          ...[t.id, feature],
        );
        for (const [i, c] of criteria.entries())
          run(
            'INSERT INTO task_acceptance_criteria (task_id, criterion, criterion_order) VALUES (?, ?, ?)',
            t.id,
            c,
            i,
          );
      }
    });

  /** A comment as Ralph adds one: a task_comments row, or (Ralph's head) a `learned` signal in a session of its own. */
  const insertComment = (s: InProcSession, taskId: number, body: string) =>
    ralph(s, (run) => {
      const at = '2026-02-01T10:00:00Z';
      if (legacy)
        return run(
          "INSERT INTO task_comments (task_id, author, body, created) VALUES (?, 'human', ?, ?)",
          taskId,
          body,
          at,
        );
      run(
        `INSERT OR IGNORE INTO agent_sessions (id, session_number, kind, started_by, started, ended, status)
           VALUES ('ralph-ui', (SELECT coalesce(max(session_number), 0) + 1 FROM agent_sessions), 'manual', 'human',
             ?, ?, 'finished')`,
        at,
        at,
      );
      run(
        `INSERT INTO task_signals (task_id, session_id, verb, text, kind, scope, created)
           VALUES (?, 'ralph-ui', 'learned', ?, 'discovery', 'task', ?)`,
        ...[taskId, body, at],
      );
    });

  test('sees what Ralph writes with SQL after the start and after a first search; its own writes', async () => {
    const s = await env.open({ recipe: 'braindump', sessionId: 'search-1' });
    const find = async (query: string) => ids(await s.ok('search_tasks', { query }));
    const hit = (await s.ok('search_tasks', { query: 'recipe editor' })).results.find((x: AnyRow) => x.id === 3);
    const three = ralphTask(s.project.dbPath, 3)! as unknown as AnyRow;
    for (const k of ['title', 'status', 'priority', 'feature', 'discipline']) assert.equal(hit[k], three[k], k);
    assert.equal(typeof hit.score, 'number');
    assert.equal(typeof hit.snippet, 'string');

    assert.deepEqual(await find('zanzibar'), []);
    insertTasks(s, [{ id: 30, title: 'Zanzibar spice importer', description: 'Import spice blends from a CSV file' }]);
    assert.deepEqual(await find('zanzibar'), [30]);
    // Other columns Ralph fills are searchable too: description, hints, acceptance criteria.
    insertTasks(s, [
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
    insertComment(s, 6, 'The quetzal theme needs a darker suggestion list');
    assert.deepEqual(await find('quetzal'), [6]);

    // SQL updates and deletes of tasks and comments.
    const either = (legacySql: string, normalizedSql: string) =>
      ralph(s, (run) => run(legacy ? legacySql : normalizedSql));
    either(
      "UPDATE tasks SET title = 'Kumquat typeahead' WHERE id = 6",
      `UPDATE task_details SET title = 'Kumquat typeahead'
         WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = 6)`,
    );
    assert.deepEqual(await find('kumquat'), [6]);
    assert.ok(!(await find('suggestions')).includes(6), 'the old title is gone from the index');
    either(
      "DELETE FROM task_comments WHERE task_id = 6 AND body LIKE '%quetzal%'",
      "DELETE FROM task_signals WHERE task_id = 6 AND text LIKE '%quetzal%'",
    );
    assert.deepEqual(await find('quetzal'), []);
    either('DELETE FROM tasks WHERE id = 30', 'DELETE FROM runtime_tasks WHERE id = 30');
    assert.deepEqual(await find('zanzibar'), []);

    await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Rutabaga ranking tweaks' });
    assert.equal((await find('rutabaga')).length, 1);
    assert.deepEqual(rows(s.project, "SELECT * FROM ralph_mcp_audit WHERE tool = 'search_tasks'"), [], 'no audit row');
  });

  test('ranking: what was written before any search is found; title or description above a comment', async () => {
    const s = await env.open({ recipe: 'yap' });
    insertTasks(s, [{ id: 60, title: 'Persimmon import', feature: 'recipes' }]);
    insertComment(s, 5, 'Remember the persimmon edge case');
    assert.deepEqual(ids(await s.ok('search_tasks', { query: 'persimmon' })), [60, 5], 'title match first');
    // The comment-only task is older (lower id) and mentions the word twice: ranking, not id order, must decide.
    insertTasks(s, [{ id: 40, title: 'Dessert ideas', description: 'Sweet things for the menu' }]);
    insertComment(s, 40, 'Try pomegranate seeds on top; pomegranate molasses in the glaze');
    insertTasks(s, [{ id: 41, title: 'Pomegranate glaze recipe', description: 'A sticky glaze for roasts' }]);
    const r = await s.ok('search_tasks', { query: 'pomegranate' });
    assert.deepEqual(ids(r), [41, 40]);
    assert.ok(r.results[0].score > r.results[1].score, `scores ${r.results[0].score} > ${r.results[1].score}`);
    insertTasks(s, [{ id: 42, title: 'Misc', description: 'General notes' }]);
    insertComment(s, 42, 'tamarind paste goes here');
    insertTasks(s, [{ id: 43, title: 'Sauces', description: 'A tamarind sauce for noodles' }]);
    assert.deepEqual(ids(await s.ok('search_tasks', { query: 'tamarind' })), [43, 42]);
  });

  test('quotes, FTS operators, column filters, NEAR, stars and minus signs: plain words, never an error', async () => {
    const s = await env.open({ recipe: 'braindump' });
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
    for (const query of ['"recipe', 'recipe*', '-recipe', 'NOT recipe', '(recipe', 'recipe)']) {
      const found = ids(await s.ok('search_tasks', { query }));
      assert.ok(found.includes(1), `${JSON.stringify(query)} finds task 1 (Recipe table…): ${found.join(', ')}`);
    }
    // "title:recipe" is the two words title and recipe, not a column filter: only task 5 has both
    // ("Search for a word in a title finds the recipe"); a column filter would find 1, 2 and 3 instead.
    assert.deepEqual(ids(await s.ok('search_tasks', { query: 'title:recipe' })), [5]);
    assert.equal(ralphTaskList(s.project.dbPath).length, 8, 'tasks intact');
  });

  test('non-ASCII text in the query and in the rows; a query with no letters or digits is refused', async () => {
    const s = await env.open({ recipe: 'braindump' });
    insertTasks(s, [
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
    const find = async (args: Record<string, unknown>) => ids(await s.ok('search_tasks', args)).sort((a, b) => a - b);
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
    const done = new Set(ralphTaskList(s.project.dbPath).flatMap((t) => (t.status === 'done' ? [t.id] : [])));
    for (const id of await find({ query: 'recipe', status: 'done' })) assert.ok(done.has(id));

    assert.equal((await s.ok('search_tasks', { query: 'recipe', limit: 2 })).results.length, 2);
    const any = await s.ok('search_tasks', { query: 'recipe zzzznotaword' });
    assert.equal(any.matched, 'any');
    assert.ok(any.results.length > 0);
    const none = await s.ok('search_tasks', { query: 'zzzznotaword qqqqnotaword' });
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
    insertTasks(
      s,
      Array.from({ length: MANY }, (_, i) => ({ id: 1001 + i, title: `Walrus task ${1001 + i}` })),
    );
  const rewrite = (s: InProcSession) =>
    ralph(s, (run) =>
      run(
        legacy
          ? "UPDATE tasks SET title = replace(title, 'Walrus', 'Narwhal') || ' v2' WHERE id > 1000"
          : `UPDATE task_details SET title = replace(title, 'Walrus', 'Narwhal') || ' v2'
               WHERE id IN (SELECT details_id FROM runtime_tasks WHERE id > 1000)`,
      ),
    );
  const queued = (s: InProcSession) =>
    query<{ n: number }>(s.project, 'SELECT count(*) AS n FROM ralph_mcp_search_dirty')[0]!.n;
  const caughtUp = async (s: InProcSession) => {
    for (let i = 0; i < 10 && (await s.ok('search_tasks', { query: 'narwhal' })).index_behind !== undefined; i++);
    // A slice the last call scheduled runs (and finds nothing to do) before the test writes again.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  test('a rewrite of many titles by another program is caught up a chunk per request, never answered stale', async () => {
    const s = await env.open({ recipe: 'yap' }, undefined, { server: { searchCatchUp: false } });
    walruses(s);
    await caughtUp(s);
    assert.equal(queued(s), 0);
    rewrite(s);
    assert.equal(queued(s), MANY);

    // One chunk, newest first; the queued tasks (whose indexed title is the old one) are left out.
    const first = await s.ok('search_tasks', { query: 'walrus' });
    assert.deepEqual([first.results, first.index_behind], [[], MANY - CHUNK]);
    // A create pays one chunk too, and still compares the queued tasks' titles as they are now.
    const created = await s.ok('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'Narwhal task 1001 v3',
    });
    assert.equal(queued(s), MANY - 2 * CHUNK + 1);
    assert.ok(
      created.possible_duplicates.some((h: AnyRow) => h.id === 1001 && h.title === 'Narwhal task 1001 v2'),
      JSON.stringify(created.possible_duplicates),
    );
    const dup = await s.fail('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'narwhal TASK 1001 v2',
    });
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
    assert.deepEqual((await s.ok('search_tasks', { query: 'walrus' })).results, []);
    const full = await s.ok('search_tasks', { query: 'narwhal v2', limit: 100 });
    assert.equal(full.results.length, 100);
    assert.equal(full.index_behind, undefined);
  });

  test('a server catches up between requests, a slice per turn of its event loop', async () => {
    const s = await env.open({ recipe: 'braindump' });
    walruses(s);
    await caughtUp(s);
    rewrite(s);
    assert.equal((await s.ok('search_tasks', { query: 'walrus' })).index_behind, MANY - CHUNK);
    for (let i = 0; i < 1000 && queued(s) > SEARCH_BOUNDS.pendingTitles; i++)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(queued(s), 0, 'no request was needed');
    assert.equal((await s.ok('search_tasks', { query: 'narwhal v2', limit: 100 })).results.length, 100);
  });
});
