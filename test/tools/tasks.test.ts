import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import {
  assertRecentTimestamp,
  assertToday,
  jsonArray,
  makeRefused,
  row,
  rows,
  useSession,
  useTwoSessions,
  type AnyRow,
} from '../helpers/assertions.js';
import { dump, emptyProject } from '../helpers/project.js';

/**
 * Integration tests for the task tools (list_tasks, get_task, create_task, update_task, delete_task,
 * set_task_status, enrich_task), through the real built server over stdio. Every write is read back
 * with SQL; every refused call must leave the whole database unchanged.
 */

const taskRow = (p: Project, id: number): AnyRow | undefined => row(p, 'SELECT * FROM tasks WHERE id = ?', id);
const ids = (list: { id: number }[]): number[] => list.map((r) => r.id);

/** Calls a tool that must be refused with `code` (and a message), and proves the database did not change. */
const refused = makeRefused({ requireMessage: true });

// ---- list_tasks / get_task (read-only) -------------------------------------------------------

describe('list_tasks', () => {
  const ctx = useSession();

  test('no filter lists every task by id, compact rows matching the database', async () => {
    const r = await ctx.s.ok('list_tasks', {});
    const db = rows(
      ctx.p,
      'SELECT id, title, status, priority, feature, discipline, depends_on FROM tasks ORDER BY id',
    );
    assert.equal(r.total, 8);
    assert.equal(r.next_cursor, null);
    assert.deepEqual(
      r.tasks,
      db.map((t) => ({ ...t, depends_on: JSON.parse(t.depends_on), held_by: null })),
    );
    assert.deepEqual(r.tasks.find((t: AnyRow) => t.id === 4)?.depends_on, [3]);
  });

  test('filters by status, feature and discipline (alone and combined) agree with SQL', async () => {
    const cases: [Record<string, unknown>, string, unknown[]][] = [
      [{ filter_status: 'pending' }, 'status = ?', ['pending']],
      [{ filter_status: 'done' }, 'status = ?', ['done']],
      [{ filter_feature: 'recipes' }, 'feature = ?', ['recipes']],
      [{ filter_discipline: 'backend' }, 'discipline = ?', ['backend']],
      [{ filter_feature: 'recipes', filter_status: 'done' }, 'feature = ? AND status = ?', ['recipes', 'done']],
      [
        { filter_feature: 'auth', filter_discipline: 'backend', filter_status: 'blocked' },
        'feature = ? AND discipline = ? AND status = ?',
        ['auth', 'backend', 'blocked'],
      ],
      [
        { filter_status: 'in_progress', filter_discipline: 'quality' },
        'status = ? AND discipline = ?',
        ['in_progress', 'quality'],
      ],
    ];
    for (const [args, where, params] of cases) {
      const r = await ctx.s.ok('list_tasks', args);
      const expected = rows(ctx.p, `SELECT id FROM tasks WHERE ${where} ORDER BY id`, ...params).map(
        (x) => x.id as number,
      );
      assert.deepEqual(ids(r.tasks), expected, JSON.stringify(args));
      assert.equal(r.total, expected.length, JSON.stringify(args));
      assert.equal(r.next_cursor, null);
    }
    assert.deepEqual(ids((await ctx.s.ok('list_tasks', { filter_status: 'pending' })).tasks), [4, 5]);
    assert.deepEqual(ids((await ctx.s.ok('list_tasks', { filter_discipline: 'backend' })).tasks), [1, 2, 5, 7]);
    // A known feature/discipline with no matching tasks is an empty page, not an error.
    const none = await ctx.s.ok('list_tasks', { filter_feature: 'search', filter_status: 'done' });
    assert.deepEqual(none, { tasks: [], total: 0, next_cursor: null });
  });

  test('limit + cursor pagination walks every row exactly once', async () => {
    for (const [limit, filter] of [
      [1, {}],
      [3, {}],
      [7, {}],
      [8, {}],
      [1, { filter_discipline: 'backend' }],
      [2, { filter_feature: 'recipes' }],
    ] as [number, Record<string, unknown>][]) {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r: AnyRow = await ctx.s.ok('list_tasks', { ...filter, limit, ...(cursor !== null ? { cursor } : {}) });
        assert.ok(r.tasks.length <= limit);
        assert.ok(r.tasks.length > 0, 'no empty page while walking');
        seen.push(...ids(r.tasks));
        cursor = r.next_cursor;
        pages++;
        assert.ok(pages < 20, 'pagination does not terminate');
      } while (cursor !== null);
      const where =
        Object.keys(filter).length === 0
          ? '1'
          : Object.keys(filter)
              .map((k) => `${k.replace('filter_', '')} = ?`)
              .join(' AND ');
      const expected = rows(ctx.p, `SELECT id FROM tasks WHERE ${where} ORDER BY id`, ...Object.values(filter)).map(
        (x) => x.id as number,
      );
      assert.deepEqual(seen, expected, `limit ${limit} ${JSON.stringify(filter)}`);
      assert.equal(new Set(seen).size, seen.length, 'a row was returned twice');
      assert.equal(pages, Math.ceil(expected.length / limit), `limit ${limit}: page count`);
    }
    const first = await ctx.s.ok('list_tasks', { limit: 3 });
    assert.equal(first.total, 8, 'total counts all matches, not the page');
    assert.equal(typeof first.next_cursor, 'string');
  });

  test('unknown filter feature or discipline is not_found', async () => {
    await refused(ctx.s, ctx.p, 'list_tasks', { filter_feature: 'nope' }, 'not_found');
    await refused(ctx.s, ctx.p, 'list_tasks', { filter_discipline: 'nope' }, 'not_found');
  });

  test('bad cursor, bad limit, bad status and unknown fields are invalid_argument', async () => {
    for (const cursor of ['abc', '-1', '1.5', '', 'x'.repeat(40)])
      await refused(ctx.s, ctx.p, 'list_tasks', { cursor }, 'invalid_argument');
    for (const limit of [0, -1, 501, 2.5]) await refused(ctx.s, ctx.p, 'list_tasks', { limit }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'list_tasks', { limit: '3' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'list_tasks', { filter_status: 'open' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'list_tasks', { status: 'pending' }, 'invalid_argument');
  });
});

describe('get_task', () => {
  const ctx = useSession();

  test('returns the task in full with its comments and dependencies', async () => {
    const r = await ctx.s.ok('get_task', { id: 3 });
    const t = taskRow(ctx.p, 3)!;
    assert.equal(r.task.id, 3);
    assert.equal(r.task.title, t.title);
    assert.equal(r.task.status, 'in_progress');
    assert.equal(r.task.feature, 'recipes');
    assert.equal(r.task.discipline, 'frontend');
    assert.deepEqual(r.task.tags, JSON.parse(t.tags));
    assert.deepEqual(r.task.acceptance_criteria, [
      'Ingredients can be added and removed',
      'Shows server validation errors',
    ]);
    assert.deepEqual(r.task.context_files, ['src/ui/RecipeForm.tsx']);
    assert.equal(r.task.hints, t.hints);
    assert.deepEqual(r.task.depends_on, [2]);
    assert.deepEqual(r.dependencies, [{ id: 2, title: 'Recipe REST endpoints', status: 'done' }]);
    const comments = rows(ctx.p, 'SELECT * FROM task_comments WHERE task_id = 3 ORDER BY id');
    assert.equal(r.comments.length, 1);
    assert.deepEqual(r.comments, comments);
  });

  test('a task with no dependencies and a human comment', async () => {
    const r7 = await ctx.s.ok('get_task', { id: 7 });
    assert.equal(r7.task.blocked_by, 'Waiting for the SMTP credentials');
    assert.deepEqual(r7.dependencies, [{ id: 3, title: 'Recipe editor form', status: 'in_progress' }]);
    assert.equal(r7.comments.length, 1);
    assert.equal(r7.comments[0].author, 'human');
    assert.equal(r7.comments[0].discipline, null);
    const r5 = await ctx.s.ok('get_task', { id: 5 });
    assert.deepEqual(r5.comments, []);
    assert.deepEqual(r5.dependencies, []);
    assert.equal(r5.task.priority, 'critical');
  });

  test('unknown id is not_found; bad ids are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'get_task', { id: 99 }, 'not_found');
    await refused(ctx.s, ctx.p, 'get_task', { id: 0 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_task', { id: '3' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_task', {}, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_task', { id: 3, extra: true }, 'invalid_argument');
  });
});

// ---- create_task -----------------------------------------------------------------------------

describe('create_task', () => {
  const ctx = useSession();

  test('creates a task with id max(id)+1, today, provenance agent, JSON columns as arrays', async () => {
    const r = await ctx.s.ok('create_task', {
      feature: 'search',
      discipline: 'backend',
      title: 'Rank search results',
      description: 'Order results by BM25',
      priority: 'high',
      acceptance_criteria: ['Best match first'],
      depends_on: [5, 1],
      tags: ['search', 'ranking'],
      context_files: ['./src/search//rank.ts', 'docs/search.md'],
      output_artifacts: ['src/search/rank.ts'],
      hints: 'bm25() is built into FTS5',
      estimated_turns: 12,
    });
    assert.equal(r.task.id, 9);
    const t = taskRow(ctx.p, 9)!;
    assert.ok(t, 'row 9 was written');
    assert.equal(t.feature, 'search');
    assert.equal(t.discipline, 'backend');
    assert.equal(t.title, 'Rank search results');
    assert.equal(t.description, 'Order results by BM25');
    assert.equal(t.status, 'pending');
    assert.equal(t.priority, 'high');
    assert.equal(t.provenance, 'agent');
    assertToday(t.created, 'created');
    assert.equal(t.updated, null);
    assert.equal(t.completed, null);
    assert.equal(t.hints, 'bm25() is built into FTS5');
    assert.equal(t.estimated_turns, 12);
    assert.deepEqual(jsonArray(t.tags, 'tags'), ['search', 'ranking']);
    assert.deepEqual(jsonArray(t.depends_on, 'depends_on'), [5, 1]);
    assert.deepEqual(jsonArray(t.acceptance_criteria, 'acceptance_criteria'), ['Best match first']);
    assert.deepEqual(jsonArray(t.context_files, 'context_files'), ['src/search/rank.ts', 'docs/search.md']);
    assert.deepEqual(jsonArray(t.output_artifacts, 'output_artifacts'), ['src/search/rank.ts']);
    // What the tool returned is what was stored.
    assert.equal(r.task.created, t.created);
    assert.deepEqual(r.task.context_files, ['src/search/rank.ts', 'docs/search.md']);
    assert.equal(r.task.provenance, 'agent');
  });

  test('a minimal draft gets defaults: empty JSON arrays, no priority', async () => {
    const r = await ctx.s.ok('create_task', {
      feature: 'auth',
      discipline: 'quality',
      title: 'Sign-in tests',
      status: 'draft',
    });
    assert.equal(r.task.id, 10);
    const t = taskRow(ctx.p, 10)!;
    assert.equal(t.status, 'draft');
    assert.equal(t.priority, null);
    assert.equal(t.description, null);
    assert.equal(t.provenance, 'agent');
    assertToday(t.created, 'created');
    for (const c of ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'])
      assert.deepEqual(jsonArray(t[c], c), [], c);
  });

  test('ids are max(id)+1, not count+1 (after a deletion leaves a gap)', async () => {
    await ctx.s.ok('delete_task', { id: 8 });
    const before = row(ctx.p, 'SELECT count(*) AS n, max(id) AS m FROM tasks')!;
    assert.deepEqual([before.n, before.m], [9, 10]);
    const r = await ctx.s.ok('create_task', { feature: 'auth', discipline: 'documentation', title: 'Docs again' });
    assert.equal(r.task.id, 11);
    assert.equal(taskRow(ctx.p, 11)?.title, 'Docs again');
  });

  test('unknown feature or discipline is not_found', async () => {
    await refused(ctx.s, ctx.p, 'create_task', { feature: 'nope', discipline: 'backend', title: 'x' }, 'not_found');
    await refused(ctx.s, ctx.p, 'create_task', { feature: 'search', discipline: 'nope', title: 'x' }, 'not_found');
  });

  test('depends_on naming a missing task is invalid_argument', async () => {
    const err = await refused(
      ctx.s,
      ctx.p,
      'create_task',
      { feature: 'search', discipline: 'backend', title: 'x', depends_on: [1, 999] },
      'invalid_argument',
    );
    assert.match(err.message, /999/);
    await refused(
      ctx.s,
      ctx.p,
      'create_task',
      { feature: 'search', discipline: 'backend', title: 'x', depends_on: [0] },
      'invalid_argument',
    );
  });

  test('context files outside the project are invalid_argument', async () => {
    for (const f of ['../x', '/etc/passwd', 'src/../../x', '~/x', 'src\\x.ts', '%2e%2e/x'])
      await refused(
        ctx.s,
        ctx.p,
        'create_task',
        { feature: 'search', discipline: 'backend', title: 'x', context_files: [f] },
        'invalid_argument',
      );
  });

  test('a status other than draft or pending is invalid_argument', async () => {
    for (const status of ['done', 'in_progress', 'blocked', 'skipped', 'open'])
      await refused(
        ctx.s,
        ctx.p,
        'create_task',
        { feature: 'search', discipline: 'backend', title: 'x', status },
        'invalid_argument',
      );
  });

  test('schema violations are invalid_argument', async () => {
    const base = { feature: 'search', discipline: 'backend', title: 'x' };
    await refused(ctx.s, ctx.p, 'create_task', { feature: 'search', discipline: 'backend' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, title: '   ' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, priority: 'urgent' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, tags: 'a,b' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, estimated_turns: 0 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, provenance: 'human' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_task', { ...base, id: 50 }, 'invalid_argument');
    assert.equal(row(ctx.p, 'SELECT max(id) AS m FROM tasks')!.m, 11);
  });
});

// ---- update_task -----------------------------------------------------------------------------

describe('update_task', () => {
  const ctx = useSession();

  test('changes only the given fields and stamps updated', async () => {
    const before = taskRow(ctx.p, 5)!;
    const r = await ctx.s.ok('update_task', {
      id: 5,
      title: 'FTS5 index over recipes and tags',
      priority: 'medium',
      tags: ['search'],
      depends_on: [1, 2],
      context_files: ['./src/db/fts.sql'],
      estimated_turns: 4,
    });
    assert.deepEqual([...r.changed].sort(), [
      'context_files',
      'depends_on',
      'estimated_turns',
      'priority',
      'tags',
      'title',
    ]);
    const t = taskRow(ctx.p, 5)!;
    assert.equal(t.title, 'FTS5 index over recipes and tags');
    assert.equal(t.priority, 'medium');
    assert.deepEqual(jsonArray(t.tags, 'tags'), ['search']);
    assert.deepEqual(jsonArray(t.depends_on, 'depends_on'), [1, 2]);
    assert.deepEqual(jsonArray(t.context_files, 'context_files'), ['src/db/fts.sql']);
    assert.equal(t.estimated_turns, 4);
    assertToday(t.updated, 'updated');
    // Untouched columns stay as they were.
    for (const c of [
      'description',
      'status',
      'acceptance_criteria',
      'created',
      'completed',
      'provenance',
      'feature',
      'discipline',
      'hints',
    ])
      assert.equal(t[c], before[c], c);
    assert.deepEqual(r.task.depends_on, [1, 2]);
    assert.equal(r.task.updated, t.updated);
  });

  test('lists are replaced whole; a non-cyclic dependency change is accepted', async () => {
    await ctx.s.ok('update_task', {
      id: 4,
      depends_on: [1, 3],
      acceptance_criteria: ['Runs in CI', 'Covers validation errors'],
    });
    const t = taskRow(ctx.p, 4)!;
    assert.deepEqual(jsonArray(t.depends_on, 'depends_on'), [1, 3]);
    assert.deepEqual(jsonArray(t.acceptance_criteria, 'acceptance_criteria'), [
      'Runs in CI',
      'Covers validation errors',
    ]);
    await ctx.s.ok('update_task', { id: 4, depends_on: [] });
    assert.deepEqual(jsonArray(taskRow(ctx.p, 4)!.depends_on, 'depends_on'), []);
    await ctx.s.ok('update_task', { id: 4, depends_on: [3] });
    assert.deepEqual(jsonArray(taskRow(ctx.p, 4)!.depends_on, 'depends_on'), [3]);
  });

  test('a self-dependency is invalid_argument and nothing changes', async () => {
    await refused(ctx.s, ctx.p, 'update_task', { id: 1, depends_on: [1] }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'update_task',
      { id: 3, title: 'also a title', depends_on: [2, 3] },
      'invalid_argument',
    );
    assert.equal(taskRow(ctx.p, 3)!.title, 'Recipe editor form');
    assert.equal(taskRow(ctx.p, 3)!.updated, null);
  });

  test('a dependency cycle is invalid_argument and nothing changes', async () => {
    // 4 → 3 → 2 → 1, so 1 → 4 closes a cycle.
    const err = await refused(ctx.s, ctx.p, 'update_task', { id: 1, depends_on: [4] }, 'invalid_argument');
    assert.match(err.message, /cycle/i);
    await refused(ctx.s, ctx.p, 'update_task', { id: 2, title: 'renamed', depends_on: [7] }, 'invalid_argument'); // 7 → 3 → 2
    const t1 = taskRow(ctx.p, 1)!;
    assert.equal(t1.depends_on, '[]');
    assert.equal(t1.updated, null);
    assert.equal(taskRow(ctx.p, 2)!.title, 'Recipe REST endpoints');
  });

  test('unknown dependency ids are invalid_argument and nothing changes', async () => {
    const err = await refused(ctx.s, ctx.p, 'update_task', { id: 6, depends_on: [5, 404] }, 'invalid_argument');
    assert.match(err.message, /404/);
    assert.equal(taskRow(ctx.p, 6)!.depends_on, '[]');
  });

  test('unknown field, no fields, bad values are invalid_argument; unknown id is not_found', async () => {
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, status: 'done' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, colour: 'red' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, title: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, priority: 'p1' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, context_files: ['../secret'] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 5, context_files: ['/etc/passwd'] }, 'invalid_argument');
    // A bad field refuses the whole call: the good fields given with it are not written either.
    await refused(
      ctx.s,
      ctx.p,
      'update_task',
      { id: 5, title: 'half-applied?', hints: 'x', context_files: ['../x'] },
      'invalid_argument',
    );
    assert.notEqual(taskRow(ctx.p, 5)!.title, 'half-applied?');
    await refused(ctx.s, ctx.p, 'update_task', { title: 'no id' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task', { id: 99, title: 'ghost' }, 'not_found');
  });
});

// ---- delete_task -----------------------------------------------------------------------------

describe('delete_task', () => {
  const ctx = useSession();

  test('refused with conflict while other tasks depend on it', async () => {
    const e1 = await refused(ctx.s, ctx.p, 'delete_task', { id: 1 }, 'conflict');
    assert.deepEqual(e1.details?.dependents, [2]);
    const e3 = await refused(ctx.s, ctx.p, 'delete_task', { id: 3 }, 'conflict');
    assert.deepEqual(e3.details?.dependents, [4, 7]);
    assert.ok(taskRow(ctx.p, 1));
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM task_comments WHERE task_id = 1')!.n, 1);
  });

  test('deleting a leaf removes it and its comments', async () => {
    const c = await ctx.s.ok('add_task_comment', { task_id: 8, body: 'Skipped: docs come later.' });
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM task_comments WHERE task_id = 8')!.n, 1);
    const r = await ctx.s.ok('delete_task', { id: 8 });
    assert.deepEqual(r, { deleted_id: 8, deleted_comments: 1 });
    assert.equal(taskRow(ctx.p, 8), undefined);
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM task_comments WHERE task_id = 8')!.n, 0);
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM task_comments WHERE id = ?', c.comment.id)!.n, 0);
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM tasks')!.n, 7);
  });

  test('deleting a dependent leaf removes its comment and frees its dependency', async () => {
    const r = await ctx.s.ok('delete_task', { id: 7 });
    assert.deepEqual(r, { deleted_id: 7, deleted_comments: 1 });
    assert.equal(taskRow(ctx.p, 7), undefined);
    assert.equal(row(ctx.p, 'SELECT count(*) AS n FROM task_comments WHERE task_id = 7')!.n, 0);
    // Other comments are untouched.
    assert.deepEqual(
      rows(ctx.p, 'SELECT task_id FROM task_comments ORDER BY id').map((x) => x.task_id),
      [1, 2, 3],
    );
    const e = await refused(ctx.s, ctx.p, 'delete_task', { id: 3 }, 'conflict');
    assert.deepEqual(e.details?.dependents, [4]);
  });

  test('unknown id is not_found; a bad id is invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'delete_task', { id: 8 }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_task', { id: 99 }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_task', { id: -1 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'delete_task', { id: 5, cascade: true }, 'invalid_argument');
  });
});

// ---- set_task_status -------------------------------------------------------------------------

describe('set_task_status', () => {
  const ctx = useSession();

  test('done stamps completed with today (YYYY-MM-DD)', async () => {
    const r = await ctx.s.ok('set_task_status', { id: 5, status: 'done' });
    assert.equal(r.previous_status, 'pending');
    assert.equal(r.changed, true);
    const t = taskRow(ctx.p, 5)!;
    assert.equal(t.status, 'done');
    assertToday(t.completed, 'completed');
    assertToday(t.updated, 'updated');
    assert.equal(r.task.completed, t.completed);
  });

  test('leaving done clears completed', async () => {
    const r = await ctx.s.ok('set_task_status', { id: 5, status: 'in_progress' });
    assert.equal(r.previous_status, 'done');
    const t = taskRow(ctx.p, 5)!;
    assert.equal(t.status, 'in_progress');
    assert.equal(t.completed, null);
    // A task seeded as done with a completion date.
    assert.equal(taskRow(ctx.p, 1)!.completed, '2026-01-04');
    await ctx.s.ok('set_task_status', { id: 1, status: 'pending' });
    assert.equal(taskRow(ctx.p, 1)!.completed, null);
    assert.equal(taskRow(ctx.p, 1)!.status, 'pending');
  });

  test('leaving blocked keeps blocked_by (a person wrote it; it is the record of the block)', async () => {
    await ctx.s.ok('set_task_status', { id: 7, status: 'pending' });
    const t = taskRow(ctx.p, 7)!;
    assert.equal(t.status, 'pending');
    assert.equal(t.blocked_by, 'Waiting for the SMTP credentials');
  });

  test('setting the current status is a no-op', async () => {
    const before = dump(ctx.p);
    const r = await ctx.s.ok('set_task_status', { id: 6, status: 'draft' });
    assert.equal(r.changed, false);
    assert.equal(r.previous_status, 'draft');
    assert.equal(dump(ctx.p), before);
  });

  test('every status Ralph knows is accepted', async () => {
    for (const st of ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped']) {
      await ctx.s.ok('set_task_status', { id: 8, status: st });
      assert.equal(taskRow(ctx.p, 8)!.status, st);
      assert.equal(taskRow(ctx.p, 8)!.completed === null, st !== 'done', st);
    }
  });

  test('invalid status is invalid_argument; unknown id is not_found', async () => {
    for (const status of ['finished', 'DONE', '', 'in-progress'])
      await refused(ctx.s, ctx.p, 'set_task_status', { id: 4, status }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'set_task_status', { id: 4 }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'set_task_status',
      { id: 4, status: 'done', completed: '2026-01-01' },
      'invalid_argument',
    );
    await refused(ctx.s, ctx.p, 'set_task_status', { id: 99, status: 'done' }, 'not_found');
    assert.equal(taskRow(ctx.p, 4)!.status, 'pending');
  });
});

// ---- enrich_task -----------------------------------------------------------------------------

describe('enrich_task', () => {
  const ctx = useSession();

  test('promotes a draft to pending with pseudocode and an RFC 3339 UTC enriched_at', async () => {
    const r = await ctx.s.ok('enrich_task', {
      id: 6,
      pseudocode: 'on input: debounce 150ms; query FTS; show top 5',
      acceptance_criteria: ['Suggestions appear after typing 2 letters'],
      context_files: ['./src/ui/Header.tsx'],
    });
    const t = taskRow(ctx.p, 6)!;
    assert.equal(t.status, 'pending');
    assert.equal(t.pseudocode, 'on input: debounce 150ms; query FTS; show top 5');
    assertRecentTimestamp(t.enriched_at, 'enriched_at');
    assertToday(t.updated, 'updated');
    assert.deepEqual(jsonArray(t.acceptance_criteria, 'acceptance_criteria'), [
      'Suggestions appear after typing 2 letters',
    ]);
    assert.deepEqual(jsonArray(t.context_files, 'context_files'), ['src/ui/Header.tsx']);
    assert.equal(r.task.status, 'pending');
    assert.equal(r.task.enriched_at, t.enriched_at);
  });

  test('without lists, the current lists are kept', async () => {
    const c = await ctx.s.ok('create_task', {
      feature: 'search',
      discipline: 'frontend',
      title: 'Highlight matches',
      status: 'draft',
      acceptance_criteria: ['Matches are bold'],
      context_files: ['src/ui/Results.tsx'],
    });
    await ctx.s.ok('enrich_task', { id: c.task.id, pseudocode: 'wrap matches in <mark>' });
    const t = taskRow(ctx.p, c.task.id)!;
    assert.equal(t.status, 'pending');
    assert.deepEqual(jsonArray(t.acceptance_criteria, 'acceptance_criteria'), ['Matches are bold']);
    assert.deepEqual(jsonArray(t.context_files, 'context_files'), ['src/ui/Results.tsx']);
    assertRecentTimestamp(t.enriched_at, 'enriched_at');
  });

  test('a non-draft task is refused with conflict', async () => {
    for (const id of [1, 3, 5, 7, 8, 6])
      await refused(ctx.s, ctx.p, 'enrich_task', { id, pseudocode: 'x' }, 'conflict');
    assert.equal(taskRow(ctx.p, 5)!.pseudocode, null);
    assert.equal(taskRow(ctx.p, 5)!.enriched_at, null);
  });

  test('unknown id is not_found; bad arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'enrich_task', { id: 99, pseudocode: 'x' }, 'not_found');
    const d = await ctx.s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Rate limiting',
      status: 'draft',
    });
    await refused(ctx.s, ctx.p, 'enrich_task', { id: d.task.id }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'enrich_task', { id: d.task.id, pseudocode: '  ' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'enrich_task',
      { id: d.task.id, pseudocode: 'x', context_files: ['../x'] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'enrich_task',
      { id: d.task.id, pseudocode: 'x', status: 'pending' },
      'invalid_argument',
    );
    assert.equal(taskRow(ctx.p, d.task.id)!.status, 'draft');
  });
});

// ---- scope: a task session -------------------------------------------------------------------

describe('task tools in a task_execution session (--task 3)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '3']);

  test('the task id defaults to the session task', async () => {
    const r = await ctx.s.ok('set_task_status', { status: 'done' });
    assert.equal(r.task.id, 3);
    assert.equal(taskRow(ctx.p, 3)!.status, 'done');
    assertToday(taskRow(ctx.p, 3)!.completed, 'completed');
  });

  test('changing another task is out_of_scope; reading it is allowed', async () => {
    await refused(ctx.s, ctx.p, 'set_task_status', { id: 4, status: 'done' }, 'out_of_scope');
    const r = await ctx.s.ok('get_task', { id: 4 });
    assert.equal(r.task.id, 4);
  });

  test('tools outside the recipe do not exist in the session', async () => {
    const names = await ctx.s.toolNames();
    for (const hidden of ['create_task', 'update_task', 'delete_task', 'enrich_task', 'list_tasks'])
      assert.ok(!names.includes(hidden), hidden);
    const before = dump(ctx.p);
    const r = await ctx.s.call('delete_task', { id: 8 }).then(
      (x) => ({ isError: x.isError === true }),
      () => ({ isError: true }),
    );
    assert.equal(r.isError, true);
    assert.equal(dump(ctx.p), before);
  });
});

// ---- two sessions writing at once ------------------------------------------------------------

describe('create_task from two sessions at once', () => {
  const ctx = useTwoSessions();

  test('ids stay max(id)+1 and unique under concurrent writers', async () => {
    const calls: Promise<AnyRow>[] = [];
    for (let i = 0; i < 15; i++) {
      calls.push(ctx.a.ok('create_task', { feature: 'search', discipline: 'backend', title: `A${i}` }));
      calls.push(ctx.b.ok('create_task', { feature: 'auth', discipline: 'frontend', title: `B${i}` }));
    }
    const results = await Promise.all(calls);
    const got = results.map((r) => r.task.id as number).sort((x, y) => x - y);
    assert.deepEqual(
      got,
      Array.from({ length: 30 }, (_, i) => 9 + i),
      'ids 9..38, each once',
    );
    const db = rows(ctx.p, 'SELECT id, title FROM tasks WHERE id > 8 ORDER BY id');
    assert.equal(db.length, 30);
    for (const r of results)
      assert.equal(
        db.find((x) => x.id === r.task.id)?.title,
        r.task.title,
        `row ${r.task.id} holds what its caller wrote`,
      );
  });
});

describe('task tools on an empty project', () => {
  const ctx = useSession([], emptyProject);

  test('list_tasks is an empty page; create_task refuses until a feature and a discipline exist', async () => {
    assert.deepEqual(await ctx.s.ok('list_tasks', {}), { tasks: [], total: 0, next_cursor: null });
    await refused(ctx.s, ctx.p, 'create_task', { feature: 'core', discipline: 'backend', title: 'First' }, 'not_found');
    await refused(ctx.s, ctx.p, 'get_task', { id: 1 }, 'not_found');
  });

  test('the first task gets id 1', async () => {
    await ctx.s.ok('create_feature', { name: 'core', display_name: 'Core' });
    await ctx.s.ok('create_discipline', { name: 'backend', display_name: 'Backend', icon: 'Server', color: '#000000' });
    const r = await ctx.s.ok('create_task', { feature: 'core', discipline: 'backend', title: 'First' });
    assert.equal(r.task.id, 1);
    const t = taskRow(ctx.p, 1)!;
    assert.equal(t.title, 'First');
    assert.equal(t.provenance, 'agent');
    assertToday(t.created, 'created');
    assert.equal(
      (await ctx.s.ok('create_task', { feature: 'core', discipline: 'backend', title: 'Second', depends_on: [1] })).task
        .id,
      2,
    );
    assert.deepEqual(jsonArray(taskRow(ctx.p, 2)!.depends_on, 'depends_on'), [1]);
  });
});
