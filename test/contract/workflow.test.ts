import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { createMcpServer } from '../../src/server/createServer.js';
import { assertRecentTimestamp, assertToday, type AnyRow } from '../helpers/assertions.js';
import { dump, query, tempDir } from '../helpers/project.js';
import { ralphComments, ralphTask } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { auditRows, exec, refusal } from './support.claims.js';

const legacy = (s: InProcSession): boolean => s.store.generation === 'legacy';

/** Each call must fail with its code and leave Ralph's tables as they were. */
async function refuse(s: InProcSession, tool: string, cases: [Record<string, unknown>, string][]): Promise<void> {
  for (const [args, code] of cases)
    await unchanged(s, async () =>
      assert.equal((await s.fail(tool, args)).code, code, `${tool} ${JSON.stringify(args)}`),
    );
}

/** A task's stored row: legacy `tasks`; normalized `runtime_tasks` over its `task_details` (their dates as d_*). */
const stored = (s: InProcSession, id: number): AnyRow =>
  query<AnyRow>(
    s.project,
    legacy(s)
      ? 'SELECT * FROM tasks WHERE id = ?'
      : `SELECT d.*, d.created AS d_created, d.updated AS d_updated, t.*
         FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id WHERE t.id = ?`,
    id,
  )[0]!;

/** A task's comments, oldest first: legacy rows; normalized signals with our metadata, as the store reads them. */
const commentsOf = (s: InProcSession, id: number): AnyRow[] =>
  legacy(s)
    ? query<AnyRow>(s.project, 'SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', id)
    : s.store.comments.comments(id);

/** The highest task and comment (signal) ids: what a write used up. */
const lastIds = (s: InProcSession) =>
  query<{ task: number; comment: number }>(
    s.project,
    legacy(s)
      ? 'SELECT max(id) AS task, (SELECT max(id) FROM task_comments) AS comment FROM tasks'
      : 'SELECT max(id) AS task, (SELECT max(id) FROM task_signals) AS comment FROM runtime_tasks',
  )[0]!;

/** What blocks a task as stored: legacy's blocked_by; normalized, the newest `blocked` signal's detail (or on). */
function blockerOf(s: InProcSession, id: number): string | null {
  if (legacy(s)) return stored(s, id).blocked_by;
  const b = ralphComments(s.project.dbPath, id)
    .filter((c) => c.generation === 'normalized' && c.verb === 'blocked')
    .at(-1);
  return b?.generation === 'normalized' ? (b.detail ?? b.on) : null;
}

/** Updated today: legacy stores the day; Ralph head's triggers may leave 'YYYY-MM-DD HH:MM:SS'. */
function assertUpdatedToday(s: InProcSession, id: number): void {
  const updated = ralphTask(s.project.dbPath, id)!.updated;
  assertToday(legacy(s) ? updated : updated?.replace(/ \d{2}:\d{2}:\d{2}$/, ''), `task ${id} updated`);
}

const audit = (s: InProcSession, where: string): AnyRow[] => auditRows(s.project, where);
const deps = (s: InProcSession, id: number): number[] => ralphTask(s.project.dbPath, id)!.depends_on;
const ids = (list: { id: number }[]): number[] => list.map((t) => t.id);

/** A call through a second server on the session's plan and store whose log is kept (the harness logs nothing). */
async function callLogged(s: InProcSession, tool: string, args: Record<string, unknown>) {
  const lines: string[] = [];
  const { server } = createMcpServer(
    s.plan,
    s.store,
    pino({ level: 'debug' }, { write: (l: string) => lines.push(l) }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'logged', version: '0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const r = await client.callTool({ name: tool, arguments: args });
    assert.ok(!r.isError, JSON.stringify(r.structuredContent));
    return { result: r.structuredContent as AnyRow, log: lines.join('') };
  } finally {
    await client.close();
  }
}

/** The workflow tools (what agents run into) on both generations. */
contract('workflow tools', (env) => {
  test('report_blocker: the task blocked, the reason recorded, the upstream task told', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4', discipline: 'quality' });
    const r = await s.ok('report_blocker', { reason: 'The editor has no test ids', on_task_id: 3 });
    assert.deepEqual([r.task.status, r.task.blocked_by], ['blocked', 'The editor has no test ids']);
    assert.deepEqual(
      r.comments.map((c: any) => [c.task_id, c.priority, c.body]),
      [
        [4, 'high', 'Blocked: The editor has no test ids (blocked on task #3)'],
        [3, 'high', 'Task #4 (Editor end-to-end tests) is blocked on this task: The editor has no test ids'],
      ],
    );
    assert.equal(ralphTask(s.project.dbPath, 4)!.status, 'blocked');
    const own = ralphComments(s.project.dbPath, 4).at(-1)!;
    if (own.generation === 'normalized')
      assert.deepEqual(
        [own.verb, own.on, own.kind, own.detail],
        ['blocked', 'task #3', 'upstream_task', 'The editor has no test ids'],
      );
    await refusal(s, 'report_blocker', { reason: 'x', on_task_id: 4 }, 'invalid_argument');
  });

  test('search_tasks: ranked, filtered, sees writes made since', async () => {
    const s = await env.open();
    const hits = async (args: Record<string, unknown>) =>
      (await s.ok('search_tasks', args)).results.map((h: any) => h.id);
    assert.equal((await s.ok('search_tasks', { query: 'recipe editor' })).matched, 'all');
    assert.deepEqual((await hits({ query: 'recipe editor' })).sort(), [3, 4]);
    assert.deepEqual(await hits({ query: 'typeahead', feature: 'search' }), [6]);
    await s.ok('add_task_comment', { task_id: 8, body: 'Mention the zebra fallback' });
    assert.deepEqual(await hits({ query: 'zebra' }), [8]);
    await s.ok('update_task', { id: 1, title: 'Recipe table with quokka migrations' });
    assert.deepEqual(await hits({ query: 'quokka' }), [1]);
    assert.equal((await s.ok('search_tasks', { query: 'nothingmatchesthis' })).matched, 'none');
  });

  test('get_project_info and get_project_progress', async () => {
    const s = await env.open();
    assert.equal((await s.ok('get_project_info', {})).title, 'Recipe Box');
    const p = await s.ok('get_project_progress', {});
    assert.deepEqual([p.total, p.done, p.percent_done], [8, 2, 25]);
    assert.deepEqual(p.by_status, { draft: 1, pending: 2, in_progress: 1, done: 2, blocked: 1, skipped: 1 });
    assert.deepEqual(p.by_feature, [
      { name: 'auth', done: 0, total: 2 },
      { name: 'recipes', done: 2, total: 4 },
      { name: 'search', done: 0, total: 2 },
    ]);
  });

  test('report_blocker: refusals; blocked on a done task, both get a comment, that task stays as it was', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4', sessionId: 'blocker-4' });
    await refuse(s, 'report_blocker', [
      [{ reason: 'Upstream is missing', on_task_id: 999 }, 'not_found'],
      [{ reason: '' }, 'invalid_argument'],
      [{ reason: '   ' }, 'invalid_argument'],
      [{ reason: 'x'.repeat(2001) }, 'invalid_argument'],
      [{}, 'invalid_argument'],
      [{ reason: 'ok', on_task_id: 0 }, 'invalid_argument'],
      [{ reason: 'ok', task_id: 3 }, 'invalid_argument'],
    ]);
    assert.equal(ralphTask(s.project.dbPath, 4)!.status, 'pending');
    const upstream = stored(s, 2);
    const last = lastIds(s).comment;
    const reason = 'The REST endpoints return 500 on an empty ingredient list';
    const r = await s.ok('report_blocker', { reason, on_task_id: 2 });
    const own = ralphTask(s.project.dbPath, 4)!;
    assert.equal(blockerOf(s, 4), reason, 'the reason is stored as what blocks the task');
    assert.equal(own.completed, null);
    assertUpdatedToday(s, 4);
    assert.deepEqual(stored(s, 2), upstream, 'the upstream task is untouched (still done, same completed date)');
    const [mine, up] = [4, 2].map((id) => commentsOf(s, id).filter((c) => c.id > last)) as [AnyRow[], AnyRow[]];
    assert.equal(mine.length, 1, 'one comment on the blocked task');
    assert.equal(up.length, 1, 'one comment on the upstream task');
    assert.ok(mine[0]!.body.includes(reason), `own comment names the reason: ${mine[0]!.body}`);
    assert.equal(up[0]!.priority, 'high');
    assert.ok(up[0]!.body.includes(reason), `upstream comment names the reason: ${up[0]!.body}`);
    assert.match(up[0]!.body, /#4\b|task 4\b/i, 'the upstream comment says who is blocked on it');
    assert.equal(up[0]!.agent_task_id, 4);
    assert.equal(up[0]!.author, 'quality', "signed with the session's discipline (task 4's)");
    assertRecentTimestamp(up[0]!.created, 'comment created');
    assert.equal(lastIds(s).comment, last + 2, 'exactly two comments written');
    assert.deepEqual(
      [...r.comments].sort((a: AnyRow, b: AnyRow) => a.id - b.id),
      [...mine, ...up].sort((a, b) => a.id - b.id),
      'the response returns the comments as stored',
    );
  });

  test('report_blocker without on_task_id touches no other task; an in_progress upstream stays so', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const others = [1, 2, 3, 4, 6, 7, 8].map((id) => stored(s, id));
    const last = lastIds(s).comment;
    await s.ok('report_blocker', { reason: 'FTS5 is not compiled into this SQLite build' });
    assert.equal(ralphTask(s.project.dbPath, 5)!.status, 'blocked');
    assert.equal(blockerOf(s, 5), 'FTS5 is not compiled into this SQLite build');
    assert.equal(lastIds(s).comment, last + 1, 'one comment');
    assert.equal(commentsOf(s, 5).at(-1)!.task_id, 5);
    assert.deepEqual(
      [1, 2, 3, 4, 6, 7, 8].map((id) => stored(s, id)),
      others,
    );
    // Blocked again, on task 3: it gets a high-priority comment and nothing else.
    const three = stored(s, 3);
    await s.ok('report_blocker', { reason: 'The editor form never submits', on_task_id: 3 });
    assert.deepEqual(stored(s, 3), three, 'task 3 row unchanged');
    const c = commentsOf(s, 3).at(-1)!;
    assert.equal(c.priority, 'high');
    assert.match(c.body, /The editor form never submits/);
    assert.equal(blockerOf(s, 5), 'The editor form never submits', 'the newest reason is what blocks it');
  });

  test('report_blocker needs a task: refused in a session without one, or a worker before its claim', async () => {
    const p = env.sample();
    const full = await env.open({ sessionId: 'full-suite-no-task' }, p);
    await refuse(full, 'report_blocker', [
      [{ reason: 'blocked' }, 'invalid_argument'],
      [{ reason: 'blocked', on_task_id: 3 }, 'invalid_argument'],
    ]);
    await refuse(await env.open({ recipe: 'worker' }, p), 'report_blocker', [
      [{ reason: 'blocked' }, 'invalid_argument'],
    ]);
  });

  test('signal_abort: recorded for Ralph, logged at warn, the agent told to stop; refusals record none', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4', sessionId: 'abort-sess-7' });
    const signals = (p: InProcSession) => query<AnyRow>(p.project, 'SELECT * FROM ralph_mcp_signals ORDER BY id');
    const before = dump(s.project);
    const reason = 'Rate limited (HTTP 429) for the next 10 minutes';
    const { result: r, log } = await callLogged(s, 'signal_abort', { reason });
    // On Ralph's head it is also Ralph's own `stuck` signal (store/normalized/index.ts).
    if (legacy(s)) assert.equal(dump(s.project), before, "signal_abort writes only ralph-mcp's own tables");
    const sig = signals(s);
    assert.equal(sig.length, 1);
    const row = sig[0]!;
    assert.deepEqual(
      [row.session_id, row.task_id, row.reason, row.recipe, row.discipline],
      ['abort-sess-7', 4, reason, 'task_execution', 'quality'],
    );
    assertRecentTimestamp(row.created, 'ralph_mcp_signals.created');
    assert.deepEqual([r.signal_id, r.session_id, typeof r.instruction], [row.id, 'abort-sess-7', 'string']);
    assert.ok(r.instruction.length > 0);
    const line = log.split('\n').find((l) => l.includes('"level":40') && l.includes('abort-sess-7'));
    assert.ok(line, `a warn-level (40) log line names the session:\n${log}`);
    assert.ok(line.includes('429'), `the warn line carries the reason: ${line}`);
    await refuse(s, 'signal_abort', [
      [{}, 'invalid_argument'],
      [{ reason: '' }, 'invalid_argument'],
      [{ reason: 'x'.repeat(2001) }, 'invalid_argument'],
      [{ reason: 'stop', task_id: 4 }, 'invalid_argument'],
    ]);
    assert.equal(signals(s).length, 1);
    // A worker that holds no task: task_id NULL, the session id the one given.
    const w = await env.open({ recipe: 'worker', sessionId: 'pool-worker-9' });
    await w.ok('signal_abort', { reason: 'The sandbox has no network' });
    assert.deepEqual(
      signals(w).map((x) => [x.session_id, x.task_id, x.recipe, x.reason]),
      [['pool-worker-9', null, 'worker', 'The sandbox has no network']],
    );
  });

  test('skip_task: skipped with the reason as a comment, together; a blocked task too; refusals', async () => {
    const s = await env.open({ recipe: 'opus_review', sessionId: 'review-skip' });
    const last = lastIds(s).comment;
    const r = await s.ok('skip_task', { id: 4, reason: 'Covered by the smoke suite already' });
    const t = ralphTask(s.project.dbPath, 4)!;
    assert.deepEqual([t.status, t.completed], ['skipped', null]);
    assertUpdatedToday(s, 4);
    const added = commentsOf(s, 4).filter((c) => c.id > last);
    assert.equal(added.length, 1, 'one comment');
    assert.match(added[0]!.body, /Covered by the smoke suite already/);
    assertRecentTimestamp(added[0]!.created, 'comment created');
    assert.equal(lastIds(s).comment, last + 1);
    assert.deepEqual(r.comment, added[0]);
    assert.equal(r.task.status, 'skipped');
    await s.ok('skip_task', { id: 7, reason: 'Sign-in moves to a later release' });
    assert.equal(ralphTask(s.project.dbPath, 7)!.status, 'skipped');
    await refuse(s, 'skip_task', [
      [{ id: 8, reason: 'again' }, 'conflict'],
      [{ id: 4, reason: 'twice' }, 'conflict'],
      [{ id: 2, reason: 'finished work cannot be skipped' }, 'conflict'],
      [{ id: 999, reason: 'no such task' }, 'not_found'],
      [{ id: 5 }, 'invalid_argument'],
      [{ id: 5, reason: '' }, 'invalid_argument'],
      [{ reason: 'which one?' }, 'invalid_argument'],
    ]);
    assert.equal(ralphTask(s.project.dbPath, 1)!.status, 'done');
  });

  test('move_task_to_feature: only the feature (and updated) change; the same one again changes nothing', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const before = stored(s, 5);
    const r = await s.ok('move_task_to_feature', { id: 5, feature: 'auth' });
    const after = stored(s, 5);
    assert.equal(ralphTask(s.project.dbPath, 5)!.feature, 'auth');
    assertUpdatedToday(s, 5);
    const feature = legacy(s) ? 'feature' : 'subsystem_id';
    assert.deepEqual(
      { ...after, [feature]: before[feature], updated: before.updated },
      before,
      'only feature (and updated) changed',
    );
    assert.deepEqual([r.changed, r.previous_feature, r.task.feature], [true, 'search', 'auth']);
    await unchanged(s, async () => {
      const again = await s.ok('move_task_to_feature', { id: 5, feature: 'auth' });
      assert.deepEqual([again.changed, again.previous_feature], [false, 'auth']);
    });
    await refuse(s, 'move_task_to_feature', [
      [{ id: 5, feature: 'payments' }, 'not_found'],
      [{ id: 999, feature: 'auth' }, 'not_found'],
      [{ id: 5 }, 'invalid_argument'],
      [{ feature: 'auth' }, 'invalid_argument'],
      [{ id: 5, feature: 'auth', status: 'done' }, 'invalid_argument'],
    ]);
    // A task session moves its own task only.
    const own = await env.open({ task: '4' });
    await refuse(own, 'move_task_to_feature', [[{ id: 5, feature: 'auth' }, 'out_of_scope']]);
    await own.ok('move_task_to_feature', { feature: 'search' });
    assert.equal(ralphTask(own.project.dbPath, 4)!.feature, 'search');
    assert.equal(audit(own, "tool = 'move_task_to_feature' AND outcome = 'ok'").length, 1);
  });

  test('spawn_subtasks: inheritance, `after` indexes, dependents gain the last subtask; audited', async () => {
    const s = await env.open({ recipe: 'enrichment', sessionId: 'enrich-1' });
    const parentBefore = ralphTask(s.project.dbPath, 3)!;
    const last = lastIds(s).comment;
    const r = await s.ok('spawn_subtasks', {
      parent_id: 3,
      tasks: [
        {
          title: 'Ingredient list component',
          description: 'Add/remove rows',
          acceptance_criteria: ['Rows can be removed'],
        },
        { title: 'Wire the form to the API', after: [0] },
        { title: 'Server-side validation messages', feature: 'search', discipline: 'backend', priority: 'low' },
      ],
    });
    assert.deepEqual(ids(r.created), [9, 10, 11], 'ids continue from max(id)');
    const [a, b, c] = [9, 10, 11].map((id) => ralphTask(s.project.dbPath, id)!);
    assert.deepEqual(
      [a!.feature, a!.discipline, a!.priority, a!.status, a!.description, a!.acceptance_criteria],
      ['recipes', 'frontend', 'medium', 'pending', 'Add/remove rows', ['Rows can be removed']],
      'feature, discipline and priority inherited',
    );
    assert.deepEqual(a!.depends_on, [2], 'a subtask with no sibling dependency needs what the parent needed');
    assert.deepEqual([b!.feature, b!.discipline, b!.priority], ['recipes', 'frontend', 'medium']);
    assert.ok(b!.depends_on.includes(9), `task 10 depends on task 9 (after: [0]); got ${b!.depends_on}`);
    assert.ok(
      b!.depends_on.every((d) => d === 9 || d === 2),
      `task 10 needs only 9 (and maybe the parent's 2); got ${b!.depends_on}`,
    );
    assert.deepEqual([c!.feature, c!.discipline, c!.priority], ['search', 'backend', 'low'], 'given values win');
    assert.deepEqual(c!.depends_on, [2], "the parent's dependencies");
    // Not skip_parent: the parent stays as it was, its dependents now also need the last subtask.
    assert.equal(ralphTask(s.project.dbPath, 3)!.status, parentBefore.status);
    assert.deepEqual(deps(s, 3), [2]);
    const sorted = (list: number[]) => [...list].sort((x, y) => x - y);
    assert.deepEqual(sorted(deps(s, 4)), [3, 11], 'task 4 keeps the parent and gains the last subtask');
    assert.deepEqual(sorted(deps(s, 7)), [3, 11], 'task 7 keeps the parent and gains the last subtask');
    assert.deepEqual(sorted(r.rewired), [4, 7]);
    assert.equal(r.parent.id, 3);
    for (const t of r.created as AnyRow[])
      assert.deepEqual(t.depends_on, deps(s, t.id), `response depends_on of ${t.id} matches the row`);
    const added = commentsOf(s, 3).filter((x) => x.id > last);
    assert.equal(added.length, 1, 'a comment on the parent names the new tasks');
    for (const id of [9, 10, 11]) assert.match(added[0]!.body, new RegExp(`\\b${id}\\b`));

    // A parent with no dependents rewires nothing; status draft is allowed.
    const five = await s.ok('spawn_subtasks', {
      parent_id: 5,
      tasks: [{ title: 'FTS table', status: 'draft' }, { title: 'Triggers' }],
    });
    assert.deepEqual([ids(five.created), five.rewired], [[12, 13], []]);
    const twelve = ralphTask(s.project.dbPath, 12)!;
    assert.deepEqual([twelve.status, twelve.priority, twelve.depends_on], ['draft', 'critical', []]);
    assert.equal(ralphTask(s.project.dbPath, 5)!.status, 'pending');
    const rows = audit(s, "tool = 'spawn_subtasks'");
    const outcomes = rows.map((x) => x.outcome);
    assert.deepEqual(outcomes, ['ok', 'ok']);
    assert.ok(rows.every((x) => x.session_id === 'enrich-1' && x.recipe === 'enrichment'));
  });

  test('spawn_subtasks: a chain replacing a skipped parent; chain and after together', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    const badFeature = { parent_id: 5, tasks: [{ title: 'ok' }, { title: 'bad', feature: 'nope' }] };
    await refusal(s, 'spawn_subtasks', badFeature, 'not_found', /^tasks\[1\]: .*nothing was created/);
    const last = lastIds(s).comment;
    const r = await s.ok('spawn_subtasks', {
      parent_id: 3,
      chain: true,
      skip_parent: true,
      tasks: [{ title: 'Form skeleton' }, { title: 'Ingredient rows' }, { title: 'Validation display' }],
    });
    assert.deepEqual(ids(r.created), [9, 10, 11]);
    assert.deepEqual(
      [9, 10, 11].map((id) => deps(s, id)),
      [[2], [9], [10]],
      'the head of the chain needs what the parent needed',
    );
    for (const id of [9, 10, 11]) {
      const t = ralphTask(s.project.dbPath, id)!;
      assert.deepEqual([t.feature, t.discipline, t.priority], ['recipes', 'frontend', 'medium']);
    }
    assert.deepEqual([r.rewired, deps(s, 4), deps(s, 7)], [[4, 7], [11], [11]], 'the skipped parent is replaced');
    assert.equal(r.parent.status, 'skipped');
    const added = commentsOf(s, 3).filter((x) => x.id > last);
    assert.equal(added.length, 1, 'one comment on the parent');
    for (const id of [9, 10, 11])
      assert.match(added[0]!.body, new RegExp(`#?\\b${id}\\b`), `the comment names ${id}: ${added[0]!.body}`);
    const both = await s.ok('spawn_subtasks', {
      parent_id: 5,
      chain: true,
      tasks: [{ title: 'Schema' }, { title: 'Indexer' }, { title: 'Query API', after: [0] }],
    });
    assert.deepEqual(ids(both.created), [12, 13, 14]);
    assert.deepEqual(deps(s, 13), [12]);
    assert.deepEqual([...deps(s, 14)].sort(), [12, 13]);
  });

  test('spawn_subtasks is all or nothing: no task id used, no comment written, every refusal audited', async () => {
    const s = await env.open({ recipe: 'enrichment', sessionId: 'enrich-1' });
    const before = lastIds(s);
    const cases: [Record<string, unknown>, string][] = [];
    const three = [{ title: 'one' }, { title: 'two', after: [0] }, { title: 'three', feature: 'payments' }];
    const two = (second: Record<string, unknown>) => [{ title: 'one' }, { title: 'two', ...second }];
    // Failures after some inserts: an unknown feature (with skip_parent too), an unknown discipline, a bad
    // context file, an unknown depends_on; skip_parent on a finished parent fails after the inserts.
    cases.push(
      [{ parent_id: 3, tasks: three }, 'not_found'],
      [{ parent_id: 3, tasks: three, chain: true, skip_parent: true }, 'not_found'],
      [{ parent_id: 3, tasks: two({ discipline: 'design' }) }, 'not_found'],
      [{ parent_id: 3, tasks: [...two({}), { title: 'three', context_files: ['../outside.ts'] }] }, 'invalid_argument'],
      [{ parent_id: 3, tasks: two({ depends_on: [999] }) }, 'invalid_argument'],
      [{ parent_id: 1, skip_parent: true, tasks: two({}) }, 'conflict'],
      [{ parent_id: 8, skip_parent: true, tasks: [{ title: 'one' }] }, 'conflict'],
      // Argument errors: unknown parent, no tasks, `after` naming itself or a later task, unknown fields.
      [{ parent_id: 999, tasks: [{ title: 'one' }] }, 'not_found'],
      [{ parent_id: 3, tasks: [] }, 'invalid_argument'],
      [{ parent_id: 3, tasks: [{ title: 'one', after: [1] }, { title: 'two' }] }, 'invalid_argument'],
      [{ parent_id: 3, tasks: two({ after: [1] }) }, 'invalid_argument'],
      [{ parent_id: 3, tasks: two({ after: [-1] }) }, 'invalid_argument'],
      [{ parent_id: 3, tasks: [{ title: '' }] }, 'invalid_argument'],
      [{ parent_id: 3, tasks: [{ title: 'one', status: 'done' }] }, 'invalid_argument'],
      [{ parent_id: 3, tasks: [{ title: 'one', colour: 'red' }] }, 'invalid_argument'],
      [{ tasks: [{ title: 'one' }] }, 'invalid_argument'],
    );
    for (const c of cases) {
      await refuse(s, 'spawn_subtasks', [c]);
      assert.deepEqual(lastIds(s), before, `${JSON.stringify(c[0])}: no task id used, no comment written`);
    }
    assert.equal(ralphTask(s.project.dbPath, 3)!.status, 'in_progress');
    assert.deepEqual(deps(s, 4), [3]);
    const db = dump(s.project);
    const r = await s.ok('spawn_subtasks', { parent_id: 4, tasks: [{ title: 'Playwright setup' }] });
    assert.deepEqual(ids(r.created), [9]);
    assert.notEqual(dump(s.project), db);
    const outcomes = audit(s, "tool = 'spawn_subtasks'").map((x) => x.outcome);
    assert.equal(outcomes.filter((o) => o === 'ok').length, 1);
    assert.deepEqual(
      outcomes.filter((o) => o !== 'ok'),
      cases.map((c) => c[1]),
      'one audit row per refused call, with its code',
    );
  });

  test('update_task_context in a task session: canonical paths, no duplicates, hints; refusals', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4' });
    const files = () => ralphTask(s.project.dbPath, 4)!.context_files;
    const r = await s.ok('update_task_context', {
      add_context_files: ['./src/e2e//editor.spec.ts', 'src/ui/RecipeForm.tsx', 'src/ui/./RecipeForm.tsx'],
    });
    assert.deepEqual(files(), ['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx']);
    assert.deepEqual([r.added, r.removed], [['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx'], []]);
    assert.deepEqual(r.task.context_files, files());
    assertUpdatedToday(s, 4);
    // A path already there in another spelling is not added twice.
    assert.deepEqual(
      (await s.ok('update_task_context', { id: 4, add_context_files: ['src//ui/RecipeForm.tsx'] })).added,
      [],
    );
    assert.deepEqual(files(), ['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx']);
    const removed = await s.ok('update_task_context', {
      remove_context_files: ['./src/e2e/./editor.spec.ts', 'not/there.ts'],
    });
    assert.deepEqual([removed.removed, removed.added], [['src/e2e/editor.spec.ts'], []]);
    assert.deepEqual(files(), ['src/ui/RecipeForm.tsx']);
    // Hints replace the hints and leave the files alone.
    await s.ok('update_task_context', { hints: 'The form uses data-testid attributes now' });
    assert.equal(ralphTask(s.project.dbPath, 4)!.hints, 'The form uses data-testid attributes now');
    assert.deepEqual(files(), ['src/ui/RecipeForm.tsx']);
    await refuse(s, 'update_task_context', [
      ...['../x', 'src/../../x', '/etc/passwd', '~/notes.md', 'src\\win.ts', 'src/%2e%2e/x', 'C:/x', '.'].map(
        (bad): [Record<string, unknown>, string] => [{ add_context_files: [bad] }, 'invalid_argument'],
      ),
      // All or nothing: a good path, a bad one and hints in one call change nothing.
      [{ add_context_files: ['src/ok.ts', '../x'], hints: 'never stored' }, 'invalid_argument'],
      [{}, 'invalid_argument'],
      [{ id: 4 }, 'invalid_argument'],
      [{ id: 3, hints: 'not mine' }, 'out_of_scope'],
      [{ id: 5, add_context_files: ['src/a.ts'] }, 'out_of_scope'],
      [{ context_files: ['src/a.ts'] }, 'invalid_argument'],
      [{ add_context_files: 'src/a.ts' }, 'invalid_argument'],
    ]);
    assert.notEqual(ralphTask(s.project.dbPath, 4)!.hints, 'never stored');
  });

  test('update_task_context without a task session: any task by id; a symlink out of the project refused', async () => {
    const p = env.sample();
    symlinkSync(tempDir(), join(p.root, 'outside'));
    mkdirSync(join(p.root, 'src'), { recursive: true });
    const s = await env.open({}, p);
    const r = await s.ok('update_task_context', {
      id: 3,
      add_context_files: ['src/search/fts.sql'],
      remove_context_files: ['./src/ui/RecipeForm.tsx'],
      hints: 'Use the trigram tokenizer',
    });
    assert.deepEqual([r.added, r.removed], [['src/search/fts.sql'], ['src/ui/RecipeForm.tsx']]);
    const t = ralphTask(p.dbPath, 3)!;
    assert.deepEqual([t.context_files, t.hints], [['src/search/fts.sql'], 'Use the trigram tokenizer']);
    await refuse(s, 'update_task_context', [
      [{ hints: 'which task?' }, 'invalid_argument'],
      [{ id: 999, hints: 'no such task' }, 'not_found'],
      [{ id: 5, add_context_files: ['outside/secrets.txt'] }, 'invalid_argument'],
    ]);
  });

  test('get_dependency_details: the walk as stored, a depth limit, other tasks, a diamond, a missing one', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4', sessionId: 'deps-4' });
    const w = await env.open({}, s.project);
    await w.ok('update_task', { id: 2, output_artifacts: ['src/api/recipes.ts', 'src/api/validate.ts'] });
    await w.ok('add_task_comment', { task_id: 2, body: 'Review note: validation errors are 422 with a field map.' });
    const expected = (id: number, depth: number) => {
      const { title, status, output_artifacts } = ralphTask(s.project.dbPath, id)!;
      return { id, title, status, depth, output_artifacts, comments: commentsOf(s, id) };
    };
    const r = await s.ok('get_dependency_details', {});
    assert.equal(r.task_id, 4);
    assert.deepEqual(r.dependencies, [expected(3, 1), expected(2, 2), expected(1, 3)]);
    assert.deepEqual(r.dependencies[1].output_artifacts, ['src/api/recipes.ts', 'src/api/validate.ts']);
    const statuses = r.dependencies.map((d: AnyRow) => d.status);
    assert.deepEqual(statuses, ['in_progress', 'done', 'done']);
    assert.equal(r.dependencies[1].comments.length, 2, "task 2's seeded comment and the one added");
    const seeded = 'Done: endpoints in src/api/recipes.ts; validation in src/api/validate.ts.';
    assert.equal(r.dependencies[1].comments[0].body, seeded);
    assert.match(r.dependencies[2].comments[0].body, /^Done: recipes table/, 'completion summaries come along');
    assert.deepEqual([r.missing, r.truncated], [[], false]);
    /** Each task reached as id@depth, then whether the walk was cut. */
    const walk = async (args: Record<string, unknown>) => {
      const x = await s.ok('get_dependency_details', args);
      return [...x.dependencies.map((d: AnyRow) => `${d.id}@${d.depth}`), `truncated: ${x.truncated}`];
    };
    assert.deepEqual(await walk({ depth: 2 }), ['3@1', '2@2', 'truncated: true'], 'the depth limit cuts the walk');
    assert.deepEqual(await walk({ id: 4, depth: 1 }), ['3@1', 'truncated: true']);
    assert.equal((await walk({ depth: 3 })).at(-1), 'truncated: false', 'depth 3 reaches task 1, which has no deps');
    // Other tasks can be read from a task session.
    const seven = await s.ok('get_dependency_details', { id: 7 });
    assert.deepEqual([seven.task_id, ids(seven.dependencies)], [7, [3, 2, 1]]);
    assert.deepEqual(await walk({ id: 1 }), ['truncated: false']);
    await refuse(s, 'get_dependency_details', [
      [{ id: 999 }, 'not_found'],
      [{ depth: 0 }, 'invalid_argument'],
      [{ depth: 11 }, 'invalid_argument'],
      [{ depth: 1.5 }, 'invalid_argument'],
      [{ id: 4, recursive: true }, 'invalid_argument'],
    ]);
    // A diamond visits each task once; a dependency that does not exist (a hand edit) is reported as missing.
    const release = { feature: 'recipes', discipline: 'backend', title: 'Release checklist', depends_on: [4, 2] };
    const id = (await w.ok('create_task', release)).task.id;
    if (legacy(s)) exec(s.project, `UPDATE tasks SET depends_on = '[4,999,2]' WHERE id = ${id}`);
    else exec(s.project, `INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (${id}, 999)`);
    const diamond = await s.ok('get_dependency_details', { id, depth: 10 });
    assert.deepEqual((await walk({ id, depth: 10 })).sort(), ['1@2', '2@1', '3@2', '4@1', 'truncated: false']);
    assert.deepEqual(diamond.missing, [999]);
    assert.deepEqual(audit(s, "tool = 'get_dependency_details' AND outcome = 'ok'"), [], 'reads add no audit row');
  });

  test('get_feature_learnings: human, opus_reviewed, agent, auto, then by hit_count; none; unknown', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4' });
    const r = await s.ok('get_feature_learnings', { feature_name: 'recipes' });
    assert.equal(r.feature_name, 'recipes');
    assert.deepEqual(
      r.learnings.map((l: AnyRow) => [l.source, l.text]),
      [
        ['human', 'Always store quantities in grams, convert only for display'],
        ['auto', 'Validate ingredient quantities on the server'],
      ],
    );
    assert.deepEqual((await s.ok('get_feature_learnings', { feature_name: 'auth' })).learnings, []);
    await refuse(s, 'get_feature_learnings', [
      [{ feature_name: 'payments' }, 'not_found'],
      [{}, 'invalid_argument'],
    ]);
    // Learnings with a source and a hit count exist as such only in legacy's features.learnings JSON.
    if (!legacy(s)) return;
    const L = (text: string, source: string, hit_count: number) => ({
      text,
      source,
      created: '2026-01-10T10:00:00Z',
      hit_count,
      reviewed: false,
      review_count: 0,
    });
    const learnings = [
      L('auto five', 'auto', 5),
      L('agent one', 'agent', 1),
      L('human one', 'human', 1),
      L('opus two', 'opus_reviewed', 2),
      'plain string learning',
      L('agent seven', 'agent', 7),
      L('opus nine', 'opus_reviewed', 9),
      L('human four', 'human', 4),
      L('auto two', 'auto', 2),
    ];
    exec(s.project, `UPDATE features SET learnings = '${JSON.stringify(learnings)}' WHERE name = 'search'`);
    const search = (await s.ok('get_feature_learnings', { feature_name: 'search' })).learnings;
    assert.deepEqual(
      search.map((l: AnyRow) => l.text),
      [
        'human four',
        'human one',
        'opus nine',
        'opus two',
        'agent seven',
        'agent one',
        'auto five',
        'auto two',
        'plain string learning',
      ],
    );
    assert.deepEqual([search.at(-1).source, search.at(-1).hit_count], ['auto', 1]);
    const kept = query<{ l: string }>(s.project, "SELECT learnings AS l FROM features WHERE name = 'search'")[0]!.l;
    assert.deepEqual(JSON.parse(kept), learnings, 'reading does not rewrite the stored order');
  });
});
