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
const PAYLOAD_COLUMNS = [
  ...'text summary remaining reason question what on blocking severity category kind scope preferred options'.split(
    ' ',
  ),
  ...'rationale why detail answer'.split(' '),
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const TASK = 9; // collections, frontend, in_progress on both generations

/** Each verb: the call, and exactly the columns its row must hold (every other payload column NULL). */
const CASES: { verb: string; args: Row; row: Row; body: string }[] = [
  {
    verb: 'done',
    args: { summary: '  Collections CRUD shipped with tests  ' },
    row: { summary: 'Collections CRUD shipped with tests' },
    body: 'Collections CRUD shipped with tests',
  },
  {
    verb: 'partial',
    args: { summary: 'List view done', remaining: 'Drag and drop ordering' },
    row: { summary: 'List view done', remaining: 'Drag and drop ordering' },
    body: 'List view done\nRemaining: Drag and drop ordering',
  },
  {
    verb: 'stuck',
    args: { reason: 'The dev server does not start' },
    row: { reason: 'The dev server does not start' },
    body: 'The dev server does not start',
  },
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
    row: { what: 'Flaky e2e test', severity: 'warning', category: 'bug' },
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
    row: { text: 'Tests run with vitest', kind: 'discovery', scope: 'project' },
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
    row: { on: 'API keys', kind: 'external', detail: 'Waiting on ops' },
    body: 'Blocked: Waiting on ops (blocked on API keys)',
  },
  {
    verb: 'blocked',
    args: { on: 'task #8', kind: 'upstream_task' },
    row: { on: 'task #8', kind: 'upstream_task' },
    body: 'Blocked: task #8',
  },
];

/** Refused calls: the code, and words the message must contain (the field, and what is allowed). */
const REFUSED: { verb: string; args: Row; code: string; says: RegExp[] }[] = [
  { verb: 'done', args: {}, code: 'invalid_argument', says: [/summary/] },
  { verb: 'done', args: { summary: '   ' }, code: 'invalid_argument', says: [/summary/] },
  {
    verb: 'done',
    args: { summary: 'ok', task_id: 3 },
    code: 'invalid_argument',
    says: [/unknown field/, /task_id/, /allowed fields: summary/],
  },
  { verb: 'partial', args: { summary: 'half' }, code: 'invalid_argument', says: [/remaining/] },
  { verb: 'ask', args: { question: 'Why?' }, code: 'invalid_argument', says: [/blocking/] },
  { verb: 'ask', args: { question: 'Why?', blocking: 'yes' }, code: 'invalid_argument', says: [/blocking/, /boolean/] },
  {
    verb: 'ask',
    args: { question: 'Why?', blocking: true, options: ['one\ntwo'] },
    code: 'invalid_argument',
    says: [/options\.0/, /one line/],
  },
  {
    verb: 'flag',
    args: { what: 'x', severity: 'critical', category: 'bug' },
    code: 'invalid_argument',
    says: [/severity/, /info/, /warning/, /blocking/],
  },
  {
    verb: 'flag',
    args: { what: 'x', severity: 'info', category: 'typo' },
    code: 'invalid_argument',
    says: [/category/, /incomplete_prior/],
  },
  {
    verb: 'learned',
    args: { text: 'x', kind: 'discovery', scope: 'global' },
    code: 'invalid_argument',
    says: [/scope/, /project/, /subsystem/, /feature/, /task/],
  },
  { verb: 'learned', args: { text: 'x', kind: 'rumour' }, code: 'invalid_argument', says: [/kind/, /convention/] },
  { verb: 'suggest', args: { what: 'x', kind: 'new_task' }, code: 'invalid_argument', says: [/why/] },
  {
    verb: 'blocked',
    args: { on: 'x', kind: 'internal' },
    code: 'invalid_argument',
    says: [/kind/, /upstream_task/, /external/],
  },
  { verb: 'stuck', args: { reason: 42 }, code: 'invalid_argument', says: [/reason/, /string/] },
];

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

  test('the signals session has exactly the eight verbs, in Ralph order', skip, async () => {
    assert.deepEqual(await (await open(fixture(), 'sig-tools')).toolNames(), [...SIGNAL_VERBS]);
  });

  test('every verb: one row with exactly its columns, created RFC 3339 UTC, in this session', skip, async () => {
    const p = fixture();
    const s = await open(p, 'sig-rows');
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
        assert.equal(row[col], c.row[col] ?? null, `${c.verb} ${JSON.stringify(c.args)}: column ${col}`);
      assert.match(String(row.created), RFC3339_UTC);
      if (gen.name === 'legacy') {
        // The comment a person sees in Ralph's UI of this generation, written with it.
        const comment = one(p, 'SELECT * FROM task_comments WHERE id = ?', row.comment_id)!;
        assert.deepEqual(
          [comment.task_id, comment.body, comment.author, comment.created],
          [TASK, c.body, 'frontend', row.created],
        );
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
      assert.deepEqual(
        [a.session_number, a.kind, a.started_by, a.task_id, a.status],
        [max + 1, 'task_execution', 'agent', TASK, 'finished'],
      );
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
      for (const r of REFUSED) {
        const e = await s.fail(r.verb, r.args);
        assert.equal(e.code, r.code, `${r.verb} ${JSON.stringify(r.args)}: ${e.message}`);
        for (const re of r.says) assert.match(e.message, re, `${r.verb} ${JSON.stringify(r.args)}`);
        assert.doesNotMatch(
          e.message,
          /CHECK constraint|SQLITE_|JSON|Unexpected token/i,
          'never constraint text or a parse error',
        );
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
    const asked = await s.ok('ask', {
      question: 'Which sort order?',
      options: ['name', 'date'],
      preferred: 'date',
      blocking: true,
    });
    const reader = await env.open({ recipe: 'task_execution', task: String(TASK) }, p);
    const pending = (await reader.ok('get_answers', { unanswered_only: true })).questions;
    assert.deepEqual(
      pending.filter((q: Row) => q.id === asked.signal_id),
      [
        {
          id: asked.signal_id,
          question: 'Which sort order?',
          options: ['name', 'date'],
          preferred: 'date',
          blocking: true,
          answer: null,
          created: pending.find((q: Row) => q.id === asked.signal_id)!.created,
        },
      ],
    );
    assert.ok(
      (await reader.ok('get_task', { id: TASK })).open_questions.some((q: Row) => q.id === asked.signal_id),
      'get_task shows the pending question',
    );
    // A person answers (Ralph's UI sets task_signals.answer on the normalized generation); here through the store.
    reader.store.write(() => reader.store.signals.answerQuestion(asked.signal_id, 'By date, newest first'));
    const answered = (await reader.ok('get_answers', {})).questions.find((q: Row) => q.id === asked.signal_id);
    assert.equal(answered.answer, 'By date, newest first');
    assert.ok(
      !(await reader.ok('get_task', { id: TASK })).open_questions.some((q: Row) => q.id === asked.signal_id),
      'answered: no longer open',
    );
    assert.equal(
      (await reader.ok('get_answers', { unanswered_only: true })).questions.some((q: Row) => q.id === asked.signal_id),
      false,
    );
  });
});
