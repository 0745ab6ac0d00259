import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { refused, useSession, type AnyRow } from '../helpers/assertions.js';
import { dump } from '../helpers/project.js';
import type { Session } from '../helpers/server.js';
import { auditRows, commentsOf, deps, ids, maxCommentId, maxTaskId, taskRow } from './support.js';

/**
 * Issue 3, spawn_subtasks (enrichment recipe): subtasks inherit from the parent, get dependencies by
 * index or as a chain, take over the parent's dependents, and the whole call is all or nothing.
 *
 * Sample: task 3 (recipes/frontend, medium, depends on [2], in_progress) has dependents 4 and 7.
 */

const ENRICHMENT = ['--recipe', 'enrichment', '--session-id', 'enrich-1'];

describe('spawn_subtasks: inheritance, `after` indexes, dependents gain the last subtask', () => {
  const ctx = useSession(ENRICHMENT);

  test('three subtasks of task 3, the second after the first, the third with its own feature/discipline/priority', async () => {
    const { s, p } = ctx;
    const parentBefore = taskRow(p, 3)!;
    const lastComment = maxCommentId(p);
    const r = await s.ok('spawn_subtasks', {
      parent_id: 3,
      tasks: [
        {
          title: 'Ingredient list component',
          description: 'Add/remove rows',
          acceptance_criteria: ['Rows can be removed'],
        },
        { title: 'Wire the form to the API', after: [0] },
        { title: 'Server-side validation messages', feature: 'search', discipline: 'backend', priority: 'low' },
      ],
    });
    assert.deepEqual(ids(r.created), [9, 10, 11], 'ids continue from max(id)');

    const a = taskRow(p, 9)!;
    assert.equal(a.feature, 'recipes', 'feature inherited');
    assert.equal(a.discipline, 'frontend', 'discipline inherited');
    assert.equal(a.priority, 'medium', 'priority inherited');
    assert.equal(a.status, 'pending');
    assert.equal(a.description, 'Add/remove rows');
    assert.deepEqual(JSON.parse(String(a.acceptance_criteria)), ['Rows can be removed']);
    assert.deepEqual(deps(p, 9), [2], 'a subtask with no sibling dependency needs what the parent needed');

    const b = taskRow(p, 10)!;
    assert.equal(b.feature, 'recipes');
    assert.equal(b.discipline, 'frontend');
    assert.equal(b.priority, 'medium');
    assert.ok(deps(p, 10).includes(9), `task 10 depends on task 9 (after: [0]); got ${b.depends_on}`);
    assert.ok(
      deps(p, 10).every((d) => d === 9 || d === 2),
      `task 10 needs only 9 (and maybe the parent's 2); got ${b.depends_on}`,
    );

    const c = taskRow(p, 11)!;
    assert.equal(c.feature, 'search', 'a given feature wins');
    assert.equal(c.discipline, 'backend', 'a given discipline wins');
    assert.equal(c.priority, 'low', 'a given priority wins');
    assert.deepEqual(deps(p, 11), [2], "the parent's dependencies");

    // Not skip_parent: the parent stays as it was (status), its dependents now also need the last subtask.
    const parent = taskRow(p, 3)!;
    assert.equal(parent.status, parentBefore.status);
    assert.deepEqual(deps(p, 3), [2]);
    assert.deepEqual(deps(p, 4).sort(), [11, 3], 'task 4 keeps the parent and gains the last subtask');
    assert.deepEqual(deps(p, 7).sort(), [11, 3], 'task 7 keeps the parent and gains the last subtask');
    assert.deepEqual([...r.rewired].sort(), [4, 7]);

    assert.equal(r.parent.id, 3);
    for (const t of r.created as AnyRow[])
      assert.deepEqual(t.depends_on, deps(p, t.id), `response depends_on of ${t.id} matches the row`);
    // A comment on the parent names the new tasks.
    const added = commentsOf(p, 3).filter((x) => x.id > lastComment);
    assert.equal(added.length, 1);
    for (const id of [9, 10, 11]) assert.match(String(added[0]!.body), new RegExp(`\\b${id}\\b`));
  });

  test('subtasks of a parent with no dependents rewire nothing; status draft is allowed', async () => {
    const { s, p } = ctx;
    const r = await s.ok('spawn_subtasks', {
      parent_id: 5,
      tasks: [{ title: 'FTS table', status: 'draft' }, { title: 'Triggers' }],
    });
    assert.deepEqual(ids(r.created), [12, 13]);
    assert.deepEqual(r.rewired, []);
    assert.equal(taskRow(p, 12)!.status, 'draft');
    assert.equal(taskRow(p, 12)!.priority, 'critical', "the parent's priority");
    assert.deepEqual(deps(p, 12), []);
    assert.equal(taskRow(p, 5)!.status, 'pending');
  });

  test('one audit row, outcome ok, per successful call', () => {
    const a = auditRows(ctx.p, "tool = 'spawn_subtasks'");
    assert.deepEqual(
      a.map((x) => x.outcome),
      ['ok', 'ok'],
    );
    assert.ok(a.every((x) => x.session_id === 'enrich-1' && x.recipe === 'enrichment'));
  });
});

describe('spawn_subtasks: chain + skip_parent', () => {
  const ctx = useSession(ENRICHMENT);

  test('a straight chain; dependents of the parent now depend on the last subtask instead; the parent is skipped with a comment naming the ids', async () => {
    const { s, p } = ctx;
    const lastComment = maxCommentId(p);
    const r = await s.ok('spawn_subtasks', {
      parent_id: 3,
      chain: true,
      skip_parent: true,
      tasks: [{ title: 'Form skeleton' }, { title: 'Ingredient rows' }, { title: 'Validation display' }],
    });
    assert.deepEqual(ids(r.created), [9, 10, 11]);
    assert.deepEqual(deps(p, 9), [2], 'the head of the chain needs what the parent needed');
    assert.deepEqual(deps(p, 10), [9]);
    assert.deepEqual(deps(p, 11), [10]);
    for (const id of [9, 10, 11]) {
      const t = taskRow(p, id)!;
      assert.deepEqual([t.feature, t.discipline, t.priority], ['recipes', 'frontend', 'medium']);
    }
    assert.deepEqual(deps(p, 4), [11], 'the skipped parent is replaced by the last subtask');
    assert.deepEqual(deps(p, 7), [11]);
    const parent = taskRow(p, 3)!;
    assert.equal(parent.status, 'skipped');
    assert.equal(r.parent.status, 'skipped');
    const added = commentsOf(p, 3).filter((x) => x.id > lastComment);
    assert.equal(added.length, 1, 'one comment on the parent');
    for (const id of [9, 10, 11])
      assert.match(String(added[0]!.body), new RegExp(`#?\\b${id}\\b`), `the comment names ${id}: ${added[0]!.body}`);
  });

  test('chain and after together: dependencies are the union', async () => {
    const { s, p } = ctx;
    const r = await s.ok('spawn_subtasks', {
      parent_id: 5,
      chain: true,
      tasks: [{ title: 'Schema' }, { title: 'Indexer' }, { title: 'Query API', after: [0] }],
    });
    assert.deepEqual(ids(r.created), [12, 13, 14]);
    assert.deepEqual(deps(p, 13), [12]);
    assert.deepEqual([...deps(p, 14)].sort(), [12, 13]);
  });
});

/** A call that must fail and leave the database, the max task id and the comment count exactly as before. */
async function failsAtomically(s: Session, p: Project, args: Record<string, unknown>, code: string) {
  const maxBefore = maxTaskId(p);
  const commentsBefore = maxCommentId(p);
  const err = await refused(s, p, 'spawn_subtasks', args, code);
  assert.equal(maxTaskId(p), maxBefore, 'no task id was used');
  assert.equal(maxCommentId(p), commentsBefore, 'no comment was written');
  return err;
}

describe('spawn_subtasks: all or nothing', () => {
  const ctx = useSession(ENRICHMENT);

  test('an unknown feature in the third task leaves the database exactly as before (with skip_parent too)', async () => {
    const { s, p } = ctx;
    const tasks = [{ title: 'one' }, { title: 'two', after: [0] }, { title: 'three', feature: 'payments' }];
    await failsAtomically(s, p, { parent_id: 3, tasks }, 'not_found');
    await failsAtomically(s, p, { parent_id: 3, tasks, chain: true, skip_parent: true }, 'not_found');
    assert.equal(taskRow(p, 3)!.status, 'in_progress');
    assert.deepEqual(deps(p, 4), [3]);
  });

  test('other failures after some inserts: unknown discipline, a bad context file, an unknown depends_on', async () => {
    const { s, p } = ctx;
    await failsAtomically(
      s,
      p,
      { parent_id: 3, tasks: [{ title: 'one' }, { title: 'two', discipline: 'design' }] },
      'not_found',
    );
    await failsAtomically(
      s,
      p,
      {
        parent_id: 3,
        tasks: [{ title: 'one' }, { title: 'two' }, { title: 'three', context_files: ['../outside.ts'] }],
      },
      'invalid_argument',
    );
    await failsAtomically(
      s,
      p,
      { parent_id: 3, tasks: [{ title: 'one' }, { title: 'two', depends_on: [999] }] },
      'invalid_argument',
    );
  });

  test('skip_parent on a done parent fails after the inserts, and rolls them back', async () => {
    const { s, p } = ctx;
    await failsAtomically(
      s,
      p,
      { parent_id: 1, skip_parent: true, tasks: [{ title: 'one' }, { title: 'two' }] },
      'conflict',
    );
    await failsAtomically(s, p, { parent_id: 8, skip_parent: true, tasks: [{ title: 'one' }] }, 'conflict');
  });

  test('argument errors: unknown parent, no tasks, `after` naming itself or a later task, unknown fields', async () => {
    const { s, p } = ctx;
    await failsAtomically(s, p, { parent_id: 999, tasks: [{ title: 'one' }] }, 'not_found');
    await failsAtomically(s, p, { parent_id: 3, tasks: [] }, 'invalid_argument');
    await failsAtomically(
      s,
      p,
      { parent_id: 3, tasks: [{ title: 'one', after: [1] }, { title: 'two' }] },
      'invalid_argument',
    );
    await failsAtomically(
      s,
      p,
      { parent_id: 3, tasks: [{ title: 'one' }, { title: 'two', after: [1] }] },
      'invalid_argument',
    );
    await failsAtomically(
      s,
      p,
      { parent_id: 3, tasks: [{ title: 'one' }, { title: 'two', after: [-1] }] },
      'invalid_argument',
    );
    await failsAtomically(s, p, { parent_id: 3, tasks: [{ title: '' }] }, 'invalid_argument');
    await failsAtomically(s, p, { parent_id: 3, tasks: [{ title: 'one', status: 'done' }] }, 'invalid_argument');
    await failsAtomically(s, p, { parent_id: 3, tasks: [{ title: 'one', colour: 'red' }] }, 'invalid_argument');
    await failsAtomically(s, p, { tasks: [{ title: 'one' }] }, 'invalid_argument');
  });

  test('after all those failures, the next successful call takes id 9', async () => {
    const before = dump(ctx.p);
    const r = await ctx.s.ok('spawn_subtasks', { parent_id: 4, tasks: [{ title: 'Playwright setup' }] });
    assert.deepEqual(ids(r.created), [9]);
    assert.notEqual(dump(ctx.p), before);
    // Every refusal above was recorded with its code; the one success once.
    const outcomes = auditRows(ctx.p, "tool = 'spawn_subtasks'").map((x) => x.outcome);
    assert.equal(outcomes.filter((o) => o === 'ok').length, 1);
    assert.deepEqual(
      outcomes.filter((o) => o !== 'ok'),
      [
        ...Array(2).fill('not_found'),
        'not_found',
        'invalid_argument',
        'invalid_argument',
        'conflict',
        'conflict',
        'not_found',
        ...Array(8).fill('invalid_argument'),
      ],
      'one audit row per refused call, with its code',
    );
  });
});
