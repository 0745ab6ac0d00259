import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';
import { FIXTURES_DIR, FIXTURE_SKIP, HEAD_FIXTURES_DIR, HEAD_FIXTURE_SKIP } from '../helpers/env.js';
import { fixtureProject, query } from '../helpers/project.js';
import { SIGNAL_VERBS } from '../helpers/spec.js';

/**
 * Ralph's eight signal verbs on a copy of each generation's 04-desktop-dev, in-process. Every row is
 * read back column by column against the table in shared/ralph-head.md (written out here by hand, not
 * taken from the code): on the normalized generation Ralph's own task_signals + agent_sessions; on the
 * legacy one our ralph_mcp_task_signals with the same columns, plus the task comment a person sees.
 * Refused calls change nothing.
 */

type Row = Record<string, unknown>;
const PAYLOAD_COLUMNS = `text summary remaining reason question what on blocking severity category kind scope
  preferred options rationale why detail answer`.split(/\s+/);
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const TASK = 9; // collections, frontend, in_progress on both generations

/**
 * Each verb: the call, exactly the columns its row must hold (`row`; the arguments themselves when
 * omitted; every other payload column NULL), and the body of the legacy comment.
 */
const CASES: { verb: string; args: Row; row?: Row; body: string }[] = [
  {
    verb: 'done',
    args: { summary: '  Collections CRUD shipped with tests  ' },
    row: { summary: 'Collections CRUD shipped with tests' },
    body: 'Collections CRUD shipped with tests',
  },
  {
    verb: 'partial',
    args: { summary: 'List view done', remaining: 'Drag and drop ordering' },
    body: 'List view done\nRemaining: Drag and drop ordering',
  },
  { verb: 'stuck', args: { reason: 'The dev server does not start' }, body: 'The dev server does not start' },
  {
    verb: 'ask',
    args: { question: 'Nested collections?', options: ['yes', ' no '], preferred: 'no', blocking: true },
    row: { question: 'Nested collections?', options: 'yes\nno', preferred: 'no', blocking: 1 },
    body: 'Nested collections?',
  },
  {
    verb: 'ask',
    args: { question: 'Icon set?', blocking: false },
    row: { question: 'Icon set?', blocking: 0 },
    body: 'Icon set?',
  },
  {
    verb: 'flag',
    args: { what: 'Flaky e2e test', severity: 'warning', category: 'bug' },
    body: '[warning, bug] Flaky e2e test',
  },
  {
    verb: 'learned',
    args: { text: 'Collections load lazily', kind: 'decision', rationale: 'Big libraries', scope: 'feature' },
    row: { text: 'Collections load lazily', kind: 'decision', scope: 'subsystem', rationale: 'Big libraries' },
    body: 'Collections load lazily',
  },
  {
    verb: 'learned',
    args: { text: 'Use the shared modal', kind: 'convention' },
    row: { text: 'Use the shared modal', kind: 'convention', scope: 'subsystem' },
    body: 'Use the shared modal',
  },
  {
    verb: 'learned',
    args: { text: 'Tests run with vitest', kind: 'discovery', scope: 'project' },
    body: 'Tests run with vitest',
  },
  {
    verb: 'suggest',
    args: { what: 'Split the sidebar', kind: 'new_task', why: 'It grew too big', feature: 'collections' },
    row: { what: 'Split the sidebar', kind: 'new_task', why: 'It grew too big' },
    body: '[new_task] Split the sidebar (why: It grew too big)',
  },
  {
    verb: 'blocked',
    args: { on: 'API keys', kind: 'external', detail: 'Waiting on ops' },
    body: 'Blocked: Waiting on ops (blocked on API keys)',
  },
  { verb: 'blocked', args: { on: 'task #8', kind: 'upstream_task' }, body: 'Blocked: task #8' },
];

/** Calls refused as invalid_argument, and words the message must contain (the field, and what is allowed). */
const REFUSED: [verb: string, args: Row, ...says: RegExp[]][] = [
  ['done', {}, /summary/],
  ['done', { summary: '   ' }, /summary/],
  ['done', { summary: 'ok', task_id: 3 }, /unknown field/, /task_id/, /allowed fields: summary/],
  ['partial', { summary: 'half' }, /remaining/],
  ['ask', { question: 'Why?' }, /blocking/],
  ['ask', { question: 'Why?', blocking: 'yes' }, /blocking/, /boolean/],
  ['ask', { question: 'Why?', blocking: true, options: ['one\ntwo'] }, /options\.0/, /one line/],
  ['flag', { what: 'x', severity: 'critical', category: 'bug' }, /severity/, /info/, /warning/, /blocking/],
  ['flag', { what: 'x', severity: 'info', category: 'typo' }, /category/, /incomplete_prior/],
  ['learned', { text: 'x', kind: 'discovery', scope: 'global' }, /scope/, /project/, /subsystem/, /feature/, /task/],
  ['learned', { text: 'x', kind: 'rumour' }, /kind/, /convention/],
  ['suggest', { what: 'x', kind: 'new_task' }, /why/],
  ['blocked', { on: 'x', kind: 'internal' }, /kind/, /upstream_task/, /external/],
  ['stuck', { reason: 42 }, /reason/, /string/],
];

/** What a refusal's message never shows: SQLite's constraint text or a parse error. */
const LEAKS = /CHECK constraint|SQLITE_|JSON|Unexpected token/i;

const FIXTURE = {
  normalized: { skip: HEAD_FIXTURE_SKIP, dir: HEAD_FIXTURES_DIR, table: 'task_signals', comments: 'task_signals' },
  legacy: { skip: FIXTURE_SKIP, dir: FIXTURES_DIR, table: 'ralph_mcp_task_signals', comments: 'task_comments' },
} as const;

contract('signal verbs on 04-desktop-dev', (env) => {
  const gen = { name: env.generation, ...FIXTURE[env.generation] };
  const fixture = () => fixtureProject('04-desktop-dev.db', gen.dir);
  const open = (p: Project, sessionId: string, task = TASK) =>
    env.open({ recipe: 'signals', task: String(task), sessionId }, p);
  const one = (p: Project, text: string, ...params: unknown[]) => query<Row>(p, text, ...params)[0];
  const skip = { skip: gen.skip };

  test('the eight verbs: each one row with exactly its columns, RFC 3339 UTC, in this session', skip, async () => {
    const p = fixture();
    const s = await open(p, 'sig-rows');
    assert.deepEqual(await s.toolNames(), [...SIGNAL_VERBS], 'exactly the eight verbs, in Ralph order');
    const count = () => Number(one(p, `SELECT count(*) AS n FROM ${gen.comments}`)!.n);
    const before = count();
    for (const c of CASES) {
      const r = await s.ok(c.verb, c.args);
      assert.deepEqual([r.verb, r.task_id, r.message], [c.verb, TASK, `Signal recorded: ${c.verb}`], c.verb);
      assert.equal(typeof r.next, 'string');
      const row = one(p, `SELECT * FROM ${gen.table} WHERE id = ?`, r.signal_id)!;
      assert.ok(row, `${c.verb}: the row ${r.signal_id} exists`);
      assert.deepEqual([row.task_id, row.session_id, row.verb], [TASK, 'sig-rows', c.verb]);
      for (const col of PAYLOAD_COLUMNS)
        assert.equal(row[col], (c.row ?? c.args)[col] ?? null, `${c.verb} ${JSON.stringify(c.args)}: column ${col}`);
      assert.match(String(row.created), RFC3339_UTC);
      if (gen.name === 'legacy') {
        // The comment a person sees in Ralph's UI of this generation, written with it.
        const comment = one(p, 'SELECT * FROM task_comments WHERE id = ?', row.comment_id)!;
        const shown = [comment.task_id, comment.body, comment.author, comment.created];
        assert.deepEqual(shown, [TASK, c.body, 'frontend', row.created]);
      }
    }
    assert.equal(count(), before + CASES.length, 'one row per call, nothing else');
    // Verbs never change the task (Ralph's loop decides what a signal leads to).
    const tasks = gen.name === 'legacy' ? 'tasks' : 'runtime_tasks';
    assert.equal(one(p, `SELECT status FROM ${tasks} WHERE id = ?`, TASK)!.status, 'in_progress');
    if (gen.name === 'normalized') {
      // One agent_sessions row, made as Ralph makes a missing one.
      const sessions = query<Row>(p, "SELECT * FROM agent_sessions WHERE id = 'sig-rows'");
      assert.equal(sessions.length, 1);
      const a = sessions[0]!;
      const max = Number(one(p, "SELECT max(session_number) AS n FROM agent_sessions WHERE id <> 'sig-rows'")!.n);
      const made = [a.session_number, a.kind, a.started_by, a.task_id, a.status];
      assert.deepEqual(made, [max + 1, 'task_execution', 'agent', TASK, 'finished']);
      assert.equal(a.started, a.ended);
      assert.match(String(a.started), RFC3339_UTC);
    }
  });

  test('a session Ralph already made is used as it is', {
    skip: gen.skip || (gen.name === 'legacy' && "agent_sessions is the normalized generation's"),
  }, async () => {
    const p = fixture();
    const existing = one(p, 'SELECT id, session_number FROM agent_sessions ORDER BY session_number LIMIT 1')!;
    const s = await open(p, String(existing.id));
    const r = await s.ok('flag', { what: 'x', severity: 'info', category: 'stale' });
    assert.equal(one(p, 'SELECT count(*) AS n FROM agent_sessions WHERE id = ?', existing.id)!.n, 1);
    assert.equal(one(p, 'SELECT session_id FROM task_signals WHERE id = ?', r.signal_id)!.session_id, existing.id);
  });

  test('refused calls name the field and what is allowed, and change nothing', skip, async () => {
    const p = fixture();
    const s = await open(p, 'sig-refused');
    // Our own signal rows (dump leaves ralph_mcp_* out); the legacy table exists only once a signal was recorded.
    const ours = () =>
      gen.name === 'legacy' && query(p, "SELECT 1 FROM sqlite_master WHERE name = 'ralph_mcp_task_signals'").length
        ? query(p, 'SELECT count(*) AS n FROM ralph_mcp_task_signals')[0]!.n
        : 0;
    const oursBefore = ours();
    await unchanged(s, async () => {
      for (const [verb, args, ...says] of REFUSED) {
        const e = await s.fail(verb, args);
        const what = `${verb} ${JSON.stringify(args)}`;
        assert.equal(e.code, 'invalid_argument', `${what}: ${e.message}`);
        for (const re of says) assert.match(e.message, re, what);
        assert.doesNotMatch(e.message, LEAKS, 'never constraint text or a parse error');
      }
    });
    assert.equal(ours(), oursBefore, 'no signal of ours either');
  });

  test('a task that no longer exists: not_found, nothing written', skip, async () => {
    const p = fixture();
    const s = await open(p, 'sig-gone', 20);
    await (await env.open({}, p)).ok('delete_task', { id: 20 });
    await unchanged(s, async () => assert.equal((await s.fail('done', { summary: 'finished' })).code, 'not_found'));
  });

  test("questions: get_answers and get_task show them; a person's answer is read back", skip, async () => {
    const p = fixture();
    const s = await open(p, 'sig-ask');
    const question = { question: 'Which sort order?', options: ['name', 'date'], preferred: 'date', blocking: true };
    const asked = await s.ok('ask', question);
    const reader = await env.open({ recipe: 'task_execution', task: String(TASK) }, p);
    const pending = (await reader.ok('get_answers', { unanswered_only: true })).questions;
    const isAsked = (q: Row) => q.id === asked.signal_id;
    const { created } = pending.find(isAsked)!;
    assert.deepEqual(pending.filter(isAsked), [{ id: asked.signal_id, ...question, answer: null, created }]);
    const openQuestions = async () => (await reader.ok('get_task', { id: TASK })).open_questions;
    assert.ok((await openQuestions()).some(isAsked), 'get_task shows the pending question');
    // A person answers (Ralph's UI sets task_signals.answer on the normalized generation); here through the store.
    reader.store.write(() => reader.store.signals.answerQuestion(asked.signal_id, 'By date, newest first'));
    const answered = (await reader.ok('get_answers', {})).questions.find(isAsked);
    assert.equal(answered.answer, 'By date, newest first');
    assert.ok(!(await openQuestions()).some(isAsked), 'answered: no longer open');
    assert.equal((await reader.ok('get_answers', { unanswered_only: true })).questions.some(isAsked), false);
  });
});
