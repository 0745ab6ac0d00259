import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initProject } from '../../src/store/open/init.js';
import { assertRecentTimestamp, assertToday, jsonArray } from '../helpers/assertions.js';
import { query, tempDir } from '../helpers/project.js';
import { counts, ralphComments, ralphTask, ralphTaskList } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { refusal } from './support.claims.js';

/**
 * The task tools on both generations: the same calls give the same answers, and what they write is
 * what Ralph's own code reads back (ralphRead: Ralph's queries for the generation at hand). Every
 * refused call must leave Ralph's tables exactly as they were. The sample (scripts/sampleProject.ts):
 *   1 done ← 2 done ← 3 in_progress ← 4 pending; 3 ← 7 blocked; 5 pending; 6 draft; 8 skipped
 *   recipes 1-4 · search 5, 6 · auth 7, 8; backend 1, 2, 5, 7 · frontend 3, 6 · quality 4 · documentation 8
 */
const LISTS = ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'] as const;

contract('task tools', (env) => {
  const legacy = env.generation === 'legacy';
  const ids = (r: any): number[] => r.tasks.map((t: any) => t.id);

  /** Task `id` as Ralph reads it; on legacy, each list column must also be JSON text holding exactly that list. */
  const stored = (s: InProcSession, id: number) => {
    const t = ralphTask(s.project.dbPath, id)!;
    if (legacy) {
      const raw = query<Record<string, unknown>>(s.project, 'SELECT * FROM tasks WHERE id = ?', id)[0]!;
      for (const c of LISTS) assert.deepEqual(jsonArray(raw[c], c), t[c], c);
    }
    return t;
  };

  /** Legacy stores `updated` as the day; Ralph head's trigger may rewrite it as the day and a time. */
  const updatedToday = (v: string | null) =>
    assertToday(!legacy && /^\S+ \d{2}:\d{2}:\d{2}$/.test(v ?? '') ? v!.slice(0, 10) : v, 'updated');

  /** The ids of Ralph's task list matching list_tasks' filters. */
  const matching = (s: InProcSession, f: Record<string, unknown>) =>
    ralphTaskList(s.project.dbPath)
      .filter(
        (t) =>
          (f.filter_status ?? t.status) === t.status &&
          (f.filter_feature ?? t.subsystem) === t.subsystem &&
          (f.filter_discipline ?? t.discipline) === t.discipline,
      )
      .map((t) => t.id);

  test('list_tasks: compact rows as Ralph lists them; filters alone and combined agree with Ralph', async () => {
    const s = await env.open();
    const all = await s.ok('list_tasks', {});
    assert.equal(all.total, 8);
    assert.equal(all.next_cursor, null);
    // Templates exist on Ralph's current schema only: there every row says which one a task came from.
    const template = legacy ? {} : { template_id: null };
    assert.deepEqual(all.tasks[3], {
      id: 4,
      title: 'Editor end-to-end tests',
      status: 'pending',
      priority: 'medium',
      feature: 'recipes',
      discipline: 'quality',
      depends_on: [3],
      held_by: null,
      ...template,
    });
    assert.deepEqual(
      all.tasks,
      ralphTaskList(s.project.dbPath).map((t) => ({
        id: t.id,
        title: t.title,
        status: t.status,
        priority: t.priority,
        feature: t.subsystem,
        discipline: t.discipline,
        depends_on: t.depends_on,
        held_by: null,
        ...template,
      })),
    );
    for (const [args, expected] of [
      [{ filter_status: 'pending' }, [4, 5]],
      [{ filter_status: 'done' }, [1, 2]],
      [{ filter_feature: 'recipes' }, [1, 2, 3, 4]],
      [{ filter_discipline: 'backend' }, [1, 2, 5, 7]],
      [{ filter_feature: 'recipes', filter_status: 'done' }, [1, 2]],
      [{ filter_feature: 'auth', filter_discipline: 'backend', filter_status: 'blocked' }, [7]],
      [{ filter_status: 'in_progress', filter_discipline: 'quality' }, []],
    ] as const) {
      const r = await s.ok('list_tasks', args);
      assert.deepEqual([ids(r), r.total, r.next_cursor], [expected, expected.length, null], JSON.stringify(args));
      assert.deepEqual(matching(s, args), expected, JSON.stringify(args));
    }
    // A known feature with no matching tasks is an empty page, not an error.
    assert.deepEqual(await s.ok('list_tasks', { filter_feature: 'search', filter_status: 'done' }), {
      tasks: [],
      total: 0,
      next_cursor: null,
    });
  });

  test('list_tasks: limit + cursor walk every row exactly once; bad values refused', async () => {
    const s = await env.open();
    for (const [limit, filter] of [
      [1, {}],
      [3, {}],
      [7, {}],
      [8, {}],
      [1, { filter_discipline: 'backend' }],
      [2, { filter_feature: 'recipes' }],
    ] as const) {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r: any = await s.ok('list_tasks', { ...filter, limit, ...(cursor !== null ? { cursor } : {}) });
        assert.ok(r.tasks.length <= limit);
        assert.ok(r.tasks.length > 0, 'no empty page while walking');
        seen.push(...ids(r));
        cursor = r.next_cursor;
        assert.ok(++pages < 20, 'pagination does not terminate');
      } while (cursor !== null);
      const expected = matching(s, filter);
      assert.deepEqual(seen, expected, `limit ${limit} ${JSON.stringify(filter)}`);
      assert.equal(new Set(seen).size, seen.length, 'a row was returned twice');
      assert.equal(pages, Math.ceil(expected.length / limit), `limit ${limit}: page count`);
    }
    assert.deepEqual(matching(s, {}), [1, 2, 3, 4, 5, 6, 7, 8]);
    const first = await s.ok('list_tasks', { limit: 3 });
    assert.equal(first.total, 8, 'total counts all matches, not the page');
    assert.equal(typeof first.next_cursor, 'string');
    await refusal(s, 'list_tasks', { filter_feature: 'nope' }, 'not_found');
    await refusal(s, 'list_tasks', { filter_discipline: 'nope' }, 'not_found');
    for (const bad of [
      ...['abc', '-1', '1.5', '', 'x', 'x'.repeat(40)].map((cursor) => ({ cursor })),
      ...[0, -1, 501, 2.5, '3'].map((limit) => ({ limit })),
      { filter_status: 'open' },
      { status: 'pending' },
    ])
      await refusal(s, 'list_tasks', bad, 'invalid_argument');
  });

  test('get_task: the task in full, its comments oldest first as stored, its dependencies', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    const r = await s.ok('get_task', { id: 3 });
    const t = ralphTask(db, 3)!;
    assert.deepEqual(
      [r.task.id, r.task.title, r.task.status, r.task.feature, r.task.discipline, r.task.tags, r.task.hints],
      [3, t.title, 'in_progress', 'recipes', 'frontend', t.tags, t.hints],
    );
    assert.deepEqual([t.title, t.tags], ['Recipe editor form', ['ui', 'forms']]);
    assert.deepEqual(r.task.acceptance_criteria, [
      'Ingredients can be added and removed',
      'Shows server validation errors',
    ]);
    assert.deepEqual(r.task.context_files, ['src/ui/RecipeForm.tsx']);
    assert.deepEqual(r.task.depends_on, [2]);
    assert.deepEqual(r.dependencies, [{ id: 2, title: 'Recipe REST endpoints', status: 'done' }]);
    const body = 'The API returns 422 with a field map on validation errors.';
    const created = '2026-01-06T09:00:00Z';
    const comment = { id: 3, task_id: 3, author: 'frontend', discipline: 'frontend', agent_task_id: 3 };
    assert.deepEqual(r.comments, [{ ...comment, priority: 'high', body, created }]);
    const ralph = ralphComments(db, 3);
    const stored3 = ralph.map((c) => [c.id, c.body, c.created]);
    assert.deepEqual(stored3, [[3, body, created]]);
    // Legacy keeps who wrote it in Ralph's own row (the normalized generation in our meta table).
    if (legacy)
      assert.deepEqual(
        r.comments,
        ralph.map(({ generation, ...c }) => ({ task_id: 3, ...c })),
      );

    const r7 = await s.ok('get_task', { id: 7 });
    assert.equal(r7.task.blocked_by, 'Waiting for the SMTP credentials');
    assert.deepEqual(r7.dependencies, [{ id: 3, title: 'Recipe editor form', status: 'in_progress' }]);
    assert.equal(r7.comments.length, legacy ? 1 : 2); // + the blocked signal migrate made of blocked_by
    assert.deepEqual([r7.comments[0].author, r7.comments[0].discipline], ['human', null]);
    const r5 = await s.ok('get_task', { id: 5 });
    assert.deepEqual([r5.comments, r5.dependencies, r5.task.priority], [[], [], 'critical']);

    const missing = await refusal(s, 'get_task', { id: 99 }, 'not_found');
    assert.match(missing.message, /task ids in this project run from 1 to 8 \(8 tasks\)/);
    for (const bad of [{ id: 0 }, { id: '3' }, {}, { id: 3, extra: true }])
      await refusal(s, 'get_task', bad, 'invalid_argument');
  });

  test('create_task: every field as Ralph reads it back, paths made canonical; what it returns is stored', async () => {
    const s = await env.open();
    const r = await s.ok('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'Rank search results',
      description: 'Order results by BM25',
      priority: 'high',
      acceptance_criteria: ['Best match first', 'Ties by id', 'At most 50'],
      depends_on: [5, 1],
      tags: ['search', 'ranking'],
      context_files: ['./src/search//rank.ts', 'docs/search.md'],
      output_artifacts: ['src/search/rank.ts'],
      hints: 'bm25() is built into FTS5',
      estimated_turns: 12,
    });
    assert.equal(r.task.id, 9);
    const t = stored(s, 9);
    assert.deepEqual(
      [t.title, t.description, t.status, t.priority, t.feature, t.discipline, t.provenance, t.hints, t.estimated_turns],
      [
        'Rank search results',
        'Order results by BM25',
        'pending',
        'high',
        'search',
        'backend',
        'agent',
        'bm25() is built into FTS5',
        12,
      ],
    );
    assertToday(t.created, 'created');
    assert.deepEqual([t.updated, t.completed], [null, null]);
    assert.deepEqual(t.tags, ['search', 'ranking']);
    assert.deepEqual(t.depends_on, [5, 1]);
    assert.deepEqual(t.acceptance_criteria, ['Best match first', 'Ties by id', 'At most 50']);
    assert.deepEqual(t.context_files, ['src/search/rank.ts', 'docs/search.md']);
    assert.deepEqual(t.output_artifacts, ['src/search/rank.ts']);
    assert.equal(r.task.created, t.created);
    assert.deepEqual(r.task.context_files, ['src/search/rank.ts', 'docs/search.md']);
    assert.equal(r.task.provenance, 'agent');
  });

  test('create_task: a minimal draft gets defaults; ids are max(id)+1, never reused on normalized', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    const r = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'quality',
      title: 'Sign-in tests',
      status: 'draft',
    });
    assert.equal(r.task.id, 9);
    const t = stored(s, 9);
    assert.deepEqual([t.status, t.priority, t.description, t.provenance], ['draft', null, null, 'agent']);
    assertToday(t.created, 'created');
    for (const c of LISTS) assert.deepEqual(t[c], [], c);
    // Not count+1: deleting task 8 leaves a gap below the highest id.
    assert.equal((await s.ok('create_task', { feature: 'auth', discipline: 'quality', title: 'Ten' })).task.id, 10);
    await s.ok('delete_task', { id: 8 });
    assert.deepEqual([counts(db).tasks, Math.max(...ralphTaskList(db).map((x) => x.id))], [9, 10]);
    const eleven = await s.ok('create_task', { feature: 'auth', discipline: 'documentation', title: 'Docs again' });
    assert.equal(eleven.task.id, 11);
    assert.equal(ralphTask(db, 11)?.title, 'Docs again');
    // Deleting the highest: legacy takes max(id)+1 again, Ralph head's AUTOINCREMENT never reuses an id.
    await s.ok('delete_task', { id: 11 });
    assert.equal(
      (await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Next' })).task.id,
      legacy ? 11 : 12,
    );
  });

  test('create_task refusals name what is wrong and change nothing', async () => {
    const s = await env.open();
    const base = { feature: 'search', discipline: 'backend', title: 'x' };
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ ...base, feature: 'nope' }, 'not_found', /"nope" does not exist; existing features.*: auth, recipes, search/],
      [{ ...base, discipline: 'nope' }, 'not_found'],
      [{ ...base, depends_on: [1, 999] }, 'invalid_argument', /999/],
      [{ ...base, depends_on: [42] }, 'invalid_argument', /do not exist: 42/],
      [{ ...base, depends_on: [0] }, 'invalid_argument'],
      ...['../x', '/etc/passwd', 'src/../../x', '~/x', 'src\\x.ts', '%2e%2e/x', '../etc/passwd'].map(
        (f): [Record<string, unknown>, string] => [{ ...base, context_files: [f] }, 'invalid_argument'],
      ),
      // Only draft or pending: the rest is reached through set_task_status.
      ...['done', 'in_progress', 'blocked', 'skipped', 'open'].map((status): [Record<string, unknown>, string] => [
        { ...base, status },
        'invalid_argument',
      ]),
      [{ feature: 'search', discipline: 'backend' }, 'invalid_argument'],
      [{ ...base, title: '  ' }, 'invalid_argument'],
      [{ ...base, title: '   ' }, 'invalid_argument'],
      [{ ...base, priority: 'urgent' }, 'invalid_argument'],
      [{ ...base, tags: 'a,b' }, 'invalid_argument'],
      [{ ...base, estimated_turns: 0 }, 'invalid_argument'],
      [{ ...base, provenance: 'human' }, 'invalid_argument'],
      [{ ...base, id: 50 }, 'invalid_argument'],
    ];
    for (const [args, code, message] of cases) {
      const err = await refusal(s, 'create_task', args, code);
      if (message) assert.match(err.message, message);
    }
    assert.equal(Math.max(...ralphTaskList(s.project.dbPath).map((x) => x.id)), 8);
  });

  test('update_task: only the given fields change, updated is stamped; lists are replaced whole', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    const before = ralphTask(db, 5)!;
    const r = await s.ok('update_task', {
      id: 5,
      title: 'FTS5 index over recipes and tags',
      priority: 'medium',
      tags: ['search'],
      depends_on: [1, 2],
      context_files: ['./src/db/fts.sql'],
      estimated_turns: 4,
    });
    const changed = [...r.changed].sort();
    assert.deepEqual(changed, ['context_files', 'depends_on', 'estimated_turns', 'priority', 'tags', 'title']);
    const t = stored(s, 5);
    assert.deepEqual(
      [t.title, t.priority, t.tags, t.depends_on, t.context_files, t.estimated_turns],
      ['FTS5 index over recipes and tags', 'medium', ['search'], [1, 2], ['src/db/fts.sql'], 4],
    );
    updatedToday(t.updated);
    const untouched = ['description', 'status', 'acceptance_criteria', 'created', 'completed', 'provenance'] as const;
    for (const c of [...untouched, 'feature', 'discipline', 'hints'] as const) assert.deepEqual(t[c], before[c], c);
    assert.deepEqual(r.task.depends_on, [1, 2]);
    assert.equal(r.task.updated, t.updated);

    const again = await s.ok('update_task', {
      id: 5,
      title: 'FTS5 index',
      acceptance_criteria: ['b', 'a'],
      tags: [],
      depends_on: [1],
    });
    assert.deepEqual(again.changed, ['title', 'acceptance_criteria', 'depends_on', 'tags']);
    const t2 = stored(s, 5);
    assert.deepEqual(
      [t2.title, t2.description, t2.acceptance_criteria, t2.tags, t2.depends_on],
      ['FTS5 index', 'SQLite FTS5 table kept in sync by triggers', ['b', 'a'], [], [1]],
    );
    // The same day again: Ralph head's trigger rewrites `updated` as a day and a time; get_task shows the day.
    assert.match(t2.updated!, legacy ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal((await s.ok('get_task', { id: 5 })).task.updated, t2.updated!.slice(0, 10));
    assert.match(again.task.updated, /^\d{4}-\d{2}-\d{2}$/);

    // A non-cyclic dependency change is accepted, down to none and back.
    await s.ok('update_task', {
      id: 4,
      depends_on: [1, 3],
      acceptance_criteria: ['Runs in CI', 'Covers validation errors'],
    });
    assert.deepEqual(stored(s, 4).depends_on, [1, 3]);
    assert.deepEqual(stored(s, 4).acceptance_criteria, ['Runs in CI', 'Covers validation errors']);
    await s.ok('update_task', { id: 4, depends_on: [] });
    assert.deepEqual(stored(s, 4).depends_on, []);
    await s.ok('update_task', { id: 4, depends_on: [3] });
    assert.deepEqual(stored(s, 4).depends_on, [3]);
  });

  test('update_task refusals: self-dependency, cycles, unknown ids, bad fields; nothing half-applied', async () => {
    const s = await env.open();
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ id: 1, depends_on: [1] }, 'invalid_argument'],
      [{ id: 3, title: 'also a title', depends_on: [2, 3] }, 'invalid_argument'],
      // 4 → 3 → 2 → 1, so 1 → 4 closes a cycle; so does 2 → 7 (7 → 3 → 2).
      [{ id: 1, depends_on: [4] }, 'invalid_argument', /cycle: 1 → 4 → 3 → 2 → 1/],
      [{ id: 2, title: 'renamed', depends_on: [7] }, 'invalid_argument'],
      [{ id: 6, depends_on: [5, 404] }, 'invalid_argument', /404/],
      // A status goes through set_task_status's rules: the done gate refuses the fields given with it too.
      [{ id: 4, title: 'half-done?', status: 'done' }, 'conflict', /depends on tasks that are not done: #3/],
      [{ id: 5, status: 'needs_input' }, 'invalid_argument'],
      [{ id: 5, status: 'done', blocked_by: 'the API' }, 'invalid_argument'],
      [{ id: 5, colour: 'red' }, 'invalid_argument'],
      [{ id: 5 }, 'invalid_argument'],
      [{ id: 5, title: '' }, 'invalid_argument'],
      [{ id: 5, priority: 'p1' }, 'invalid_argument'],
      [{ id: 5, context_files: ['../secret'] }, 'invalid_argument'],
      [{ id: 5, context_files: ['/etc/passwd'] }, 'invalid_argument'],
      // A bad field refuses the whole call: the good fields given with it are not written either.
      [{ id: 5, title: 'half-applied?', hints: 'x', context_files: ['../x'] }, 'invalid_argument'],
      [{ title: 'no id' }, 'invalid_argument'],
      [{ id: 99, title: 'ghost' }, 'not_found'],
      [{ id: 77, title: 'x' }, 'not_found'],
    ];
    for (const [args, code, message] of cases) {
      const err = await refusal(s, 'update_task', args, code);
      if (message) assert.match(err.message, message);
    }
    const t = (id: number) => ralphTask(s.project.dbPath, id)!;
    assert.deepEqual(
      [t(3).title, t(3).updated, t(1).depends_on, t(1).updated, t(2).title, t(6).depends_on],
      ['Recipe editor form', null, [], null, 'Recipe REST endpoints', []],
    );
    assert.notEqual(t(5).title, 'half-applied?');
    if (legacy)
      assert.deepEqual(query(s.project, 'SELECT id, depends_on FROM tasks WHERE id IN (1, 6) ORDER BY id'), [
        { id: 1, depends_on: '[]' },
        { id: 6, depends_on: '[]' },
      ]);
  });

  test('delete_task: refused while depended on, naming the dependents; a leaf goes with its comments', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    assert.deepEqual((await refusal(s, 'delete_task', { id: 1 }, 'conflict')).details, { dependents: [2] });
    assert.deepEqual((await refusal(s, 'delete_task', { id: 3 }, 'conflict')).details, { dependents: [4, 7] });
    assert.ok(ralphTask(db, 1));
    assert.equal(ralphComments(db, 1).length, 1);

    await s.ok('add_task_comment', { task_id: 8, body: 'Skipped: docs come later.' });
    assert.equal(ralphComments(db, 8).length, 1);
    assert.deepEqual(await s.ok('delete_task', { id: 8 }), { deleted_id: 8, deleted_comments: 1 });
    assert.equal(ralphTask(db, 8), undefined);
    assert.deepEqual(ralphComments(db, 8), []);
    assert.equal(counts(db).tasks, 7);
    assert.deepEqual(await s.ok('delete_task', { id: 7 }), {
      deleted_id: 7,
      deleted_comments: legacy ? 1 : 2, // + the blocked signal migrate made of blocked_by
    });
    assert.equal(ralphTask(db, 7), undefined);
    assert.deepEqual(ralphComments(db, 7), []);
    // Every other comment is untouched, and the deleted ones are gone from every task.
    assert.equal(counts(db).comments, 3);
    const left = ralphTaskList(db).flatMap((t) => ralphComments(db, t.id).map((c) => `${t.id}:${c.id}`));
    assert.deepEqual(left, ['1:1', '2:2', '3:3']);
    assert.deepEqual((await refusal(s, 'delete_task', { id: 3 }, 'conflict')).details, { dependents: [4] });
    await refusal(s, 'delete_task', { id: 8 }, 'not_found');
    await refusal(s, 'delete_task', { id: 99 }, 'not_found');
    await refusal(s, 'delete_task', { id: -1 }, 'invalid_argument');
    await refusal(s, 'delete_task', { id: 5, cascade: true }, 'invalid_argument');
  });

  test('set_task_status: done stamps completed, leaving done clears it, leaving blocked keeps blocked_by', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    const done = await s.ok('set_task_status', { id: 5, status: 'done' });
    assert.deepEqual([done.previous_status, done.changed], ['pending', true]);
    const t = ralphTask(db, 5)!;
    assert.equal(t.status, 'done');
    assertToday(t.completed, 'completed');
    updatedToday(t.updated);
    assert.equal(done.task.completed, t.completed);
    assert.equal((await s.ok('set_task_status', { id: 5, status: 'in_progress' })).previous_status, 'done');
    assert.deepEqual([ralphTask(db, 5)!.status, ralphTask(db, 5)!.completed], ['in_progress', null]);
    assert.equal((await s.ok('set_task_status', { id: 5, status: 'in_progress' })).changed, false);
    // A task seeded as done, with a completion date.
    assert.equal(ralphTask(db, 1)!.completed, '2026-01-04');
    await s.ok('set_task_status', { id: 1, status: 'pending' });
    assert.deepEqual([ralphTask(db, 1)!.status, ralphTask(db, 1)!.completed], ['pending', null]);
    // A person wrote blocked_by: it stays the record of the block.
    await s.ok('set_task_status', { id: 7, status: 'pending' });
    assert.equal(ralphTask(db, 7)!.status, 'pending');
    const r7Blocker = 'Waiting for the SMTP credentials';
    assert.equal((await s.ok('get_task', { id: 7 })).task.blocked_by, r7Blocker);
    if (legacy)
      assert.deepEqual(query(s.project, 'SELECT blocked_by FROM tasks WHERE id = 7'), [{ blocked_by: r7Blocker }]);
  });

  test('set_task_status: the current status is a no-op; exactly the six statuses Ralph knows', async () => {
    const s = await env.open();
    await unchanged(s, async () => {
      const same = await s.ok('set_task_status', { id: 6, status: 'draft' });
      assert.deepEqual([same.changed, same.previous_status], [false, 'draft']);
    });
    for (const st of ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped']) {
      await s.ok('set_task_status', { id: 8, status: st });
      const t = ralphTask(s.project.dbPath, 8)!;
      assert.equal(t.status, st);
      assert.equal(t.completed === null, st !== 'done', st);
    }
    for (const status of ['finished', 'DONE', '', 'in-progress', 'failed'])
      await refusal(s, 'set_task_status', { id: 4, status }, 'invalid_argument');
    await refusal(s, 'set_task_status', { id: 4 }, 'invalid_argument');
    await refusal(s, 'set_task_status', { id: 4, status: 'done', completed: '2026-01-01' }, 'invalid_argument');
    await refusal(s, 'set_task_status', { id: 99, status: 'done' }, 'not_found');
    assert.equal(ralphTask(s.project.dbPath, 4)!.status, 'pending');
  });

  test('enrich_task: a draft becomes pending with pseudocode; lists left out are kept; others refused', async () => {
    const s = await env.open();
    const db = s.project.dbPath;
    /** Legacy stores an RFC 3339 UTC time; Ralph head's enriched_at is the day. */
    const enrichedNow = (v: string | null) =>
      legacy ? assertRecentTimestamp(v, 'enriched_at') : assertToday(v, 'enriched_at');
    const r = await s.ok('enrich_task', {
      id: 6,
      pseudocode: 'on input: debounce 150ms; query FTS; show top 5',
      acceptance_criteria: ['Suggestions appear after typing 2 letters'],
      context_files: ['./src/ui/Header.tsx'],
    });
    const t = stored(s, 6);
    assert.deepEqual(
      [t.status, t.pseudocode, t.acceptance_criteria, t.context_files],
      [
        'pending',
        'on input: debounce 150ms; query FTS; show top 5',
        ['Suggestions appear after typing 2 letters'],
        ['src/ui/Header.tsx'],
      ],
    );
    enrichedNow(t.enriched_at);
    updatedToday(t.updated);
    assert.deepEqual([r.task.status, r.task.enriched_at], ['pending', t.enriched_at]);

    const draft = async (title: string, lists: Record<string, unknown> = {}) =>
      (await s.ok('create_task', { feature: 'search', discipline: 'frontend', title, status: 'draft', ...lists })).task
        .id;
    const kept = await draft('Highlight matches', {
      acceptance_criteria: ['Matches are bold'],
      context_files: ['src/ui/Results.tsx'],
    });
    await s.ok('enrich_task', { id: kept, pseudocode: 'wrap matches in <mark>' });
    const k = stored(s, kept);
    assert.deepEqual(
      [k.status, k.acceptance_criteria, k.context_files],
      ['pending', ['Matches are bold'], ['src/ui/Results.tsx']],
    );
    enrichedNow(k.enriched_at);

    for (const id of [1, 3, 5, 7, 8, 6]) await refusal(s, 'enrich_task', { id, pseudocode: 'x' }, 'conflict');
    assert.deepEqual([ralphTask(db, 5)!.pseudocode, ralphTask(db, 5)!.enriched_at], [null, null]);
    await refusal(s, 'enrich_task', { id: 99, pseudocode: 'x' }, 'not_found');
    const d = await draft('Rate limiting');
    for (const bad of [
      {},
      { pseudocode: '  ' },
      { pseudocode: 'x', context_files: ['../x'] },
      { pseudocode: 'x', status: 'pending' },
    ])
      await refusal(s, 'enrich_task', { id: d, ...bad }, 'invalid_argument');
    assert.equal(ralphTask(db, d)!.status, 'draft');
  });

  test('a task_execution session on task 3: its id by default, other tasks read-only, its recipe only', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '3' });
    await refusal(s, 'set_task_status', { id: 4, status: 'done' }, 'out_of_scope');
    assert.equal((await s.ok('get_task', { id: 4 })).task.id, 4);
    const names = await s.toolNames();
    for (const hidden of ['create_task', 'delete_task', 'enrich_task', 'list_tasks'])
      assert.ok(!names.includes(hidden), hidden);
    // update_task is there for Ralph's task prompt (ralphPrompts.test): a status, on task 3 only.
    await refusal(s, 'update_task', { id: 4, status: 'done' }, 'out_of_scope');
    await refusal(s, 'update_task', { title: 'renamed' }, 'invalid_argument');
    await unchanged(s, () => assert.rejects(s.call('delete_task', { id: 8 }), /Unknown tool: delete_task/));
    assert.equal((await s.ok('set_task_status', { status: 'done' })).task.id, 3);
    assert.equal(ralphTask(s.project.dbPath, 3)!.status, 'done');
    assertToday(ralphTask(s.project.dbPath, 3)!.completed, 'completed');
  });

  test('two sessions creating at once: ids stay max(id)+1 and unique, each row what its caller wrote', async () => {
    const a = await env.open();
    const b = await env.open({}, a.project);
    const calls: Promise<any>[] = [];
    for (let i = 0; i < 15; i++) {
      calls.push(a.ok('create_task', { feature: 'search', discipline: 'backend', title: `A${i}` }));
      calls.push(b.ok('create_task', { feature: 'auth', discipline: 'frontend', title: `B${i}` }));
    }
    const results = await Promise.all(calls);
    assert.deepEqual(
      results.map((r) => r.task.id).sort((x, y) => x - y),
      Array.from({ length: 30 }, (_, i) => 9 + i),
      'ids 9..38, each once',
    );
    const rows = ralphTaskList(a.project.dbPath).filter((t) => t.id > 8);
    assert.equal(rows.length, 30);
    for (const r of results)
      assert.equal(rows.find((x) => x.id === r.task.id)?.title, r.task.title, `row ${r.task.id} is its caller's`);
  });

  test('an empty project: an empty page; no task before a feature and a discipline; the first gets id 1', async () => {
    const s = await env.open({}, initProject(tempDir(), { schema: env.generation, disciplines: false }));
    assert.deepEqual(await s.ok('list_tasks', {}), { tasks: [], total: 0, next_cursor: null });
    const first = { feature: 'core', discipline: 'backend', title: 'First' };
    await refusal(s, 'create_task', first, 'not_found');
    await refusal(s, 'get_task', { id: 1 }, 'not_found');
    await s.ok('create_feature', { name: 'core', display_name: 'Core' });
    await s.ok('create_discipline', { name: 'backend', display_name: 'Backend', icon: 'Server', color: '#000000' });
    assert.equal((await s.ok('create_task', first)).task.id, 1);
    const t = ralphTask(s.project.dbPath, 1)!;
    assert.deepEqual([t.title, t.provenance], ['First', 'agent']);
    assertToday(t.created, 'created');
    assert.equal((await s.ok('create_task', { ...first, title: 'Second', depends_on: [1] })).task.id, 2);
    assert.deepEqual(stored(s, 2).depends_on, [1]);
  });
});
