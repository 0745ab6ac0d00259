import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { assertRecentTimestamp, refused, useSession, useTwoSessions, type AnyRow } from '../helpers/assertions.js';
import type { Session } from '../helpers/server.js';
import { auditRows, callUnknown } from './support.js';

/**
 * Issue 3, the session record: one ralph_mcp_audit row per call of a writing tool (outcome 'ok') and per
 * refused call (outcome = the error code; 'unknown_tool' for a tool the session does not have), with the
 * session id, recipe, discipline and task. Read-only calls that succeed add nothing.
 */

/** Runs `fn` and returns the audit rows it added. */
async function added(p: Project, fn: () => Promise<unknown>): Promise<AnyRow[]> {
  const last = auditRows(p).at(-1)?.id ?? 0;
  await fn();
  return auditRows(p, 'id > ?', last);
}

/** A call that must succeed and add exactly one audit row, outcome ok; returns that row. */
async function okRow(s: Session, p: Project, tool: string, args: Record<string, unknown>): Promise<AnyRow> {
  const rowsAdded = await added(p, () => s.ok(tool, args));
  assert.equal(rowsAdded.length, 1, `${tool}: one audit row`);
  const r = rowsAdded[0]!;
  assert.equal(r.tool, tool);
  assert.equal(r.outcome, 'ok');
  assert.deepEqual(JSON.parse(String(r.arguments)), args, 'the arguments as given');
  assertRecentTimestamp(r.created, 'ralph_mcp_audit.created');
  return r;
}

/**
 * A call that must be refused with `code`, leave Ralph's data unchanged, and add exactly one audit row with that
 * outcome.
 */
async function refusedRow(
  s: Session,
  p: Project,
  tool: string,
  args: Record<string, unknown>,
  code: string,
): Promise<AnyRow> {
  const rowsAdded = await added(p, () => refused(s, p, tool, args, code));
  assert.equal(rowsAdded.length, 1, `${tool} refused: one audit row`);
  const r = rowsAdded[0]!;
  assert.equal(r.tool, tool);
  assert.equal(r.outcome, code);
  assertRecentTimestamp(r.created, 'ralph_mcp_audit.created');
  return r;
}

async function unknownRow(s: Session, p: Project, tool: string, args: Record<string, unknown>): Promise<AnyRow> {
  const rowsAdded = await added(p, () => callUnknown(s, tool, args));
  assert.equal(rowsAdded.length, 1, `${tool} (not in this session): one audit row`);
  const r = rowsAdded[0]!;
  assert.equal(r.tool, tool);
  assert.equal(r.outcome, 'unknown_tool');
  return r;
}

describe('audit: opus_review --discipline backend --session-id audit-review', () => {
  const ctx = useSession(['--recipe', 'opus_review', '--discipline', 'backend', '--session-id', 'audit-review']);
  const who = { session_id: 'audit-review', recipe: 'opus_review', discipline: 'backend', task_id: null };
  const scopeOf = (r: AnyRow) => ({
    session_id: r.session_id,
    recipe: r.recipe,
    discipline: r.discipline,
    task_id: r.task_id,
  });

  test('successful reads add no row', async () => {
    const { s, p } = ctx;
    const rowsAdded = await added(p, async () => {
      await s.ok('list_tasks', {});
      await s.ok('get_task', { id: 1 });
      await s.ok('list_features', {});
      await s.ok('get_feature', { name: 'recipes' });
      await s.ok('search_tasks', { query: 'recipe' });
      await s.ok('get_dependency_details', { id: 4 });
      await s.ok('get_project_info', {});
      await s.ok('get_project_progress', {});
      await s.ok('read_learnings', {});
    });
    assert.deepEqual(rowsAdded, []);
  });

  test('each write adds one ok row with the session, recipe, discipline and task', async () => {
    const { s, p } = ctx;
    assert.deepEqual(scopeOf(await okRow(s, p, 'set_task_status', { id: 5, status: 'in_progress' })), who);
    assert.deepEqual(
      scopeOf(await okRow(s, p, 'set_task_status', { id: 5, status: 'in_progress' })),
      who,
      'a write that changed nothing is still a write call',
    );
    assert.deepEqual(scopeOf(await okRow(s, p, 'skip_task', { id: 6, reason: 'Typeahead is out of scope' })), who);
    assert.deepEqual(scopeOf(await okRow(s, p, 'move_task_to_feature', { id: 5, feature: 'recipes' })), who);
    assert.deepEqual(scopeOf(await okRow(s, p, 'add_task_comment', { task_id: 5, body: 'Looks good' })), who);
    assert.deepEqual(scopeOf(await okRow(s, p, 'update_task', { id: 5, priority: 'low' })), who);
    assert.deepEqual(scopeOf(await okRow(s, p, 'append_progress', { text: 'Reviewed the search feature' })), who);
  });

  test('each refused call adds one row with its error code (reads too)', async () => {
    const { s, p } = ctx;
    assert.deepEqual(scopeOf(await refusedRow(s, p, 'skip_task', { id: 1, reason: 'done already' }, 'conflict')), who);
    await refusedRow(s, p, 'get_task', { id: 999 }, 'not_found');
    await refusedRow(s, p, 'move_task_to_feature', { id: 5, feature: 'payments' }, 'not_found');
    await refusedRow(s, p, 'search_tasks', { query: '***' }, 'invalid_argument');
    await refusedRow(s, p, 'set_task_status', { id: 5, status: 'finished' }, 'invalid_argument');
    await refusedRow(s, p, 'update_task', { id: 5, title: 'narrowed away in opus_review' }, 'invalid_argument');
    const r = await refusedRow(
      s,
      p,
      'skip_task',
      { id: 5, reason: 'x', extra: { nested: [1, 2] } },
      'invalid_argument',
    );
    assert.deepEqual(
      JSON.parse(String(r.arguments)),
      { id: 5, reason: 'x', extra: { nested: [1, 2] } },
      'the raw arguments of a refused call',
    );
  });

  test("a tool hidden by the recipe, or one that does not exist, is recorded as 'unknown_tool' and writes nothing", async () => {
    const { s, p } = ctx;
    assert.deepEqual(scopeOf(await unknownRow(s, p, 'delete_task', { id: 8 })), who);
    await unknownRow(s, p, 'spawn_subtasks', { parent_id: 5, tasks: [{ title: 'x' }] });
    await unknownRow(s, p, 'claim_next_task', {});
    await unknownRow(s, p, 'no_such_tool_at_all', {});
    assert.ok(auditRows(p, 'tool = ?', 'delete_task').length === 1);
  });

  test('in total: one row per write and per refusal, none per read', () => {
    const all = auditRows(ctx.p);
    assert.equal(all.filter((r) => r.outcome === 'ok').length, 7);
    assert.equal(all.filter((r) => r.outcome !== 'ok').length, 11);
    assert.ok(all.every((r) => r.session_id === 'audit-review'));
  });
});

describe('audit: task_execution --task 4 --session-id audit-exec (discipline from the task)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4', '--session-id', 'audit-exec']);
  const who = { session_id: 'audit-exec', recipe: 'task_execution', discipline: 'quality', task_id: 4 };
  const scopeOf = (r: AnyRow) => ({
    session_id: r.session_id,
    recipe: r.recipe,
    discipline: r.discipline,
    task_id: r.task_id,
  });

  test('out_of_scope, invalid_argument, not_found and unknown_tool refusals are recorded with the session task', async () => {
    const { s, p } = ctx;
    assert.deepEqual(
      scopeOf(await refusedRow(s, p, 'set_task_status', { id: 3, status: 'done' }, 'out_of_scope')),
      who,
    );
    assert.deepEqual(
      scopeOf(await refusedRow(s, p, 'update_task_context', { id: 5, hints: 'not mine' }, 'out_of_scope')),
      who,
    );
    assert.deepEqual(scopeOf(await refusedRow(s, p, 'update_task_context', {}, 'invalid_argument')), who);
    assert.deepEqual(
      scopeOf(await refusedRow(s, p, 'report_blocker', { reason: 'x', on_task_id: 999 }, 'not_found')),
      who,
    );
    assert.deepEqual(
      scopeOf(await refusedRow(s, p, 'get_feature_learnings', { feature_name: 'payments' }, 'not_found')),
      who,
    );
    assert.deepEqual(
      scopeOf(await unknownRow(s, p, 'create_task', { feature: 'recipes', discipline: 'quality', title: 'sneaky' })),
      who,
    );
    assert.deepEqual(scopeOf(await unknownRow(s, p, 'search_tasks', { query: 'recipe' })), who);
  });

  test('writes of the workflow tools are recorded; reads are not', async () => {
    const { s, p } = ctx;
    assert.deepEqual(await added(p, () => s.ok('get_task', {})), []);
    assert.deepEqual(await added(p, () => s.ok('get_dependency_details', {})), []);
    assert.deepEqual(await added(p, () => s.ok('get_feature_learnings', { feature_name: 'recipes' })), []);
    assert.deepEqual(
      scopeOf(await okRow(s, p, 'update_task_context', { hints: 'Use the data-testid attributes' })),
      who,
    );
    assert.deepEqual(scopeOf(await okRow(s, p, 'add_task_comment', { task_id: 4, body: 'Starting' })), who);
    assert.deepEqual(
      scopeOf(await okRow(s, p, 'report_blocker', { reason: 'The editor has no test ids', on_task_id: 3 })),
      who,
    );
    assert.deepEqual(scopeOf(await okRow(s, p, 'signal_abort', { reason: 'Cannot run a browser here' })), who);
  });
});

describe('audit: session ids', () => {
  const ctx = useTwoSessions(['--recipe', 'yap'], ['--recipe', 'yap']);

  test('without --session-id each session gets its own generated id, the same for all its rows', async () => {
    const { a, b, p } = ctx;
    const a1 = await okRow(a, p, 'set_task_status', { id: 5, status: 'in_progress' });
    const b1 = await okRow(b, p, 'set_task_status', { id: 4, status: 'draft' });
    const a2 = await refusedRow(a, p, 'set_task_status', { id: 999, status: 'done' }, 'not_found');
    for (const r of [a1, b1, a2]) {
      assert.equal(typeof r.session_id, 'string');
      assert.ok(String(r.session_id).length > 0);
      assert.equal(r.recipe, 'yap');
      assert.equal(r.discipline, null);
      assert.equal(r.task_id, null);
    }
    assert.equal(a1.session_id, a2.session_id, 'stable within a session');
    assert.notEqual(a1.session_id, b1.session_id, 'distinct between sessions');
  });
});

describe('audit: a worker session records the claimed task', () => {
  const ctx = useSession(['--recipe', 'worker', '--session-id', 'audit-worker']);

  test('task_id is NULL before the claim, the claimed task from the claim on', async () => {
    const { s, p } = ctx;
    assert.equal((await refusedRow(s, p, 'set_task_status', { status: 'done' }, 'invalid_argument')).task_id, null);
    const claim = await okRow(s, p, 'claim_next_task', {});
    assert.equal(claim.task_id, 5, 'the claim row names the task it claimed');
    assert.equal((await okRow(s, p, 'set_task_status', { status: 'done' })).task_id, 5);
    assert.equal((await refusedRow(s, p, 'set_task_status', { id: 4, status: 'done' }, 'out_of_scope')).task_id, 5);
    assert.equal((await unknownRow(s, p, 'delete_task', { id: 8 })).task_id, 5);
  });
});
