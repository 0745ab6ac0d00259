import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRecentTimestamp } from '../helpers/assertions.js';
import { query } from '../helpers/project.js';
import { counts, ralphComments, ralphTask, ralphTaskList } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { refused, unchanged } from './support.js';

/**
 * A comment as stored, in the tools' shape: Ralph's own read of the task's comments, plus (normalized) who
 * signed it, as which discipline, for which task and how urgent, which only our ralph_mcp_comment_meta keeps.
 */
function stored(s: InProcSession, taskId: number, id: number) {
  const c = ralphComments(s.project.dbPath, taskId).find((x) => x.id === id);
  if (c === undefined) return undefined;
  const meta =
    c.generation === 'legacy'
      ? c
      : query<any>(s.project, 'SELECT * FROM ralph_mcp_comment_meta WHERE signal_id = ?', id)[0];
  const { author, discipline, agent_task_id, priority } = meta;
  return { id, task_id: taskId, author, discipline, agent_task_id, priority, body: c.body, created: c.created };
}

/** Every comment id in the project, ascending, as Ralph reads them task by task. */
const allIds = (s: InProcSession) =>
  ralphTaskList(s.project.dbPath)
    .flatMap((t) => ralphComments(s.project.dbPath, t.id).map((c) => c.id))
    .sort((a, b) => a - b);

/**
 * Comments on both generations. Legacy: task_comments rows. Normalized: Ralph's head stores a plain
 * comment as a `learned` signal (kind discovery, scope task) in a session that needs its agent_sessions
 * row; who signed it, as which discipline and how urgent lives in our ralph_mcp_comment_meta. Seeded:
 * comments 1, 2, 3 on tasks 1, 2, 3 and 4 on task 7 (normalized also has 5, task 7's migrated blocker).
 */
contract('comments', (env) => {
  test("add_task_comment: stored, read back by Ralph, signed by the server as the session's discipline", async () => {
    const s = await env.open({ sessionId: 'review-42', discipline: 'backend' });
    const given = { task_id: 5, discipline: 'backend', priority: 'high', body: 'Use a trigger per table' };
    const r = await s.ok('add_task_comment', given);
    const { task_id, author, discipline, priority, body } = r.comment;
    assert.deepEqual({ task_id, author, discipline, priority, body }, { ...given, author: 'backend' });
    assert.match(r.comment.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const ralph = ralphComments(s.project.dbPath, 5);
    assert.equal(ralph.length, 1);
    if (env.generation === 'legacy') {
      assert.deepEqual([ralph[0]!.author, ralph[0]!.body], ['backend', 'Use a trigger per table']);
    } else {
      const sig = ralph[0]! as Extract<(typeof ralph)[number], { generation: 'normalized' }>;
      assert.deepEqual(
        [sig.verb, sig.kind, sig.scope, sig.text, sig.body, sig.session_id, sig.author],
        ['learned', 'discovery', 'task', 'Use a trigger per table', 'Use a trigger per table', 'review-42', 'agent'],
      );
      const session = query(s.project, 'SELECT * FROM agent_sessions WHERE id = ?', 'review-42')[0]!;
      const { kind, started_by, status, task_id, started, ended } = session;
      assert.deepEqual([kind, started_by, status, task_id, started], ['manual', 'agent', 'finished', 5, ended]);
      await s.ok('add_task_comment', { task_id: 4, body: 'second one, same session' });
      assert.equal(query(s.project, 'SELECT count(*) AS n FROM agent_sessions WHERE id = ?', 'review-42')[0]!.n, 1);
    }
    const bodies = (await s.ok('get_task', { id: 5 })).comments.map((c: any) => c.body);
    assert.deepEqual(bodies, ['Use a trigger per table']);
  });

  test("who wrote it is the server's to say: no author argument, no other discipline, never human", async () => {
    const s = await env.open({ recipe: 'opus_review', discipline: 'backend' });
    const lesson = { feature_name: 'recipes', text: 'Index titles before bodies' };
    await refused(s, 'invalid_argument', 'add_task_comment', { task_id: 5, body: 'x', author: 'human' });
    const [other] = await refused(s, 'out_of_scope', 'add_task_comment', {
      task_id: 5,
      body: 'x',
      discipline: 'frontend',
    });
    assert.match(other!.message, /comments as discipline backend/);
    await refused(s, 'invalid_argument', 'append_feature_learning', { ...lesson, source: 'human' });
    const mine = (await s.ok('add_task_comment', { task_id: 5, body: 'signed by the server' })).comment;
    assert.deepEqual([mine.author, mine.discipline], ['backend', 'backend']);
    assert.equal((await s.ok('append_feature_learning', lesson)).learning.source, 'agent');
  });

  test('add_task_comment in a full-suite session: as given, signed agent, the next id, on its task', async () => {
    const s = await env.open();
    const args = { task_id: 5, body: 'Use the porter tokenizer.', discipline: 'backend', priority: 'high' };
    const r = await s.ok('add_task_comment', args);
    const c = stored(s, 5, r.comment.id)!;
    assert.deepEqual(r.comment, c);
    // The author is the server's to say; a full-suite session has no discipline and no task.
    assert.deepEqual(c, { ...args, id: c.id, author: 'agent', agent_task_id: null, created: c.created });
    assert.equal(c.id, env.generation === 'legacy' ? 5 : 6, 'the next id after the seeded ones');
    assertRecentTimestamp(c.created, 'created');
    const ids = (await s.ok('get_task', { id: 5 })).comments.map((x: any) => x.id);
    assert.deepEqual(ids, [c.id]);
    // Discipline and priority are optional, the body is trimmed, and a done task takes comments too.
    const before = counts(s.project.dbPath).comments;
    const r1 = await s.ok('add_task_comment', { task_id: 1, body: '  Reopen if the migration fails on Windows.  ' });
    const c1 = stored(s, 1, r1.comment.id)!;
    assert.deepEqual([c1.discipline, c1.priority, c1.body], [null, null, 'Reopen if the migration fails on Windows.']);
    assertRecentTimestamp(c1.created, 'created');
    assert.equal(counts(s.project.dbPath).comments, before + 1);
    assert.deepEqual(
      ralphComments(s.project.dbPath, 1).map((x) => x.id),
      [1, c1.id],
    );
    await refused(s, 'not_found', 'add_task_comment', { task_id: 99, body: 'x' }, { ...args, discipline: 'devops' });
    const on5 = [
      { body: '' },
      { body: '   ' },
      { author: 'human' },
      { priority: 'urgent' },
      { created: '2020-01-01T00:00:00Z' },
    ];
    const bad = [...on5.map((b) => ({ task_id: 5, body: 'x', ...b })), { task_id: 5, body: 'x'.repeat(10_001) }];
    await refused(s, 'invalid_argument', 'add_task_comment', ...bad, { body: 'x' });
  });

  test("update and delete a comment; unknown ones are not_found with the task's comment ids", async () => {
    const s = await env.open();
    const id = (await s.ok('add_task_comment', { task_id: 2, body: 'flaky on CI' })).comment.id;
    const edited = await s.ok('update_task_comment', { task_id: 2, comment_id: id, body: 'flaky on CI: fixed' });
    assert.equal(edited.comment.body, 'flaky on CI: fixed');
    assert.equal(edited.comment.author, 'agent', 'a session without a discipline signs as agent');
    assert.equal(ralphComments(s.project.dbPath, 2).at(-1)!.body, 'flaky on CI: fixed');
    await unchanged(s, async () => {
      const missing = await s.fail('update_task_comment', { task_id: 2, comment_id: 999, body: 'x' });
      assert.equal(missing.code, 'not_found');
      assert.match(missing.message, /its comments: \d+, \d+/);
      assert.equal((await s.fail('delete_task_comment', { task_id: 3, comment_id: id })).code, 'not_found');
    });
    await s.ok('delete_task_comment', { task_id: 2, comment_id: id });
    assert.equal(ralphComments(s.project.dbPath, 2).length, 1);
  });

  test('a signal that is not a plain comment is shown but not edited', async () => {
    const s = await env.open();
    const comments = (await s.ok('get_task', { id: 7 })).comments;
    if (env.generation === 'legacy') {
      assert.equal(comments.length, 1);
      return;
    }
    // The migrated blocked_by is a `blocked` signal: shown with the comments, kept as recorded.
    const blocked = comments.find((c: any) => c.body === 'Blocked: Waiting for the SMTP credentials');
    assert.ok(blocked, JSON.stringify(comments));
    await refused(s, 'conflict', 'update_task_comment', { task_id: 7, comment_id: blocked.id, body: 'x' });
  });

  test('update_task_comment replaces the body only; a comment of another task is not_found', async () => {
    const s = await env.open();
    const before = stored(s, 3, 3)!;
    const body = 'The API returns 422 with {field: message}.';
    const r = await s.ok('update_task_comment', { task_id: 3, comment_id: 3, body });
    assert.deepEqual(stored(s, 3, 3), { ...before, body });
    assert.deepEqual(r.comment, stored(s, 3, 3));
    assert.equal(stored(s, 1, 1)!.body, 'Done: recipes table with a JSON ingredients column, migration 001.');
    const elsewhere = [
      [1, 3],
      [3, 4],
      [3, 999],
      [99, 3],
    ].map(([task_id, comment_id]) => ({ task_id, comment_id }));
    await refused(s, 'not_found', 'update_task_comment', ...elsewhere.map((x) => ({ ...x, body: 'hijack' })));
    assert.equal(stored(s, 7, 4)!.body, 'SMTP credentials are coming next week.');
    const bad = [{ body: '' }, {}, { comment_id: 0, body: 'x' }, { body: 'x', author: 'someone' }];
    await refused(
      s,
      'invalid_argument',
      'update_task_comment',
      ...bad.map((b) => ({ task_id: 3, comment_id: 3, ...b })),
    );
  });

  test('delete_task_comment deletes exactly that comment, once; a comment of another task is not_found', async () => {
    const s = await env.open();
    assert.deepEqual(await s.ok('delete_task_comment', { task_id: 2, comment_id: 2 }), { deleted_id: 2, task_id: 2 });
    assert.equal(stored(s, 2, 2), undefined);
    assert.deepEqual(allIds(s), env.generation === 'legacy' ? [1, 3, 4] : [1, 3, 4, 5]);
    assert.ok(ralphTask(s.project.dbPath, 2), 'the task stays');
    const a = await s.ok('add_task_comment', { task_id: 6, body: 'Draft note' });
    assert.equal(ralphComments(s.project.dbPath, 6).length, 1);
    await s.ok('delete_task_comment', { task_id: 6, comment_id: a.comment.id });
    assert.equal(ralphComments(s.project.dbPath, 6).length, 0);
    const missing = [
      [1, 4],
      [7, 1],
      [2, 2],
      [99, 1],
    ].map(([task_id, comment_id]) => ({ task_id, comment_id }));
    await refused(s, 'not_found', 'delete_task_comment', ...missing);
    assert.ok(stored(s, 7, 4) && stored(s, 1, 1));
    const bad = [{ task_id: 1 }, { task_id: 1, comment_id: '1' }, { task_id: 1, comment_id: 1, force: true }];
    await refused(s, 'invalid_argument', 'delete_task_comment', ...bad);
  });

  test("a task session's comments default to its task and record it and its discipline, on any task", async () => {
    const s = await env.open({ recipe: 'task_execution', task: '3' });
    const own = (await s.ok('add_task_comment', { body: 'Form done; validation errors shown inline.' })).comment;
    const c = stored(s, 3, own.id)!;
    assert.deepEqual([c.task_id, c.agent_task_id, c.discipline], [3, 3, 'frontend']);
    assertRecentTimestamp(c.created, 'created');
    const other = (await s.ok('add_task_comment', { task_id: 4, body: 'Editor ready for e2e tests.' })).comment;
    const o = stored(s, 4, other.id)!;
    assert.deepEqual([o.task_id, o.agent_task_id], [4, 3]);
    await refused(s, 'not_found', 'add_task_comment', { body: 'x', discipline: 'nope' });
  });
});
