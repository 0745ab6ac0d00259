import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { assertRecentTimestamp, rows, type AnyRow } from '../helpers/assertions.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';

/**
 * The session record: one ralph_mcp_audit row per call of a writing tool (outcome 'ok') and per refused
 * call (outcome = the error code; 'unknown_tool' for a tool the session does not have), with the session
 * id, recipe, discipline and task. Read-only calls that succeed add nothing. Our own table: plain SQL.
 */
type Args = Record<string, unknown>;

/** ralph_mcp_audit rows, oldest first; [] while the table does not exist yet (it is made on the first write). */
function audit(s: InProcSession, where = '1', ...params: unknown[]): AnyRow[] {
  if (rows(s.project, "SELECT 1 FROM sqlite_master WHERE name = 'ralph_mcp_audit'").length === 0) return [];
  return rows(s.project, `SELECT * FROM ralph_mcp_audit WHERE ${where} ORDER BY id`, ...params);
}

/** Runs `fn` and returns the audit rows it added. */
async function added(s: InProcSession, fn: () => Promise<unknown>): Promise<AnyRow[]> {
  const last = audit(s).at(-1)?.id ?? 0;
  await fn();
  return audit(s, 'id > ?', last);
}

/**
 * Makes a call that ends in `outcome` ('ok'; an error code, Ralph's tables unchanged; 'unknown_tool', a
 * JSON-RPC error) and returns the one audit row it added, which holds the arguments as given.
 */
async function rowOf(s: InProcSession, outcome: string, tool: string, args: Args): Promise<AnyRow> {
  const rowsAdded = await added(s, async () => {
    if (outcome === 'ok') return s.ok(tool, args);
    await unchanged(s, async () => {
      if (outcome !== 'unknown_tool') assert.equal((await s.fail(tool, args)).code, outcome, tool);
      else await assert.rejects(s.call(tool, args), (e) => e instanceof McpError && /Unknown tool/.test(e.message));
    });
  });
  assert.equal(rowsAdded.length, 1, `${tool} → ${outcome}: one audit row`);
  const r = rowsAdded[0]!;
  assert.deepEqual([r.tool, r.outcome], [tool, outcome]);
  assert.deepEqual(JSON.parse(String(r.arguments)), args, 'the arguments as given');
  assertRecentTimestamp(r.created, 'ralph_mcp_audit.created');
  return r;
}

const scopeOf = ({ session_id, recipe, discipline, task_id }: AnyRow) => ({ session_id, recipe, discipline, task_id });

/** Makes each call, asserting its outcome and that its row carries `who`. */
async function record(s: InProcSession, who: object, calls: [string, string, Args][]): Promise<void> {
  for (const [outcome, tool, args] of calls) assert.deepEqual(scopeOf(await rowOf(s, outcome, tool, args)), who, tool);
}

contract('audit', (env) => {
  test('a review session: reads add no row; each write and each refusal one, with its scope', async () => {
    const s = await env.open({ recipe: 'opus_review', discipline: 'backend', sessionId: 'audit-review' });
    const who = { session_id: 'audit-review', recipe: 'opus_review', discipline: 'backend', task_id: null };
    const reads: [string, Args][] = [
      ['list_tasks', {}],
      ['get_task', { id: 1 }],
      ['list_features', {}],
      ['get_feature', { name: 'recipes' }],
      ['search_tasks', { query: 'recipe' }],
      ['get_dependency_details', { id: 4 }],
      ['get_project_progress', {}],
      ['blocked_tasks', {}],
      ['read_learnings', {}],
    ];
    assert.deepEqual(await added(s, () => Promise.all(reads.map(([tool, args]) => s.ok(tool, args)))), []);
    const calls: [string, string, Args][] = [
      ['ok', 'set_task_status', { id: 5, status: 'in_progress' }],
      ['ok', 'set_task_status', { id: 5, status: 'in_progress' }], // a write that changed nothing is still a write call
      ['ok', 'skip_task', { id: 6, reason: 'Typeahead is out of scope' }],
      ['ok', 'move_task_to_feature', { id: 5, feature: 'recipes' }],
      ['ok', 'add_task_comment', { task_id: 5, body: 'Looks good' }],
      ['ok', 'update_task', { id: 5, priority: 'low' }],
      ['ok', 'append_progress', { text: 'Reviewed the search feature' }],
      ['conflict', 'skip_task', { id: 1, reason: 'done already' }],
      ['not_found', 'get_task', { id: 999 }], // a refused read is recorded too
      ['not_found', 'move_task_to_feature', { id: 5, feature: 'payments' }],
      ['invalid_argument', 'search_tasks', { query: '***' }],
      ['invalid_argument', 'set_task_status', { id: 5, status: 'finished' }],
      ['invalid_argument', 'update_task', { id: 5, title: 'narrowed away in opus_review' }],
      ['invalid_argument', 'skip_task', { id: 5, reason: 'x', extra: { nested: [1, 2] } }], // kept raw
      ['unknown_tool', 'delete_task', { id: 8 }], // hidden by the recipe
      ['unknown_tool', 'spawn_subtasks', { parent_id: 5, tasks: [{ title: 'x' }] }],
      ['unknown_tool', 'claim_next_task', {}],
      ['unknown_tool', 'no_such_tool_at_all', {}],
    ];
    await record(s, who, calls);
    // In total: one row per write and per refusal, none per read.
    assert.deepEqual(
      audit(s).map((r) => [r.outcome, r.tool, r.session_id]),
      calls.map(([outcome, tool]) => [outcome, tool, 'audit-review']),
    );
  });

  test('a task session (discipline from its task): refusals and writes carry the task, reads add nothing', async () => {
    const s = await env.open({ recipe: 'task_execution', task: 4, sessionId: 'audit-exec' });
    const who = { session_id: 'audit-exec', recipe: 'task_execution', discipline: 'quality', task_id: 4 };
    await record(s, who, [
      ['out_of_scope', 'set_task_status', { id: 3, status: 'done' }],
      ['out_of_scope', 'update_task_context', { id: 5, hints: 'not mine' }],
      ['invalid_argument', 'update_task_context', {}],
      ['not_found', 'report_blocker', { reason: 'x', on_task_id: 999 }],
      ['not_found', 'get_feature_learnings', { feature_name: 'payments' }],
      ['unknown_tool', 'create_task', { feature: 'recipes', discipline: 'quality', title: 'sneaky' }],
      ['unknown_tool', 'search_tasks', { query: 'recipe' }],
    ]);
    assert.deepEqual(await added(s, () => s.ok('get_task')), []);
    assert.deepEqual(await added(s, () => s.ok('get_dependency_details')), []);
    assert.deepEqual(await added(s, () => s.ok('get_feature_learnings', { feature_name: 'recipes' })), []);
    await record(s, who, [
      ['ok', 'update_task_context', { hints: 'Use the data-testid attributes' }],
      ['ok', 'add_task_comment', { task_id: 4, body: 'Starting' }],
      ['ok', 'report_blocker', { reason: 'The editor has no test ids', on_task_id: 3 }],
      ['ok', 'signal_abort', { reason: 'Cannot run a browser here' }],
    ]);
  });

  test('without a session id each session gets its own generated one, the same for all its rows', async () => {
    const p = env.sample();
    const [a, b] = [await env.open({ recipe: 'yap' }, p), await env.open({ recipe: 'yap' }, p)];
    const a1 = await rowOf(a, 'ok', 'set_task_status', { id: 5, status: 'in_progress' });
    const b1 = await rowOf(b, 'ok', 'set_task_status', { id: 4, status: 'draft' });
    const a2 = await rowOf(a, 'not_found', 'set_task_status', { id: 999, status: 'done' });
    for (const r of [a1, b1, a2]) {
      assert.ok(typeof r.session_id === 'string' && r.session_id.length > 0, String(r.session_id));
      assert.deepEqual([r.recipe, r.discipline, r.task_id], ['yap', null, null]);
    }
    assert.equal(a1.session_id, a2.session_id, 'stable within a session');
    assert.notEqual(a1.session_id, b1.session_id, 'distinct between sessions');
  });

  test('a worker: task_id is NULL before the claim, the claimed task from the claim on', async () => {
    const s = await env.open({ recipe: 'worker', sessionId: 'audit-worker' });
    assert.equal((await rowOf(s, 'invalid_argument', 'set_task_status', { status: 'done' })).task_id, null);
    const claim = await rowOf(s, 'ok', 'claim_next_task', {});
    assert.deepEqual([claim.task_id, claim.session_id, claim.recipe], [5, 'audit-worker', 'worker'], 'names the task');
    assert.equal((await rowOf(s, 'ok', 'set_task_status', { status: 'done' })).task_id, 5);
    assert.equal((await rowOf(s, 'out_of_scope', 'set_task_status', { id: 4, status: 'done' })).task_id, 5);
    assert.equal((await rowOf(s, 'unknown_tool', 'delete_task', { id: 8 })).task_id, 5);
  });
});
