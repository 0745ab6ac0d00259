import assert from 'node:assert/strict';
import { test } from 'node:test';
import { today } from '../../src/domain/rules.js';
import { dump } from '../helpers/project.js';
import { contract, type InProcSession } from './harness.js';
import { ralphWrites, taskTable } from './support.search.js';

/**
 * Issue 14, list_tasks' filters and sorts and the next_tasks preview, on both generations. The sample
 * (scripts/sampleProject.ts): id status priority tags depends_on feature discipline —
 *   1 done high [db] · recipes backend        5 pending critical [db, search] · search backend
 *   2 done high [api] [1] recipes backend     6 draft low [ui] · search frontend
 *   3 in_progress medium [ui, forms] [2] …    7 blocked high [auth] [3] auth backend
 *   4 pending medium [testing] [3] recipes quality   8 skipped low [docs] · auth documentation
 * all created 2026-01-02, never updated.
 */
contract('list_tasks filters and next_tasks', (env) => {
  const ids = (r: any) => r.tasks.map((t: any) => t.id);
  const list = async (s: InProcSession, args: Record<string, unknown>) => {
    const r = await s.ok('list_tasks', args);
    assert.equal(r.total, r.tasks.length, `total of ${JSON.stringify(args)}`);
    return ids(r);
  };
  /** Plain SQL on Ralph's table of this generation (what Ralph or another process writes). */
  const setUpdated = (s: InProcSession, id: number, updated: string | null) =>
    ralphWrites(s.project, (run) =>
      run(`UPDATE ${taskTable(env.generation)} SET updated = ? WHERE id = ?`, updated, id),
    );

  test('several statuses, priorities, tag, feature, discipline: combined with AND', async () => {
    const s = await env.open();
    for (const [args, want] of [
      [{ filter_status: 'pending' }, [4, 5]],
      [{ filter_status: ['pending', 'blocked'] }, [4, 5, 7]],
      [{ filter_status: ['blocked', 'pending', 'blocked'] }, [4, 5, 7]],
      [{ filter_priority: 'high' }, [1, 2, 7]],
      [{ filter_priority: ['critical', 'low'] }, [5, 6, 8]],
      [{ filter_tag: 'ui' }, [3, 6]],
      [{ filter_tag: 'db' }, [1, 5]],
      [{ filter_tag: 'UI' }, []],
      [{ filter_tag: 'db', filter_status: 'done' }, [1]],
      [{ filter_priority: ['high', 'medium'], filter_discipline: 'backend', filter_feature: 'recipes' }, [1, 2]],
      [{ filter_status: ['done', 'blocked'], filter_priority: 'high', filter_tag: 'auth' }, [7]],
    ] as const)
      assert.deepEqual(await list(s, args), want, JSON.stringify(args));
  });

  test('ready is exactly what a claim could take; sort priority is the claim order', async () => {
    const s = await env.open();
    assert.deepEqual(await list(s, { ready: true }), [5]);
    assert.deepEqual(await list(s, { ready: false }), [1, 2, 3, 4, 6, 7, 8]);
    assert.deepEqual(await list(s, { sort: 'priority' }), [5, 1, 2, 7, 3, 4, 6, 8]);
    await s.ok('set_task_status', { id: 3, status: 'done' });
    // 4 depends on 3 only; 7 is blocked (not pending), whatever its dependencies.
    assert.deepEqual(await list(s, { ready: true }), [4, 5]);
    assert.deepEqual(await list(s, { ready: true, sort: 'priority' }), [5, 4]);
    assert.deepEqual(await list(s, { ready: true, filter_discipline: 'quality' }), [4]);
    assert.deepEqual(await list(s, { ready: true, filter_status: ['done', 'blocked'] }), []);
    // A dependency on a task that is not done holds a task back.
    const late = { feature: 'search', discipline: 'backend', title: 'Ranking tweaks', priority: 'critical' };
    await s.ok('create_task', { ...late, depends_on: [5] });
    assert.deepEqual(await list(s, { ready: true, sort: 'priority' }), [5, 4]);
  });

  test('updated_since: a date or an RFC 3339 time, both forms Ralph stores; sort updated: newest first', async () => {
    const s = await env.open();
    const day = today();
    await s.ok('update_task', { id: 6, hints: 'touch' }); // updated = today (a day)
    setUpdated(s, 2, '2026-03-01 10:00:00'); // as Ralph's triggers write it
    setUpdated(s, 8, '2026-03-01'); // a day
    assert.deepEqual(await list(s, { updated_since: '2026-01-02' }), [1, 2, 3, 4, 5, 6, 7, 8]); // never updated: created counts
    assert.deepEqual(await list(s, { updated_since: '2026-01-03' }), [2, 6, 8]);
    assert.deepEqual(await list(s, { updated_since: '2026-03-01T10:00:00Z' }), [2, 6, 8]);
    // Later on 2026-03-01: the stored time is before it; a stored day (any time of that day) still counts.
    assert.deepEqual(await list(s, { updated_since: '2026-03-01T10:00:01Z' }), [6, 8]);
    assert.deepEqual(await list(s, { updated_since: '2026-03-01T12:00:00+02:00' }), [2, 6, 8]); // 10:00:00 UTC
    assert.deepEqual(await list(s, { updated_since: `${day}T00:00:00Z` }), [6]);
    assert.deepEqual(await list(s, { updated_since: `${day}T23:59:59-05:00` }), []); // tomorrow, in UTC
    assert.deepEqual(await list(s, { sort: 'updated' }), [6, 2, 8, 1, 3, 4, 5, 7]);
    assert.deepEqual(await list(s, { sort: 'updated', filter_status: 'done' }), [2, 1]);
    assert.equal(
      (await s.ok('get_task', { id: 2 })).task.updated,
      env.generation === 'normalized' ? '2026-03-01' : '2026-03-01 10:00:00',
    );
  });

  test('the cursor pages every sort and refuses a cursor of another query', async () => {
    const s = await env.open();
    setUpdated(s, 4, '2026-02-01');
    setUpdated(s, 7, '2026-02-01 08:00:00');
    for (const [args, all] of [
      [{}, [1, 2, 3, 4, 5, 6, 7, 8]],
      [{ sort: 'priority' }, [5, 1, 2, 7, 3, 4, 6, 8]],
      [{ sort: 'updated' }, [4, 7, 1, 2, 3, 5, 6, 8]],
      [{ sort: 'priority', filter_status: ['done', 'pending', 'skipped', 'draft'] }, [5, 1, 2, 4, 6, 8]],
    ] as const) {
      for (const limit of [1, 2, 3]) {
        const seen: number[] = [];
        let cursor: string | null = null;
        do {
          const page: any = await s.ok('list_tasks', { ...args, limit, ...(cursor ? { cursor } : {}) });
          assert.equal(page.total, all.length);
          seen.push(...ids(page));
          cursor = page.next_cursor;
          if (cursor) assert.ok(cursor.length <= 32);
        } while (cursor);
        assert.deepEqual(seen, all, `${JSON.stringify(args)} by ${limit}`);
      }
    }
    const cursor = (await s.ok('list_tasks', { sort: 'priority', limit: 2 })).next_cursor;
    assert.deepEqual(ids(await s.ok('list_tasks', { sort: 'priority', limit: 2, cursor })), [2, 7]);
    for (const other of [
      { sort: 'id' },
      { sort: 'updated' },
      { sort: 'priority', filter_tag: 'db' },
      { sort: 'priority', ready: true },
      {},
    ]) {
      const e = await s.fail('list_tasks', { ...other, cursor });
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.message, /cursor/);
    }
    assert.equal((await s.fail('list_tasks', { cursor: `${cursor}0` })).code, 'invalid_argument');
    // A bare id (the cursor before sorts existed) still pages the id sort.
    assert.deepEqual(ids(await s.ok('list_tasks', { cursor: '6' })), [7, 8]);
  });

  test("a list total is remembered only while nothing changed: our writes, another program's, a write in progress", async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const total = async (args: Record<string, unknown> = {}) => (await s.ok('list_tasks', { limit: 1, ...args })).total;
    assert.equal(await total(), 8);
    assert.equal(await total({ filter_status: 'pending' }), 2);
    assert.equal(await total({ cursor: '3' }), 8, 'another page: the same total');
    await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'Count me in' });
    assert.equal(await total(), 9, 'after our own write');
    const pending = await total({ filter_status: 'pending' });
    await s.ok('set_task_status', { id: 6, status: 'pending' });
    assert.equal(await total({ filter_status: 'pending' }), pending + 1);
    ralphWrites(s.project, (run) => run(`DELETE FROM ${taskTable(env.generation)} WHERE id = 8`));
    assert.equal(await total(), 8, "after another program's write");
    // Inside a write: what the open transaction changed counts, and nothing of it outlives a rollback.
    assert.throws(() =>
      s.store.write(() => {
        s.store.db.run(`DELETE FROM ${taskTable(env.generation)} WHERE id = 7`);
        assert.equal(s.store.tasks.countTasks({}), 7);
        throw new Error('roll back');
      }),
    );
    assert.equal(await total(), 8);
  });

  test('bad values: invalid_argument naming what is allowed', async () => {
    const s = await env.open();
    const before = dump(s.project);
    for (const [args, allowed] of [
      [{ filter_status: 'nope' }, /"pending"/],
      [{ filter_status: ['pending', 'nope'] }, /filter_status\.1: .*"in_progress"/],
      [{ filter_priority: 'urgent' }, /"critical"/],
      [{ filter_priority: [] }, /filter_priority/],
      [{ sort: 'newest' }, /"priority"\|"updated"/],
      [{ updated_since: 'yesterday' }, /YYYY-MM-DD.*RFC 3339/],
      [{ updated_since: '2026-02-30' }, /YYYY-MM-DD/],
      [{ updated_since: '2026-02-01T25:00:00Z' }, /RFC 3339/],
      [{ ready: 'yes' }, /ready/],
    ] as const) {
      const e = await s.fail('list_tasks', args);
      assert.equal(e.code, 'invalid_argument', JSON.stringify(args));
      assert.match(e.message, allowed, JSON.stringify(args));
    }
    assert.equal((await s.fail('list_tasks', { filter_discipline: 'nope' })).code, 'not_found');
    assert.deepEqual(dump(s.project), before);
  });

  test('next_tasks: what claims would take, in claim order, taking nothing', async () => {
    const s = await env.open({ recipe: 'worker' });
    assert.ok((await s.toolNames()).includes('next_tasks'));
    assert.deepEqual(ids(await s.ok('next_tasks', {})), [5]);
    const p = await env.open();
    await p.ok('set_task_status', { id: 3, status: 'done' });
    await p.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'Session cookies', priority: 'high' });
    const w = await env.open({ recipe: 'worker' }, p.project);
    const before = dump(p.project);
    const preview = ids(await w.ok('next_tasks', {}));
    assert.deepEqual(preview, [5, 9, 4]);
    assert.deepEqual(ids(await w.ok('next_tasks', { limit: 2 })), [5, 9]);
    assert.deepEqual(ids(await w.ok('next_tasks', { discipline: 'quality' })), [4]);
    assert.deepEqual(ids(await w.ok('next_tasks', { feature: 'auth' })), [9]);
    // The same row list_tasks shows (a ready task is pending, so nobody holds it).
    const { held_by: holder, ...listed } = (await p.ok('list_tasks', { ready: true, sort: 'priority', limit: 1 }))
      .tasks[0];
    assert.equal(holder, null);
    assert.deepEqual((await w.ok('next_tasks', {})).tasks[0], listed);
    assert.deepEqual(dump(p.project), before, 'next_tasks wrote nothing');
    assert.equal((await w.fail('next_tasks', { discipline: 'nope' })).code, 'not_found');
    // Claims take them in that order.
    const claimed: number[] = [];
    for (;;) {
      const c = await w.ok('claim_next_task', {});
      if (!c.claimed) break;
      claimed.push(c.task.id);
      await w.ok('set_task_status', { status: 'skipped' });
    }
    assert.deepEqual(claimed, preview);
    assert.deepEqual(ids(await w.ok('next_tasks', {})), []);
    // A discipline-scoped worker previews only its discipline, as its claims take only it.
    const q = await env.open({ recipe: 'worker', discipline: 'quality' });
    assert.equal((await q.fail('next_tasks', { discipline: 'backend' })).code, 'out_of_scope');
  });
});
