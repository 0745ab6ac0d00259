import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { refused, useSession, useTwoSessions, type AnyRow } from '../helpers/assertions.js';
import { dump, sampleProject } from '../helpers/project.js';
import { startSession, type Session } from '../helpers/server.js';
import { auditRows, insertTasks, ralphWrites, taskRow, type RalphTask } from './support.js';

/**
 * Issue 3, claim_next_task and the `worker` recipe. In the sample, the only Ready task (pending, every
 * dependency done) is 5 (critical, backend, no deps): 4 waits on 3 (in_progress), 6 is a draft, 7 is
 * blocked. A worker session starts without a task; after a claim, task-id arguments default to it.
 */

describe('claim_next_task in a worker session (sample project)', () => {
  const ctx = useSession(['--recipe', 'worker', '--session-id', 'worker-a']);

  test('before any claim, task-scoped tools have no default task', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'set_task_status', { status: 'done' }, 'invalid_argument');
    await refused(s, p, 'report_blocker', { reason: 'nothing claimed yet' }, 'invalid_argument');
    await refused(s, p, 'get_dependency_details', {}, 'invalid_argument');
    await refused(s, p, 'update_task_context', { hints: 'x' }, 'invalid_argument');
  });

  test('filters that match no Ready task: claimed:false, nothing written; unknown feature → not_found', async () => {
    const { s, p } = ctx;
    const before = dump(p);
    for (const args of [
      { discipline: 'quality' },
      { discipline: 'frontend' },
      { feature: 'auth' },
      { feature: 'recipes' },
      { discipline: 'backend', feature: 'recipes' },
    ]) {
      const r = await s.ok('claim_next_task', args);
      assert.deepEqual(r, { claimed: false, task: null, ready_remaining: 0 }, JSON.stringify(args));
    }
    assert.equal(dump(p), before);
    await refused(s, p, 'claim_next_task', { feature: 'payments' }, 'not_found');
    await refused(s, p, 'claim_next_task', { status: 'pending' }, 'invalid_argument');
  });

  test('claims task 5 (critical, no deps), sets it in_progress, and binds the session to it', async () => {
    const { s, p } = ctx;
    const r = await s.ok('claim_next_task', {});
    assert.equal(r.claimed, true);
    assert.equal(r.task.id, 5);
    assert.equal(r.task.status, 'in_progress');
    assert.equal(r.ready_remaining, 0, 'nothing else is Ready');
    assert.equal(taskRow(p, 5)!.status, 'in_progress');
    const a = auditRows(p, "tool = 'claim_next_task' AND outcome = 'ok'").at(-1)!;
    assert.equal(a.task_id, 5, 'the audit row names the claimed task');
    assert.equal(a.session_id, 'worker-a');
    assert.equal(a.recipe, 'worker');
  });

  test('holding an in_progress claim, the next claim is a conflict', async () => {
    await refused(ctx.s, ctx.p, 'claim_next_task', {}, 'conflict');
  });

  test('task-id arguments now default to the claimed task; other tasks are out of scope for writes, readable', async () => {
    const { s, p } = ctx;
    const ctxR = await s.ok('update_task_context', { hints: 'Use FTS5 with unicode61' });
    assert.equal(ctxR.task.id, 5);
    assert.equal(taskRow(p, 5)!.hints, 'Use FTS5 with unicode61');
    assert.equal((await s.ok('get_task', {})).task.id, 5, 'get_task without id reads the claimed task');
    assert.equal((await s.ok('get_dependency_details', {})).task_id, 5);
    await refused(s, p, 'set_task_status', { id: 4, status: 'done' }, 'out_of_scope');
    await refused(s, p, 'update_task_context', { id: 3, hints: 'not mine' }, 'out_of_scope');
    await s.ok('get_task', { id: 4 });
    const done = await s.ok('set_task_status', { status: 'done' });
    assert.equal(done.task.id, 5);
    assert.equal(taskRow(p, 5)!.status, 'done');
  });

  test('with 5 done and 3 still in progress, nothing is Ready: claimed:false', async () => {
    const { s, p } = ctx;
    const before = dump(p);
    const r = await s.ok('claim_next_task', {});
    assert.deepEqual(r, { claimed: false, task: null, ready_remaining: 0 });
    assert.equal(dump(p), before);
  });

  test('once Ralph marks 3 done (plain SQL), task 4 becomes Ready and can be claimed (quality only)', async () => {
    const { s, p } = ctx;
    ralphWrites(p, (run) => run("UPDATE tasks SET status = 'done', completed = '2026-02-01' WHERE id = 3"));
    assert.equal((await s.ok('claim_next_task', { discipline: 'backend' })).claimed, false);
    const r = await s.ok('claim_next_task', { discipline: 'quality', feature: 'recipes' });
    assert.equal(r.claimed, true);
    assert.equal(r.task.id, 4);
    assert.equal(taskRow(p, 4)!.status, 'in_progress');
    // 7 depends only on 3, but it is blocked, not pending: never claimed.
    assert.equal(taskRow(p, 7)!.status, 'blocked');
  });
});

describe('claim_next_task: priority order, then nothing left', () => {
  const ctx = useSession(['--recipe', 'worker'], () => {
    const p = sampleProject();
    const extra: RalphTask[] = [
      { id: 20, title: 'low one', priority: 'low' },
      { id: 21, title: 'high one', priority: 'high' },
      { id: 22, title: 'medium one', priority: 'medium' },
      { id: 23, title: 'high two', priority: 'high' },
      { id: 24, title: 'critical but waits on 4', priority: 'critical', depends_on: [4] },
      { id: 25, title: 'critical draft', priority: 'critical', status: 'draft' },
      { id: 26, title: 'critical blocked', priority: 'critical', status: 'blocked' },
      { id: 27, title: 'high, waits on 21', priority: 'high', depends_on: [21] },
      { id: 28, title: 'critical, deps done', priority: 'critical', depends_on: [1, 2] },
    ];
    insertTasks(p, extra);
    return p;
  });

  test('claims in priority order (critical, high, medium, low), each only once its deps are done', async () => {
    const { s, p } = ctx;
    const rank: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };
    const order: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await s.ok('claim_next_task', {});
      if (!r.claimed) break;
      order.push(r.task.id);
      await s.ok('set_task_status', { status: 'done' });
    }
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      [5, 20, 21, 22, 23, 27, 28],
      `claimed ${order.join(', ')}`,
    );
    assert.deepEqual(
      order.slice(0, 2).sort((a, b) => a - b),
      [5, 28],
      'the two Ready critical tasks first',
    );
    assert.ok(order.indexOf(27) > order.indexOf(21), '27 only after 21 is done');
    // Among the tasks Ready at the start, priority never goes up.
    const atStart = order.filter((id) => id !== 27);
    const ranks = atStart.map((id) => rank[String(taskRow(p, id)!.priority)]!);
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => a - b),
      `priorities in order: ${atStart.join(', ')}`,
    );
    assert.equal(order.at(-1), 20, 'low last');
    for (const id of [24, 25, 26, 4]) assert.notEqual(taskRow(p, id)!.status, 'done', `task ${id} was not Ready`);
  });
});

describe('claim_next_task: the session discipline is the default filter', () => {
  const ctx = useTwoSessions(
    ['--recipe', 'worker', '--discipline', 'frontend'],
    ['--recipe', 'worker', '--discipline', 'backend'],
  );

  test('a frontend worker finds nothing; a backend worker claims 5', async () => {
    assert.equal((await ctx.a.ok('claim_next_task', {})).claimed, false);
    const r = await ctx.b.ok('claim_next_task', {});
    assert.equal(r.claimed, true);
    assert.equal(r.task.id, 5);
  });
});

describe('claim_next_task in a --task session', () => {
  const ctx = useSession(['--recipe', 'worker', '--task', '5']);

  test('a session launched for a task cannot claim another: conflict, nothing written', async () => {
    await refused(ctx.s, ctx.p, 'claim_next_task', {}, 'conflict');
    assert.equal(taskRow(ctx.p, 5)!.status, 'pending');
  });
});

describe('claim_next_task: two workers at the same moment on the sample', () => {
  const ctx = useTwoSessions(
    ['--recipe', 'worker', '--session-id', 'race-a'],
    ['--recipe', 'worker', '--session-id', 'race-b'],
  );

  test('exactly one of them gets task 5', async () => {
    const [ra, rb] = await Promise.all([ctx.a.ok('claim_next_task', {}), ctx.b.ok('claim_next_task', {})]);
    const winners = [ra, rb].filter((r) => r.claimed);
    assert.equal(winners.length, 1, JSON.stringify([ra, rb]));
    assert.equal(winners[0]!.task.id, 5);
    const claims = auditRows(ctx.p, "tool = 'claim_next_task' AND task_id = 5");
    assert.equal(claims.length, 1, 'one audit row holds the claim of 5');
  });
});

// ---- concurrency: a pool of worker processes drains the Ready queue ----------------------------

const WORKERS = 4;
const READY = 40;

describe(`claim_next_task: ${WORKERS} worker processes drain ${READY}+ Ready tasks concurrently`, () => {
  let p: Project;
  let sessions: Session[] = [];
  let expected: number[] = [];

  before(async () => {
    p = sampleProject();
    const priorities = ['critical', 'high', 'medium', 'low'];
    const ready: RalphTask[] = Array.from({ length: READY }, (_, i) => ({
      id: 101 + i,
      title: `Ready task ${i}`,
      priority: priorities[i % 4]!,
      feature: ['recipes', 'search', 'auth'][i % 3]!,
      discipline: ['backend', 'frontend', 'quality', 'documentation'][i % 4]!,
      depends_on: i % 5 === 0 ? [1] : [],
    }));
    // Five more that become Ready only when one of the first ones is done.
    const later: RalphTask[] = Array.from({ length: 5 }, (_, i) => ({
      id: 141 + i,
      title: `Follow-up ${i}`,
      priority: 'critical',
      depends_on: [101 + i * 7],
    }));
    insertTasks(p, [...ready, ...later, { id: 150, title: 'Never ready: waits on 3', depends_on: [3] }]);
    expected = [5, ...ready.map((t) => t.id), ...later.map((t) => t.id)].sort((a, b) => a - b);
    sessions = await Promise.all(
      Array.from({ length: WORKERS }, (_, i) => startSession(p, ['--recipe', 'worker', '--session-id', `pool-${i}`])),
    );
  });
  after(async () => {
    await Promise.all(sessions.map((s) => s.close()));
  });

  test('every Ready task is claimed exactly once, by one session, and ends done', { timeout: 60_000 }, async () => {
    const work = async (s: Session): Promise<number[]> => {
      const got: number[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await s.ok('claim_next_task', {});
        if (!r.claimed) return got;
        assert.equal(r.task.status, 'in_progress');
        got.push(r.task.id as number);
        const d = await s.ok('set_task_status', { status: 'done' });
        assert.equal(d.task.id, r.task.id, 'set_task_status without id acts on the claimed task');
      }
      assert.fail('a worker never ran out of tasks');
    };
    const results = await Promise.all(sessions.map(work));
    const all = results.flat();
    const dupes = all.filter((id, i) => all.indexOf(id) !== i);
    assert.deepEqual(dupes, [], `tasks claimed twice: ${dupes.join(', ')}`);
    assert.deepEqual(
      [...all].sort((a, b) => a - b),
      expected,
      'every Ready task was claimed',
    );
    assert.ok(
      results.filter((r) => r.length > 0).length >= 2,
      `the work was shared: ${results.map((r) => r.length).join(', ')}`,
    );

    for (const id of expected) assert.equal(taskRow(p, id)!.status, 'done', `task ${id} is done`);
    assert.equal(taskRow(p, 150)!.status, 'pending');
    assert.equal(taskRow(p, 4)!.status, 'pending');

    // The audit record shows the same: each task claimed by exactly one session, set done once, by that session.
    const claims = auditRows(p, "tool = 'claim_next_task' AND outcome = 'ok'");
    const sets = auditRows(p, "tool = 'set_task_status' AND outcome = 'ok'");
    for (const id of expected) {
      const claimedBy = new Set(claims.filter((c) => c.task_id === id).map((c) => c.session_id));
      assert.equal(
        claimedBy.size,
        1,
        `task ${id} claimed by ${[...claimedBy].join(', ') || 'nobody'} in ralph_mcp_audit`,
      );
      const setBy = sets.filter((x) => x.task_id === id);
      assert.equal(setBy.length, 1, `task ${id} set done once`);
      assert.ok(claimedBy.has(setBy[0]!.session_id), `task ${id} set done by the session that claimed it`);
    }
    results.forEach((got, i) => {
      const mine = claims.filter((c) => c.session_id === `pool-${i}`).map((c) => c.task_id as number);
      assert.deepEqual(mine.slice(0, got.length), got, `pool-${i}'s claims in ralph_mcp_audit match what it was given`);
    });
    assert.deepEqual(
      auditRows(p, "outcome <> 'ok'").map((x: AnyRow) => `${x.tool}:${x.outcome}`),
      [],
      'no refused call',
    );
  });
});
