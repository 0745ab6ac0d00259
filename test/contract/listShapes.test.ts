import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/**
 * Issue 27, list shapes: list_tasks, search_tasks and next_tasks take `fields` ("brief" or row keys; id
 * always kept) on both generations. Without it a row is exactly what it was. The harness's client checks
 * every result against the listed outputSchema, so each shape below also proves that schema true.
 */
contract('list shapes (fields)', (env) => {
  const keysOf = (rows: object[]) => [...new Set(rows.map((r) => Object.keys(r).join(',')))];
  const ids = (rows: { id: number }[]) => rows.map((t) => t.id);
  /** Today's rows, key for key (template_id on Ralph's current schema only). */
  const template = env.generation === 'normalized' ? ['template_id'] : [];
  const ROW = ['id', 'title', 'status', 'priority', 'feature', 'discipline', 'depends_on', ...template];
  const LIST_KEYS = 'id title status priority feature discipline depends_on template_id held_by'.split(' ');
  const VALID_LIST = `valid: brief (id, title, status), ${LIST_KEYS.join(', ')}`;

  const brief = (rows: any[]) => rows.map((t) => ({ id: t.id, title: t.title, status: t.status }));

  test('list_tasks: the default row is unchanged; brief is id, title, status; fields pick keys; held_by names the holder', async () => {
    const s = await env.open();
    const listed = async (fields: unknown) => keysOf((await s.ok('list_tasks', { fields })).tasks);
    const full = await s.ok('list_tasks');
    assert.deepEqual(keysOf(full.tasks), [[...ROW, 'held_by'].join(',')]);
    const short = await s.ok('list_tasks', { fields: ['brief'] });
    assert.deepEqual(keysOf(short.tasks), ['id,title,status']);
    assert.deepEqual(short.tasks, brief(full.tasks));
    assert.equal(short.total, full.total);
    // The row's own order, whatever the order asked; id always; one string of names also reads.
    assert.deepEqual(await listed(['held_by', 'priority']), ['id,priority,held_by']);
    assert.deepEqual(await listed('brief, feature'), ['id,title,status,feature']);
    assert.deepEqual(await listed(['depends_on', 'depends_on']), ['id,depends_on']);
    assert.deepEqual(await listed(['id']), ['id']);

    const w = await env.open({ recipe: 'worker', sessionId: 'shapes-worker' }, s.project);
    await w.ok('claim_next_task');
    const [held, ...others] = (await s.ok('list_tasks', { fields: ['held_by'], held_by: 'any' })).tasks;
    assert.deepEqual([held, others], [{ id: 5, held_by: held.held_by }, []]);
    assert.equal(held.held_by.session_id, 'shapes-worker');
  });

  test('list_tasks: brief rows page exactly like full ones; a cursor serves either shape', async () => {
    const s = await env.open();
    for (const sort of ['id', 'priority', 'updated']) {
      const all = ids((await s.ok('list_tasks', { sort, limit: 500 })).tasks);
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await s.ok('list_tasks', { sort, limit: 3, fields: 'brief', ...(cursor ? { cursor } : {}) });
        assert.deepEqual(keysOf(page.tasks), ['id,title,status']);
        assert.equal(page.total, all.length);
        seen.push(...ids(page.tasks));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, all, `sort ${sort}`);
    }
    const first = await s.ok('list_tasks', { limit: 2, fields: ['brief'] });
    const next = await s.ok('list_tasks', { limit: 2, cursor: first.next_cursor });
    assert.deepEqual(keysOf(next.tasks), [[...ROW, 'held_by'].join(',')]);
    assert.deepEqual(ids(next.tasks), [3, 4]);
  });

  test('search_tasks: brief hits, picked keys; matched stays', async () => {
    const s = await env.open();
    const full = await s.ok('search_tasks', { query: 'search' });
    assert.ok(full.results.length > 0);
    assert.deepEqual(keysOf(full.results), ['id,title,status,priority,feature,discipline,score,snippet']);
    const short = await s.ok('search_tasks', { query: 'search', fields: ['brief'] });
    assert.deepEqual(short.results, brief(full.results));
    assert.equal(short.matched, full.matched);
    assert.deepEqual(keysOf((await s.ok('search_tasks', { query: 'search', fields: ['snippet', 'score'] })).results), [
      'id,score,snippet',
    ]);
  });

  test('next_tasks: brief preview, picked keys; takes_over only when asked for', async () => {
    const p = env.sample();
    const a = await env.open({ recipe: 'worker', sessionId: 'shapes-gone', leaseSeconds: 0.2 }, p);
    const b = await env.open({ recipe: 'worker', sessionId: 'shapes-next' }, p);
    const full = await b.ok('next_tasks');
    assert.deepEqual(keysOf(full.tasks), [ROW.join(',')]);
    assert.deepEqual(await b.ok('next_tasks', { fields: 'brief' }), { tasks: brief(full.tasks) });
    assert.deepEqual(keysOf((await b.ok('next_tasks', { fields: ['priority'] })).tasks), ['id,priority']);
    await a.ok('claim_next_task');
    await sleep(300); // the lease runs out: the next claim would take the task over
    assert.deepEqual((await b.ok('next_tasks', { fields: ['brief'] })).tasks, [
      { id: 5, title: full.tasks[0].title, status: 'in_progress' },
    ]);
    const over = (await b.ok('next_tasks', { fields: ['takes_over'] })).tasks;
    assert.deepEqual(Object.keys(over[0]), ['id', 'takes_over']);
    assert.equal(over[0].takes_over.session_id, 'shapes-gone');
  });

  test('unknown or empty fields are refused with the valid keys; nothing changes', async () => {
    const s = await env.open();
    await unchanged(s, async () => {
      const e = await s.fail('list_tasks', { fields: ['brief', 'bogus', 'description'] });
      assert.equal(e.code, 'invalid_argument');
      assert.ok(e.message.includes(`fields: unknown "bogus", "description"; ${VALID_LIST}`), e.message);
      assert.deepEqual(e.details?.valid, ['brief', ...LIST_KEYS]);
      const h = await s.fail('search_tasks', { query: 'search', fields: ['held_by'] });
      assert.equal(h.code, 'invalid_argument');
      assert.match(h.message, /unknown "held_by"; valid: brief \(id, title, status\), .*score, snippet$/);
      const n = await s.fail('next_tasks', { fields: 'brief,snippet' });
      assert.equal(n.code, 'invalid_argument');
      assert.match(n.message, /unknown "snippet"; valid: .*template_id, takes_over$/);
      assert.equal((await s.fail('list_tasks', { fields: [] })).code, 'invalid_argument');
      assert.equal((await s.fail('list_tasks', { fields: '' })).code, 'invalid_argument');
    });
  });
});
