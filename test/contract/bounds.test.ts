import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { LIST_READ_MAX } from '../../src/store/json.js';
import { addTasks } from '../helpers/manyTasks.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { promptText } from './support.security.js';

/**
 * Bounds: what one request may cost and return, on both generations, through the tools/call
 * path. Each case failed on the code before: search expanded one-letter prefixes and ranked every
 * match, spawn_subtasks grew a dependent's depends_on past 100, get_task and task_brief returned every
 * comment, and a row written by others with 300,000 dependencies was read whole.
 */

/** The task_brief prompt as the server answers prompts/get. */
const brief = (s: InProcSession, taskId: number) => promptText(s, 'task_brief', { task_id: String(taskId) });

/** `n` comments on task `id`, `body(i)` each, written through the store in one transaction. */
function addComments(s: InProcSession, id: number, n: number, body: (i: number) => string): void {
  s.store.write(() => {
    for (let i = 0; i < n; i++)
      s.store.comments.addComment(
        { task_id: id, author: 'backend', discipline: null, agent_task_id: null, priority: null, body: body(i) },
        { sessionId: 'b', recipe: null, discipline: null, taskId: null },
      );
  });
}

/** A task of the sample's `recipes` feature, made by create_task: its id. */
const create = async (s: InProcSession, title: string, more: Record<string, unknown> = {}): Promise<number> =>
  (await s.ok('create_task', { feature: 'recipes', discipline: 'backend', title, ...more })).task.id;

/** Writes with plain SQL, as Ralph or a person would (foreign keys off: a hand edit may name anything). */
function ralphSql(s: InProcSession, fn: (db: Database.Database) => void): void {
  const db = new Database(s.project.dbPath);
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => fn(db))();
  } finally {
    db.close();
  }
}

contract('bounds', (env) => {
  test('search_tasks: distinct words capped (the rest reported), short words match whole words only', async () => {
    const s = await env.open();
    await create(s, 'Abacus importer');
    // "aba" used to be a prefix ("aba"*) and found "Abacus"; it is a whole word now. Four letters are a prefix.
    assert.deepEqual((await s.ok('search_tasks', { query: 'aba' })).results, []);
    assert.equal((await s.ok('search_tasks', { query: 'abac' })).results.length, 1);
    const words = 'one two three four five six seven eight nine ten eleven';
    const r = await s.ok('search_tasks', { query: `${words} One ONE two` });
    assert.deepEqual(
      r.ignored_words,
      ['nine', 'ten', 'eleven'],
      'repeats (any case) count once; words past 8 are named',
    );
    assert.equal((await s.ok('search_tasks', { query: 'abacus' })).ignored_words, undefined);
  });

  test('search_tasks: whole words first; prefixes only when the words do not fill the page', async () => {
    const s = await env.open();
    const plural = await create(s, 'Paginate zebras');
    const whole = [await create(s, 'Feed zebra 0'), await create(s, 'Feed zebra 1')];
    const ids = async (args: Record<string, unknown>) =>
      (await s.ok('search_tasks', args)).results.map((h: any) => h.id).sort((a: number, b: number) => a - b);
    // Two whole-word hits fill a page of 2: the prefix-only "zebras" is not searched.
    assert.deepEqual(await ids({ query: 'zebra', limit: 2 }), whole);
    // A page of 3 is not filled by them: prefixes too.
    assert.deepEqual(
      await ids({ query: 'zebra', limit: 3 }),
      [plural, ...whole].sort((a, b) => a - b),
    );
    // No whole-word match at all: the prefix finds it.
    assert.deepEqual(await ids({ query: 'pagin' }), [plural]);
  });

  test('search_tasks: title matches first, also past the ranking window', async () => {
    const s = await env.open();
    // Many newer tasks mention the word only in their description (heavily: bm25 would like them).
    const title = await create(s, 'Wombat export');
    for (let i = 0; i < 5; i++) await create(s, `Other ${i}`, { description: 'wombat wombat wombat wombat' });
    const ids = (await s.ok('search_tasks', { query: 'wombat' })).results.map((h: any) => h.id);
    assert.equal(ids[0], title);
    assert.equal(ids.length, 6);
  });

  test('search_tasks: a search past its time budget stops with a clear error', async () => {
    const s = await env.open();
    assert.throws(
      () => s.store.search.searchTasks('"recipe"*', {}, 20, 0),
      (e: any) =>
        e.code === 'invalid_argument' &&
        /time budget/.test(e.message) &&
        /fewer, longer or rarer words/.test(e.message),
    );
  });

  test('spawn_subtasks refuses to grow a dependent past 100 dependencies, naming it; nothing changes', async () => {
    const s = await env.open();
    const [parent, ...others] = addTasks(s.store, 100); // straight through the store: the tools' own path
    const depends_on = [parent, ...others];
    const dependent = await create(s, 'Dependent', { depends_on });
    await unchanged(s, async () => {
      const e = await s.fail('spawn_subtasks', { parent_id: parent, tasks: [{ title: 'Half' }] });
      assert.equal(e.code, 'conflict');
      assert.match(e.message, new RegExp(`task ${dependent} .*101 dependencies \\(at most 100\\)`));
    });
    // Replacing the parent keeps the list at 100: allowed.
    await s.ok('spawn_subtasks', { parent_id: parent, tasks: [{ title: 'Half' }], skip_parent: true });
    assert.equal((await s.ok('get_task', { id: dependent })).task.depends_on.length, 100);
  });

  test('spawn_subtasks refuses a subtask that would inherit more than 100 dependencies', async () => {
    const s = await env.open();
    const [extra, ...deps] = addTasks(s.store, 101);
    const parent = await create(s, 'Parent', { depends_on: deps });
    await unchanged(s, async () => {
      const e = await s.fail('spawn_subtasks', { parent_id: parent, tasks: [{ title: 'Part', depends_on: [extra] }] });
      assert.equal(e.code, 'conflict');
      assert.match(e.message, /tasks\[0\] would depend on 101 tasks \(at most 100\)/);
    });
  });

  test('get_task pages comments: the most recent, a count, and a cursor to older ones', async () => {
    const s = await env.open();
    const id = await create(s, 'Chatty');
    addComments(s, id, 45, (i) => `note ${i}`);
    const first = await s.ok('get_task', { id });
    assert.equal(first.comment_count, 45);
    assert.deepEqual(
      first.comments.map((c: any) => c.body),
      Array.from({ length: 20 }, (_, i) => `note ${25 + i}`),
    );
    const second = await s.ok('get_task', { id, comments_before: first.older_comments_before, comment_limit: 100 });
    assert.deepEqual(
      second.comments.map((c: any) => c.body),
      Array.from({ length: 25 }, (_, i) => `note ${i}`),
    );
    assert.equal(second.older_comments_before, null);
    // The count is every comment, whether the page holds them all, exactly all, or an older part.
    assert.equal(second.comment_count, 45);
    for (const comment_limit of [44, 45, 46, 100])
      assert.equal((await s.ok('get_task', { id, comment_limit })).comment_count, 45, `comment_limit ${comment_limit}`);
    assert.equal((await s.fail('get_task', { id, comment_limit: 101 })).code, 'invalid_argument');
  });

  test('task_brief spends a bounded budget on comments and says how many it left out', async () => {
    const s = await env.open();
    const id = await create(s, 'Long thread');
    addComments(s, id, 300, (i) => `${i} ${'x'.repeat(9990)}`);
    const text = await brief(s, id);
    assert.ok(text.length < 60_000, `brief is ${text.length} characters`);
    assert.match(text, /the \d+ most recent of 300; \d+ older left out/);
    assert.match(text, /"299 x/, 'the newest comment is in');
  });

  test('a row with 300,000 dependencies written by others: reads return the first 1,000 and say so', async () => {
    const s = await env.open();
    const id = 2;
    ralphSql(s, (db) => {
      if (env.generation === 'legacy') {
        // Every item names task 1, which is done: ready by the rules, were they checked item by item.
        db.prepare("UPDATE tasks SET status = 'done' WHERE id = 1").run();
        db.prepare("UPDATE tasks SET status = 'pending', priority = 'critical', depends_on = ? WHERE id = ?").run(
          JSON.stringify(Array.from({ length: 300_000 }, () => 1)),
          id,
        );
      } else {
        db.prepare("UPDATE runtime_tasks SET status = 'pending' WHERE id = ?").run(id);
        db.prepare(
          "UPDATE task_details SET priority = 'critical' WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = ?)",
        ).run(id);
        db.prepare(
          `INSERT INTO task_dependencies (task_id, depends_on_task_id)
           WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
           SELECT ?, 1000000 + i FROM n`,
        ).run(id);
      }
    });
    const got = await s.ok('get_task', { id });
    assert.equal(got.task.depends_on.length, LIST_READ_MAX);
    assert.deepEqual(got.task.truncated_lists, ['depends_on']);
    assert.equal(got.dependencies.length, LIST_READ_MAX);
    const row = (await s.ok('list_tasks', {})).tasks.find((t: any) => t.id === id);
    assert.equal(row.depends_on.length, LIST_READ_MAX);
    assert.deepEqual(row.truncated_lists, ['depends_on']);
    assert.equal((await s.ok('get_task', { id: 1 })).task.truncated_lists, undefined, 'an ordinary task says nothing');
    // A critical pending task whose (missing on normalized, done on legacy) dependencies a claim used to
    // walk one by one, and then pick: a list that long is not offered. (Read through the store: the
    // harness checks Ralph's read rules after each write, and those walk the list whole.)
    assert.notEqual(s.store.tasks.pickReadyTask({})?.id, id);
    assert.ok((await brief(s, id)).length < 200_000);
  });
});
