import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { assertRecentTimestamp, refused, row, rows, useSession, type AnyRow } from '../helpers/assertions.js';

/**
 * Integration tests for add_task_comment, update_task_comment and delete_task_comment through the
 * real built server. Seeded comments: 1 on task 1, 2 on task 2, 3 on task 3, 4 on task 7.
 */

const commentRow = (p: Project, id: number): AnyRow | undefined =>
  row(p, 'SELECT * FROM task_comments WHERE id = ?', id);
const count = (p: Project, where = '1', ...params: unknown[]): number =>
  Number(rows(p, `SELECT count(*) AS n FROM task_comments WHERE ${where}`, ...params)[0]!.n);

describe('add_task_comment', () => {
  const ctx = useSession();

  test('writes the comment with an RFC 3339 UTC created stamp', async () => {
    const r = await ctx.s.ok('add_task_comment', {
      task_id: 5,
      body: 'Use the porter tokenizer.',
      discipline: 'backend',
      priority: 'high',
    });
    const c = commentRow(ctx.p, r.comment.id)!;
    assert.ok(c, 'the row exists');
    assert.equal(c.id, 5, 'the next rowid after the 4 seeded comments');
    assert.equal(c.task_id, 5);
    assert.equal(c.author, 'agent', 'signed by the server: a full-suite session has no discipline');
    assert.equal(c.body, 'Use the porter tokenizer.');
    assert.equal(c.discipline, 'backend');
    assert.equal(c.priority, 'high');
    assert.equal(c.agent_task_id, null, 'no session task in a full-suite session');
    assertRecentTimestamp(c.created, 'created');
    assert.deepEqual(r.comment, c);
    // It shows up on the task, oldest first.
    const t = await ctx.s.ok('get_task', { id: 5 });
    assert.deepEqual(
      t.comments.map((x: AnyRow) => x.id),
      [c.id],
    );
  });

  test('discipline and priority are optional; comments on any status of task are fine', async () => {
    const before = count(ctx.p);
    const r = await ctx.s.ok('add_task_comment', { task_id: 1, body: '  Reopen if the migration fails on Windows.  ' });
    const c = commentRow(ctx.p, r.comment.id)!;
    assert.equal(c.discipline, null);
    assert.equal(c.priority, null);
    assert.equal(c.task_id, 1);
    assert.equal(c.body, 'Reopen if the migration fails on Windows.', 'body is trimmed');
    assertRecentTimestamp(c.created, 'created');
    assert.equal(count(ctx.p), before + 1);
    assert.deepEqual(
      rows(ctx.p, 'SELECT id FROM task_comments WHERE task_id = 1 ORDER BY id').map((x) => x.id),
      [1, c.id],
    );
  });

  test('unknown task or discipline is not_found', async () => {
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 99, body: 'x' }, 'not_found');
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: 'x', discipline: 'devops' }, 'not_found');
  });

  test('schema violations are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: '   ' }, 'invalid_argument');
    // The author is the server's to say: a caller cannot sign as "human" (or anyone).
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: 'x', author: 'human' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: 'x', priority: 'urgent' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'add_task_comment',
      { task_id: 5, body: 'x', created: '2020-01-01T00:00:00Z' },
      'invalid_argument',
    );
    await refused(ctx.s, ctx.p, 'add_task_comment', { task_id: 5, body: 'x'.repeat(10_001) }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'add_task_comment', { body: 'x' }, 'invalid_argument');
  });
});

describe('update_task_comment', () => {
  const ctx = useSession();

  test('replaces the body and keeps everything else', async () => {
    const before = commentRow(ctx.p, 3)!;
    const r = await ctx.s.ok('update_task_comment', {
      task_id: 3,
      comment_id: 3,
      body: 'The API returns 422 with {field: message}.',
    });
    const after = commentRow(ctx.p, 3)!;
    assert.equal(after.body, 'The API returns 422 with {field: message}.');
    for (const c of ['task_id', 'author', 'discipline', 'agent_task_id', 'priority', 'created'])
      assert.equal(after[c], before[c], c);
    assert.deepEqual(r.comment, after);
    // The other comments are untouched.
    assert.equal(commentRow(ctx.p, 1)!.body, 'Done: recipes table with a JSON ingredients column, migration 001.');
  });

  test('a comment_id that belongs to another task is not_found', async () => {
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 1, comment_id: 3, body: 'hijack' }, 'not_found');
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 3, comment_id: 4, body: 'hijack' }, 'not_found');
    assert.equal(commentRow(ctx.p, 4)!.body, 'SMTP credentials are coming next week.');
  });

  test('unknown comment or task is not_found; bad arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 3, comment_id: 999, body: 'x' }, 'not_found');
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 99, comment_id: 3, body: 'x' }, 'not_found');
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 3, comment_id: 3, body: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 3, comment_id: 3 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_task_comment', { task_id: 3, comment_id: 0, body: 'x' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'update_task_comment',
      { task_id: 3, comment_id: 3, body: 'x', author: 'someone' },
      'invalid_argument',
    );
  });
});

describe('delete_task_comment', () => {
  const ctx = useSession();

  test('deletes exactly that comment', async () => {
    const r = await ctx.s.ok('delete_task_comment', { task_id: 2, comment_id: 2 });
    assert.deepEqual(r, { deleted_id: 2, task_id: 2 });
    assert.equal(commentRow(ctx.p, 2), undefined);
    assert.deepEqual(
      rows(ctx.p, 'SELECT id FROM task_comments ORDER BY id').map((x) => x.id),
      [1, 3, 4],
    );
    assert.ok(rows(ctx.p, 'SELECT 1 FROM tasks WHERE id = 2').length === 1, 'the task stays');
  });

  test('a new comment can be deleted too', async () => {
    const a = await ctx.s.ok('add_task_comment', { task_id: 6, body: 'Draft note' });
    assert.equal(count(ctx.p, 'task_id = 6'), 1);
    await ctx.s.ok('delete_task_comment', { task_id: 6, comment_id: a.comment.id });
    assert.equal(count(ctx.p, 'task_id = 6'), 0);
  });

  test('a comment_id that belongs to another task is not_found', async () => {
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 1, comment_id: 4 }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 7, comment_id: 1 }, 'not_found');
    assert.ok(commentRow(ctx.p, 4));
    assert.ok(commentRow(ctx.p, 1));
  });

  test('an already deleted or unknown comment is not_found; bad arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 2, comment_id: 2 }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 99, comment_id: 1 }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 1 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 1, comment_id: '1' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'delete_task_comment', { task_id: 1, comment_id: 1, force: true }, 'invalid_argument');
  });
});

describe('comments in a task_execution session (--task 3)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '3']);

  test('task_id defaults to the session task; agent_task_id and discipline come from the session', async () => {
    const r = await ctx.s.ok('add_task_comment', { body: 'Form done; validation errors shown inline.' });
    const c = commentRow(ctx.p, r.comment.id)!;
    assert.equal(c.task_id, 3);
    assert.equal(c.agent_task_id, 3);
    assert.equal(c.discipline, 'frontend');
    assertRecentTimestamp(c.created, 'created');
  });

  test('leaving a note on another task is allowed (and records the session task)', async () => {
    const r = await ctx.s.ok('add_task_comment', { task_id: 4, body: 'Editor ready for e2e tests.' });
    const c = commentRow(ctx.p, r.comment.id)!;
    assert.equal(c.task_id, 4);
    assert.equal(c.agent_task_id, 3);
  });

  test('an unknown discipline is still not_found', async () => {
    await refused(ctx.s, ctx.p, 'add_task_comment', { body: 'x', discipline: 'nope' }, 'not_found');
  });
});
