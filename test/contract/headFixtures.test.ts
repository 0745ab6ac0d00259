import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test, type TestContext } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { openInProc, type InProcSession } from './harness.js';
import { assertDoctorPasses } from './support.fixtures.js';
import { assertRecentTimestamp, assertToday, row, rows, type AnyRow } from '../helpers/assertions.js';
import { HEAD_FIXTURE_SKIP, HEAD_FIXTURES, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { dump, fixtureProject } from '../helpers/project.js';
import { ralphComments, ralphDiscipline, ralphFeature, ralphTask, RALPH_STATUSES } from '../helpers/ralphRead.js';
import { NEEDS_DISCIPLINE, RECIPE_TOOLS, RECIPES, inSpecOrder } from '../helpers/spec.js';

/**
 * The acceptance for Ralph's head (normalized) databases, in-process on copies of the fixtures Ralph's own
 * generator wrote at its head (../shared/fixtures/ralph4days-head): doctor passes on each; every recipe
 * serves its tool set; the tools read Ralph's real rows as Ralph does and write what its rows need (read
 * back with SQL or ralphRead; the harness checks Ralph's read rules after every write). What does not
 * depend on the fixtures' rows (argument checks, the general behaviour of each tool) is the contract
 * suite's, on the normalized sample with the very same DDL.
 */

const DEV = '04-desktop-dev.db';
const TEMPLATES = '05-desktop-templates.db';
type Flags = Parameters<typeof openInProc>[1];

/** A fresh copy of a head fixture with a full-suite session `s`; `also` opens more sessions on it. */
async function open(t: TestContext, file: string = DEV) {
  const p = fixtureProject(file, HEAD_FIXTURES_DIR);
  const also = async (flags: Flags = {}): Promise<InProcSession> => {
    const s = await openInProc(p, flags);
    t.after(() => s.close());
    return s;
  };
  return { p, s: await also(), also };
}

/** A call refused with `code` and a message matching each of `messages`; Ralph's tables and state files unchanged. */
type Refusal = [tool: string, args: Record<string, unknown>, code: string, ...messages: RegExp[]];
const stateFiles = (p: Project) => [readFileSync(p.learningsFile, 'utf8'), readFileSync(p.progressFile, 'utf8')];
async function refused(s: InProcSession, p: Project, ...[name, args, code, ...messages]: Refusal) {
  const [before, files] = [dump(p), stateFiles(p)];
  const err = await s.fail(name, args);
  const what = `${name} ${JSON.stringify(args)}`;
  assert.equal(err.code, code, `${what}: expected ${code}, got ${err.code}: ${err.message}`);
  assert.ok(err.message.length > 0, `${name}: an error carries a message`);
  for (const m of messages) assert.match(err.message, m, what);
  assert.ok(dump(p) === before, `${what} was refused (${code}) but changed Ralph's tables`);
  assert.deepEqual(stateFiles(p), files, `${what} was refused but changed a state file`);
  return err;
}

const ids = (list: AnyRow[]) => list.map((x) => Number(x.id));
const col = (p: Project, sql: string, ...params: unknown[]) => rows(p, sql, ...params).map((r) => Object.values(r)[0]);
const count = (p: Project, sql: string, ...params: unknown[]) => Number(Object.values(row(p, sql, ...params)!)[0]);
/** How many rows `from` (a table and its WHERE) holds. */
const rowsIn = (p: Project, from: string, ...params: unknown[]) => count(p, `SELECT count(*) FROM ${from}`, ...params);
/** The values of `keys` in `o`, in that order. */
const pick = (o: AnyRow, keys: readonly string[]) => keys.map((k) => o[k]);
const names = (list: AnyRow[]) => list.map((x) => x.name).sort();
const texts = (list: AnyRow[]) => list.map((x) => x.text);
const LISTED_FIELDS = ['id', 'title', 'status', 'priority', 'feature', 'discipline', 'depends_on'];
const subsystemId = (p: Project, name: string) => Number(row(p, 'SELECT id FROM subsystems WHERE name = ?', name)!.id);
const detailsOf = (p: Project, taskId: number) =>
  row(p, 'SELECT td.* FROM runtime_tasks t JOIN task_details td ON td.id = t.details_id WHERE t.id = ?', taskId)!;
const templateDetails = (p: Project, id: number) =>
  row(p, 'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = ?', id)!;
const runtimeOf = (p: Project, taskId: number) => row(p, 'SELECT * FROM runtime_tasks WHERE id = ?', taskId);
const criteria = (p: Project, taskId: number) =>
  rows(p, 'SELECT criterion, criterion_order FROM task_acceptance_criteria WHERE task_id = ? ORDER BY 2', taskId);
/** Ralph's task `updated`: a day from Ralph/us, or 'YYYY-MM-DD HH:MM:SS' from its trigger. */
const assertUpdatedToday = (v: unknown, what: string) => assertToday(typeof v === 'string' ? v.slice(0, 10) : v, what);
const SAME_TASK_FIELDS = ['id', 'title', 'description', 'status', 'priority', 'feature', 'discipline', 'tags'] as const;
const SAME_TASK_LISTS = ['depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts', 'hints'] as const;
const SAME_TASK_REST = ['estimated_turns', 'provenance', 'pseudocode', 'enriched_at', 'completed'] as const;

/** The fields both the tool and Ralph's reader show for a task. */
function sameTask(p: Project, task: AnyRow): void {
  const r = ralphTask(p.dbPath, task.id);
  assert.ok(r, `Ralph finds task ${task.id}`);
  for (const k of [...SAME_TASK_FIELDS, ...SAME_TASK_LISTS, ...SAME_TASK_REST])
    assert.deepEqual(task[k], r[k], `task ${task.id}: ${k} as the tool says it vs as Ralph reads it`);
}

describe("Ralph's head databases", { skip: HEAD_FIXTURE_SKIP }, () => {
  test('doctor passes on every head fixture and names the generation', () => {
    for (const f of HEAD_FIXTURES) assertDoctorPasses(fixtureProject(f, HEAD_FIXTURES_DIR).root, f);
  });

  test('every recipe serves exactly its tools on 04-desktop-dev (task_execution on task 4)', async (t) => {
    const { also } = await open(t);
    for (const recipe of RECIPES) {
      const discipline = NEEDS_DISCIPLINE.includes(recipe) ? { discipline: 'backend' } : {};
      const s = await also({ recipe, ...discipline, ...(recipe === 'task_execution' ? { task: '4' } : {}) });
      const names = s.session.listTools().map((x) => x.name); // tools/list's answer (the harness lists once)
      const expected = RECIPE_TOOLS[recipe]!;
      assert.deepEqual([...names].sort(), [...expected].sort(), `${recipe}: the tool set`);
      assert.deepEqual(names, inSpecOrder(expected), `${recipe}: in registry order`);
    }
  });

  test("refusals name the fixture's rows and change nothing", async (t) => {
    const { p, s } = await open(t);
    const base = { feature: 'search', discipline: 'backend', title: 'x' };
    const cases: Refusal[] = [
      ['list_tasks', { filter_feature: 'no-such-feature' }, 'not_found', /no-such-feature/, /bookmark-crud/],
      ['list_tasks', { filter_discipline: 'wizardry' }, 'not_found', /frontend/],
      // needs_input (and failed) are statuses of Ralph's head that SPEC-070's tools do not take.
      ['list_tasks', { filter_status: 'needs_input' }, 'invalid_argument'],
      ['create_task', { ...base, status: 'needs_input' }, 'invalid_argument'],
      ['set_task_status', { id: 7, status: 'needs_input' }, 'invalid_argument'],
      ['get_task', { id: 999 }, 'not_found', /999/, /1 to 21/], // says which task ids exist
      ['update_task', { id: 999, title: 'x' }, 'not_found', /1 to 21/],
      ['delete_task', { id: 999 }, 'not_found', /1 to 21/],
      ['create_task', { ...base, feature: 'sharing' }, 'not_found', /bookmark-crud/],
      ['create_task', { ...base, discipline: 'wizardry' }, 'not_found', /frontend/],
      ['create_task', { feature: 'search', title: 'no discipline' }, 'invalid_argument'],
      // 5 depends on 2: 2 depending on 5 closes a cycle; so does 3 → 4 → 3.
      ['update_task', { id: 2, depends_on: [5] }, 'invalid_argument', /cycle/],
      ['update_task', { id: 3, depends_on: [2, 4] }, 'invalid_argument', /cycle/],
      ['update_task', { id: 5 }, 'invalid_argument', /nothing to update/],
      ['update_task', { id: 5, estimated_turns: 0 }, 'invalid_argument'],
      ['delete_task', { id: 3 }, 'conflict', /4, 6, 13, 18/], // names the dependents
      ['enrich_task', { id: 5, pseudocode: 'x' }, 'conflict', /draft/],
      ['enrich_task', { id: 5, pseudocode: '' }, 'invalid_argument'],
      ['spawn_subtasks', { parent_id: 1, tasks: [{ title: 'a' }] }, 'conflict'],
      ['move_task_to_feature', { id: 11, feature: 'nope' }, 'not_found', /collections/],
      ['update_task_context', { id: 5 }, 'invalid_argument', /nothing to update/],
      ['get_feature', { name: 'sharing' }, 'not_found', /sharing/, /bookmark-crud/],
      ['create_feature', { name: 'search', display_name: 'Search again' }, 'conflict', /search/],
      ['create_feature', { name: 'x-feature', display_name: 'X', acronym: 'SRCH' }, 'conflict'],
      ['update_feature', { name: 'search' }, 'invalid_argument', /nothing to update/],
      ['update_feature', { name: 'search', acronym: 'BKMK' }, 'conflict'],
      ['delete_feature', { name: 'Search' }, 'conflict', /task/],
      [
        'append_feature_learning',
        { feature_name: 'search', text: 'a lesson', source: 'opus_reviewed' },
        'invalid_argument',
      ],
      ['get_discipline', { name: 'wizardry' }, 'not_found', /frontend/],
      ['update_discipline', { name: 'integration' }, 'invalid_argument', /nothing to update/],
      // frontend has tasks; data has a task and a template.
      ['delete_discipline', { name: 'frontend' }, 'conflict', /task/],
      ['delete_discipline', { name: 'data' }, 'conflict'],
    ];
    for (const c of cases) await refused(s, p, ...c);
  });

  describe('task tools', () => {
    test('list_tasks, get_task, search_tasks and get_dependency_details read Ralph rows as Ralph does', async (t) => {
      const { p, s } = await open(t);
      const all = await s.ok('list_tasks', {});
      const allIds = col(p, 'SELECT id FROM runtime_tasks ORDER BY id');
      assert.deepEqual([all.total, ids(all.tasks), all.next_cursor], [21, allIds, null]);
      const listed = pick(all.tasks.find((x: AnyRow) => x.id === 12)!, LISTED_FIELDS);
      const ralph12 = [12, 'Nested collections', 'pending', 'low', 'collections', 'frontend'];
      assert.deepEqual(listed, [...ralph12, ralphTask(p.dbPath, 12)!.depends_on]);
      const pending = await s.ok('list_tasks', { filter_status: 'pending' });
      assert.deepEqual(ids(pending.tasks), col(p, "SELECT id FROM runtime_tasks WHERE status = 'pending' ORDER BY id"));
      assert.equal(pending.total, pending.tasks.length);
      const search = await s.ok('list_tasks', { filter_feature: 'SEARCH' });
      assert.deepEqual(ids(search.tasks), [13, 14, 15]);
      const stored = search.tasks.map((x: AnyRow) => x.feature);
      assert.deepEqual(stored, ['search', 'search', 'search'], 'names come back as stored');
      const frontend = await s.ok('list_tasks', { filter_discipline: 'Frontend', filter_status: 'pending' });
      const frontendPending = `SELECT t.id FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id
        JOIN disciplines di ON di.id = d.discipline_id WHERE di.name = 'frontend' AND t.status = 'pending'
        ORDER BY t.id`;
      assert.deepEqual(ids(frontend.tasks), col(p, frontendPending));
      assert.equal(frontend.total, frontend.tasks.length);
      // Pagination: pages of 5 in id order, total on every page, the cursor ends with null.
      const seen: number[] = [];
      let pages = 0;
      for (let cursor: string | null | undefined; cursor !== null && pages < 10; pages++) {
        const page = await s.ok('list_tasks', { limit: 5, ...(cursor ? { cursor } : {}) });
        assert.deepEqual([page.total, page.tasks.length <= 5], [21, true]);
        seen.push(...ids(page.tasks));
        cursor = page.next_cursor;
      }
      assert.deepEqual([pages, seen], [5, allIds]);

      const r = await s.ok('get_task', { id: 21 });
      sameTask(p, r.task);
      // Every signal of the task is a comment, oldest first, whatever its verb.
      const signals = ralphComments(p.dbPath, 21);
      assert.equal(signals.length, 15);
      assert.deepEqual(ids(r.comments), ids(signals));
      for (const [i, c] of r.comments.entries()) {
        const sig = signals[i]!;
        const verb = sig.generation === 'normalized' ? sig.verb : '';
        assert.deepEqual([c.task_id, c.created], [21, sig.created]);
        if (sig.generation === 'normalized' && verb === 'learned') assert.equal(c.body, sig.text);
        if (sig.generation === 'normalized' && verb === 'done') assert.equal(c.body, sig.summary);
        assert.ok(c.body.length > 0, `signal ${c.id} (${verb}) reads as a non-empty comment`);
        assert.equal(c.author, sig.author, `signal ${c.id}: the author Ralph shows (who started its session)`);
      }
      const four = await s.ok('get_task', { id: 4 });
      assert.deepEqual(ids(four.comments), col(p, 'SELECT id FROM task_signals WHERE task_id = 4 ORDER BY id'));
      const twelve = await s.ok('get_task', { id: 12 });
      sameTask(p, twelve.task);
      const dep = ({ id, title, status }: AnyRow) => ({ id, title, status });
      const dependencies = ralphTask(p.dbPath, 12)!.depends_on.map((d) => dep(ralphTask(p.dbPath, d)!));
      assert.deepEqual(twelve.dependencies, dependencies);
      assert.deepEqual(ids(twelve.dependencies).sort(), [8, 9]);

      const hits = await s.ok('search_tasks', { query: 'search' });
      assert.equal(hits.matched, 'all');
      const found = ids(hits.results);
      assert.ok(found.includes(13) && found.includes(14), `finds the search tasks: ${JSON.stringify(found)}`);
      const titleAndFeature = (x: AnyRow) => [x.title, x.feature];
      for (const hit of hits.results)
        assert.deepEqual(titleAndFeature(hit), titleAndFeature(ralphTask(p.dbPath, hit.id)!));
      const scores = hits.results.map((h: AnyRow) => h.score);
      const bestFirst = [...scores].sort((a, b) => b - a);
      assert.deepEqual(scores, bestFirst, 'best match first');
      const filtered = await s.ok('search_tasks', { query: 'bookmark', feature: 'IMPORT-EXPORT' });
      assert.ok(filtered.results.length > 0);
      assert.ok(filtered.results.every((h: AnyRow) => h.feature === 'import-export'));

      const deps = await s.ok('get_dependency_details', { id: 4 });
      assert.equal(deps.task_id, 4);
      const chain = deps.dependencies.map((d: AnyRow) => pick(d, ['id', 'depth', 'status']));
      assert.deepEqual(chain, [
        [3, 1, 'done'],
        [2, 2, 'done'],
      ]);
      const commentsOf3 = col(p, 'SELECT id FROM task_signals WHERE task_id = 3 ORDER BY id');
      assert.deepEqual(ids(deps.dependencies[0].comments), commentsOf3);
      assert.deepEqual([deps.missing, deps.truncated], [[], false]);
      const shallow = await s.ok('get_dependency_details', { id: 4, depth: 1 });
      assert.deepEqual([ids(shallow.dependencies), shallow.truncated], [[3], true]);
    });

    test('create_task: the next AUTOINCREMENT id, one details row of its own, one runtime row', async (t) => {
      const { p, s } = await open(t);
      const args = {
        feature: 'Search',
        discipline: 'backend',
        title: 'Ranking weights',
        description: 'Tune bm25 weights per column',
        priority: 'high',
        acceptance_criteria: ['Title matches rank first', 'Ties break by recency', 'Weights are configurable'],
        depends_on: [13, 3],
        tags: ['search', 'ranking'],
        context_files: ['src/search/rank.ts'],
        output_artifacts: ['docs/ranking.md'],
        hints: 'See the FTS5 docs',
        estimated_turns: 4,
      };
      const detailsBefore = rowsIn(p, 'task_details');
      const { task } = await s.ok('create_task', args);
      assert.equal(task.id, 22, 'the next AUTOINCREMENT id');
      assert.equal(task.feature, 'search', 'the subsystem as stored');
      sameTask(p, task);
      const lists = ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'];
      assert.deepEqual(pick(task, lists), pick(args, lists));
      const ordered = args.acceptance_criteria.map((criterion, i) => ({ criterion, criterion_order: i }));
      assert.deepEqual(criteria(p, 22), ordered);
      const rt = runtimeOf(p, 22)!;
      const runtime = pick(rt, ['subsystem_id', 'status', 'template_id', 'completed']);
      assert.deepEqual(runtime, [subsystemId(p, 'search'), 'pending', null, null]);
      assert.ok(rt.provenance === null || ['agent', 'human', 'system'].includes(rt.provenance));
      assertToday(rt.created, 'runtime_tasks.created');
      assert.equal(rowsIn(p, 'task_details'), detailsBefore + 1, 'one new details row');
      assert.equal(rowsIn(p, 'runtime_tasks WHERE details_id = ?', rt.details_id), 1, 'its own');
      const td = detailsOf(p, 22);
      const backend = Number(row(p, "SELECT id FROM disciplines WHERE name = 'backend'")!.id);
      const details = pick(td, ['discipline_id', 'title', 'description', 'priority', 'hints', 'estimated_turns']);
      assert.deepEqual(details, [backend, args.title, args.description, 'high', args.hints, 4]);
      assertToday(td.created, 'task_details.created');
    });

    test('update_task and update_task_context: given fields only, lists replaced, its own details row', async (t) => {
      const { p, s } = await open(t);
      const before = detailsOf(p, 20);
      const lists = {
        acceptance_criteria: ['Stored in localStorage', 'Read on start'],
        depends_on: [16],
        tags: ['theme'],
      };
      const r = await s.ok('update_task', { id: 20, priority: 'high', ...lists });
      assert.deepEqual([...r.changed].sort(), ['acceptance_criteria', 'depends_on', 'priority', 'tags']);
      sameTask(p, r.task);
      const after = detailsOf(p, 20);
      assert.equal(after.id, before.id, 'a task with its own details row keeps it');
      assert.deepEqual([after.priority, after.title], ['high', before.title]);
      assertUpdatedToday(after.updated, 'task_details.updated');
      assertUpdatedToday(runtimeOf(p, 20)!.updated, 'runtime_tasks.updated');
      assert.deepEqual(criteria(p, 20), [
        { criterion: 'Stored in localStorage', criterion_order: 0 },
        { criterion: 'Read on start', criterion_order: 1 },
      ]);
      const t20 = ralphTask(p.dbPath, 20)!;
      assert.deepEqual([t20.depends_on, t20.tags], [[16], ['theme']]);
      // Task 4 has several criteria: a shorter list rewrites the order 0..n-1 again.
      await s.ok('update_task', { id: 4, acceptance_criteria: ['only one'] });
      assert.deepEqual(criteria(p, 4), [{ criterion: 'only one', criterion_order: 0 }]);
      const context = { id: 5, add_context_files: ['./src/ui/forms.ts'], hints: 'Reuse' };
      const ctx = await s.ok('update_task_context', context);
      sameTask(p, ctx.task);
      assert.equal(detailsOf(p, 5).hints, 'Reuse');
    });

    test('delete_task: lists, details and signals go; its session rows stay', async (t) => {
      const { p, s } = await open(t);
      // Task 18 depends on 3 and has no dependents; task 20 has signals in session legacy-task-20.
      const details18 = runtimeOf(p, 18)!.details_id;
      assert.deepEqual(await s.ok('delete_task', { id: 18 }), { deleted_id: 18, deleted_comments: 0 });
      assert.equal(runtimeOf(p, 18), undefined);
      assert.equal(ralphTask(p.dbPath, 18), undefined);
      for (const table of ['task_dependencies', 'task_tags', 'task_acceptance_criteria'])
        assert.equal(rowsIn(p, `${table} WHERE task_id = 18`), 0, table);
      assert.equal(rowsIn(p, 'task_details WHERE id = ?', details18), 0, 'its own details row goes');
      const signals20 = rowsIn(p, 'task_signals WHERE task_id = 20');
      assert.ok(signals20 > 0);
      assert.deepEqual(await s.ok('delete_task', { id: 20 }), { deleted_id: 20, deleted_comments: signals20 });
      assert.equal(rowsIn(p, 'task_signals WHERE task_id = 20'), 0);
      const session20 = row(p, "SELECT task_id FROM agent_sessions WHERE id = 'legacy-task-20'");
      assert.deepEqual(session20, { task_id: null }, 'the session row stays, without its task');
    });

    test('set_task_status: done stamps completed on the runtime row', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('set_task_status', { id: 5, status: 'done' });
      assert.deepEqual([r.previous_status, r.changed], ['pending', true]);
      const rt = runtimeOf(p, 5)!;
      assert.equal(rt.status, 'done');
      assertToday(rt.completed, 'completed');
      assertUpdatedToday(rt.updated, 'updated');
      assert.equal(ralphTask(p.dbPath, 5)!.status, 'done');
    });

    test('claim_next_task (worker): the highest-priority ready task, once', async (t) => {
      const { p, also } = await open(t);
      const w = await also({ recipe: 'worker' });
      // Computed independently: pending, every dependency done, by priority then id.
      const ready = `SELECT t.id FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id
        WHERE t.status = 'pending' AND NOT EXISTS (SELECT 1 FROM task_dependencies x JOIN runtime_tasks dep
          ON dep.id = x.depends_on_task_id WHERE x.task_id = t.id AND dep.status <> 'done')
        ORDER BY CASE d.priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
          WHEN 'low' THEN 3 ELSE 4 END, t.id`;
      const readyOrder = () => col(p, ready).map(Number);
      const expected = readyOrder();
      assert.ok(expected.length > 1);
      const r = await w.ok('claim_next_task', {});
      assert.deepEqual([r.claimed, r.task.id, r.ready_remaining], [true, expected[0], expected.length - 1]);
      assert.equal(runtimeOf(p, expected[0]!)!.status, 'in_progress');
      // Done with it: the next one.
      await w.ok('set_task_status', { id: expected[0], status: 'done' });
      const then = readyOrder();
      const next = await w.ok('claim_next_task', {});
      assert.deepEqual([next.task.id, next.ready_remaining], [then[0], then.length - 1]);
      assert.equal(runtimeOf(p, then[0]!)!.status, 'in_progress');
      const w2 = await also({ recipe: 'worker' });
      await refused(w2, p, 'claim_next_task', { discipline: 'wizardry' }, 'not_found');
      const none = await w2.ok('claim_next_task', { discipline: 'integration' });
      assert.deepEqual([none.claimed, none.task], [false, null]);
    });

    test('report_blocker: blocked status plus a `blocked` signal with its agent_sessions row', async (t) => {
      const { p, also } = await open(t);
      const sessionsBefore = count(p, 'SELECT max(session_number) FROM agent_sessions');
      const ts = await also({ recipe: 'task_execution', task: '5', sessionId: 'head-test-blocker' });
      const r = await ts.ok('report_blocker', { reason: 'The modal design is not approved', on_task_id: 2 });
      assert.equal(r.task.status, 'blocked');
      const five = row(p, 'SELECT status, completed FROM runtime_tasks WHERE id = 5');
      assert.deepEqual(five, { status: 'blocked', completed: null });
      const sig = row(p, "SELECT * FROM task_signals WHERE task_id = 5 AND verb = 'blocked'")!;
      assert.ok(sig, 'a blocked signal on the task');
      const blocker = ['head-test-blocker', 'upstream_task', 'The modal design is not approved'];
      assert.deepEqual(pick(sig, ['session_id', 'kind', 'detail']), blocker);
      assert.match(sig.on, /2/);
      const unused = ['text', 'summary', 'remaining', 'reason', 'question', 'what', 'severity', 'category', 'scope'];
      for (const k of [...unused, 'why', 'rationale']) assert.equal(sig[k], null, `${k} is NULL on a blocked signal`);
      assertRecentTimestamp(sig.created, 'signal created');
      const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-blocker'")!;
      assert.ok(session, 'the session row exists');
      const sessionFields = ['session_number', 'kind', 'started_by', 'task_id', 'status'];
      assert.deepEqual(pick(session, sessionFields), [sessionsBefore + 1, 'task_execution', 'agent', 5, 'finished']);
      assertRecentTimestamp(session.started, 'session started');
      assert.equal(session.ended, session.started);
      // The upstream task gets a comment (a learned signal) naming the blocked task.
      const upstream = ralphComments(p.dbPath, 2).at(-1)!;
      assert.ok(upstream.generation === 'normalized' && upstream.verb === 'learned');
      assert.match(upstream.text ?? '', /#5/);

      // Without an upstream task: kind external, the reason in `on`.
      const ts2 = await also({ recipe: 'task_execution', task: '7', sessionId: 'head-test-blocker-2' });
      await ts2.ok('report_blocker', { reason: 'Waiting for a security review' });
      const signalOf = 'SELECT verb, kind, "on", detail FROM task_signals WHERE task_id = 7 AND session_id = ?';
      const external = row(p, signalOf, 'head-test-blocker-2');
      const reason = 'Waiting for a security review';
      assert.deepEqual(external, { verb: 'blocked', kind: 'external', on: reason, detail: null });
      const second = row(p, "SELECT session_number FROM agent_sessions WHERE id = 'head-test-blocker-2'")!;
      assert.equal(second.session_number, sessionsBefore + 2);
      // A session Ralph already made (its own signals server's) is used as it is.
      const ralphSession = row(p, "SELECT * FROM agent_sessions WHERE id = 'sess-21-ref'")!;
      const sessionCount = rowsIn(p, 'agent_sessions');
      const ts21 = await also({ recipe: 'task_execution', task: '21', sessionId: 'sess-21-ref' });
      await ts21.ok('report_blocker', { reason: 'Waiting for the signal reference review' });
      assert.deepEqual(row(p, "SELECT * FROM agent_sessions WHERE id = 'sess-21-ref'"), ralphSession);
      assert.equal(rowsIn(p, 'agent_sessions'), sessionCount);
      const latest = row(p, 'SELECT session_id FROM task_signals WHERE task_id = 21 ORDER BY id DESC LIMIT 1')!;
      assert.equal(latest.session_id, 'sess-21-ref');
      const done = await also({ recipe: 'task_execution', task: '1' }); // task 1 is done
      await refused(done, p, 'report_blocker', { reason: 'x' }, 'conflict');
    });

    test('spawn_subtasks, skip_task and move_task_to_feature on the fixture rows', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('spawn_subtasks', {
        parent_id: 13,
        tasks: [{ title: 'Tokenizer' }, { title: 'Index writer', priority: 'high' }],
        chain: true,
      });
      const [a, b] = r.created as AnyRow[];
      assert.deepEqual([a!.id, b!.id], [22, 23]);
      for (const x of [a!, b!]) {
        sameTask(p, x);
        assert.deepEqual([x.feature, x.discipline], ['search', 'backend']);
      }
      assert.equal(a!.priority, 'critical', "the parent's priority");
      assert.equal(b!.priority, 'high');
      const depsOf = (id: number) => col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ?', id);
      assert.deepEqual(depsOf(22), [3], "the parent's dependencies");
      assert.deepEqual(depsOf(23), [22]);
      assert.deepEqual([...r.rewired].sort(), [14, 15]);
      for (const d of [14, 15]) assert.ok(depsOf(d).includes(23), `task ${d} now needs the last subtask`);
      assert.match(ralphComments(p.dbPath, 13).at(-1)!.body, /#22/);

      const skipped = await s.ok('skip_task', { id: 7, reason: 'Sanitization moved to the API layer' });
      assert.equal(skipped.task.status, 'skipped');
      const seven = row(p, 'SELECT status, completed FROM runtime_tasks WHERE id = 7');
      assert.deepEqual(seven, { status: 'skipped', completed: null });
      const c = ralphComments(p.dbPath, 7).at(-1)!;
      assert.equal(c.id, skipped.comment.id);
      assert.match(c.body, /Sanitization moved to the API layer/);
      const sessionOf = 'SELECT 1 AS x FROM agent_sessions a JOIN task_signals s ON s.session_id = a.id WHERE s.id = ?';
      assert.ok(row(p, sessionOf, c.id), 'its session row exists');

      const moved = await s.ok('move_task_to_feature', { id: 11, feature: 'SETTINGS' });
      assert.deepEqual([moved.previous_feature, moved.changed, moved.task.feature], ['collections', true, 'settings']);
      assert.equal(runtimeOf(p, 11)!.subsystem_id, subsystemId(p, 'settings'));
      assert.equal(ralphTask(p.dbPath, 11)!.feature, 'settings');
      assert.equal((await s.ok('move_task_to_feature', { id: 11, feature: 'settings' })).changed, false);
    });
  });

  describe('templates (05-desktop-templates)', () => {
    test('update_task, update_task_context, enrich_task on a pulled task: its template stays as it was', async (t) => {
      const { p, s } = await open(t, TEMPLATES);
      const pulled = runtimeOf(p, 1)!;
      const template = templateDetails(p, 1);
      assert.equal(pulled.template_id, 1);
      assert.equal(pulled.details_id, template.id, "the fixture: the task shares its template's details row");
      const templates = rows(p, 'SELECT * FROM task_templates ORDER BY id');
      const others = [2, 3, 4].map((id) => ralphTask(p.dbPath, id));
      const named = { id: 1, title: template.title };
      assert.deepEqual((await s.ok('get_task', { id: 1 })).task.template, named, 'get_task says which template');
      assert.equal((await s.ok('list_tasks', {})).tasks.find((x: AnyRow) => x.id === 1).template_id, 1);

      const sprint = 'Regression sweep (this sprint)';
      const r = await s.ok('update_task', { id: 1, title: sprint, priority: 'critical', tags: ['sprint'] });
      sameTask(p, r.task);
      assert.deepEqual(r.task.template, named, "still the template's own title");
      const details = (id: unknown) => row(p, 'SELECT * FROM task_details WHERE id = ?', id);
      assert.deepEqual(details(template.id), template, "the template's details row is unchanged");
      assert.deepEqual(rows(p, 'SELECT * FROM task_templates ORDER BY id'), templates, 'task_templates unchanged');
      const now = runtimeOf(p, 1)!;
      assert.notEqual(now.details_id, template.id, 'the task has its own details row');
      assert.equal(now.template_id, 1, 'template_id kept');
      const copied = ['discipline_id', 'description', 'hints', 'estimated_turns', 'pseudocode', 'agent', 'model'];
      copied.push('effort', 'thinking');
      const own = details(now.details_id)!;
      assert.deepEqual([own.title, own.priority], [sprint, 'critical']);
      assert.deepEqual(pick(own, copied), pick(template, copied), 'the copy keeps every other field of the template');
      const seen = pick(ralphTask(p.dbPath, 1)!, ['title', 'priority', 'template_id', 'tags']);
      assert.deepEqual(seen, [sprint, 'critical', 1, ['sprint']]);
      const othersNow = [2, 3, 4].map((id) => ralphTask(p.dbPath, id));
      assert.deepEqual(othersNow, others, 'other tasks unchanged');
      // A second update changes the task's own row, not another copy.
      const detailsCount = rowsIn(p, 'task_details');
      await s.ok('update_task', { id: 1, description: 'Only this sprint' });
      assert.equal(runtimeOf(p, 1)!.details_id, now.details_id);
      assert.equal(rowsIn(p, 'task_details'), detailsCount);
      assert.deepEqual(details(template.id), template);
      // The search index follows the task to its own details row.
      assert.deepEqual(ids((await s.ok('search_tasks', { query: 'sprint' })).results), [1]);

      // Setting context on, or enriching, a template task leaves the template alone too.
      await s.ok('update_task_context', { id: 2, hints: 'Check the lockfile first' });
      assert.notEqual(templateDetails(p, 2).hints, 'Check the lockfile first', "template 2's details row unchanged");
      assert.deepEqual(pick(ralphTask(p.dbPath, 2)!, ['hints', 'template_id']), ['Check the lockfile first', 2]);
      const t5 = templateDetails(p, 5);
      assert.equal(runtimeOf(p, 3)!.details_id, t5.id);
      await s.ok('set_task_status', { id: 3, status: 'draft' });
      const enriched = await s.ok('enrich_task', { id: 3, pseudocode: '1. read the git log\n2. write the entry' });
      sameTask(p, enriched.task);
      assert.deepEqual(details(t5.id), t5, "template 5's details row unchanged by enrich_task");
      assert.notEqual(runtimeOf(p, 3)!.details_id, t5.id);
      const three = pick(ralphTask(p.dbPath, 3)!, ['pseudocode', 'status', 'template_id']);
      assert.deepEqual(three, ['1. read the git log\n2. write the entry', 'pending', 5]);
    });

    test('delete_task and delete_discipline keep the templates and what they use', async (t) => {
      const { p, s } = await open(t, TEMPLATES);
      // Task 3 was pulled from template 5 and shares its details row.
      assert.equal(runtimeOf(p, 3)!.template_id, 5);
      const template = templateDetails(p, 5);
      assert.equal(runtimeOf(p, 3)!.details_id, template.id);
      const templates = rows(p, 'SELECT * FROM task_templates ORDER BY id');
      await s.ok('delete_task', { id: 3 });
      assert.equal(runtimeOf(p, 3), undefined);
      const details = row(p, 'SELECT * FROM task_details WHERE id = ?', template.id);
      assert.deepEqual(details, template, "the template's details row is kept");
      assert.deepEqual(rows(p, 'SELECT * FROM task_templates ORDER BY id'), templates, 'the templates are kept');
      // A task with a details row of its own loses it (4 is not from a template).
      const d4 = runtimeOf(p, 4)!.details_id;
      await s.ok('delete_task', { id: 4 });
      assert.equal(rowsIn(p, 'task_details WHERE id = ?', d4), 0);

      // frontend: no task, but template 4 uses it.
      const frontendTasks = `SELECT count(*) FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id
        JOIN disciplines di ON di.id = d.discipline_id WHERE di.name = 'frontend'`;
      assert.equal(count(p, frontendTasks), 0);
      await refused(s, p, 'delete_discipline', { name: 'frontend' }, 'conflict', /template/);
      await refused(s, p, 'delete_discipline', { name: 'quality' }, 'conflict', /task/);
      await s.ok('delete_discipline', { name: 'integration' });
      assert.equal(ralphDiscipline(p.dbPath, 'integration'), undefined);
    });
  });

  test('comments are `learned` signals in sessions numbered after Ralph’s; other verbs are not edited', async (t) => {
    const { p, also } = await open(t);
    const s = await also({ sessionId: 'head-test-comments' });
    const maxSession = count(p, 'SELECT max(session_number) FROM agent_sessions');
    const { comment } = await s.ok('add_task_comment', { task_id: 5, body: 'The modal must trap focus' });
    assert.equal(comment.author, 'agent', 'signed by the server: the session has no discipline');
    const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-comments'")!;
    assert.equal(session.session_number, maxSession + 1);
    assert.equal(ralphComments(p.dbPath, 5).at(-1)!.id, comment.id);
    // A second comment in the same session reuses its row.
    await s.ok('add_task_comment', { task_id: 6, body: 'Second note' });
    assert.equal(count(p, 'SELECT max(session_number) FROM agent_sessions'), maxSession + 1);
    const missing = { task_id: 5, comment_id: 999, body: 'x' };
    await refused(s, p, 'update_task_comment', missing, 'not_found', new RegExp(String(comment.id)));
    // A learned signal Ralph's own agents wrote is a plain comment too.
    const ralphs = Number(row(p, "SELECT id FROM task_signals WHERE task_id = 1 AND verb = 'learned'")!.id);
    await s.ok('update_task_comment', { task_id: 1, comment_id: ralphs, body: 'Edited by a person' });
    assert.equal(row(p, 'SELECT text FROM task_signals WHERE id = ?', ralphs)!.text, 'Edited by a person');
    // Signals of other verbs are kept as the agent reported them.
    for (const verb of ['done', 'partial', 'stuck', 'ask', 'flag', 'suggest', 'blocked']) {
      const id = Number(row(p, 'SELECT id FROM task_signals WHERE task_id = 21 AND verb = ? LIMIT 1', verb)!.id);
      const args = { task_id: 21, comment_id: id, body: 'rewritten' };
      await refused(s, p, 'update_task_comment', args, 'conflict', new RegExp(verb));
    }
  });

  test('features are subsystems: read, created, updated, deleted; learnings and context files', async (t) => {
    const { p, s } = await open(t);
    const { features } = await s.ok('list_features', {});
    assert.deepEqual(names(features), col(p, 'SELECT name FROM subsystems').map(String).sort());
    const { feature } = await s.ok('get_feature', { name: 'BOOKMARK-CRUD' });
    const ralph = ralphFeature(p.dbPath, 'bookmark-crud')!;
    assert.equal(feature.name, 'bookmark-crud');
    const shown = ['display_name', 'acronym', 'description', 'architecture', 'boundaries', 'knowledge_paths'] as const;
    for (const k of [...shown, 'context_files', 'dependencies'] as const) assert.deepEqual(feature[k], ralph[k], k);
    assert.deepEqual(texts(feature.learnings), texts(ralph.learnings));

    const description = 'Sync bookmarks across devices';
    const lists = { context_files: ['src/sync/index.ts'], knowledge_paths: ['docs/sync.md'] };
    const cloudSync = { name: 'cloud-sync', display_name: 'Cloud Sync', description, dependencies: ['Bookmark-CRUD'] };
    const { feature: sync } = await s.ok('create_feature', { ...cloudSync, ...lists });
    assert.equal(sync.name, 'cloud-sync');
    assert.match(sync.acronym, /^[A-Z0-9]{4}$/);
    const sub = row(p, "SELECT * FROM subsystems WHERE name = 'cloud-sync'")!;
    const stored = ['Cloud Sync', description, 'active', sync.acronym];
    assert.deepEqual(pick(sub, ['display_name', 'description', 'status', 'acronym']), stored);
    assertToday(sub.created, 'subsystems.created');
    const cs = pick(ralphFeature(p.dbPath, 'CLOUD-SYNC')!, ['context_files', 'knowledge_paths', 'dependencies']);
    assert.deepEqual(cs, [['src/sync/index.ts'], ['docs/sync.md'], ['bookmark-crud']]);
    const dependsOn = 'SELECT depends_on_subsystem_id FROM subsystem_dependencies WHERE subsystem_id = ?';
    assert.deepEqual(col(p, dependsOn, sub.id), [subsystemId(p, 'bookmark-crud')]);

    const update = { description: 'Instant search', architecture: 'FTS5 index', context_files: ['src/search.ts'] };
    const u = await s.ok('update_feature', { name: 'SEARCH', ...update });
    assert.deepEqual([...u.changed].sort(), ['architecture', 'context_files', 'description']);
    const search = ralphFeature(p.dbPath, 'search')!;
    assert.deepEqual(pick(search, Object.keys(update)), ['Instant search', 'FTS5 index', ['src/search.ts']]);
    const cycle = { name: 'bookmark-crud', dependencies: ['cloud-sync'] };
    await refused(s, p, 'update_feature', cycle, 'invalid_argument', /cycle/);
    // Deleting: refused while another feature depends on it; what belongs to it goes with it.
    await s.ok('create_feature', { name: 'offline', display_name: 'Offline mode', dependencies: ['cloud-sync'] });
    await refused(s, p, 'delete_feature', { name: 'cloud-sync' }, 'conflict', /offline/);
    assert.deepEqual(await s.ok('delete_feature', { name: 'OFFLINE' }), { deleted: 'offline' });
    await s.ok('delete_feature', { name: 'cloud-sync' });
    assert.equal(row(p, "SELECT id FROM subsystems WHERE name = 'cloud-sync'"), undefined);
    for (const table of ['subsystem_context_files', 'subsystem_dependencies'])
      assert.equal(rowsIn(p, `${table} WHERE subsystem_id = ?`, sub.id), 0, table);

    // A learning is a subsystem_comments row beside Ralph's other subsystem comments; a near-duplicate bumps it.
    const otherComments = rows(p, "SELECT * FROM subsystem_comments WHERE category <> 'learning' ORDER BY id");
    const text = 'The search index must be rebuilt after a bulk import of bookmarks';
    const reason = 'stale results otherwise';
    const r = await s.ok('append_feature_learning', { feature_name: 'Search', text, reason, task_id: 13 });
    assert.deepEqual([r.outcome, r.learning_count], ['added', 1]);
    const learned = rows(p, "SELECT * FROM subsystem_comments WHERE category = 'learning'");
    assert.equal(learned.length, 1);
    const l = learned[0]!;
    assert.deepEqual([l.subsystem_id, l.body, l.reason, l.agent_task_id], [subsystemId(p, 'search'), text, reason, 13]);
    assertRecentTimestamp(l.created, 'subsystem_comments.created');
    const hits = () => row(p, 'SELECT hit_count FROM ralph_mcp_learning_meta WHERE comment_id = ?', l.id)!.hit_count;
    assert.equal(hits(), 1);
    const bodies = ralphFeature(p.dbPath, 'search')!.learnings.map((x) => x.body);
    assert.deepEqual(bodies, [text]);
    const similar = 'The search index must be rebuilt after bulk imports of bookmarks';
    const dup = await s.ok('append_feature_learning', { feature_name: 'search', text: similar });
    assert.deepEqual([dup.outcome, dup.learning.hit_count, hits()], ['duplicate', 2, 2]);
    const learningRows = rows(p, "SELECT id, body FROM subsystem_comments WHERE category = 'learning'");
    assert.deepEqual(learningRows, [{ id: l.id, body: text }], 'no second row; the stored lesson is kept');
    const othersNow = rows(p, "SELECT * FROM subsystem_comments WHERE category <> 'learning' ORDER BY id");
    assert.deepEqual(othersNow, otherComments, "Ralph's other subsystem comments are untouched");
    const { learnings } = await s.ok('get_feature_learnings', { feature_name: 'SEARCH' });
    const counted = learnings.map((x: AnyRow) => [x.text, x.hit_count]);
    assert.deepEqual(counted, [[text, 2]]);
    assert.deepEqual((await s.ok('get_feature_learnings', { feature_name: 'collections' })).learnings, []);

    const collections = subsystemId(p, 'collections');
    const files = () =>
      col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ? ORDER BY id', collections);
    const before = files();
    const added = await s.ok('add_feature_context_file', {
      feature_name: 'Collections',
      file_path: './src/collections/model.ts',
    });
    const addedFields = pick(added, ['feature_name', 'file_path', 'added']);
    assert.deepEqual(addedFields, ['collections', 'src/collections/model.ts', true]);
    assert.deepEqual(files(), [...before, 'src/collections/model.ts']);
    const again = { feature_name: 'collections', file_path: 'src/collections/model.ts' };
    assert.equal((await s.ok('add_feature_context_file', again)).added, false);
    assert.equal(files().length, before.length + 1);
  });

  test('disciplines: read as Ralph reads them, created with skill rows, updated, deleted', async (t) => {
    const { p, s } = await open(t);
    const { disciplines } = await s.ok('list_disciplines', {});
    assert.deepEqual(names(disciplines), col(p, 'SELECT name FROM disciplines').map(String).sort());
    const { discipline } = await s.ok('get_discipline', { name: 'FRONTEND' });
    const ralph = ralphDiscipline(p.dbPath, 'frontend')!;
    assert.equal(discipline.name, 'frontend');
    for (const k of ['display_name', 'acronym', 'icon', 'color', 'system_prompt', 'conventions', 'skills'] as const)
      assert.deepEqual(discipline[k], ralph[k], k);

    const devops = {
      name: 'devops',
      display_name: 'DevOps',
      icon: 'Server',
      color: '#123456',
      conventions: 'IaC only',
    };
    const skilled = { ...devops, system_prompt: 'You ship it.', skills: ['docker', 'terraform'] };
    const { discipline: created } = await s.ok('create_discipline', skilled);
    assert.match(created.acronym, /^[A-Z0-9]{4}$/);
    const d = row(p, "SELECT * FROM disciplines WHERE name = 'devops'")!;
    const stored = ['display_name', 'icon', 'color', 'system_prompt', 'conventions'];
    assert.deepEqual(pick(d, stored), ['DevOps', 'Server', '#123456', 'You ship it.', 'IaC only']);
    const skills = (id: unknown) =>
      col(p, 'SELECT skill FROM discipline_skills WHERE discipline_id = ? ORDER BY id', id);
    assert.deepEqual(skills(d.id), ['docker', 'terraform']);
    assert.deepEqual(ralphDiscipline(p.dbPath, 'DevOps')!.skills, ['docker', 'terraform']);

    const u = await s.ok('update_discipline', {
      name: 'Integration',
      conventions: 'Contract tests first',
      skills: ['pact'],
    });
    assert.deepEqual([...u.changed].sort(), ['conventions', 'skills']);
    const integration = row(p, "SELECT * FROM disciplines WHERE name = 'integration'")!;
    assert.equal(integration.conventions, 'Contract tests first');
    assert.deepEqual(skills(integration.id), ['pact']);

    // 04: platform has no task and no template.
    assert.deepEqual(await s.ok('delete_discipline', { name: 'Platform' }), { deleted: 'platform' });
    assert.equal(row(p, "SELECT id FROM disciplines WHERE name = 'platform'"), undefined);
    await s.ok('delete_discipline', { name: 'devops' });
    assert.deepEqual(skills(d.id), []);
  });

  test('progress equals SQL counts before and after writes; signal_abort; a task session’s scope', async (t) => {
    const { p, s, also } = await open(t);
    const byName = (list: AnyRow[]) =>
      list.map(({ name, done, total }) => ({ name, done, total })).sort((a, b) => a.name.localeCompare(b.name));
    const check = async () => {
      const g = await s.ok('get_project_progress', {});
      assert.equal(g.total, rowsIn(p, 'runtime_tasks'));
      assert.equal(g.done, rowsIn(p, "runtime_tasks WHERE status = 'done'"));
      const byStatus = Object.fromEntries(RALPH_STATUSES.map((x) => [x, 0]));
      for (const r of rows(p, 'SELECT status, count(*) AS n FROM runtime_tasks GROUP BY status'))
        byStatus[r.status] = r.n;
      assert.deepEqual(g.by_status, byStatus);
      const done = "count(t.id) AS total, coalesce(sum(t.status = 'done'), 0) AS done";
      const features = `SELECT s.name, ${done} FROM subsystems s LEFT JOIN runtime_tasks t ON t.subsystem_id = s.id
        GROUP BY s.id`;
      assert.deepEqual(byName(g.by_feature), byName(rows(p, features)));
      const disciplines = `SELECT di.name, ${done} FROM disciplines di LEFT JOIN task_details d
        ON d.discipline_id = di.id LEFT JOIN runtime_tasks t ON t.details_id = d.id GROUP BY di.id`;
      assert.deepEqual(byName(g.by_discipline), byName(rows(p, disciplines)));
      assert.equal(g.percent_done, Math.round((1000 * g.done) / g.total) / 10);
    };
    await check();
    await s.ok('set_task_status', { id: 5, status: 'done' });
    await s.ok('create_task', { feature: 'settings', discipline: 'integration', title: 'Sync settings' });
    await check();

    // signal_abort records the abort for Ralph, and on this generation also Ralph's own stuck signal.
    const abort = await also({ recipe: 'task_execution', task: '4', sessionId: 'head-test-abort' });
    const signalsBefore = rowsIn(p, 'task_signals');
    const r = await abort.ok('signal_abort', { reason: 'rate limited by the provider' });
    assert.equal(r.session_id, 'head-test-abort');
    assert.match(r.instruction, /stop/i);
    const sig = row(p, 'SELECT * FROM ralph_mcp_signals WHERE id = ?', r.signal_id)!;
    assert.ok(sig, 'the abort is recorded');
    assert.deepEqual([sig.session_id, sig.task_id, sig.reason], ['head-test-abort', 4, 'rate limited by the provider']);
    assert.equal(rowsIn(p, 'task_signals'), signalsBefore + 1, "exactly one signal of Ralph's");
    const stuck = row(p, "SELECT * FROM task_signals WHERE session_id = 'head-test-abort'")!;
    const stuckFields = pick(stuck, ['task_id', 'verb', 'reason', 'summary', 'text']);
    assert.deepEqual(stuckFields, [4, 'stuck', 'rate limited by the provider', null, null]);
    const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-abort'")!;
    const sessionFields = pick(session, ['kind', 'started_by', 'task_id', 'status']);
    assert.deepEqual(sessionFields, ['task_execution', 'agent', 4, 'finished']);

    // A task session may not change another task (reading is allowed), nor another feature than its task's.
    const own = await also({ recipe: 'task_execution', task: '4' });
    assert.equal((await own.ok('get_task', { id: 3 })).task.id, 3, 'reading another task is allowed');
    await refused(own, p, 'set_task_status', { id: 5, status: 'done' }, 'out_of_scope', /task 4/);
    await refused(own, p, 'update_task_context', { id: 5, hints: 'x' }, 'out_of_scope');
    const elsewhere = { feature_name: 'search', file_path: 'src/x.ts' }; // task 4 is in bookmark-crud
    await refused(own, p, 'add_feature_context_file', elsewhere, 'out_of_scope');
    // Its own task and feature are fine; the task argument defaults to its own.
    await own.ok('set_task_status', { status: 'done' });
    assert.equal(runtimeOf(p, 4)!.status, 'done');
    await own.ok('add_feature_context_file', { file_path: 'src/bookmarks/store.ts' });
    const bookmarks = 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ?';
    assert.ok(col(p, bookmarks, subsystemId(p, 'bookmark-crud')).includes('src/bookmarks/store.ts'));
    // Hidden tools are not there at all.
    await assert.rejects(own.call('delete_task', { id: 5 }), /Unknown tool/);
  });
});
