import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnyRow, rows } from '../helpers/assertions.js';
import { ralphTask } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { auditRows, claimRow, clockOf, exec, refusal } from './support.claims.js';

/**
 * claim_next_task and claims with leases, on both generations. In the sample, task 5 (critical, backend,
 * no deps) is the only ready task: 4 waits on 3, which is in_progress with no claim (a person set it), 6
 * is a draft, 7 is blocked. A claim takes 5, and never 3. Leases run out by moving the clock (clockOf).
 */
const bodies = (r: any): string[] => r.comments.map((c: any) => c.body);
const NOTHING = { claimed: false, task: null, ready_remaining: 0 };
/** A lease in seconds, and a move of the clock past it. */
const LEASE = 60;
const PAST = 61_000;
/** What took_over says of the claim row it replaced. */
const holder = ({ task_id, ...c }: AnyRow) => c;

interface NewTask {
  title: string;
  priority?: string;
  status?: 'draft' | 'blocked';
  depends_on?: number[];
  feature?: string;
  discipline?: string;
}

/** Adds tasks through the yap session `y` (create_task numbers them on either generation); returns their ids. */
async function addTasks(y: InProcSession, tasks: NewTask[]): Promise<number[]> {
  const ids: number[] = [];
  for (const { status, ...t } of tasks) {
    const args = { feature: 'search', discipline: 'backend', ...t, ...(status === 'draft' && { status }) };
    const id: number = (await y.ok('create_task', args)).task.id;
    if (status === 'blocked') await y.ok('set_task_status', { id, status });
    ids.push(id);
  }
  return ids;
}

contract('claims with leases', (env) => {
  test('a claim records the session, when, and a lease; get_task and list_tasks show the holder', async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-a', leaseSeconds: 60 });
    const t0 = Date.now();
    const r = await s.ok('claim_next_task');
    assert.deepEqual([r.task.id, r.took_over], [5, undefined]);
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
      list.tasks.map((t: any) => `${t.id} ${t.held_by?.session_id ?? null}`),
      ['3 null', '5 lease-a'],
    );
    assert.ok((await y.ok('list_tasks')).tasks.every((t: any) => 'held_by' in t));
  });

  test("the holder's calls renew the lease (reads too), at most once per a third of it", async (t) => {
    const pass = clockOf(t);
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-renew', leaseSeconds: LEASE });
    await s.ok('claim_next_task');
    const until = () => String(claimRow(s.project, 5)!.lease_until);
    const first = until();
    await s.ok('get_task', {});
    pass(15_000);
    await s.ok('get_task', {});
    assert.equal(until(), first, 'calls within a third of the lease after the claim write nothing');
    pass(6_000);
    await s.ok('get_task', {});
    const second = until();
    assert.ok(Date.parse(second) - Date.parse(first) >= 21_000, `lease renewed by a read: ${first} → ${second}`);
    pass(21_000);
    await s.fail('update_task_context', { id: 4, hints: 'x' }); // a refused call is activity too
    assert.ok(until() > second, 'renewed again');
  });

  test('release_task gives the task back: pending, a comment saying why, the session holds nothing', async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'lease-rel' });
    await refusal(s, 'release_task', { reason: 'nothing held' }, 'invalid_argument');
    await s.ok('claim_next_task');
    const r = await s.ok('release_task', { reason: 'the build server is down' });
    assert.deepEqual([r.task.status, r.comment.body], ['pending', 'Released: the build server is down']);
    assert.equal(ralphTask(s.project.dbPath, 5)!.status, 'pending');
    assert.equal(claimRow(s.project, 5), undefined);
    assert.equal((await s.ok('get_task', { id: 5 })).held_by, null);
    assert.equal((await s.fail('get_dependency_details')).code, 'invalid_argument', 'no task defaults any more');
    // It can claim again (the same task: still the only ready one).
    assert.equal((await s.ok('claim_next_task')).task.id, 5);
  });

  test('a lease that runs out: the next claim takes the task over, says from whom, records it', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'lease-old', leaseSeconds: LEASE }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'lease-new' }, p);
    await a.ok('claim_next_task');
    const held = claimRow(p, 5)!;
    assert.equal((await b.ok('claim_next_task')).claimed, false, 'a live lease is not taken over');
    pass(PAST);
    const r = await b.ok('claim_next_task');
    assert.deepEqual([r.claimed, r.task.id, r.task.status, r.took_over], [true, 5, 'in_progress', holder(held)]);
    assert.equal(claimRow(p, 5)!.session_id, 'lease-new');
    const audit = auditRows(p, "tool = 'claim_next_task' AND session_id = 'lease-new'");
    assert.deepEqual(
      audit.map((x) => `${x.outcome} ${x.task_id}`),
      ['ok null', 'took_over 5', 'ok 5'],
    );
    assert.deepEqual(JSON.parse(String(audit[1]!.arguments)), { took_over: r.took_over });
    assert.match(
      bodies(await b.ok('get_task', { id: 5 })).at(-1)!,
      /^Taken over from session lease-old \(claimed .*, lease ran out .*\)$/,
    );
    // The old holder's writes to it are refused now; it may claim again.
    await refusal(a, 'set_task_status', { status: 'done' }, 'conflict', /taken over by session lease-new/);
    await refusal(a, 'release_task', { reason: 'x' }, 'conflict');
    await refusal(a, 'report_blocker', { reason: 'x' }, 'conflict');
    assert.equal((await a.ok('claim_next_task')).claimed, false, 'nothing else is ready, and task 3 has no claim');
    assert.equal((await b.ok('set_task_status', { status: 'done' })).task.status, 'done');
    assert.equal(claimRow(p, 5), undefined, 'done drops the claim');
  });

  test('next_tasks previews a takeover (takes_over names the holder) the claim then takes; no write', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'lease-gone', leaseSeconds: LEASE }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'lease-next' }, p);
    const next = async () => (await b.ok('next_tasks')).tasks;
    const before = (await next()).map((x: any) => [x.id, x.takes_over]);
    assert.deepEqual(before, [[5, undefined]]);
    await a.ok('claim_next_task');
    const held = claimRow(p, 5)!;
    assert.deepEqual(await next(), [], "a live lease is nobody else's next task");
    pass(PAST);
    let preview: any[] = [];
    await unchanged(b, async () => {
      preview = await next();
    });
    const takesOver = { session_id: 'lease-gone', since: held.claimed_at, lease_until: held.lease_until };
    assert.deepEqual(
      preview.map((x: any) => [x.id, x.status, x.takes_over]),
      [[5, 'in_progress', takesOver]],
    );
    const r = await b.ok('claim_next_task');
    assert.equal(r.took_over.session_id, 'lease-gone', 'the claim takes what the preview showed');
  });

  test("list_tasks' held_by: me, any, none, a session id; a claim row of a finished task holds nothing", async () => {
    const p = env.sample();
    // The full suite (no recipe) has both claim_next_task and list_tasks, so "me" finds its own claim.
    const a = await env.open({ sessionId: 'hold-a' }, p);
    const y = await env.open({ recipe: 'yap', sessionId: 'hold-y' }, p);
    const ids = async (s: InProcSession, held_by: string) =>
      (await s.ok('list_tasks', { held_by })).tasks.map((t: any) => t.id);
    assert.deepEqual(await ids(y, 'any'), [], 'no claims yet');
    await a.ok('claim_next_task');
    assert.deepEqual(await ids(a, 'me'), [5]);
    assert.deepEqual(await ids(y, 'me'), []);
    assert.deepEqual(await ids(y, 'hold-a'), [5]);
    assert.deepEqual(await ids(y, 'any'), [5]);
    assert.deepEqual(await ids(y, 'someone-else'), []);
    const all = (await y.ok('list_tasks', { limit: 500 })).tasks.map((t: any) => t.id);
    const unheld = all.filter((id: number) => id !== 5);
    assert.deepEqual(await ids(y, 'none'), unheld, 'task 3 is in_progress without a claim: not held');
    assert.equal((await y.ok('list_tasks', { held_by: 'any' })).tasks[0].held_by.session_id, 'hold-a');
    await a.ok('set_task_status', { id: 5, status: 'done' });
    assert.deepEqual(await ids(y, 'hold-a'), []);
    assert.equal((await y.fail('list_tasks', { held_by: ' ' })).code, 'invalid_argument');
  });

  test('an in_progress task without a claim (set by a person or by Ralph) is never taken over', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const y = await env.open({ recipe: 'yap', sessionId: 'lease-person' }, p);
    await y.ok('set_task_status', { id: 5, status: 'in_progress' });
    const w = await env.open({ recipe: 'worker', sessionId: 'lease-w', leaseSeconds: LEASE }, p);
    pass(PAST);
    await unchanged(w, async () => assert.deepEqual(await w.ok('claim_next_task'), NOTHING));
    assert.deepEqual([ralphTask(p.dbPath, 3)!.status, ralphTask(p.dbPath, 5)!.status], ['in_progress', 'in_progress']);
  });

  test("another recipe's change to a held task goes ahead and names the holder", async () => {
    const p = env.sample();
    await (await env.open({ recipe: 'worker', sessionId: 'lease-h' }, p)).ok('claim_next_task');
    const reviewer = await env.open({ recipe: 'opus_review', sessionId: 'lease-rev' }, p);
    const r = await reviewer.ok('set_task_status', { id: 5, status: 'pending' });
    assert.equal(r.held_by.session_id, 'lease-h');
    assert.equal(claimRow(p, 5), undefined, 'leaving in_progress drops the claim');
  });

  test('task_history: writes and refusals about the task, oldest first, paged', async () => {
    const p = env.sample();
    const w = await env.open({ recipe: 'worker', sessionId: 'hist-w' }, p);
    await w.ok('claim_next_task');
    await w.ok('update_task_context', { hints: 'use FTS5' });
    await w.fail('update_task_context', { id: 4, hints: 'not mine' });
    const reviewer = await env.open({ recipe: 'opus_review', sessionId: 'hist-r' }, p);
    await reviewer.ok('update_task', { id: 5, priority: 'high' });
    await w.ok('release_task', { reason: 'handing over' });
    const h = await w.ok('task_history', { task_id: 5 });
    assert.deepEqual(
      h.entries.map((e: any) => `${e.session_id} ${e.tool} ${e.outcome}`),
      [
        'hist-w claim_next_task ok',
        'hist-w update_task_context ok',
        'hist-w update_task_context out_of_scope', // the holder's refused call, made while holding 5
        'hist-r update_task ok',
        'hist-w release_task ok',
      ],
    );
    assert.deepEqual(h.entries[3].arguments, { id: 5, priority: 'high' });
    const ids: number[] = h.entries.map((e: any) => e.id);
    const ordered = ids.every((id, i) => i === 0 || id > ids[i - 1]!);
    assert.ok(ordered, 'oldest first');
    assert.deepEqual([h.held_by, h.next_after], [null, null]);
    const four = await w.ok('task_history', { task_id: 4 });
    assert.deepEqual(
      four.entries.map((e: any) => `${e.tool} ${e.outcome}`),
      ['update_task_context out_of_scope'],
      'a refusal naming task 4 is in its history',
    );
    const p1 = await w.ok('task_history', { task_id: 5, limit: 3 });
    const p2 = await w.ok('task_history', { task_id: 5, limit: 3, after: p1.next_after });
    assert.deepEqual([p1.entries.length, p2.entries.length, p2.next_after], [3, 2, null]);
    assert.deepEqual(
      [...p1.entries, ...p2.entries].map((e: any) => e.id),
      ids,
    );
  });
});

contract('claim_next_task', (env) => {
  test('before a claim: no default task; filters matching no Ready task claim nothing; bad ones refused', async () => {
    const s = await env.open({ recipe: 'worker' });
    await unchanged(s, async () => {
      for (const [tool, args] of [
        ['set_task_status', { status: 'done' }],
        ['report_blocker', { reason: 'nothing claimed yet' }],
        ['get_dependency_details', {}],
        ['update_task_context', { hints: 'x' }],
        ['claim_next_task', { status: 'pending' }],
      ] as const)
        assert.equal((await s.fail(tool, args)).code, 'invalid_argument', tool);
      for (const args of [
        { discipline: 'quality' },
        { discipline: 'frontend' },
        { feature: 'auth' },
        { feature: 'recipes' },
        { discipline: 'backend', feature: 'recipes' },
      ])
        assert.deepEqual(await s.ok('claim_next_task', args), NOTHING, JSON.stringify(args));
      assert.equal((await s.fail('claim_next_task', { feature: 'payments' })).code, 'not_found');
    });
  });

  test('a claim binds the session to its task until done; then Ralph finishing 3 makes 4 Ready', async () => {
    const s = await env.open({ recipe: 'worker' });
    const db = s.project.dbPath;
    const r0 = await s.ok('claim_next_task');
    assert.deepEqual([r0.claimed, r0.task.id, r0.task.status, r0.ready_remaining], [true, 5, 'in_progress', 0]);
    assert.equal(ralphTask(db, 5)!.status, 'in_progress');
    await refusal(s, 'claim_next_task', {}, 'conflict'); // holding 5
    assert.equal((await s.ok('update_task_context', { hints: 'Use FTS5 with unicode61' })).task.id, 5);
    assert.equal(ralphTask(db, 5)!.hints, 'Use FTS5 with unicode61');
    assert.equal((await s.ok('get_task')).task.id, 5, 'get_task without id reads the claimed task');
    assert.equal((await s.ok('get_dependency_details')).task_id, 5);
    await refusal(s, 'set_task_status', { id: 4, status: 'done' }, 'out_of_scope');
    await refusal(s, 'update_task_context', { id: 3, hints: 'not mine' }, 'out_of_scope');
    await s.ok('get_task', { id: 4 }); // other tasks stay readable
    assert.equal((await s.ok('set_task_status', { status: 'done' })).task.id, 5);
    assert.equal(ralphTask(db, 5)!.status, 'done');
    await unchanged(s, async () => assert.deepEqual(await s.ok('claim_next_task'), NOTHING, '3 is still in progress'));
    // Ralph marks 3 done with plain SQL: the server must see it.
    const table = env.generation === 'legacy' ? 'tasks' : 'runtime_tasks';
    exec(s.project, `UPDATE ${table} SET status = 'done', completed = '2026-02-01' WHERE id = 3`);
    assert.equal((await s.ok('claim_next_task', { discipline: 'backend' })).claimed, false);
    const r = await s.ok('claim_next_task', { discipline: 'quality', feature: 'recipes' });
    assert.deepEqual([r.claimed, r.task.id], [true, 4]);
    assert.equal(ralphTask(db, 4)!.status, 'in_progress');
    assert.equal(ralphTask(db, 7)!.status, 'blocked', '7 waits only on 3, but blocked is never claimed');
  });

  test('claims by priority (critical, high, medium, low), each task only once its dependencies are done', async () => {
    const s = await env.open({ recipe: 'worker' });
    const y = await env.open({ recipe: 'yap' }, s.project);
    const [low, high, medium, high2, waits4, draft, blocked, depsDone] = await addTasks(y, [
      { title: 'low one', priority: 'low' },
      { title: 'high one', priority: 'high' },
      { title: 'medium one', priority: 'medium' },
      { title: 'high two', priority: 'high' },
      { title: 'critical but waits on 4', priority: 'critical', depends_on: [4] },
      { title: 'critical draft', priority: 'critical', status: 'draft' },
      { title: 'critical blocked', priority: 'critical', status: 'blocked' },
      { title: 'critical, deps done', priority: 'critical', depends_on: [1, 2] },
    ]);
    const [waitsHigh] = await addTasks(y, [
      { title: 'high, waits on high one', priority: 'high', depends_on: [high!] },
    ]);
    const order: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await s.ok('claim_next_task');
      if (!r.claimed) break;
      order.push(r.task.id);
      await s.ok('set_task_status', { status: 'done' });
    }
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
    const ready = [5, low!, high!, medium!, high2!, waitsHigh!, depsDone!];
    assert.deepEqual(sorted(order), sorted(ready), `claimed ${order.join(', ')}`);
    assert.deepEqual(sorted(order.slice(0, 2)), sorted([5, depsDone!]), 'the two Ready critical tasks first');
    assert.ok(order.indexOf(waitsHigh!) > order.indexOf(high!), `${waitsHigh} only after ${high} is done`);
    // Among the tasks Ready at the start, priority never goes up.
    const rank = ['critical', 'high', 'medium', 'low'];
    const ranks = order
      .filter((id) => id !== waitsHigh)
      .map((id) => rank.indexOf(ralphTask(s.project.dbPath, id)!.priority!));
    assert.deepEqual(ranks, sorted(ranks), `priorities in order: ${order.join(', ')}`);
    assert.equal(order.at(-1), low, 'low last');
    for (const id of [waits4!, draft!, blocked!, 4])
      assert.notEqual(ralphTask(s.project.dbPath, id)!.status, 'done', `task ${id} was not Ready`);
  });

  test('the launch discipline is the default filter; a --task session claims nothing else', async () => {
    const p = env.sample();
    const frontend = await env.open({ recipe: 'worker', discipline: 'frontend' }, p);
    assert.equal((await frontend.ok('claim_next_task')).claimed, false);
    const r = await (await env.open({ recipe: 'worker', discipline: 'backend' }, p)).ok('claim_next_task');
    assert.deepEqual([r.claimed, r.task.id], [true, 5]);
    const t = await env.open({ recipe: 'worker', task: 5 });
    await refusal(t, 'claim_next_task', {}, 'conflict');
    assert.equal(ralphTask(t.project.dbPath, 5)!.status, 'pending');
  });

  test('two workers claiming at the same moment: exactly one gets task 5', async () => {
    const p = env.sample();
    const [a, b] = [await env.open({ recipe: 'worker' }, p), await env.open({ recipe: 'worker' }, p)];
    const results = await Promise.all([a.ok('claim_next_task'), b.ok('claim_next_task')]);
    const won = results.filter((r) => r.claimed).map((r) => r.task.id);
    assert.deepEqual(won, [5], JSON.stringify(results));
    assert.equal(auditRows(p, "tool = 'claim_next_task' AND task_id = 5").length, 1, 'one audit row holds the claim');
  });

  test('4 workers drain 46 Ready tasks: each claimed once, set done by its claimer', { timeout: 60_000 }, async () => {
    const p = env.sample();
    const y = await env.open({ recipe: 'yap' }, p);
    const priorities = ['critical', 'high', 'medium', 'low'];
    const ready = await addTasks(
      y,
      Array.from({ length: 40 }, (_, i) => ({
        title: `Ready task ${i}`,
        priority: priorities[i % 4]!,
        feature: ['recipes', 'search', 'auth'][i % 3]!,
        discipline: ['backend', 'frontend', 'quality', 'documentation'][i % 4]!,
        depends_on: i % 5 === 0 ? [1] : [],
      })),
    );
    // Five more that become Ready only when one of the first ones is done, and one that never does.
    const followUp = (i: number) => ({ title: `Follow-up ${i}`, priority: 'critical', depends_on: [ready[i * 7]!] });
    const later = await addTasks(y, [0, 1, 2, 3, 4].map(followUp));
    const [never] = await addTasks(y, [{ title: 'Never ready: waits on 3', depends_on: [3] }]);
    const expected = [5, ...ready, ...later].sort((a, b) => a - b);
    const workers = await Promise.all(
      [0, 1, 2, 3].map((i) => env.open({ recipe: 'worker', sessionId: `pool-${i}` }, p)),
    );

    const work = async (s: InProcSession): Promise<number[]> => {
      const got: number[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await s.ok('claim_next_task');
        if (!r.claimed) return got;
        assert.equal(r.task.status, 'in_progress');
        got.push(r.task.id);
        const d = await s.ok('set_task_status', { status: 'done' });
        assert.equal(d.task.id, r.task.id, 'set_task_status without id acts on the claimed task');
      }
      assert.fail('a worker never ran out of tasks');
    };
    const results = await Promise.all(workers.map(work));
    const all = results.flat();
    const dupes = all.filter((id, i) => all.indexOf(id) !== i);
    assert.deepEqual(dupes, [], `tasks claimed twice: ${dupes.join(', ')}`);
    const claimed = [...all].sort((a, b) => a - b);
    assert.deepEqual(claimed, expected, 'every Ready task was claimed');
    assert.ok(results.filter((r) => r.length > 0).length >= 2, `the work was shared: ${results.map((r) => r.length)}`);
    for (const id of expected) assert.equal(ralphTask(p.dbPath, id)!.status, 'done', `task ${id} is done`);
    assert.deepEqual([ralphTask(p.dbPath, never!)!.status, ralphTask(p.dbPath, 4)!.status], ['pending', 'pending']);

    // The audit record shows the same: each task claimed by one session, set done once, by that session.
    const claims = auditRows(p, "tool = 'claim_next_task' AND outcome = 'ok'");
    const sets = auditRows(p, "tool = 'set_task_status' AND outcome = 'ok'");
    for (const id of expected) {
      const claimedBy = new Set(claims.filter((c) => c.task_id === id).map((c) => c.session_id));
      assert.equal(claimedBy.size, 1, `task ${id} claimed by ${[...claimedBy].join(', ') || 'nobody'} in the audit`);
      const setBy = sets.filter((x) => x.task_id === id);
      assert.equal(setBy.length, 1, `task ${id} set done once`);
      assert.ok(claimedBy.has(setBy[0]!.session_id), `task ${id} set done by the session that claimed it`);
    }
    results.forEach((got, i) => {
      const mine = claims.filter((c) => c.session_id === `pool-${i}`).map((c) => c.task_id);
      assert.deepEqual(mine.slice(0, got.length), got, `pool-${i}'s claims in ralph_mcp_audit match what it was given`);
    });
    const refusedCalls = auditRows(p, "outcome <> 'ok'").map((x) => `${x.tool}:${x.outcome}`);
    assert.deepEqual(refusedCalls, [], 'no refused call');
  });
});

/**
 * Issue 27: claim_task takes one named task with claim_next_task's lease; a --task session (task_execution,
 * worker) takes the lease on its own task at its first write (docs/sessions.md, Leases).
 */
contract('claim_task and the lease of a --task session', (env) => {
  test('claim_task takes a named ready task: in_progress, the lease, held_by in get_task and list_tasks', async () => {
    const p = env.sample();
    const w = await env.open({ recipe: 'worker', sessionId: 'named-a', leaseSeconds: 60 }, p);
    const r = await w.ok('claim_task', { id: 5 });
    assert.deepEqual([r.task.id, r.task.status, r.took_over], [5, 'in_progress', undefined]);
    assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
    const c = claimRow(p, 5)!;
    assert.equal(c.session_id, 'named-a');
    assert.equal(Date.parse(String(c.lease_until)) - Date.parse(String(c.claimed_at)), 60_000);
    const held = { session_id: 'named-a', since: c.claimed_at, lease_until: c.lease_until };
    assert.deepEqual((await w.ok('get_task', { id: 5 })).held_by, held);
    const y = await env.open({ recipe: 'yap' }, p);
    assert.deepEqual((await y.ok('list_tasks', { held_by: 'any' })).tasks[0].held_by, held);
    // The session is bound to it as after claim_next_task: task arguments default to it.
    assert.equal((await w.ok('update_task_context', { hints: 'named' })).task.id, 5);
    const audit = auditRows(p, "tool = 'claim_task'").map((x) => [x.session_id, x.task_id, x.outcome]);
    assert.deepEqual(audit, [['named-a', 5, 'ok']]);
    // Claiming it again changes nothing; release gives it back and it can be named again.
    assert.equal((await w.ok('claim_task', { id: 5 })).task.id, 5);
    assert.equal(claimRow(p, 5)!.claimed_at, c.claimed_at);
    assert.equal((await w.ok('release_task', { reason: 'handing it on' })).task.status, 'pending');
    assert.equal(claimRow(p, 5), undefined);
    assert.equal((await y.ok('get_task', { id: 5 })).held_by, null);
    assert.equal((await w.ok('claim_task', { id: 5 })).task.status, 'in_progress');
  });

  test('refusals change nothing: unknown, held, waiting on dependencies, not claimable, out of scope', async () => {
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'holder-a', leaseSeconds: 60 }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'other-b' }, p);
    await a.ok('claim_task', { id: 5 });
    const held = claimRow(p, 5)!;
    await refusal(b, 'claim_task', { id: 999 }, 'not_found');
    const e = await refusal(b, 'claim_task', { id: 5 }, 'conflict');
    assert.ok(e.message.includes(`held by session holder-a until ${held.lease_until}`), e.message);
    assert.equal(e.details.held_by.session_id, 'holder-a');
    const notDone = /depends on tasks that are not done: #3 \(in_progress\)/;
    const deps = await refusal(b, 'claim_task', { id: 4 }, 'conflict', notDone);
    assert.deepEqual(deps.details.unfinished_dependencies, [{ id: 3, status: 'in_progress' }]);
    for (const id of [6, 7, 1]) await refusal(b, 'claim_task', { id }, 'conflict', /is (draft|blocked|done);/);
    await refusal(b, 'claim_task', { id: 3 }, 'conflict', /in_progress without a lease/);
    const scoped = [
      await env.open({ recipe: 'worker', discipline: 'frontend' }, p),
      await env.open({ recipe: 'worker', feature: 'recipes' }, p),
      await env.open({ recipe: 'worker', task: 4 }, p),
    ];
    const [y] = await addTasks(await env.open({ recipe: 'yap' }, p), [{ title: 'Ready, unheld' }]);
    for (const s of scoped) await refusal(s, 'claim_task', { id: y! }, 'out_of_scope');
    await refusal(a, 'claim_task', { id: y! }, 'conflict', /you still hold task 5/);
    assert.deepEqual(rows(p, 'SELECT * FROM ralph_mcp_claims'), [held], 'no claim row changed');
    assert.deepEqual(
      auditRows(p, "tool = 'claim_task' AND outcome <> 'ok'").map((x) => x.outcome),
      ['not_found', ...Array(6).fill('conflict'), 'out_of_scope', 'out_of_scope', 'out_of_scope', 'conflict'],
      'every refusal is recorded',
    );
  });

  test("a lease that runs out: claim_task takes the task over; the old holder's writes are refused", async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'named-old', leaseSeconds: LEASE }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'named-new' }, p);
    await a.ok('claim_task', { id: 5 });
    const held = claimRow(p, 5)!;
    pass(PAST);
    assert.deepEqual((await b.ok('claim_task', { id: 5 })).took_over, holder(held));
    assert.equal(claimRow(p, 5)!.session_id, 'named-new');
    assert.deepEqual(
      auditRows(p, "tool = 'claim_task' AND session_id = 'named-new'").map((x) => `${x.outcome} ${x.task_id}`),
      ['took_over 5', 'ok 5'],
    );
    assert.match(bodies(await b.ok('get_task', { id: 5 })).at(-1)!, /^Taken over from session named-old /);
    await refusal(a, 'set_task_status', { status: 'done' }, 'conflict', /taken over by session named-new/);
    await refusal(a, 'claim_task', { id: 5 }, 'conflict'); // nor can it name the task again
  });

  test('two workers naming the same task at the same moment: exactly one gets it', async () => {
    const p = env.sample();
    const [a, b] = [await env.open({ recipe: 'worker' }, p), await env.open({ recipe: 'worker' }, p)];
    const results = await Promise.all([a.call('claim_task', { id: 5 }), b.call('claim_task', { id: 5 })]);
    assert.deepEqual(results.map((r) => Boolean(r.isError)).sort(), [false, true]);
    assert.equal(auditRows(p, "tool = 'claim_task' AND outcome = 'ok'").length, 1);
  });

  test('a --task session takes the lease on its task at its first write; another live session is refused', async () => {
    const p = env.sample();
    const t = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'task-5' }, p);
    await t.ok('get_task');
    assert.equal(claimRow(p, 5), undefined, 'reads take no lease');
    assert.equal(ralphTask(p.dbPath, 5)!.status, 'pending');
    const r = await t.ok('update_task_context', { hints: 'first write' });
    assert.equal(r.task.status, 'in_progress', 'the lease is taken before the write: the answer shows it');
    assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
    assert.equal(claimRow(p, 5)!.session_id, 'task-5');
    assert.equal((await t.ok('get_task')).held_by.session_id, 'task-5');
    assert.deepEqual(
      auditRows(p, "session_id = 'task-5' AND tool <> 'get_task'").map((x) => [x.tool, x.outcome, x.arguments]),
      [
        ['claim_task', 'ok', JSON.stringify({ id: 5, first_write: 'update_task_context' })],
        ['update_task_context', 'ok', JSON.stringify({ hints: 'first write' })],
      ],
    );
    // A pool takes neither it nor it by name; a second session launched for it writes nothing.
    const w = await env.open({ recipe: 'worker' }, p);
    assert.equal((await w.ok('claim_next_task')).claimed, false);
    const t2 = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'task-5-again' }, p);
    await refusal(w, 'claim_task', { id: 5 }, 'conflict', /held by session task-5 until/);
    await refusal(t2, 'add_task_comment', { body: 'me too' }, 'conflict', /task 5 is held by session task-5 until /);
    await refusal(t2, 'update_task', { status: 'done' }, 'conflict', /held by session task-5/);
    await refusal(t2, 'release_task', { reason: 'not mine' }, 'conflict', /held by session task-5/);
    assert.equal((await t2.ok('get_task')).task.id, 5, 'reading stays allowed');
    // Later writes keep the lease; done ends it.
    await t.ok('add_task_comment', { body: 'still mine' });
    assert.equal(auditRows(p, "tool = 'claim_task' AND session_id = 'task-5'").length, 1);
    await t.ok('update_task', { status: 'done' });
    assert.equal(claimRow(p, 5), undefined);
  });

  test('a --task session: in_progress set by Ralph is taken; a task nothing can claim is written unleased', async () => {
    const p = env.sample();
    // Task 3: in_progress with no lease (Ralph set it): only the session launched for it takes it.
    const t3 = await env.open({ recipe: 'task_execution', task: 3, sessionId: 'ralph-3' }, p);
    await t3.ok('add_task_comment', { body: 'starting' });
    assert.equal(claimRow(p, 3)!.session_id, 'ralph-3');
    assert.equal(ralphTask(p.dbPath, 3)!.status, 'in_progress');
    // Task 4 waits on 3: marked blocked as Ralph's prompt asks, without a lease.
    const t4 = await env.open({ recipe: 'task_execution', task: 4, sessionId: 'ralph-4' }, p);
    const r = await t4.ok('update_task', { status: 'blocked', blocked_by: 'Task #3 is not done' });
    assert.equal(r.previous_status, 'pending');
    assert.equal(claimRow(p, 4), undefined);
    // A worker launched for a task leases it the same way, and still claims nothing else.
    const w5 = await env.open({ recipe: 'worker', task: 5, sessionId: 'worker-5' }, p);
    await w5.ok('update_task_context', { hints: 'x' });
    assert.equal(claimRow(p, 5)!.session_id, 'worker-5');
    assert.equal((await w5.ok('update_task', { status: 'done' })).task.status, 'done');
    await refusal(w5, 'claim_next_task', {}, 'conflict');
    // A first write that ends the work takes no lease (it would end with it); nor does an abort.
    const p2 = env.sample();
    const ab = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'abort-5' }, p2);
    await ab.ok('signal_abort', { reason: 'rate limited' });
    const done = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'done-5' }, p2);
    assert.equal((await done.ok('update_task', { status: 'done' })).previous_status, 'pending');
    assert.equal(claimRow(p2, 5), undefined);
    assert.deepEqual(auditRows(p2, "tool = 'claim_task'"), []);
    // Nor does a blocker: the task is not set in_progress first.
    const q = env.sample();
    const e = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'end-5' }, q);
    await e.ok('report_blocker', { reason: 'the API key is missing' });
    assert.equal(claimRow(q, 5), undefined);
    assert.deepEqual(auditRows(q, "tool = 'claim_task'"), []);
    assert.equal(ralphTask(q.dbPath, 5)!.status, 'blocked');
    // The lease is taken once: a session that set its own task back to pending is not given it again.
    const q2 = env.sample();
    const once = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'once-5' }, q2);
    await once.ok('add_task_comment', { body: 'starting' });
    assert.equal(claimRow(q2, 5)!.session_id, 'once-5');
    await once.ok('update_task', { status: 'pending' });
    await once.ok('add_task_comment', { body: 'handing it back' });
    assert.equal(ralphTask(q2.dbPath, 5)!.status, 'pending');
    assert.equal(auditRows(q2, "tool = 'claim_task'").length, 1);
    // The signals recipe never leases: it only records what Ralph's loop reads.
    const sg = await env.open({ recipe: 'signals', task: 6, sessionId: 'signals-6' }, p);
    await sg.ok('learned', { text: 'a lesson about drafts', kind: 'discovery' });
    assert.equal(claimRow(p, 6), undefined);
  });

  test("a --task session's lease that runs out is taken over; its writes are refused; closing keeps the status", async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const gone = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'task-gone', leaseSeconds: LEASE }, p);
    await gone.ok('add_task_comment', { body: 'working' });
    pass(PAST);
    const w = await env.open({ recipe: 'worker', sessionId: 'pool-w' }, p);
    assert.equal((await w.ok('claim_next_task')).took_over.session_id, 'task-gone');
    await refusal(gone, 'update_task', { status: 'done' }, 'conflict', /taken over by session pool-w/);
    await refusal(gone, 'add_task_comment', { body: 'x' }, 'conflict', /held by session pool-w/);
    // A relaunched --task session takes over a lease that ran out, at its first write.
    const w3 = await env.open({ recipe: 'worker', sessionId: 'pool-3', leaseSeconds: LEASE }, p);
    await (await env.open({ recipe: 'yap' }, p)).ok('set_task_status', { id: 5, status: 'pending' });
    await w3.ok('claim_task', { id: 5 });
    pass(PAST);
    const again = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'task-again' }, p);
    await again.ok('add_task_comment', { body: 'back' });
    assert.equal(claimRow(p, 5)!.session_id, 'task-again');
    assert.equal(auditRows(p, "session_id = 'task-again' AND outcome = 'took_over'").length, 1);
    // Its session ends: the lease goes, the status stays (whoever launched it decides what is next).
    again.session.close('session ended (test)');
    assert.equal(claimRow(p, 5), undefined);
    assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
    const next = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'task-next' }, p);
    await next.ok('add_task_comment', { body: 'relaunched' });
    assert.equal(claimRow(p, 5)!.session_id, 'task-next', 'relaunched at once, nothing to wait for');
  });

  // Issue 28: a task in_progress under a leasing session has exactly one claim row, and only its holder writes it.
  test('a task set back in_progress by its old holder after another reset it is leased again (taken over later)', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const y = await env.open({ recipe: 'yap' }, p);
    const w = await env.open({ recipe: 'worker', sessionId: 'reset-w', leaseSeconds: LEASE }, p);
    await w.ok('claim_task', { id: 5 });
    // A reviewer resets it: the lease ends with in_progress.
    assert.equal((await y.ok('set_task_status', { id: 5, status: 'pending' })).held_by.session_id, 'reset-w');
    assert.equal(claimRow(p, 5), undefined);
    // The old holder sets it in_progress again: that is a claim, so the task has its row.
    await w.ok('set_task_status', { status: 'in_progress' });
    assert.equal(claimRow(p, 5)?.session_id, 'reset-w');
    // The worker dies (no more calls): its lease runs out and the pool takes the task over.
    pass(PAST);
    const r = await (await env.open({ recipe: 'worker', sessionId: 'reset-pool' }, p)).ok('claim_next_task');
    assert.deepEqual([r.task.id, r.took_over?.session_id], [5, 'reset-w']);
    await refusal(w, 'set_task_status', { status: 'done' }, 'conflict', /taken over by session reset-pool/);
    // The same for a --task session: its own in_progress after a reset takes the lease again.
    const q = env.sample();
    const ts = await env.open({ recipe: 'task_execution', task: 5, sessionId: 'reset-t', leaseSeconds: LEASE }, q);
    await ts.ok('add_task_comment', { body: 'starting' });
    await (await env.open({ recipe: 'yap' }, q)).ok('set_task_status', { id: 5, status: 'pending' });
    await ts.ok('update_task', { status: 'in_progress' });
    assert.equal(claimRow(q, 5)?.session_id, 'reset-t');
    pass(PAST);
    const qPool = await env.open({ recipe: 'worker', sessionId: 'reset-t-pool' }, q);
    assert.equal((await qPool.ok('claim_next_task')).took_over?.session_id, 'reset-t');
  });

  test('two sessions launched with one --session-id hold distinct leases: neither drops, renews or takes the other', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const [other] = await addTasks(await env.open({ recipe: 'yap' }, p), [{ title: 'Twin work two', priority: 'low' }]);
    const a = await env.open({ recipe: 'worker', sessionId: 'twin', leaseSeconds: LEASE }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'twin', leaseSeconds: LEASE }, p);
    await a.ok('claim_task', { id: 5 });
    const held = claimRow(p, 5)!;
    const twin = /held by session twin until .*another process launched with this session id/;
    await refusal(b, 'claim_task', { id: 5 }, 'conflict', twin);
    await refusal(b, 'set_task_status', { id: 5, status: 'done' }, 'out_of_scope');
    assert.equal((await b.ok('claim_next_task')).task.id, other);
    assert.deepEqual(claimRow(p, 5), held, "b's claim left a's row alone");
    // a is killed (no more calls); b's calls renew b's lease only.
    for (const _ of [1, 2]) {
      pass(31_000);
      await b.ok('get_task');
    }
    assert.equal(claimRow(p, 5)!.lease_until, held.lease_until, "b's calls did not renew a's lease");
    assert.ok(String(claimRow(p, other!)!.lease_until) > held.lease_until, "b's lease was renewed");
    const r = await (await env.open({ recipe: 'worker', sessionId: 'twin-pool' }, p)).ok('claim_next_task');
    assert.deepEqual([r.task.id, r.took_over?.session_id], [5, 'twin']);
    // a, woken, writes nothing to it; b still holds its own task.
    await refusal(a, 'set_task_status', { status: 'done' }, 'conflict', /taken over by session twin-pool/);
    assert.equal((await b.ok('set_task_status', { status: 'done' })).task.status, 'done');
  });

  test('a holder whose task was taken over cannot signal_abort it', async (t) => {
    const pass = clockOf(t);
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'abort-old', leaseSeconds: LEASE }, p);
    await a.ok('claim_task', { id: 5 });
    pass(PAST);
    const b = await env.open({ recipe: 'worker', sessionId: 'abort-new' }, p);
    await b.ok('claim_task', { id: 5 });
    await refusal(a, 'signal_abort', { reason: 'rate limited' }, 'conflict', /taken over by session abort-new/);
    // The holder itself still can.
    assert.equal((await b.ok('signal_abort', { reason: 'rate limited' })).session_id, 'abort-new');
  });
});
