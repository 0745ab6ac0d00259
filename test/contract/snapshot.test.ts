import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/database.js';
import { contract, type InProcSession } from './harness.js';
import { insertComment, ralphRuns, taskTable } from './support.search.js';

/**
 * Another program (Ralph's app) may commit while a reading tool runs its statements. Each reading tool
 * answers from one snapshot (session/dispatch.ts, Db.read): what was committed after its first statement
 * is in none of its answer, and in the next call's whole.
 */
contract('a reading tool answers from one state of the database', (env) => {
  /** Runs `write` (on another connection) right after the next statement the session's connection reads. */
  function afterFirstRead(db: Db, write: () => void): void {
    const { get, all } = db;
    const once =
      <F extends (...a: never[]) => unknown>(read: F) =>
      (...a: Parameters<F>) => {
        const out = read.apply(db, a);
        db.get = get;
        db.all = all;
        write();
        return out;
      };
    db.get = once(get) as Db['get'];
    db.all = once(all) as Db['all'];
  }

  /** Ralph comments on task 1 and skips every pending task, in one commit. */
  const ralphCommits = (s: InProcSession) => () => {
    insertComment(s.project, env.generation, 1, 'written while the call read');
    const update = `UPDATE ${taskTable(env.generation)} SET status = 'skipped' WHERE status = 'pending'`;
    ralphRuns(s.project, env.generation, update, update);
  };

  test('a resource or prompt made of several reads answers from one state too', async () => {
    const s = await env.open();
    for (const get of [
      () => s.client.readResource({ uri: 'ralph://project' }),
      () => s.client.getPrompt({ name: 'task_brief', arguments: { task_id: '1' } }),
    ]) {
      const before = await get();
      afterFirstRead(s.store.db, ralphCommits(s));
      assert.deepEqual(await get(), before);
      assert.notDeepEqual(await get(), before, 'the next read sees the commit');
    }
  });

  for (const [tool, args] of [
    ['get_task', { id: 1 }],
    ['list_tasks', {}],
    ['get_project_progress', {}],
    ['next_tasks', {}],
  ] as const) {
    test(`${tool}: a commit made while it reads is in none of its answer`, async () => {
      const s = await env.open();
      const before = await s.ok(tool, args);
      afterFirstRead(s.store.db, ralphCommits(s));
      assert.deepEqual(await s.ok(tool, args), before);
      assert.notDeepEqual(await s.ok(tool, args), before, 'the next call sees the commit');
    });
  }
});
