import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertRecentTimestamp,
  assertToday,
  refused,
  useSession,
  useTwoSessions,
  type AnyRow,
} from '../helpers/assertions.js';
import { dump } from '../helpers/project.js';
import { auditRows, commentsOf, maxCommentId, signalRows, taskRow } from './support.js';

/**
 * Issue 3, the tools an agent uses when it cannot go on as planned: report_blocker, signal_abort,
 * skip_task and move_task_to_feature, through the spawned server. Every write is read back with SQL;
 * every refusal asserts its exact code and an unchanged dump of Ralph's data.
 */

// ---- report_blocker ------------------------------------------------------------------------------

describe('report_blocker with on_task_id (task_execution --task 4)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4', '--session-id', 'blocker-4']);

  test('refusals: on_task_id = own task, unknown on_task_id, bad reasons, unknown fields', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'report_blocker', { reason: 'I block myself', on_task_id: 4 }, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: 'Upstream is missing', on_task_id: 999 }, 'not_found');
    await refused(s, p, 'report_blocker', { reason: '' }, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: '   ' }, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: 'x'.repeat(2001) }, 'invalid_argument');
    await refused(s, p, 'report_blocker', {}, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: 'ok', on_task_id: 0 }, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: 'ok', task_id: 3 }, 'invalid_argument');
    assert.equal(taskRow(p, 4)!.status, 'pending');
  });

  test('blocks the own task, comments on both tasks, and does not reopen the (done) upstream task', async () => {
    const { s, p } = ctx;
    const upstreamBefore = taskRow(p, 2)!;
    const lastComment = maxCommentId(p);
    const reason = 'The REST endpoints return 500 on an empty ingredient list';
    const r = await s.ok('report_blocker', { reason, on_task_id: 2 });

    const own = taskRow(p, 4)!;
    assert.equal(own.status, 'blocked');
    assert.equal(own.blocked_by, reason, 'the reason is stored in blocked_by');
    assert.equal(own.completed, null);
    assertToday(own.updated, 'tasks.updated');

    // The upstream task keeps its status and every column: flagging is not reopening.
    assert.deepEqual(
      taskRow(p, 2),
      upstreamBefore,
      'the upstream task row is untouched (still done, same completed date)',
    );

    const ownComments = commentsOf(p, 4).filter((c) => c.id > lastComment);
    const upComments = commentsOf(p, 2).filter((c) => c.id > lastComment);
    assert.equal(ownComments.length, 1, 'one comment on the blocked task');
    assert.equal(upComments.length, 1, 'one comment on the upstream task');
    assert.ok(String(ownComments[0]!.body).includes(reason), `own comment names the reason: ${ownComments[0]!.body}`);
    const up = upComments[0]!;
    assert.equal(up.priority, 'high', 'the upstream comment is high priority');
    assert.ok(String(up.body).includes(reason), `upstream comment names the reason: ${up.body}`);
    assert.match(String(up.body), /#4\b|task 4\b/i, 'the upstream comment says who is blocked on it');
    assert.equal(up.agent_task_id, 4);
    assert.equal(up.author, 'quality', "signed with the session's discipline (task 4's)");
    assertRecentTimestamp(up.created, 'comment created');
    assert.equal(maxCommentId(p), lastComment + 2, 'exactly two comments written');

    assert.equal(r.task.status, 'blocked');
    assert.equal(r.task.blocked_by, reason);
    assert.deepEqual(
      [...r.comments].sort((a: AnyRow, b: AnyRow) => a.id - b.id),
      [...ownComments, ...upComments].sort((a, b) => a.id - b.id),
      'the response returns the comments as stored',
    );
  });
});

describe('report_blocker without on_task_id, and on an in_progress upstream (task_execution --task 5)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '5']);

  test('no on_task_id: blocks the own task with one comment, touches no other task', async () => {
    const { s, p } = ctx;
    const others = [1, 2, 3, 4, 6, 7, 8].map((id) => taskRow(p, id));
    const lastComment = maxCommentId(p);
    await s.ok('report_blocker', { reason: 'FTS5 is not compiled into this SQLite build' });
    const t = taskRow(p, 5)!;
    assert.equal(t.status, 'blocked');
    assert.equal(t.blocked_by, 'FTS5 is not compiled into this SQLite build');
    assert.equal(maxCommentId(p), lastComment + 1, 'one comment');
    assert.equal(commentsOf(p, 5).at(-1)!.task_id, 5);
    assert.deepEqual(
      [1, 2, 3, 4, 6, 7, 8].map((id) => taskRow(p, id)),
      others,
    );
  });

  test('an in_progress upstream task gets a high-priority comment and stays in_progress', async () => {
    const { s, p } = ctx;
    const before = taskRow(p, 3)!;
    await s.ok('report_blocker', { reason: 'The editor form never submits', on_task_id: 3 });
    assert.deepEqual(taskRow(p, 3), before, 'task 3 row unchanged');
    const c = commentsOf(p, 3).at(-1)!;
    assert.equal(c.priority, 'high');
    assert.match(String(c.body), /The editor form never submits/);
    assert.equal(taskRow(p, 5)!.blocked_by, 'The editor form never submits', 'blocked_by holds the newest reason');
  });
});

describe('report_blocker in a session without a task', () => {
  const ctx = useTwoSessions(['--session-id', 'full-suite-no-task'], ['--recipe', 'worker']);

  test('full suite without --task: invalid_argument, nothing written', async () => {
    await refused(ctx.a, ctx.p, 'report_blocker', { reason: 'blocked' }, 'invalid_argument');
    await refused(ctx.a, ctx.p, 'report_blocker', { reason: 'blocked', on_task_id: 3 }, 'invalid_argument');
  });

  test('worker before claiming: invalid_argument, nothing written', async () => {
    await refused(ctx.b, ctx.p, 'report_blocker', { reason: 'blocked' }, 'invalid_argument');
  });
});

// ---- signal_abort --------------------------------------------------------------------------------

describe('signal_abort (task_execution --task 4 --session-id abort-sess-7)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4', '--session-id', 'abort-sess-7']);

  test("records the signal for Ralph, logs it at warn, tells the agent to stop, leaves Ralph's data alone", async () => {
    const { s, p } = ctx;
    const before = dump(p);
    const reason = 'Rate limited (HTTP 429) for the next 10 minutes';
    const r = await s.ok('signal_abort', { reason });
    assert.equal(dump(p), before, "signal_abort writes only ralph-mcp's own tables");

    const sig = signalRows(p);
    assert.equal(sig.length, 1);
    const row = sig[0]!;
    assert.equal(row.session_id, 'abort-sess-7');
    assert.equal(row.task_id, 4);
    assert.equal(row.reason, reason);
    assert.equal(row.recipe, 'task_execution');
    assert.equal(row.discipline, 'quality');
    assertRecentTimestamp(row.created, 'ralph_mcp_signals.created');
    assert.equal(r.signal_id, row.id);
    assert.equal(r.session_id, 'abort-sess-7');
    assert.equal(typeof r.instruction, 'string');
    assert.ok(r.instruction.length > 0);

    const log = await s.waitForStderr(/agent signalled abort|abort-sess-7[^\n]*429|429[^\n]*abort-sess-7/);
    const line = log.split('\n').find((l) => l.includes('"level":40') && l.includes('abort-sess-7'));
    assert.ok(line, `a warn-level (40) log line names the session:\n${log}`);
    assert.ok(line.includes('429'), `the warn line carries the reason: ${line}`);
  });

  test('refusals write no signal', async () => {
    const { s, p } = ctx;
    const n = signalRows(p).length;
    await refused(s, p, 'signal_abort', {}, 'invalid_argument');
    await refused(s, p, 'signal_abort', { reason: '' }, 'invalid_argument');
    await refused(s, p, 'signal_abort', { reason: 'x'.repeat(2001) }, 'invalid_argument');
    await refused(s, p, 'signal_abort', { reason: 'stop', task_id: 4 }, 'invalid_argument');
    assert.equal(signalRows(p).length, n);
  });
});

describe('signal_abort in a worker session that holds no task', () => {
  const ctx = useSession(['--recipe', 'worker', '--session-id', 'pool-worker-9']);

  test('task_id is NULL; the session id is the one given', async () => {
    await ctx.s.ok('signal_abort', { reason: 'The sandbox has no network' });
    const sig = signalRows(ctx.p);
    assert.equal(sig.length, 1);
    assert.equal(sig[0]!.session_id, 'pool-worker-9');
    assert.equal(sig[0]!.task_id, null);
    assert.equal(sig[0]!.recipe, 'worker');
    assert.equal(sig[0]!.reason, 'The sandbox has no network');
  });
});

// ---- skip_task -----------------------------------------------------------------------------------

describe('skip_task (opus_review)', () => {
  const ctx = useSession(['--recipe', 'opus_review', '--session-id', 'review-skip']);

  test('sets skipped and writes the reason as a comment, together', async () => {
    const { s, p } = ctx;
    const lastComment = maxCommentId(p);
    const r = await s.ok('skip_task', { id: 4, reason: 'Covered by the smoke suite already' });
    const t = taskRow(p, 4)!;
    assert.equal(t.status, 'skipped');
    assert.equal(t.completed, null);
    assertToday(t.updated, 'tasks.updated');
    const added = commentsOf(p, 4).filter((c) => c.id > lastComment);
    assert.equal(added.length, 1, 'one comment');
    assert.match(String(added[0]!.body), /Covered by the smoke suite already/);
    assertRecentTimestamp(added[0]!.created, 'comment created');
    assert.equal(maxCommentId(p), lastComment + 1);
    assert.deepEqual(r.comment, added[0]);
    assert.equal(r.task.status, 'skipped');
  });

  test('a blocked task can be skipped', async () => {
    await ctx.s.ok('skip_task', { id: 7, reason: 'Sign-in moves to a later release' });
    assert.equal(taskRow(ctx.p, 7)!.status, 'skipped');
  });

  test('already skipped → conflict; done → conflict; unknown → not_found; bad arguments → invalid_argument', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'skip_task', { id: 8, reason: 'again' }, 'conflict');
    await refused(s, p, 'skip_task', { id: 4, reason: 'twice' }, 'conflict');
    await refused(s, p, 'skip_task', { id: 1, reason: 'finished work cannot be skipped' }, 'conflict');
    await refused(s, p, 'skip_task', { id: 2, reason: 'finished work cannot be skipped' }, 'conflict');
    await refused(s, p, 'skip_task', { id: 999, reason: 'no such task' }, 'not_found');
    await refused(s, p, 'skip_task', { id: 5 }, 'invalid_argument');
    await refused(s, p, 'skip_task', { id: 5, reason: '' }, 'invalid_argument');
    await refused(s, p, 'skip_task', { reason: 'which one?' }, 'invalid_argument');
    assert.equal(taskRow(p, 1)!.status, 'done');
  });
});

// ---- move_task_to_feature ------------------------------------------------------------------------

describe('move_task_to_feature (opus_review)', () => {
  const ctx = useSession(['--recipe', 'opus_review']);

  test('moves the task; every other column stays', async () => {
    const { s, p } = ctx;
    const before = taskRow(p, 5)!;
    const r = await s.ok('move_task_to_feature', { id: 5, feature: 'auth' });
    const after = taskRow(p, 5)!;
    assert.equal(after.feature, 'auth');
    assertToday(after.updated, 'tasks.updated');
    assert.deepEqual(
      { ...after, feature: before.feature, updated: before.updated },
      before,
      'only feature (and updated) changed',
    );
    assert.equal(r.changed, true);
    assert.equal(r.previous_feature, 'search');
    assert.equal(r.task.feature, 'auth');
  });

  test("the same feature again: changed:false and Ralph's data untouched", async () => {
    const { s, p } = ctx;
    const before = dump(p);
    const r = await s.ok('move_task_to_feature', { id: 5, feature: 'auth' });
    assert.equal(r.changed, false);
    assert.equal(r.previous_feature, 'auth');
    assert.equal(dump(p), before);
  });

  test('unknown feature / task → not_found; missing arguments → invalid_argument', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'move_task_to_feature', { id: 5, feature: 'payments' }, 'not_found');
    await refused(s, p, 'move_task_to_feature', { id: 999, feature: 'auth' }, 'not_found');
    await refused(s, p, 'move_task_to_feature', { id: 5 }, 'invalid_argument');
    await refused(s, p, 'move_task_to_feature', { feature: 'auth' }, 'invalid_argument');
    await refused(s, p, 'move_task_to_feature', { id: 5, feature: 'auth', status: 'done' }, 'invalid_argument');
  });
});

describe('move_task_to_feature in a --task session (full suite --task 4)', () => {
  const ctx = useSession(['--task', '4']);

  test('moving another task is out_of_scope; moving the own task works', async () => {
    await refused(ctx.s, ctx.p, 'move_task_to_feature', { id: 5, feature: 'auth' }, 'out_of_scope');
    await ctx.s.ok('move_task_to_feature', { feature: 'search' });
    assert.equal(taskRow(ctx.p, 4)!.feature, 'search');
    assert.equal(auditRows(ctx.p, "tool = 'move_task_to_feature' AND outcome = 'ok'").length, 1);
  });
});
