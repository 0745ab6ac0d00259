import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test, type TestContext } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { openInProc, type InProcSession } from './harness.js';
import { assertRecentTimestamp, assertToday, row, rows, type AnyRow } from '../helpers/assertions.js';
import { HEAD_FIXTURE_SKIP, HEAD_FIXTURES, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { dump, fixtureProject } from '../helpers/project.js';
import { ralphComments, ralphDiscipline, ralphFeature, ralphTask, RALPH_STATUSES } from '../helpers/ralphRead.js';
import { runCli, startSession } from '../helpers/server.js';
import { RECIPE_TOOLS, RECIPES, recipeFlags, inSpecOrder } from '../helpers/spec.js';

/**
 * The acceptance for Ralph's head (normalized) databases, on copies of the fixtures Ralph's own
 * generator wrote at its head (../shared/fixtures/ralph4days-head):
 * - `doctor` passes on each of the five and names the generation;
 * - every recipe serves exactly its tool set (spawned server, tools/list);
 * - every tool's happy path and main error paths, in-process through the server's call path (the
 *   harness asserts Ralph's read rules after every successful write), rows read back with SQL or the
 *   independent reader (ralphRead) after each write; every refused call leaves Ralph's tables unchanged.
 */

const DEV = '04-desktop-dev.db';
const TEMPLATES = '05-desktop-templates.db';

type Flags = Parameters<typeof openInProc>[1];

/**
 * A fresh copy of a head fixture and an in-process session on it (full suite unless flags say otherwise), closed after
 * the test.
 */
async function open(t: TestContext, file: string = DEV, flags: Flags = {}): Promise<{ p: Project; s: InProcSession }> {
  const p = fixtureProject(file, HEAD_FIXTURES_DIR);
  const s = await openInProc(p, flags);
  t.after(() => s.close());
  return { p, s };
}

/** A second session on the same project (e.g. a task session beside the full one). */
async function also(t: TestContext, p: Project, flags: Flags): Promise<InProcSession> {
  const s = await openInProc(p, flags);
  t.after(() => s.close());
  return s;
}

/** The state files, which refused state-file calls must not touch either. */
const stateFiles = (p: Project) => [readFileSync(p.learningsFile, 'utf8'), readFileSync(p.progressFile, 'utf8')];

/**
 * Calls a tool that must be refused with `code`; Ralph's tables (a dump without ralph_mcp_*) and the
 * state files must be unchanged, and the message must match `message` when given. Returns the error.
 */
async function refused(
  s: InProcSession,
  p: Project,
  name: string,
  args: Record<string, unknown>,
  code: string,
  message?: RegExp,
) {
  const before = dump(p);
  const files = stateFiles(p);
  const err = await s.fail(name, args);
  assert.equal(err.code, code, `${name} ${JSON.stringify(args)}: expected ${code}, got ${err.code}: ${err.message}`);
  assert.ok(err.message.length > 0, `${name}: an error carries a message`);
  if (message) assert.match(err.message, message, `${name} ${JSON.stringify(args)}`);
  assert.ok(dump(p) === before, `${name} ${JSON.stringify(args)} was refused (${code}) but changed Ralph's tables`);
  assert.deepEqual(stateFiles(p), files, `${name} ${JSON.stringify(args)} was refused but changed a state file`);
  return err;
}

const ids = (list: AnyRow[]) => list.map((x) => Number(x.id));
const col = (p: Project, sql: string, ...params: unknown[]) => rows(p, sql, ...params).map((r) => Object.values(r)[0]);
const subsystemId = (p: Project, name: string) => Number(row(p, 'SELECT id FROM subsystems WHERE name = ?', name)!.id);
const disciplineId = (p: Project, name: string) =>
  Number(row(p, 'SELECT id FROM disciplines WHERE name = ?', name)!.id);
const detailsOf = (p: Project, taskId: number) =>
  row(p, 'SELECT td.* FROM runtime_tasks t JOIN task_details td ON td.id = t.details_id WHERE t.id = ?', taskId)!;
const runtimeOf = (p: Project, taskId: number) => row(p, 'SELECT * FROM runtime_tasks WHERE id = ?', taskId);
/** Ralph's task `updated`: a day from Ralph/us, or 'YYYY-MM-DD HH:MM:SS' from its trigger. */
const assertUpdatedToday = (v: unknown, what: string) => assertToday(typeof v === 'string' ? v.slice(0, 10) : v, what);

/** The fields both the tool and Ralph's reader show for a task. */
function sameTask(p: Project, task: AnyRow): void {
  const r = ralphTask(p.dbPath, task.id);
  assert.ok(r, `Ralph finds task ${task.id}`);
  for (const k of [
    'id',
    'title',
    'description',
    'status',
    'priority',
    'feature',
    'discipline',
    'tags',
    'depends_on',
    'acceptance_criteria',
    'context_files',
    'output_artifacts',
    'hints',
    'estimated_turns',
    'provenance',
    'pseudocode',
    'enriched_at',
    'completed',
  ] as const) {
    assert.deepEqual(task[k], r[k], `task ${task.id}: ${k} as the tool says it vs as Ralph reads it`);
  }
}

describe("Ralph's head databases", { skip: HEAD_FIXTURE_SKIP }, () => {
  // ------------------------------------------------------------------------------------------------
  describe('doctor passes on every head fixture and names the generation', () => {
    for (const f of HEAD_FIXTURES) {
      test(f, () => {
        const p = fixtureProject(f, HEAD_FIXTURES_DIR);
        const r = runCli(['doctor', '--project', p.root]);
        assert.equal(r.status, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /all checks passed/);
        assert.match(r.stdout, /^✓ schema\s+normalized schema/m, 'the schema line names the generation');
        const lines = r.stdout.split('\n');
        assert.deepEqual(
          lines.filter((l) => l.startsWith('✗') || l.startsWith('–')),
          [],
          'no failed and no skipped check',
        );
      });
    }
  });

  // ------------------------------------------------------------------------------------------------
  describe('every recipe serves exactly its tools on 04-desktop-dev (spawned server)', () => {
    for (const recipe of RECIPES) {
      test(recipe, async () => {
        const p = fixtureProject(DEV, HEAD_FIXTURES_DIR);
        const flags = [...recipeFlags(recipe), ...(recipe === 'task_execution' ? ['--task', '4'] : [])];
        const s = await startSession(p, flags);
        try {
          const names = await s.toolNames();
          const expected = RECIPE_TOOLS[recipe]!;
          assert.deepEqual([...names].sort(), [...expected].sort(), `${recipe}: the tool set`);
          assert.deepEqual(names, inSpecOrder(expected), `${recipe}: in registry order`);
        } finally {
          await s.close();
        }
      });
    }
  });

  // ------------------------------------------------------------------------------------------------
  describe('task tools (in-process, full suite)', () => {
    test('list_tasks: filters, case-insensitive names, pagination', async (t) => {
      const { p, s } = await open(t);
      const all = await s.ok('list_tasks', {});
      assert.equal(all.total, 21);
      assert.deepEqual(ids(all.tasks), col(p, 'SELECT id FROM runtime_tasks ORDER BY id'));
      assert.equal(all.next_cursor, null);
      const t12 = all.tasks.find((x: AnyRow) => x.id === 12);
      const pick = (x: AnyRow) => ({
        id: x.id,
        title: x.title,
        status: x.status,
        priority: x.priority,
        feature: x.feature,
        discipline: x.discipline,
        depends_on: x.depends_on,
      });
      assert.deepEqual(pick(t12), {
        id: 12,
        title: 'Nested collections',
        status: 'pending',
        priority: 'low',
        feature: 'collections',
        discipline: 'frontend',
        depends_on: ralphTask(p.dbPath, 12)!.depends_on,
      });

      const pending = await s.ok('list_tasks', { filter_status: 'pending' });
      assert.deepEqual(ids(pending.tasks), col(p, "SELECT id FROM runtime_tasks WHERE status = 'pending' ORDER BY id"));
      assert.equal(pending.total, pending.tasks.length);

      const search = await s.ok('list_tasks', { filter_feature: 'SEARCH' });
      assert.deepEqual(ids(search.tasks), [13, 14, 15]);
      assert.ok(
        search.tasks.every((x: AnyRow) => x.feature === 'search'),
        'names come back as stored',
      );

      const frontend = await s.ok('list_tasks', { filter_discipline: 'Frontend', filter_status: 'pending' });
      assert.deepEqual(
        ids(frontend.tasks),
        col(
          p,
          "SELECT t.id FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id JOIN disciplines di ON di.id = d.discipline_id WHERE di.name = 'frontend' AND t.status = 'pending' ORDER BY t.id",
        ),
      );
      assert.equal(frontend.total, frontend.tasks.length);

      // Pagination: pages of 5 in id order, total on every page, the cursor ends with null.
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await s.ok('list_tasks', { limit: 5, ...(cursor !== undefined ? { cursor } : {}) });
        assert.equal(page.total, 21);
        assert.ok(page.tasks.length <= 5);
        seen.push(...ids(page.tasks));
        cursor = page.next_cursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 10);
      assert.equal(pages, 5);
      assert.deepEqual(seen, col(p, 'SELECT id FROM runtime_tasks ORDER BY id'));

      const err = await refused(s, p, 'list_tasks', { filter_feature: 'no-such-feature' }, 'not_found');
      assert.match(err.message, /no-such-feature/);
      assert.match(err.message, /bookmark-crud/, 'names the subsystems that exist');
      assert.match(
        (await refused(s, p, 'list_tasks', { filter_discipline: 'wizardry' }, 'not_found')).message,
        /frontend/,
      );
      await refused(s, p, 'list_tasks', { filter_status: 'needs_input' }, 'invalid_argument');
      await refused(s, p, 'list_tasks', { cursor: 'abc' }, 'invalid_argument');
      await refused(s, p, 'list_tasks', { limit: 0 }, 'invalid_argument');
      await refused(s, p, 'list_tasks', { status: 'pending' }, 'invalid_argument');
    });

    test('get_task: fields as Ralph reads them, signals as comments, dependencies', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('get_task', { id: 21 });
      sameTask(p, r.task);
      // Every signal of the task is a comment, oldest first, whatever its verb.
      const signals = ralphComments(p.dbPath, 21);
      assert.equal(signals.length, 15);
      assert.deepEqual(
        ids(r.comments),
        signals.map((c) => c.id),
      );
      for (const [i, c] of r.comments.entries()) {
        const sig = signals[i]!;
        assert.equal(c.task_id, 21);
        assert.equal(c.created, sig.created);
        if (sig.generation === 'normalized' && sig.verb === 'learned') assert.equal(c.body, sig.text);
        if (sig.generation === 'normalized' && sig.verb === 'done') assert.equal(c.body, sig.summary);
        assert.ok(
          c.body.length > 0,
          `signal ${c.id} (${sig.generation === 'normalized' ? sig.verb : ''}) reads as a non-empty comment`,
        );
        assert.equal(c.author, sig.author, `signal ${c.id}: the author Ralph shows (who started its session)`);
      }
      const four = await s.ok('get_task', { id: 4 });
      assert.deepEqual(ids(four.comments), col(p, 'SELECT id FROM task_signals WHERE task_id = 4 ORDER BY id'));

      const twelve = await s.ok('get_task', { id: 12 });
      sameTask(p, twelve.task);
      assert.deepEqual(
        twelve.dependencies,
        ralphTask(p.dbPath, 12)!.depends_on.map((d) => ({
          id: d,
          title: ralphTask(p.dbPath, d)!.title,
          status: ralphTask(p.dbPath, d)!.status,
        })),
      );
      assert.deepEqual(ids(twelve.dependencies).sort(), [8, 9]);

      const err = await refused(s, p, 'get_task', { id: 999 }, 'not_found');
      assert.match(err.message, /999/);
      assert.match(err.message, /1 to 21/, 'says which task ids exist');
      await refused(s, p, 'get_task', { id: 0 }, 'invalid_argument');
      await refused(s, p, 'get_task', { id: '4' }, 'invalid_argument');
    });

    test('create_task: one details row, one runtime row and the list rows', async (t) => {
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
      const detailsBefore = Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n);
      const { task } = await s.ok('create_task', args);
      assert.equal(task.id, 22, 'the next AUTOINCREMENT id');
      assert.equal(task.feature, 'search', 'the subsystem as stored');
      sameTask(p, task);

      const rt = runtimeOf(p, 22)!;
      assert.equal(rt.subsystem_id, subsystemId(p, 'search'));
      assert.equal(rt.status, 'pending');
      assert.equal(rt.template_id, null);
      assert.equal(rt.completed, null);
      assert.ok(rt.provenance === null || ['agent', 'human', 'system'].includes(rt.provenance));
      assertToday(rt.created, 'runtime_tasks.created');
      assert.equal(
        Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n),
        detailsBefore + 1,
        'one new details row',
      );
      const td = row(p, 'SELECT * FROM task_details WHERE id = ?', rt.details_id)!;
      assert.equal(
        row(p, 'SELECT count(*) AS n FROM runtime_tasks WHERE details_id = ?', rt.details_id)!.n,
        1,
        'its own details row',
      );
      assert.deepEqual(
        [td.discipline_id, td.title, td.description, td.priority, td.hints, td.estimated_turns],
        [disciplineId(p, 'backend'), args.title, args.description, 'high', args.hints, 4],
      );
      assertToday(td.created, 'task_details.created');
      assert.deepEqual(col(p, 'SELECT tag FROM task_tags WHERE task_id = 22 ORDER BY id'), args.tags);
      assert.deepEqual(
        col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = 22 ORDER BY id'),
        [13, 3],
      );
      assert.deepEqual(
        rows(
          p,
          'SELECT criterion, criterion_order FROM task_acceptance_criteria WHERE task_id = 22 ORDER BY criterion_order',
        ),
        args.acceptance_criteria.map((criterion, i) => ({ criterion, criterion_order: i })),
      );
      assert.deepEqual(col(p, 'SELECT file_path FROM task_context_files WHERE task_id = 22'), ['src/search/rank.ts']);
      assert.deepEqual(col(p, 'SELECT artifact_path FROM task_output_artifacts WHERE task_id = 22'), [
        'docs/ranking.md',
      ]);

      const draft = (
        await s.ok('create_task', {
          feature: 'settings',
          discipline: 'data',
          title: 'Draft: sync settings',
          status: 'draft',
        })
      ).task;
      assert.equal(draft.id, 23);
      assert.equal(runtimeOf(p, 23)!.status, 'draft');
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_acceptance_criteria WHERE task_id = 23')!.n, 0);

      const base = { feature: 'search', discipline: 'backend', title: 'x' };
      assert.match(
        (await refused(s, p, 'create_task', { ...base, feature: 'sharing' }, 'not_found')).message,
        /bookmark-crud/,
      );
      assert.match(
        (await refused(s, p, 'create_task', { ...base, discipline: 'wizardry' }, 'not_found')).message,
        /frontend/,
      );
      assert.match(
        (await refused(s, p, 'create_task', { ...base, depends_on: [999] }, 'invalid_argument')).message,
        /999/,
      );
      await refused(s, p, 'create_task', { ...base, status: 'done' }, 'invalid_argument');
      await refused(s, p, 'create_task', { ...base, status: 'needs_input' }, 'invalid_argument');
      await refused(s, p, 'create_task', { ...base, title: '   ' }, 'invalid_argument');
      await refused(s, p, 'create_task', { ...base, priority: 'urgent' }, 'invalid_argument');
      await refused(s, p, 'create_task', { ...base, context_files: ['../outside.ts'] }, 'invalid_argument');
      await refused(s, p, 'create_task', { ...base, assignee: 'bob' }, 'invalid_argument');
      await refused(s, p, 'create_task', { feature: 'search', title: 'no discipline' }, 'invalid_argument');
    });

    test('update_task: given fields only, lists replaced, cycles refused', async (t) => {
      const { p, s } = await open(t);
      const before = detailsOf(p, 20);
      const r = await s.ok('update_task', {
        id: 20,
        priority: 'high',
        acceptance_criteria: ['Stored in localStorage', 'Read on start'],
        depends_on: [16],
        tags: ['theme'],
      });
      assert.deepEqual([...r.changed].sort(), ['acceptance_criteria', 'depends_on', 'priority', 'tags']);
      sameTask(p, r.task);
      const after = detailsOf(p, 20);
      assert.equal(after.id, before.id, 'a task with its own details row keeps it');
      assert.equal(after.priority, 'high');
      assert.equal(after.title, before.title);
      assertUpdatedToday(after.updated, 'task_details.updated');
      assertUpdatedToday(runtimeOf(p, 20)!.updated, 'runtime_tasks.updated');
      assert.deepEqual(
        rows(
          p,
          'SELECT criterion, criterion_order FROM task_acceptance_criteria WHERE task_id = 20 ORDER BY criterion_order',
        ),
        [
          { criterion: 'Stored in localStorage', criterion_order: 0 },
          { criterion: 'Read on start', criterion_order: 1 },
        ],
      );
      assert.deepEqual(col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = 20'), [16]);
      assert.deepEqual(col(p, 'SELECT tag FROM task_tags WHERE task_id = 20'), ['theme']);

      // Shorter criteria list: the order is rewritten 0..n-1 again.
      await s.ok('update_task', { id: 4, acceptance_criteria: ['only one'] });
      assert.deepEqual(rows(p, 'SELECT criterion, criterion_order FROM task_acceptance_criteria WHERE task_id = 4'), [
        { criterion: 'only one', criterion_order: 0 },
      ]);

      // 5 depends on 2: 2 depending on 5 closes a cycle; so does 3 → 4 → 3.
      assert.match(
        (await refused(s, p, 'update_task', { id: 2, depends_on: [5] }, 'invalid_argument')).message,
        /cycle/,
      );
      assert.match(
        (await refused(s, p, 'update_task', { id: 3, depends_on: [2, 4] }, 'invalid_argument')).message,
        /cycle/,
      );
      await refused(s, p, 'update_task', { id: 5, depends_on: [5] }, 'invalid_argument');
      await refused(s, p, 'update_task', { id: 5, depends_on: [998] }, 'invalid_argument');
      await refused(s, p, 'update_task', { id: 5 }, 'invalid_argument', /nothing to update/);
      assert.match((await refused(s, p, 'update_task', { id: 999, title: 'x' }, 'not_found')).message, /1 to 21/);
      await refused(s, p, 'update_task', { id: 5, status: 'done' }, 'invalid_argument');
      await refused(s, p, 'update_task', { id: 5, estimated_turns: 0 }, 'invalid_argument');
    });

    test('delete_task: refused while depended on; lists and signals go, sessions stay, ids are never reused', async (t) => {
      const { p, s } = await open(t);
      const err = await refused(s, p, 'delete_task', { id: 3 }, 'conflict');
      assert.match(err.message, /4, 6, 13, 18/, 'names the dependents');
      assert.match((await refused(s, p, 'delete_task', { id: 999 }, 'not_found')).message, /1 to 21/);

      // Task 18 depends on 3 and has no dependents; task 20 has one signal in session legacy-task-20.
      const details18 = runtimeOf(p, 18)!.details_id;
      assert.deepEqual(await s.ok('delete_task', { id: 18 }), { deleted_id: 18, deleted_comments: 0 });
      assert.equal(runtimeOf(p, 18), undefined);
      assert.equal(ralphTask(p.dbPath, 18), undefined);
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_dependencies WHERE task_id = 18')!.n, 0);
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_tags WHERE task_id = 18')!.n, 0);
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_acceptance_criteria WHERE task_id = 18')!.n, 0);
      assert.equal(
        row(p, 'SELECT count(*) AS n FROM task_details WHERE id = ?', details18)!.n,
        0,
        'its own details row goes with it',
      );

      const signals20 = Number(row(p, 'SELECT count(*) AS n FROM task_signals WHERE task_id = 20')!.n);
      assert.ok(signals20 > 0);
      assert.deepEqual(await s.ok('delete_task', { id: 20 }), { deleted_id: 20, deleted_comments: signals20 });
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_signals WHERE task_id = 20')!.n, 0);
      assert.deepEqual(
        row(p, "SELECT task_id FROM agent_sessions WHERE id = 'legacy-task-20'"),
        { task_id: null },
        'the session row stays, without its task',
      );

      // AUTOINCREMENT: a new task never takes a deleted id.
      const a = (await s.ok('create_task', { feature: 'settings', discipline: 'data', title: 'A' })).task.id;
      assert.equal(a, 22);
      await s.ok('delete_task', { id: a });
      assert.equal((await s.ok('create_task', { feature: 'settings', discipline: 'data', title: 'B' })).task.id, 23);
    });

    test('set_task_status: the six statuses only, done stamps completed, reopening clears it', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('set_task_status', { id: 5, status: 'done' });
      assert.equal(r.previous_status, 'pending');
      assert.equal(r.changed, true);
      const rt = runtimeOf(p, 5)!;
      assert.equal(rt.status, 'done');
      assertToday(rt.completed, 'completed');
      assertUpdatedToday(rt.updated, 'updated');
      assert.equal(ralphTask(p.dbPath, 5)!.status, 'done');

      assert.equal((await s.ok('set_task_status', { id: 5, status: 'done' })).changed, false);
      for (const status of RALPH_STATUSES) {
        await s.ok('set_task_status', { id: 6, status });
        const x = runtimeOf(p, 6)!;
        assert.equal(x.status, status);
        if (status === 'done') assertToday(x.completed, 'completed');
        else assert.equal(x.completed, null, `${status} is not done: completed is cleared`);
      }
      await s.ok('set_task_status', { id: 1, status: 'pending' });
      assert.deepEqual(row(p, 'SELECT status, completed FROM runtime_tasks WHERE id = 1'), {
        status: 'pending',
        completed: null,
      });

      for (const status of ['needs_input', 'failed', 'finished', 'DONE', ''])
        await refused(s, p, 'set_task_status', { id: 7, status }, 'invalid_argument');
      await refused(s, p, 'set_task_status', { id: 999, status: 'done' }, 'not_found');
      await refused(s, p, 'set_task_status', { id: 7 }, 'invalid_argument');
    });

    test('enrich_task: a draft gets pseudocode, criteria, context files and becomes pending', async (t) => {
      const { p, s } = await open(t);
      const id = (
        await s.ok('create_task', {
          feature: 'collections',
          discipline: 'frontend',
          title: 'Collection sharing',
          status: 'draft',
          acceptance_criteria: ['old'],
        })
      ).task.id;
      const r = await s.ok('enrich_task', {
        id,
        pseudocode: '1. add share button\n2. copy link',
        acceptance_criteria: ['Link copies', 'Link opens the collection'],
        context_files: ['src/ui/Share.tsx'],
      });
      sameTask(p, r.task);
      const rt = runtimeOf(p, id)!;
      assert.equal(rt.status, 'pending');
      assertToday(rt.enriched_at, 'enriched_at');
      assert.equal(detailsOf(p, id).pseudocode, '1. add share button\n2. copy link');
      assert.deepEqual(
        rows(
          p,
          'SELECT criterion, criterion_order FROM task_acceptance_criteria WHERE task_id = ? ORDER BY criterion_order',
          id,
        ),
        [
          { criterion: 'Link copies', criterion_order: 0 },
          { criterion: 'Link opens the collection', criterion_order: 1 },
        ],
      );
      assert.deepEqual(col(p, 'SELECT file_path FROM task_context_files WHERE task_id = ?', id), ['src/ui/Share.tsx']);

      assert.match((await refused(s, p, 'enrich_task', { id: 5, pseudocode: 'x' }, 'conflict')).message, /draft/);
      await refused(s, p, 'enrich_task', { id, pseudocode: 'again' }, 'conflict');
      await refused(s, p, 'enrich_task', { id: 999, pseudocode: 'x' }, 'not_found');
      await refused(s, p, 'enrich_task', { id: 5, pseudocode: '' }, 'invalid_argument');
    });

    test('search_tasks: ranked hits over titles, with filters', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('search_tasks', { query: 'search' });
      assert.equal(r.matched, 'all');
      assert.ok(
        ids(r.results).includes(13) && ids(r.results).includes(14),
        `finds the search tasks: ${JSON.stringify(ids(r.results))}`,
      );
      for (const hit of r.results) {
        const t2 = ralphTask(p.dbPath, hit.id)!;
        assert.equal(hit.title, t2.title);
        assert.equal(hit.feature, t2.feature);
      }
      const scores = r.results.map((h: AnyRow) => h.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
        'best match first',
      );
      const filtered = await s.ok('search_tasks', { query: 'bookmark', feature: 'IMPORT-EXPORT' });
      assert.ok(filtered.results.length > 0);
      assert.ok(filtered.results.every((h: AnyRow) => h.feature === 'import-export'));
      // A task created now is found at once (the index follows writes).
      const id = (await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Zanzibar tokenizer' }))
        .task.id;
      assert.deepEqual(ids((await s.ok('search_tasks', { query: 'zanzibar' })).results), [id]);
      assert.equal((await s.ok('search_tasks', { query: 'qwertyuiop' })).matched, 'none');

      await refused(s, p, 'search_tasks', { query: '!!! ---' }, 'invalid_argument');
      await refused(s, p, 'search_tasks', { query: '' }, 'invalid_argument');
      await refused(s, p, 'search_tasks', { query: 'search', feature: 'nope' }, 'not_found');
      await refused(s, p, 'search_tasks', { query: 'search', status: 'weird' }, 'invalid_argument');
    });

    test('claim_next_task (worker): the highest-priority ready task, once', async (t) => {
      const { p } = await open(t);
      const w = await also(t, p, { recipe: 'worker' });
      // Computed independently: pending, every dependency done, by priority then id.
      const readyOrder = () =>
        rows(
          p,
          `SELECT t.id FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id
           WHERE t.status = 'pending' AND NOT EXISTS (SELECT 1 FROM task_dependencies x JOIN runtime_tasks dep ON dep.id = x.depends_on_task_id WHERE x.task_id = t.id AND dep.status <> 'done')
           ORDER BY CASE d.priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END, t.id`,
        ).map((r) => Number(r.id));
      const expected = readyOrder();
      assert.ok(expected.length > 1);
      const r = await w.ok('claim_next_task', {});
      assert.equal(r.claimed, true);
      assert.equal(r.task.id, expected[0]);
      assert.equal(r.ready_remaining, expected.length - 1);
      assert.equal(runtimeOf(p, expected[0]!)!.status, 'in_progress');
      // Holding an in_progress task: no second claim.
      await refused(w, p, 'claim_next_task', {}, 'conflict');
      // Done with it: the next one.
      await w.ok('set_task_status', { id: expected[0], status: 'done' });
      const then = readyOrder();
      const next = await w.ok('claim_next_task', {});
      assert.equal(next.task.id, then[0]);
      assert.equal(next.ready_remaining, then.length - 1);
      assert.equal(runtimeOf(p, then[0]!)!.status, 'in_progress');

      const w2 = await also(t, p, { recipe: 'worker' });
      await refused(w2, p, 'claim_next_task', { discipline: 'wizardry' }, 'not_found');
      await refused(w2, p, 'claim_next_task', { feature: 'nope' }, 'not_found');
      const none = await w2.ok('claim_next_task', { discipline: 'integration' });
      assert.deepEqual([none.claimed, none.task], [false, null]);
    });

    test('report_blocker (task session): blocked status plus a `blocked` signal with its agent_sessions row', async (t) => {
      const { p } = await open(t);
      const sessionsBefore = Number(row(p, 'SELECT max(session_number) AS n FROM agent_sessions')!.n);
      const ts = await also(t, p, { recipe: 'task_execution', task: '5', sessionId: 'head-test-blocker' });
      const r = await ts.ok('report_blocker', { reason: 'The modal design is not approved', on_task_id: 2 });
      assert.equal(r.task.status, 'blocked');
      assert.deepEqual(row(p, 'SELECT status, completed FROM runtime_tasks WHERE id = 5'), {
        status: 'blocked',
        completed: null,
      });
      const sig = row(p, "SELECT * FROM task_signals WHERE task_id = 5 AND verb = 'blocked'")!;
      assert.ok(sig, 'a blocked signal on the task');
      assert.equal(sig.session_id, 'head-test-blocker');
      assert.equal(sig.kind, 'upstream_task');
      assert.match(sig.on, /2/);
      assert.equal(sig.detail, 'The modal design is not approved');
      for (const k of [
        'text',
        'summary',
        'remaining',
        'reason',
        'question',
        'what',
        'severity',
        'category',
        'scope',
        'why',
        'rationale',
      ])
        assert.equal(sig[k], null, `${k} is NULL on a blocked signal`);
      assertRecentTimestamp(sig.created, 'signal created');
      const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-blocker'")!;
      assert.ok(session, 'the session row exists');
      assert.deepEqual(
        [session.session_number, session.kind, session.started_by, session.task_id, session.status],
        [sessionsBefore + 1, 'task_execution', 'agent', 5, 'finished'],
      );
      assertRecentTimestamp(session.started, 'session started');
      assert.equal(session.ended, session.started);
      // The upstream task gets a comment (a learned signal) naming the blocked task.
      const upstream = ralphComments(p.dbPath, 2).at(-1)!;
      assert.equal(upstream.generation, 'normalized');
      if (upstream.generation === 'normalized') {
        assert.equal(upstream.verb, 'learned');
        assert.match(upstream.text ?? '', /#5/);
      }

      // Without an upstream task: kind external, the reason in `on`.
      const ts2 = await also(t, p, { recipe: 'task_execution', task: '7', sessionId: 'head-test-blocker-2' });
      await ts2.ok('report_blocker', { reason: 'Waiting for a security review' });
      assert.deepEqual(
        row(
          p,
          'SELECT verb, kind, "on", detail FROM task_signals WHERE task_id = 7 AND session_id = \'head-test-blocker-2\'',
        ),
        {
          verb: 'blocked',
          kind: 'external',
          on: 'Waiting for a security review',
          detail: null,
        },
      );
      assert.equal(
        row(p, "SELECT session_number FROM agent_sessions WHERE id = 'head-test-blocker-2'")!.session_number,
        sessionsBefore + 2,
      );

      // A session Ralph already made (its own signals server's) is used as it is.
      const ralphSession = row(p, "SELECT * FROM agent_sessions WHERE id = 'sess-21-ref'")!;
      const sessionCount = row(p, 'SELECT count(*) AS n FROM agent_sessions')!.n;
      const ts21 = await also(t, p, { recipe: 'task_execution', task: '21', sessionId: 'sess-21-ref' });
      await ts21.ok('report_blocker', { reason: 'Waiting for the signal reference review' });
      assert.deepEqual(row(p, "SELECT * FROM agent_sessions WHERE id = 'sess-21-ref'"), ralphSession);
      assert.equal(row(p, 'SELECT count(*) AS n FROM agent_sessions')!.n, sessionCount);
      assert.equal(
        row(p, 'SELECT session_id FROM task_signals WHERE task_id = 21 ORDER BY id DESC LIMIT 1')!.session_id,
        'sess-21-ref',
      );

      const ts3 = await also(t, p, { recipe: 'task_execution', task: '6' });
      await refused(ts3, p, 'report_blocker', { reason: 'x', on_task_id: 6 }, 'invalid_argument');
      await refused(ts3, p, 'report_blocker', { reason: 'x', on_task_id: 999 }, 'not_found');
      await refused(ts3, p, 'report_blocker', { reason: '' }, 'invalid_argument');
      const done = await also(t, p, { recipe: 'task_execution', task: '1' });
      await refused(done, p, 'report_blocker', { reason: 'x' }, 'conflict');
      const full = await also(t, p, {});
      await refused(full, p, 'report_blocker', { reason: 'no task here' }, 'invalid_argument');
    });

    test('skip_task: skipped with the reason kept as a comment', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('skip_task', { id: 7, reason: 'Sanitization moved to the API layer' });
      assert.equal(r.task.status, 'skipped');
      assert.deepEqual(row(p, 'SELECT status, completed FROM runtime_tasks WHERE id = 7'), {
        status: 'skipped',
        completed: null,
      });
      const c = ralphComments(p.dbPath, 7).at(-1)!;
      assert.equal(c.id, r.comment.id);
      assert.match(c.body, /Sanitization moved to the API layer/);
      assert.ok(
        row(p, 'SELECT 1 AS x FROM agent_sessions a JOIN task_signals s ON s.session_id = a.id WHERE s.id = ?', c.id),
        'its session row exists',
      );

      await refused(s, p, 'skip_task', { id: 7, reason: 'again' }, 'conflict');
      await refused(s, p, 'skip_task', { id: 1, reason: 'done already' }, 'conflict');
      await refused(s, p, 'skip_task', { id: 999, reason: 'x' }, 'not_found');
      await refused(s, p, 'skip_task', { id: 5 }, 'invalid_argument');
    });

    test('spawn_subtasks: all or nothing, dependencies inherited and rewired', async (t) => {
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
        assert.equal(x.feature, 'search');
        assert.equal(x.discipline, 'backend');
      }
      assert.equal(a!.priority, 'critical', "the parent's priority");
      assert.equal(b!.priority, 'high');
      assert.deepEqual(
        col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = 22'),
        [3],
        "the parent's dependencies",
      );
      assert.deepEqual(col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = 23'), [22]);
      assert.deepEqual([...r.rewired].sort(), [14, 15]);
      for (const d of [14, 15])
        assert.ok(
          col(p, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ?', d).includes(23),
          `task ${d} now needs the last subtask`,
        );
      assert.match(ralphComments(p.dbPath, 13).at(-1)!.body, /#22/);

      // A bad second subtask: nothing at all is created.
      assert.match(
        (
          await refused(
            s,
            p,
            'spawn_subtasks',
            { parent_id: 16, tasks: [{ title: 'ok' }, { title: 'bad', feature: 'nope' }] },
            'not_found',
          )
        ).message,
        /nothing was created/,
      );
      await refused(s, p, 'spawn_subtasks', { parent_id: 16, tasks: [{ title: 'a', after: [0] }] }, 'invalid_argument');
      await refused(s, p, 'spawn_subtasks', { parent_id: 1, tasks: [{ title: 'a' }] }, 'conflict');
      await refused(s, p, 'spawn_subtasks', { parent_id: 999, tasks: [{ title: 'a' }] }, 'not_found');
      await refused(s, p, 'spawn_subtasks', { parent_id: 16, tasks: [] }, 'invalid_argument');
    });

    test('move_task_to_feature: another subsystem, named in any case', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('move_task_to_feature', { id: 11, feature: 'SETTINGS' });
      assert.deepEqual([r.previous_feature, r.changed, r.task.feature], ['collections', true, 'settings']);
      assert.equal(runtimeOf(p, 11)!.subsystem_id, subsystemId(p, 'settings'));
      assert.equal(ralphTask(p.dbPath, 11)!.feature, 'settings');
      assert.equal((await s.ok('move_task_to_feature', { id: 11, feature: 'settings' })).changed, false);

      assert.match(
        (await refused(s, p, 'move_task_to_feature', { id: 11, feature: 'nope' }, 'not_found')).message,
        /collections/,
      );
      await refused(s, p, 'move_task_to_feature', { id: 999, feature: 'settings' }, 'not_found');
    });

    test('update_task_context: add and remove context files, replace hints', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('update_task_context', {
        id: 5,
        add_context_files: ['src/ui/EditModal.tsx', './src/ui/forms.ts'],
        hints: 'Reuse the create form',
      });
      assert.deepEqual(r.added, ['src/ui/EditModal.tsx', 'src/ui/forms.ts']);
      assert.deepEqual(col(p, 'SELECT file_path FROM task_context_files WHERE task_id = 5 ORDER BY id'), [
        'src/ui/EditModal.tsx',
        'src/ui/forms.ts',
      ]);
      assert.equal(detailsOf(p, 5).hints, 'Reuse the create form');
      const r2 = await s.ok('update_task_context', {
        id: 5,
        remove_context_files: ['./src/ui/EditModal.tsx'],
        add_context_files: ['src/ui/forms.ts'],
      });
      assert.deepEqual([r2.added, r2.removed], [[], ['src/ui/EditModal.tsx']]);
      assert.deepEqual(col(p, 'SELECT file_path FROM task_context_files WHERE task_id = 5'), ['src/ui/forms.ts']);
      sameTask(p, r2.task);

      await refused(s, p, 'update_task_context', { id: 5 }, 'invalid_argument', /nothing to update/);
      await refused(s, p, 'update_task_context', { id: 5, add_context_files: ['/etc/passwd'] }, 'invalid_argument');
      await refused(s, p, 'update_task_context', { id: 5, add_context_files: ['../x.ts'] }, 'invalid_argument');
      await refused(s, p, 'update_task_context', { id: 999, hints: 'x' }, 'not_found');
    });

    test('get_dependency_details: transitive dependencies with their signals', async (t) => {
      const { p, s } = await open(t);
      const r = await s.ok('get_dependency_details', { id: 4 });
      assert.equal(r.task_id, 4);
      assert.deepEqual(
        r.dependencies.map((d: AnyRow) => [d.id, d.depth, d.status]),
        [
          [3, 1, 'done'],
          [2, 2, 'done'],
        ],
      );
      assert.deepEqual(
        ids(r.dependencies[0].comments),
        col(p, 'SELECT id FROM task_signals WHERE task_id = 3 ORDER BY id'),
      );
      assert.deepEqual([r.missing, r.truncated], [[], false]);
      const shallow = await s.ok('get_dependency_details', { id: 4, depth: 1 });
      assert.deepEqual([ids(shallow.dependencies), shallow.truncated], [[3], true]);

      await refused(s, p, 'get_dependency_details', { id: 999 }, 'not_found');
      await refused(s, p, 'get_dependency_details', { id: 4, depth: 0 }, 'invalid_argument');
    });
  });

  // ------------------------------------------------------------------------------------------------
  describe('templates (05-desktop-templates)', () => {
    test('update_task on a task pulled from a template: the template keeps its details, the task gets its own', async (t) => {
      const { p, s } = await open(t, TEMPLATES);
      const pulled = runtimeOf(p, 1)!;
      assert.equal(pulled.template_id, 1);
      const templateDetails = row(
        p,
        'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = 1',
      )!;
      assert.equal(pulled.details_id, templateDetails.id, "the fixture: the task shares its template's details row");
      const templates = rows(p, 'SELECT * FROM task_templates ORDER BY id');
      const others = [2, 3, 4].map((id) => ralphTask(p.dbPath, id));

      assert.deepEqual(
        (await s.ok('get_task', { id: 1 })).task.template,
        { id: 1, title: templateDetails.title },
        'get_task says which template',
      );
      assert.equal((await s.ok('list_tasks', {})).tasks.find((x: AnyRow) => x.id === 1).template_id, 1);

      const r = await s.ok('update_task', {
        id: 1,
        title: 'Regression sweep (this sprint)',
        priority: 'critical',
        tags: ['sprint'],
      });
      sameTask(p, r.task);
      assert.deepEqual(r.task.template, { id: 1, title: templateDetails.title }, "still the template's own title");
      assert.deepEqual(
        row(p, 'SELECT * FROM task_details WHERE id = ?', templateDetails.id),
        templateDetails,
        "the template's details row is unchanged",
      );
      assert.deepEqual(rows(p, 'SELECT * FROM task_templates ORDER BY id'), templates, 'task_templates unchanged');
      const now = runtimeOf(p, 1)!;
      assert.notEqual(now.details_id, templateDetails.id, 'the task has its own details row');
      assert.equal(now.template_id, 1, 'template_id kept');
      const own = row(p, 'SELECT * FROM task_details WHERE id = ?', now.details_id)!;
      assert.deepEqual(
        [
          own.title,
          own.priority,
          own.discipline_id,
          own.description,
          own.hints,
          own.estimated_turns,
          own.pseudocode,
          own.agent,
          own.model,
          own.effort,
          own.thinking,
        ],
        [
          'Regression sweep (this sprint)',
          'critical',
          templateDetails.discipline_id,
          templateDetails.description,
          templateDetails.hints,
          templateDetails.estimated_turns,
          templateDetails.pseudocode,
          templateDetails.agent,
          templateDetails.model,
          templateDetails.effort,
          templateDetails.thinking,
        ],
        'the copy keeps every other field of the template',
      );
      const seen = ralphTask(p.dbPath, 1)!;
      assert.deepEqual(
        [seen.title, seen.priority, seen.template_id, seen.tags],
        ['Regression sweep (this sprint)', 'critical', 1, ['sprint']],
      );
      assert.deepEqual(
        [2, 3, 4].map((id) => ralphTask(p.dbPath, id)),
        others,
        'other tasks unchanged',
      );

      // A second update changes the task's own row, not another copy.
      const detailsCount = Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n);
      await s.ok('update_task', { id: 1, description: 'Only this sprint' });
      assert.equal(runtimeOf(p, 1)!.details_id, now.details_id);
      assert.equal(Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n), detailsCount);
      assert.deepEqual(row(p, 'SELECT * FROM task_details WHERE id = ?', templateDetails.id), templateDetails);

      // The search index follows the task to its own details row.
      assert.deepEqual(ids((await s.ok('search_tasks', { query: 'sprint' })).results), [1]);

      // Enriching or setting context on a template task leaves the template alone too.
      await s.ok('update_task_context', { id: 2, hints: 'Check the lockfile first' });
      const t2 = row(
        p,
        'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = 2',
      )!;
      assert.notEqual(t2.hints, 'Check the lockfile first', "template 2's details row unchanged");
      assert.equal(ralphTask(p.dbPath, 2)!.hints, 'Check the lockfile first');
      assert.equal(ralphTask(p.dbPath, 2)!.template_id, 2);

      const t5 = row(
        p,
        'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = 5',
      )!;
      assert.equal(runtimeOf(p, 3)!.details_id, t5.id);
      await s.ok('set_task_status', { id: 3, status: 'draft' });
      await s.ok('enrich_task', { id: 3, pseudocode: '1. read the git log\n2. write the entry' });
      assert.deepEqual(
        row(p, 'SELECT * FROM task_details WHERE id = ?', t5.id),
        t5,
        "template 5's details row unchanged by enrich_task",
      );
      assert.notEqual(runtimeOf(p, 3)!.details_id, t5.id);
      assert.deepEqual(
        [ralphTask(p.dbPath, 3)!.pseudocode, ralphTask(p.dbPath, 3)!.status, ralphTask(p.dbPath, 3)!.template_id],
        ['1. read the git log\n2. write the entry', 'pending', 5],
      );
    });

    test('delete_task on a task pulled from a template keeps the template and its details row', async (t) => {
      const { p, s } = await open(t, TEMPLATES);
      // Task 3 was pulled from template 5 and shares its details row.
      const template = runtimeOf(p, 3)!.template_id;
      assert.equal(template, 5);
      const templateDetails = row(
        p,
        'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = ?',
        template,
      )!;
      assert.equal(runtimeOf(p, 3)!.details_id, templateDetails.id);
      const templates = rows(p, 'SELECT * FROM task_templates ORDER BY id');
      await s.ok('delete_task', { id: 3 });
      assert.equal(runtimeOf(p, 3), undefined);
      assert.deepEqual(
        row(p, 'SELECT * FROM task_details WHERE id = ?', templateDetails.id),
        templateDetails,
        "the template's details row is kept",
      );
      assert.deepEqual(
        rows(p, 'SELECT * FROM task_templates ORDER BY id'),
        templates,
        'the templates are kept, unchanged',
      );
      // A task with a details row of its own loses it (4 is not from a template).
      const d4 = runtimeOf(p, 4)!.details_id;
      await s.ok('delete_task', { id: 4 });
      assert.equal(row(p, 'SELECT count(*) AS n FROM task_details WHERE id = ?', d4)!.n, 0);
    });

    test('delete_discipline is refused while a template uses it', async (t) => {
      const { p, s } = await open(t, TEMPLATES);
      // frontend: no task, but template 4 uses it.
      assert.equal(
        row(
          p,
          "SELECT count(*) AS n FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id JOIN disciplines di ON di.id = d.discipline_id WHERE di.name = 'frontend'",
        )!.n,
        0,
      );
      assert.match((await refused(s, p, 'delete_discipline', { name: 'frontend' }, 'conflict')).message, /template/);
      assert.match((await refused(s, p, 'delete_discipline', { name: 'quality' }, 'conflict')).message, /task/);
      await s.ok('delete_discipline', { name: 'integration' });
      assert.equal(ralphDiscipline(p.dbPath, 'integration'), undefined);
    });
  });

  // ------------------------------------------------------------------------------------------------
  describe('comments are signals', () => {
    test('add/update/delete_task_comment: a `learned` signal (discovery, task) with its session row', async (t) => {
      const { p } = await open(t);
      const s = await also(t, p, { sessionId: 'head-test-comments' });
      const maxSession = Number(row(p, 'SELECT max(session_number) AS n FROM agent_sessions')!.n);
      const { comment } = await s.ok('add_task_comment', {
        task_id: 5,
        body: 'The modal must trap focus',
        priority: 'high',
      });
      assert.equal(comment.body, 'The modal must trap focus');
      assert.equal(comment.author, 'agent', 'signed by the server: the session has no discipline');
      const sig = row(p, 'SELECT * FROM task_signals WHERE id = ?', comment.id)!;
      assert.deepEqual(
        [sig.task_id, sig.verb, sig.kind, sig.scope, sig.text, sig.session_id],
        [5, 'learned', 'discovery', 'task', 'The modal must trap focus', 'head-test-comments'],
      );
      assertRecentTimestamp(sig.created, 'signal created');
      const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-comments'")!;
      assert.ok(session, 'the session row exists');
      assert.equal(session.session_number, maxSession + 1);
      assert.equal(session.started_by, 'agent');
      const seen = ralphComments(p.dbPath, 5).at(-1)!;
      assert.equal(seen.id, comment.id);
      assert.equal(seen.body, 'The modal must trap focus');

      // A second comment in the same session reuses its row.
      await s.ok('add_task_comment', { task_id: 6, body: 'Second note' });
      assert.equal(row(p, "SELECT count(*) AS n FROM agent_sessions WHERE id = 'head-test-comments'")!.n, 1);
      assert.equal(Number(row(p, 'SELECT max(session_number) AS n FROM agent_sessions')!.n), maxSession + 1);

      const edited = await s.ok('update_task_comment', {
        task_id: 5,
        comment_id: comment.id,
        body: 'The modal must trap focus and close on Escape',
      });
      assert.equal(edited.comment.body, 'The modal must trap focus and close on Escape');
      assert.equal(
        row(p, 'SELECT text FROM task_signals WHERE id = ?', comment.id)!.text,
        'The modal must trap focus and close on Escape',
      );
      // A learned signal Ralph's own agents wrote is a plain comment too.
      const ralphs = Number(row(p, "SELECT id FROM task_signals WHERE task_id = 1 AND verb = 'learned'")!.id);
      await s.ok('update_task_comment', { task_id: 1, comment_id: ralphs, body: 'Edited by a person' });
      assert.equal(row(p, 'SELECT text FROM task_signals WHERE id = ?', ralphs)!.text, 'Edited by a person');

      // Signals of other verbs are kept as the agent reported them.
      for (const verb of ['done', 'partial', 'stuck', 'ask', 'flag', 'suggest', 'blocked']) {
        const id = Number(row(p, 'SELECT id FROM task_signals WHERE task_id = 21 AND verb = ? LIMIT 1', verb)!.id);
        assert.match(
          (await refused(s, p, 'update_task_comment', { task_id: 21, comment_id: id, body: 'rewritten' }, 'conflict'))
            .message,
          new RegExp(verb),
        );
      }
      assert.match(
        (await refused(s, p, 'update_task_comment', { task_id: 5, comment_id: 999, body: 'x' }, 'not_found')).message,
        new RegExp(String(comment.id)),
      );
      await refused(
        s,
        p,
        'update_task_comment',
        { task_id: 6, comment_id: comment.id, body: 'wrong task' },
        'not_found',
      );
      await refused(s, p, 'update_task_comment', { task_id: 5, comment_id: comment.id, body: '' }, 'invalid_argument');

      assert.deepEqual(await s.ok('delete_task_comment', { task_id: 5, comment_id: comment.id }), {
        deleted_id: comment.id,
        task_id: 5,
      });
      assert.equal(row(p, 'SELECT id FROM task_signals WHERE id = ?', comment.id), undefined);
      await refused(s, p, 'delete_task_comment', { task_id: 5, comment_id: comment.id }, 'not_found');
      await refused(s, p, 'delete_task_comment', { task_id: 999, comment_id: 1 }, 'not_found');

      await refused(s, p, 'add_task_comment', { task_id: 999, body: 'x' }, 'not_found');
      await refused(s, p, 'add_task_comment', { task_id: 5, body: 'x', discipline: 'wizardry' }, 'not_found');
      await refused(s, p, 'add_task_comment', { task_id: 5, body: '  ' }, 'invalid_argument');
      await refused(s, p, 'add_task_comment', { task_id: 5, body: 'x', author: 'human' }, 'invalid_argument');
    });
  });

  // ------------------------------------------------------------------------------------------------
  describe('features are subsystems', () => {
    test('list_features and get_feature (names case-insensitive)', async (t) => {
      const { p, s } = await open(t);
      assert.deepEqual(
        (await s.ok('list_features', {})).features.map((f: AnyRow) => f.name).sort(),
        col(p, 'SELECT name FROM subsystems').map(String).sort(),
      );
      const { feature } = await s.ok('get_feature', { name: 'BOOKMARK-CRUD' });
      const ralph = ralphFeature(p.dbPath, 'bookmark-crud')!;
      assert.equal(feature.name, 'bookmark-crud');
      for (const k of [
        'display_name',
        'acronym',
        'description',
        'architecture',
        'boundaries',
        'knowledge_paths',
        'context_files',
        'dependencies',
      ] as const) {
        assert.deepEqual(feature[k], ralph[k], k);
      }
      assert.deepEqual(
        feature.learnings.map((l: AnyRow) => l.text),
        ralph.learnings.map((l) => l.text),
      );
      const err = await refused(s, p, 'get_feature', { name: 'sharing' }, 'not_found');
      assert.match(err.message, /sharing/);
      assert.match(err.message, /bookmark-crud/);
    });

    test('create_feature, update_feature, delete_feature', async (t) => {
      const { p, s } = await open(t);
      const { feature } = await s.ok('create_feature', {
        name: 'cloud-sync',
        display_name: 'Cloud Sync',
        description: 'Sync bookmarks across devices',
        context_files: ['src/sync/index.ts'],
        knowledge_paths: ['docs/sync.md'],
        dependencies: ['Bookmark-CRUD'],
      });
      assert.equal(feature.name, 'cloud-sync');
      assert.match(feature.acronym, /^[A-Z0-9]{4}$/);
      const sub = row(p, "SELECT * FROM subsystems WHERE name = 'cloud-sync'")!;
      assert.deepEqual(
        [sub.display_name, sub.description, sub.status, sub.acronym],
        ['Cloud Sync', 'Sync bookmarks across devices', 'active', feature.acronym],
      );
      assertToday(sub.created, 'subsystems.created');
      assert.deepEqual(col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ?', sub.id), [
        'src/sync/index.ts',
      ]);
      assert.deepEqual(col(p, 'SELECT path FROM subsystem_knowledge_paths WHERE subsystem_id = ?', sub.id), [
        'docs/sync.md',
      ]);
      assert.deepEqual(
        col(p, 'SELECT depends_on_subsystem_id FROM subsystem_dependencies WHERE subsystem_id = ?', sub.id),
        [subsystemId(p, 'bookmark-crud')],
      );
      assert.deepEqual(ralphFeature(p.dbPath, 'CLOUD-SYNC')!.dependencies, ['bookmark-crud']);

      assert.match(
        (await refused(s, p, 'create_feature', { name: 'search', display_name: 'Search again' }, 'conflict')).message,
        /search/,
      );
      await refused(s, p, 'create_feature', { name: 'Search', display_name: 'Search again' }, 'invalid_argument');
      await refused(s, p, 'create_feature', { name: 'x-feature', display_name: 'X', acronym: 'SRCH' }, 'conflict');
      await refused(
        s,
        p,
        'create_feature',
        { name: 'x-feature', display_name: 'X', acronym: 'toolong' },
        'invalid_argument',
      );
      await refused(
        s,
        p,
        'create_feature',
        { name: 'x-feature', display_name: 'X', dependencies: ['nope'] },
        'invalid_argument',
      );
      await refused(s, p, 'create_feature', { name: 'x-feature' }, 'invalid_argument');

      const u = await s.ok('update_feature', {
        name: 'SEARCH',
        description: 'Instant search',
        architecture: 'FTS5 index',
        context_files: ['src/search.ts'],
      });
      assert.deepEqual([...u.changed].sort(), ['architecture', 'context_files', 'description']);
      assert.deepEqual(row(p, "SELECT description, architecture FROM subsystems WHERE name = 'search'"), {
        description: 'Instant search',
        architecture: 'FTS5 index',
      });
      assert.deepEqual(
        col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ?', subsystemId(p, 'search')),
        ['src/search.ts'],
      );
      await refused(s, p, 'update_feature', { name: 'search' }, 'invalid_argument', /nothing to update/);
      await refused(s, p, 'update_feature', { name: 'nope', description: 'x' }, 'not_found');
      await refused(
        s,
        p,
        'update_feature',
        { name: 'bookmark-crud', dependencies: ['cloud-sync'] },
        'invalid_argument',
        /cycle/,
      );
      await refused(s, p, 'update_feature', { name: 'search', acronym: 'BKMK' }, 'conflict');

      // Deleting: refused while tasks belong to it or another feature depends on it.
      assert.match((await refused(s, p, 'delete_feature', { name: 'Search' }, 'conflict')).message, /task/);
      await s.ok('create_feature', { name: 'offline', display_name: 'Offline mode', dependencies: ['cloud-sync'] });
      assert.match((await refused(s, p, 'delete_feature', { name: 'cloud-sync' }, 'conflict')).message, /offline/);
      await refused(s, p, 'delete_feature', { name: 'nope' }, 'not_found');
      assert.deepEqual(await s.ok('delete_feature', { name: 'OFFLINE' }), { deleted: 'offline' });
      await s.ok('delete_feature', { name: 'cloud-sync' });
      assert.equal(row(p, "SELECT id FROM subsystems WHERE name = 'cloud-sync'"), undefined);
      assert.equal(row(p, 'SELECT count(*) AS n FROM subsystem_context_files WHERE subsystem_id = ?', sub.id)!.n, 0);
      assert.equal(row(p, 'SELECT count(*) AS n FROM subsystem_dependencies WHERE subsystem_id = ?', sub.id)!.n, 0);
    });

    test('append_feature_learning: a subsystem_comments row; a near-duplicate bumps hit_count', async (t) => {
      const { p, s } = await open(t);
      const otherComments = rows(p, "SELECT * FROM subsystem_comments WHERE category <> 'learning' ORDER BY id");
      const text = 'The search index must be rebuilt after a bulk import of bookmarks';
      const r = await s.ok('append_feature_learning', {
        feature_name: 'Search',
        text,
        reason: 'stale results otherwise',
        task_id: 13,
      });
      assert.equal(r.outcome, 'added');
      assert.equal(r.learning_count, 1);
      const learned = rows(p, "SELECT * FROM subsystem_comments WHERE category = 'learning'");
      assert.equal(learned.length, 1);
      const l = learned[0]!;
      assert.deepEqual(
        [l.subsystem_id, l.body, l.reason, l.agent_task_id],
        [subsystemId(p, 'search'), text, 'stale results otherwise', 13],
      );
      assertRecentTimestamp(l.created, 'subsystem_comments.created');
      assert.equal(row(p, 'SELECT hit_count FROM ralph_mcp_learning_meta WHERE comment_id = ?', l.id)!.hit_count, 1);
      assert.deepEqual(
        ralphFeature(p.dbPath, 'search')!.learnings.map((x) => x.body),
        [text],
      );

      const dup = await s.ok('append_feature_learning', {
        feature_name: 'search',
        text: 'The search index must be rebuilt after bulk imports of bookmarks',
      });
      assert.equal(dup.outcome, 'duplicate');
      assert.equal(dup.learning.hit_count, 2);
      assert.equal(
        row(p, "SELECT count(*) AS n FROM subsystem_comments WHERE category = 'learning'")!.n,
        1,
        'no second row',
      );
      assert.equal(row(p, 'SELECT hit_count FROM ralph_mcp_learning_meta WHERE comment_id = ?', l.id)!.hit_count, 2);
      assert.equal(
        row(p, 'SELECT body FROM subsystem_comments WHERE id = ?', l.id)!.body,
        text,
        'the stored lesson is kept',
      );
      assert.deepEqual(
        rows(p, "SELECT * FROM subsystem_comments WHERE category <> 'learning' ORDER BY id"),
        otherComments,
        "Ralph's other subsystem comments are untouched",
      );

      const learnings = await s.ok('get_feature_learnings', { feature_name: 'SEARCH' });
      assert.deepEqual(
        learnings.learnings.map((x: AnyRow) => [x.text, x.hit_count]),
        [[text, 2]],
      );
      assert.deepEqual((await s.ok('get_feature_learnings', { feature_name: 'collections' })).learnings, []);
      await refused(s, p, 'get_feature_learnings', { feature_name: 'nope' }, 'not_found');

      await refused(
        s,
        p,
        'append_feature_learning',
        { feature_name: 'nope', text: 'a lesson about nothing at all' },
        'not_found',
      );
      await refused(s, p, 'append_feature_learning', { feature_name: 'search', text: '' }, 'invalid_argument');
      await refused(
        s,
        p,
        'append_feature_learning',
        { feature_name: 'search', text: 'a lesson from nowhere', task_id: 999 },
        'not_found',
      );
      await refused(
        s,
        p,
        'append_feature_learning',
        { feature_name: 'search', text: 'a lesson', source: 'opus_reviewed' },
        'invalid_argument',
      );
    });

    test('add_feature_context_file: a subsystem_context_files row, once', async (t) => {
      const { p, s } = await open(t);
      const id = subsystemId(p, 'collections');
      const before = col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ? ORDER BY id', id);
      const r = await s.ok('add_feature_context_file', {
        feature_name: 'Collections',
        file_path: './src/collections/model.ts',
      });
      assert.deepEqual([r.feature_name, r.file_path, r.added], ['collections', 'src/collections/model.ts', true]);
      assert.deepEqual(col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ? ORDER BY id', id), [
        ...before,
        'src/collections/model.ts',
      ]);
      assert.equal(
        (await s.ok('add_feature_context_file', { feature_name: 'collections', file_path: 'src/collections/model.ts' }))
          .added,
        false,
      );
      assert.equal(
        col(p, 'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ?', id).length,
        before.length + 1,
      );

      await refused(
        s,
        p,
        'add_feature_context_file',
        { feature_name: 'collections', file_path: '../secrets.txt' },
        'invalid_argument',
      );
      await refused(s, p, 'add_feature_context_file', { feature_name: 'nope', file_path: 'src/x.ts' }, 'not_found');
      await refused(
        s,
        p,
        'add_feature_context_file',
        { feature_name: 'collections', file_path: '' },
        'invalid_argument',
      );
    });
  });

  // ------------------------------------------------------------------------------------------------
  describe('disciplines', () => {
    test('list/get/create/update/delete_discipline', async (t) => {
      const { p, s } = await open(t);
      assert.deepEqual(
        (await s.ok('list_disciplines', {})).disciplines.map((d: AnyRow) => d.name).sort(),
        col(p, 'SELECT name FROM disciplines').map(String).sort(),
      );
      const { discipline } = await s.ok('get_discipline', { name: 'FRONTEND' });
      const ralph = ralphDiscipline(p.dbPath, 'frontend')!;
      assert.equal(discipline.name, 'frontend');
      for (const k of ['display_name', 'acronym', 'icon', 'color', 'system_prompt', 'conventions', 'skills'] as const)
        assert.deepEqual(discipline[k], ralph[k], k);
      assert.match((await refused(s, p, 'get_discipline', { name: 'wizardry' }, 'not_found')).message, /frontend/);

      const created = (
        await s.ok('create_discipline', {
          name: 'devops',
          display_name: 'DevOps',
          icon: 'Server',
          color: '#123456',
          skills: ['docker', 'terraform'],
          system_prompt: 'You ship it.',
          conventions: 'IaC only',
        })
      ).discipline;
      assert.match(created.acronym, /^[A-Z0-9]{4}$/);
      const d = row(p, "SELECT * FROM disciplines WHERE name = 'devops'")!;
      assert.deepEqual(
        [d.display_name, d.icon, d.color, d.system_prompt, d.conventions],
        ['DevOps', 'Server', '#123456', 'You ship it.', 'IaC only'],
      );
      assert.deepEqual(col(p, 'SELECT skill FROM discipline_skills WHERE discipline_id = ? ORDER BY id', d.id), [
        'docker',
        'terraform',
      ]);
      assert.deepEqual(ralphDiscipline(p.dbPath, 'DevOps')!.skills, ['docker', 'terraform']);
      await refused(
        s,
        p,
        'create_discipline',
        { name: 'frontend', display_name: 'F', icon: 'Code', color: '#000000' },
        'conflict',
      );
      await refused(
        s,
        p,
        'create_discipline',
        { name: 'ops2', display_name: 'Ops', icon: 'Code', color: 'blue' },
        'invalid_argument',
      );
      await refused(
        s,
        p,
        'create_discipline',
        { name: 'ops2', display_name: 'Ops', icon: 'Code', color: '#000000', acronym: created.acronym },
        'conflict',
      );
      await refused(s, p, 'create_discipline', { name: 'ops2', display_name: 'Ops' }, 'invalid_argument');

      const u = await s.ok('update_discipline', {
        name: 'Integration',
        conventions: 'Contract tests first',
        skills: ['pact'],
      });
      assert.deepEqual([...u.changed].sort(), ['conventions', 'skills']);
      const integ = row(p, "SELECT * FROM disciplines WHERE name = 'integration'")!;
      assert.equal(integ.conventions, 'Contract tests first');
      assert.deepEqual(col(p, 'SELECT skill FROM discipline_skills WHERE discipline_id = ?', integ.id), ['pact']);
      await refused(s, p, 'update_discipline', { name: 'integration' }, 'invalid_argument', /nothing to update/);
      await refused(s, p, 'update_discipline', { name: 'wizardry', conventions: 'x' }, 'not_found');
      await refused(s, p, 'update_discipline', { name: 'integration', color: 'red' }, 'invalid_argument');

      // 04: frontend has tasks; data has a task and a template; platform has neither.
      assert.match((await refused(s, p, 'delete_discipline', { name: 'frontend' }, 'conflict')).message, /task/);
      await refused(s, p, 'delete_discipline', { name: 'data' }, 'conflict');
      await refused(s, p, 'delete_discipline', { name: 'wizardry' }, 'not_found');
      assert.deepEqual(await s.ok('delete_discipline', { name: 'Platform' }), { deleted: 'platform' });
      assert.equal(row(p, "SELECT id FROM disciplines WHERE name = 'platform'"), undefined);
      await s.ok('delete_discipline', { name: 'devops' });
      assert.equal(row(p, 'SELECT count(*) AS n FROM discipline_skills WHERE discipline_id = ?', d.id)!.n, 0);
    });
  });

  // ------------------------------------------------------------------------------------------------
  describe('project, state files, session', () => {
    test('get_project_info and get_project_progress (totals equal SQL counts)', async (t) => {
      const { p, s } = await open(t);
      const info = await s.ok('get_project_info', {});
      const meta = row(p, 'SELECT * FROM metadata WHERE id = 1')!;
      assert.deepEqual(
        [info.title, info.description, info.created],
        [meta.project_title, meta.project_description, meta.project_created],
      );

      const check = async () => {
        const g = await s.ok('get_project_progress', {});
        assert.equal(g.total, row(p, 'SELECT count(*) AS n FROM runtime_tasks')!.n);
        assert.equal(g.done, row(p, "SELECT count(*) AS n FROM runtime_tasks WHERE status = 'done'")!.n);
        const byStatus = Object.fromEntries(RALPH_STATUSES.map((x) => [x, 0]));
        for (const r of rows(p, 'SELECT status, count(*) AS n FROM runtime_tasks GROUP BY status'))
          byStatus[r.status] = r.n;
        assert.deepEqual(g.by_status, byStatus);
        const byFeature = rows(
          p,
          "SELECT s.name, count(t.id) AS total, coalesce(sum(t.status = 'done'), 0) AS done FROM subsystems s LEFT JOIN runtime_tasks t ON t.subsystem_id = s.id GROUP BY s.id",
        );
        assert.deepEqual(
          [...g.by_feature].sort((a: AnyRow, b: AnyRow) => a.name.localeCompare(b.name)),
          byFeature
            .map((r) => ({ name: r.name, done: r.done, total: r.total }))
            .sort((a, b) => a.name.localeCompare(b.name)),
        );
        const byDiscipline = rows(
          p,
          "SELECT di.name, count(t.id) AS total, coalesce(sum(t.status = 'done'), 0) AS done FROM disciplines di LEFT JOIN task_details d ON d.discipline_id = di.id LEFT JOIN runtime_tasks t ON t.details_id = d.id GROUP BY di.id",
        );
        assert.deepEqual(
          [...g.by_discipline].sort((a: AnyRow, b: AnyRow) => a.name.localeCompare(b.name)),
          byDiscipline
            .map((r) => ({ name: r.name, done: r.done, total: r.total }))
            .sort((a, b) => a.name.localeCompare(b.name)),
        );
        assert.equal(g.percent_done, Math.round((1000 * g.done) / g.total) / 10);
      };
      await check();
      await s.ok('set_task_status', { id: 5, status: 'done' });
      await s.ok('create_task', { feature: 'settings', discipline: 'integration', title: 'Sync settings' });
      await check();
      await refused(s, p, 'get_project_info', { verbose: true }, 'invalid_argument');
    });

    test('append/read learnings and progress', async (t) => {
      const { p, s } = await open(t);
      const before = dump(p);
      const a = await s.ok('append_learning', { text: 'Bookmarks are keyed by URL' });
      assert.equal(a.file, '.ralph/learnings.txt');
      assert.ok(readFileSync(p.learningsFile, 'utf8').includes('Bookmarks are keyed by URL'));
      await s.ok('append_learning', { text: 'Collections nest at most three deep' });
      const r = await s.ok('read_learnings', {});
      assert.equal(r.entry_count, 2);
      assert.match(r.content, /Bookmarks are keyed by URL[\s\S]*Collections nest/);
      const last = await s.ok('read_learnings', { last: 1 });
      assert.equal(last.returned_entries, 1);
      assert.doesNotMatch(last.content, /keyed by URL/);

      await s.ok('append_progress', { text: 'Finished the card layout' });
      assert.ok(readFileSync(p.progressFile, 'utf8').includes('Finished the card layout'));
      assert.equal((await s.ok('read_progress', {})).entry_count, 1);
      assert.ok(dump(p) === before, "state files are not in the database: Ralph's tables are unchanged");

      await refused(s, p, 'append_learning', { text: '' }, 'invalid_argument');
      await refused(s, p, 'append_progress', { text: '   ' }, 'invalid_argument');
      await refused(s, p, 'read_learnings', { last: 0 }, 'invalid_argument');
      await refused(s, p, 'read_progress', { last: 'all' }, 'invalid_argument');
    });

    test("signal_abort records the abort for Ralph, and on this generation also Ralph's own stuck signal", async (t) => {
      const { p } = await open(t);
      const s = await also(t, p, { recipe: 'task_execution', task: '4', sessionId: 'head-test-abort' });
      const signalsBefore = row(p, 'SELECT count(*) AS n FROM task_signals')!.n;
      const r = await s.ok('signal_abort', { reason: 'rate limited by the provider' });
      assert.equal(r.session_id, 'head-test-abort');
      assert.match(r.instruction, /stop/i);
      const sig = row(p, 'SELECT * FROM ralph_mcp_signals WHERE id = ?', r.signal_id)!;
      assert.ok(sig, 'the abort is recorded');
      assert.deepEqual(
        [sig.session_id, sig.task_id, sig.reason],
        ['head-test-abort', 4, 'rate limited by the provider'],
      );
      assert.equal(
        row(p, 'SELECT count(*) AS n FROM task_signals')!.n,
        signalsBefore + 1,
        "exactly one signal of Ralph's",
      );
      const stuck = row(p, "SELECT * FROM task_signals WHERE session_id = 'head-test-abort'")!;
      assert.deepEqual(
        [stuck.task_id, stuck.verb, stuck.reason, stuck.summary, stuck.text],
        [4, 'stuck', 'rate limited by the provider', null, null],
      );
      const session = row(p, "SELECT * FROM agent_sessions WHERE id = 'head-test-abort'")!;
      assert.deepEqual(
        [session.kind, session.started_by, session.task_id, session.status],
        ['task_execution', 'agent', 4, 'finished'],
      );
      await refused(s, p, 'signal_abort', { reason: '' }, 'invalid_argument');
      await refused(s, p, 'signal_abort', {}, 'invalid_argument');
    });

    test('out_of_scope: a task session may not change another task (reading is allowed)', async (t) => {
      const { p } = await open(t);
      const s = await also(t, p, { recipe: 'task_execution', task: '4' });
      assert.equal((await s.ok('get_task', { id: 3 })).task.id, 3, 'reading another task is allowed');
      assert.match(
        (await refused(s, p, 'set_task_status', { id: 5, status: 'done' }, 'out_of_scope')).message,
        /task 4/,
      );
      await refused(s, p, 'update_task_context', { id: 5, hints: 'x' }, 'out_of_scope');
      // A feature other than the task's (bookmark-crud).
      await refused(
        s,
        p,
        'add_feature_context_file',
        { feature_name: 'search', file_path: 'src/x.ts' },
        'out_of_scope',
      );
      // Its own task and feature are fine; the task argument defaults to its own.
      await s.ok('set_task_status', { status: 'done' });
      assert.equal(runtimeOf(p, 4)!.status, 'done');
      await s.ok('add_feature_context_file', { file_path: 'src/bookmarks/store.ts' });
      assert.ok(
        col(
          p,
          'SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ?',
          subsystemId(p, 'bookmark-crud'),
        ).includes('src/bookmarks/store.ts'),
      );
      // Hidden tools are not there at all.
      await assert.rejects(s.call('delete_task', { id: 5 }), /Unknown tool/);
    });
  });
});
