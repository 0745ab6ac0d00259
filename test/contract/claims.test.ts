import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { ralphTask } from '../helpers/ralphRead.js';
import { row, rows } from '../helpers/assertions.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/**
 * Claims with leases, on both generations. In the sample, task 5 is the only ready task and
 * task 3 is in_progress with no claim (a person set it): a claim takes 5, and never 3.
 */
const claimRow = (p: Parameters<typeof row>[0], id: number) =>
  row(p, 'SELECT * FROM ralph_mcp_claims WHERE task_id = ?', id);
const bodies = (r: any): string[] => r.comments.map((c: any) => c.body);

contract('claims with leases', (env) => {
  test('a claim records the session, when, and a lease; get_task and list_tasks show the holder', async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-a', leaseSeconds: 60 });
    const t0 = Date.now();
    const r = await s.ok('claim_next_task');
    assert.equal(r.task.id, 5);
    assert.equal(r.took_over, undefined);
    const c = claimRow(s.project, 5)!;
    assert.equal(c.session_id, 'lease-a');
    const since = Date.parse(String(c.claimed_at));
    assert.ok(since >= t0 - 5 && since <= Date.now(), 'claimed_at is now');
    assert.equal(Date.parse(String(c.lease_until)) - since, 60_000, 'the lease runs --lease-seconds from the claim');
    const got = await s.ok('get_task', { id: 5 });
    assert.deepEqual(got.held_by, { session_id: 'lease-a', since: c.claimed_at, lease_until: c.lease_until });
    assert.equal((await s.ok('get_task', { id: 3 })).held_by, null, 'in_progress without a claim: nobody holds it');
    assert.equal((await s.ok('get_task', { id: 1 })).held_by, null);
    const y = await env.open({ recipe: 'yap' }, s.project);
    const list = await y.ok('list_tasks', { filter_status: 'in_progress' });
    assert.deepEqual(
      list.tasks.map((t: any) => [t.id, t.held_by?.session_id ?? null]),
      [
        [3, null],
        [5, 'lease-a'],
      ],
    );
    assert.ok((await y.ok('list_tasks')).tasks.every((t: any) => 'held_by' in t));
  });

  test("the holder's calls renew the lease (reads too), at most once per a third of it", async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-renew', leaseSeconds: 0.9 });
    await s.ok('claim_next_task');
    const first = String(claimRow(s.project, 5)!.lease_until);
    await s.ok('get_task', {});
    await s.ok('get_task', {});
    assert.equal(String(claimRow(s.project, 5)!.lease_until), first, 'calls right after the claim write nothing');
    await sleep(350);
    await s.ok('get_task', {});
    const second = String(claimRow(s.project, 5)!.lease_until);
    assert.ok(Date.parse(second) - Date.parse(first) >= 300, `lease renewed by a read: ${first} → ${second}`);
    await sleep(350);
    await s.fail('update_task_context', { id: 4, hints: 'x' }); // a refused call is activity too
    assert.ok(String(claimRow(s.project, 5)!.lease_until) > second, 'renewed again');
  });

  test('release_task gives the task back: pending, a comment saying why, the session holds nothing', async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-rel' });
    await unchanged(s, async () =>
      assert.equal((await s.fail('release_task', { reason: 'nothing held' })).code, 'invalid_argument'),
    );
    await s.ok('claim_next_task');
    const r = await s.ok('release_task', { reason: 'the build server is down' });
    assert.equal(r.task.status, 'pending');
    assert.equal(r.comment.body, 'Released: the build server is down');
    assert.equal(ralphTask(s.project.dbPath, 5)!.status, 'pending');
    assert.equal(claimRow(s.project, 5), undefined);
    assert.equal((await s.ok('get_task', { id: 5 })).held_by, null);
    assert.equal((await s.fail('get_dependency_details')).code, 'invalid_argument', 'no task defaults any more');
    // It can claim again (the same task: still the only ready one).
    assert.equal((await s.ok('claim_next_task')).task.id, 5);
  });

  test('a lease that runs out: the next claim takes the task over, says from whom, records it', async () => {
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'lease-old', leaseSeconds: 0.2 }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'lease-new' }, p);
    await a.ok('claim_next_task');
    const held = claimRow(p, 5)!;
    assert.equal((await b.ok('claim_next_task')).claimed, false, 'a live lease is not taken over');
    await sleep(300);
    const r = await b.ok('claim_next_task');
    assert.equal(r.claimed, true);
    assert.equal(r.task.id, 5);
    assert.equal(r.task.status, 'in_progress');
    assert.deepEqual(r.took_over, {
      session_id: 'lease-old',
      claimed_at: held.claimed_at,
      lease_until: held.lease_until,
    });
    assert.equal(claimRow(p, 5)!.session_id, 'lease-new');
    const audit = rows(
      p,
      "SELECT * FROM ralph_mcp_audit WHERE tool = 'claim_next_task' AND session_id = 'lease-new' ORDER BY id",
    );
    assert.deepEqual(
      audit.map((x) => [x.outcome, x.task_id]),
      [
        ['ok', null],
        ['took_over', 5],
        ['ok', 5],
      ],
    );
    assert.deepEqual(JSON.parse(String(audit[1]!.arguments)), { took_over: r.took_over });
    assert.match(
      bodies(await b.ok('get_task', { id: 5 })).at(-1)!,
      /^Taken over from session lease-old \(claimed .*, lease ran out .*\)$/,
    );
    // The old holder's writes to it are refused now; it may claim again.
    await unchanged(a, async () => {
      const e = await a.fail('set_task_status', { status: 'done' });
      assert.equal(e.code, 'conflict');
      assert.match(e.message, /taken over by session lease-new/);
      assert.equal((await a.fail('release_task', { reason: 'x' })).code, 'conflict');
      assert.equal((await a.fail('report_blocker', { reason: 'x' })).code, 'conflict');
    });
    assert.equal((await a.ok('claim_next_task')).claimed, false, 'nothing else is ready, and task 3 has no claim');
    assert.equal((await b.ok('set_task_status', { status: 'done' })).task.status, 'done');
    assert.equal(claimRow(p, 5), undefined, 'done drops the claim');
  });

  test('next_tasks previews a takeover first (takes_over names the holder), as the claim then takes it; nothing is written', async () => {
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'lease-gone', leaseSeconds: 0.2 }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'lease-next' }, p);
    assert.deepEqual(
      (await b.ok('next_tasks')).tasks.map((t: any) => [t.id, t.takes_over]),
      [[5, undefined]],
    );
    await a.ok('claim_next_task');
    const held = claimRow(p, 5)!;
    assert.deepEqual((await b.ok('next_tasks')).tasks, [], "a live lease is nobody else's next task");
    await sleep(300);
    let preview: any[] = [];
    await unchanged(b, async () => {
      preview = (await b.ok('next_tasks')).tasks;
    });
    assert.deepEqual(
      preview.map((t: any) => [t.id, t.status, t.takes_over]),
      [[5, 'in_progress', { session_id: 'lease-gone', since: held.claimed_at, lease_until: held.lease_until }]],
    );
    assert.equal(
      (await b.ok('claim_next_task')).took_over.session_id,
      'lease-gone',
      'the claim takes what the preview showed',
    );
  });

  test("list_tasks' held_by filter: me, any, none, a session id; a claim row of a finished task holds nothing", async () => {
    const p = env.sample();
    // The full suite (no recipe) has both claim_next_task and list_tasks, so "me" finds its own claim.
    const a = await env.open({ sessionId: 'hold-a' }, p);
    const y = await env.open({ recipe: 'yap', sessionId: 'hold-y' }, p);
    assert.deepEqual((await y.ok('list_tasks', { held_by: 'any' })).tasks, [], 'no claims yet');
    await a.ok('claim_next_task');
    const ids = async (s: typeof a, held_by: string) =>
      (await s.ok('list_tasks', { held_by })).tasks.map((t: any) => t.id);
    assert.deepEqual(await ids(a, 'me'), [5]);
    assert.deepEqual(await ids(y, 'me'), []);
    assert.deepEqual(await ids(y, 'hold-a'), [5]);
    assert.deepEqual(await ids(y, 'any'), [5]);
    assert.deepEqual(await ids(y, 'someone-else'), []);
    const all = (await y.ok('list_tasks', { limit: 500 })).tasks.map((t: any) => t.id);
    assert.deepEqual(
      await ids(y, 'none'),
      all.filter((id: number) => id !== 5),
      'task 3 is in_progress without a claim: not held',
    );
    assert.equal((await y.ok('list_tasks', { held_by: 'any' })).tasks[0].held_by.session_id, 'hold-a');
    await a.ok('set_task_status', { id: 5, status: 'done' });
    assert.deepEqual(await ids(y, 'hold-a'), []);
    assert.equal((await y.fail('list_tasks', { held_by: ' ' })).code, 'invalid_argument');
  });

  test('an in_progress task without a claim (set by a person or by Ralph) is never taken over', async () => {
    const p = env.sample();
    const y = await env.open({ recipe: 'yap', sessionId: 'lease-person' }, p);
    await y.ok('set_task_status', { id: 5, status: 'in_progress' });
    const w = await env.open({ recipe: 'worker', sessionId: 'lease-w', leaseSeconds: 0.1 }, p);
    await sleep(150);
    await unchanged(w, async () =>
      assert.deepEqual(await w.ok('claim_next_task'), { claimed: false, task: null, ready_remaining: 0 }),
    );
    assert.equal(ralphTask(p.dbPath, 3)!.status, 'in_progress');
    assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
  });

  test("another recipe's change to a held task goes ahead and names the holder", async () => {
    const p = env.sample();
    await (await env.open({ recipe: 'worker', sessionId: 'lease-h' }, p)).ok('claim_next_task');
    const r = await (await env.open({ recipe: 'opus_review', sessionId: 'lease-rev' }, p)).ok('set_task_status', {
      id: 5,
      status: 'pending',
    });
    assert.equal(r.held_by.session_id, 'lease-h');
    assert.equal(claimRow(p, 5), undefined, 'leaving in_progress drops the claim');
  });

  test('task_history: writes and refusals about the task, oldest first, paged', async () => {
    const p = env.sample();
    const w = await env.open({ recipe: 'worker', sessionId: 'hist-w' }, p);
    await w.ok('claim_next_task');
    await w.ok('update_task_context', { hints: 'use FTS5' });
    await w.fail('update_task_context', { id: 4, hints: 'not mine' });
    await (await env.open({ recipe: 'opus_review', sessionId: 'hist-r' }, p)).ok('update_task', {
      id: 5,
      priority: 'high',
    });
    await w.ok('release_task', { reason: 'handing over' });
    const h = await w.ok('task_history', { task_id: 5 });
    assert.deepEqual(
      h.entries.map((e: any) => [e.session_id, e.tool, e.outcome]),
      [
        ['hist-w', 'claim_next_task', 'ok'],
        ['hist-w', 'update_task_context', 'ok'],
        ['hist-w', 'update_task_context', 'out_of_scope'], // the holder's refused call, made while holding 5
        ['hist-r', 'update_task', 'ok'],
        ['hist-w', 'release_task', 'ok'],
      ],
    );
    assert.deepEqual(h.entries[3].arguments, { id: 5, priority: 'high' });
    assert.ok(
      h.entries.every((e: any, i: number) => i === 0 || e.id > h.entries[i - 1].id),
      'oldest first',
    );
    assert.equal(h.held_by, null);
    assert.equal(h.next_after, null);
    const four = await w.ok('task_history', { task_id: 4 });
    assert.deepEqual(
      four.entries.map((e: any) => [e.tool, e.outcome]),
      [['update_task_context', 'out_of_scope']],
      'a refusal naming task 4 is in its history',
    );
    const p1 = await w.ok('task_history', { task_id: 5, limit: 3 });
    assert.equal(p1.entries.length, 3);
    const p2 = await w.ok('task_history', { task_id: 5, limit: 3, after: p1.next_after });
    assert.equal(p2.entries.length, 2);
    assert.deepEqual(
      [...p1.entries, ...p2.entries].map((e: any) => e.id),
      h.entries.map((e: any) => e.id),
    );
    assert.equal(p2.next_after, null);
  });
});
