import assert from 'node:assert/strict';
import { test } from 'node:test';
import { query } from '../helpers/project.js';
import { ralphComments } from '../helpers/ralphRead.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/**
 * Comments on both generations. Legacy: task_comments rows. Normalized: Ralph's head stores a plain
 * comment as a `learned` signal (kind discovery, scope task) in a session that needs its agent_sessions
 * row; who signed it, as which discipline and how urgent lives in our ralph_mcp_comment_meta.
 */
contract('comments', (env) => {
  test("add_task_comment: stored, read back by Ralph, signed by the server as the session's discipline", async () => {
    const s = await env.open({ sessionId: 'review-42', discipline: 'backend' });
    const r = await s.ok('add_task_comment', {
      task_id: 5,
      discipline: 'backend',
      priority: 'high',
      body: 'Use a trigger per table',
    });
    assert.deepEqual(
      [r.comment.task_id, r.comment.author, r.comment.discipline, r.comment.priority, r.comment.body],
      [5, 'backend', 'backend', 'high', 'Use a trigger per table'],
    );
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
      assert.deepEqual(
        [session.kind, session.started_by, session.status, session.task_id],
        ['manual', 'agent', 'finished', 5],
      );
      assert.equal(session.started, session.ended);
      await s.ok('add_task_comment', { task_id: 4, body: 'second one, same session' });
      assert.equal(query(s.project, 'SELECT count(*) AS n FROM agent_sessions WHERE id = ?', 'review-42')[0]!.n, 1);
    }
    assert.deepEqual(
      (await s.ok('get_task', { id: 5 })).comments.map((c: any) => c.body),
      ['Use a trigger per table'],
    );
  });

  test("who wrote it is the server's to say: no author argument, no other discipline, never human", async () => {
    const s = await env.open({ recipe: 'opus_review', discipline: 'backend' });
    await unchanged(s, async () => {
      assert.equal(
        (await s.fail('add_task_comment', { task_id: 5, body: 'x', author: 'human' })).code,
        'invalid_argument',
      );
      const other = await s.fail('add_task_comment', { task_id: 5, body: 'x', discipline: 'frontend' });
      assert.equal(other.code, 'out_of_scope');
      assert.match(other.message, /comments as discipline backend/);
      assert.equal(
        (
          await s.fail('append_feature_learning', {
            feature_name: 'recipes',
            text: 'Index titles before bodies',
            source: 'human',
          })
        ).code,
        'invalid_argument',
      );
    });
    const mine = (await s.ok('add_task_comment', { task_id: 5, body: 'signed by the server' })).comment;
    assert.deepEqual([mine.author, mine.discipline], ['backend', 'backend']);
    const learned = await s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Index titles before bodies',
    });
    assert.equal(learned.learning.source, 'agent');
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
    await unchanged(s, async () =>
      assert.equal(
        (await s.fail('update_task_comment', { task_id: 7, comment_id: blocked.id, body: 'x' })).code,
        'conflict',
      ),
    );
  });
});
