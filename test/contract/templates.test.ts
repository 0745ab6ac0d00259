import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, test, type TestContext } from 'node:test';
import { toolsTable } from '../../src/cli/toolsTable.js';
import type { Project } from '../../src/domain/project.js';
import { planToJson } from '../../src/session/planJson.js';
import { assertToday, row, rows, type AnyRow } from '../helpers/assertions.js';
import { HEAD_FIXTURE_SKIP, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { dump, fixtureProject, sql } from '../helpers/project.js';
import { ralphTask } from '../helpers/ralphRead.js';
import { NORMALIZED_ONLY, RECIPE_TOOLS, VALID_ARGS } from '../helpers/spec.js';
import { contract, openInProc } from './harness.js';
import { refused, unchanged } from './support.js';

/**
 * Task templates (Ralph's head: `task_templates` over a shared `task_details` row): listed with their
 * pulled counts as Ralph's own query reads them, and a task made from one as Ralph pulls one — the
 * template's details row, until the task's first change copies it. Only the normalized generation has
 * them: on a legacy database the tools do not exist. Ralph's read rules are checked after every write
 * (the harness).
 */

const TEMPLATES = '05-desktop-templates.db';
const TEMPLATE_TOOLS = ['list_templates', 'create_task_from_template'];

/**
 * Ralph's get_active_task_templates_for_discipline (crates/sqlite-db/src/tasks.rs at 0c56edd), word for
 * word but `?` for rusqlite's `?1`: what Ralph's app shows of a discipline's templates.
 */
const RALPH_TEMPLATES_SQL = `SELECT tt.id, td.discipline_id, td.title, td.description, td.priority, td.hints,
  td.estimated_turns, td.agent, td.model, td.effort, td.thinking, td.pseudocode,
  td.created, td.updated,
  (SELECT COUNT(*) FROM runtime_tasks rt WHERE rt.template_id = tt.id) AS pulled_count
  FROM task_templates tt
  JOIN task_details td ON tt.details_id = td.id
  WHERE tt.is_active = 1 AND td.discipline_id = ?
  ORDER BY tt.id`;

/** Every active template as Ralph's app reads them, discipline by discipline, in the tool's fields. */
function ralphTemplates(p: Project): AnyRow[] {
  const out: AnyRow[] = [];
  for (const d of rows(p, 'SELECT id, name FROM disciplines ORDER BY id'))
    for (const t of rows(p, RALPH_TEMPLATES_SQL, d.id))
      out.push({
        id: t.id,
        title: t.title,
        discipline: d.name,
        priority: t.priority,
        description: t.description,
        active: true,
        pulled_count: t.pulled_count,
      });
  return out.sort((a, b) => a.id - b.id);
}

const detailsOfTask = (p: Project, id: number) =>
  row(p, 'SELECT td.* FROM runtime_tasks t JOIN task_details td ON td.id = t.details_id WHERE t.id = ?', id)!;
const detailsOfTemplate = (p: Project, id: number) =>
  row(p, 'SELECT td.* FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = ?', id)!;
const runtime = (p: Project, id: number) => row(p, 'SELECT * FROM runtime_tasks WHERE id = ?', id)!;

/** Runs SQL on the project as Ralph's app (or a person) would, outside any session. */
function write(p: Project, text: string, ...params: unknown[]): void {
  const db = sql(p);
  try {
    db.prepare(text).run(...params);
  } finally {
    db.close();
  }
}

/** A template added as Ralph's fixture generator adds one: a details row, then the template over it. */
function addTemplate(p: Project, discipline: string, title: string, active = 1): number {
  write(
    p,
    `INSERT INTO task_details (discipline_id, title, description, priority, hints, estimated_turns, created)
     VALUES ((SELECT id FROM disciplines WHERE name = ?), ?, 'A routine check.', 'medium', 'Be brief.', 2,
     '2026-01-01')`,
    discipline,
    title,
  );
  write(
    p,
    `INSERT INTO task_templates (details_id, is_active, created)
     VALUES ((SELECT max(id) FROM task_details), ?, '2026-01-01')`,
    active,
  );
  return Number(row(p, 'SELECT max(id) AS id FROM task_templates')!.id);
}

/** A copy of fixture 05 and a session on it (full suite, or the flags given), closed after the test. */
async function fixture05(t: TestContext, flags: Parameters<typeof openInProc>[1] = {}) {
  const p = fixtureProject(TEMPLATES, HEAD_FIXTURES_DIR);
  const s = await openInProc(p, flags);
  t.after(() => s.close());
  return { p, s };
}

describe("task templates on Ralph's head fixture 05", { skip: HEAD_FIXTURE_SKIP }, () => {
  test('list_templates: every template as Ralph reads it, with its pulled count; inactive ones last', async (t) => {
    const { p, s } = await fixture05(t);
    const listed = (await s.ok('list_templates')).templates;
    assert.deepEqual(listed, ralphTemplates(p));
    assert.deepEqual(
      listed.map((x: AnyRow) => [x.id, x.discipline, x.pulled_count]),
      [
        [1, 'quality', 1],
        [2, 'security', 1],
        [3, 'backend', 0],
        [4, 'frontend', 0],
        [5, 'documentation', 1],
        [6, 'data', 0],
      ],
    );
    // Retired in Ralph's app: Ralph no longer offers it; the list still shows it, after the active ones.
    write(p, 'UPDATE task_templates SET is_active = 0 WHERE id = 2');
    const after = (await s.ok('list_templates')).templates;
    const active = after.map((x: AnyRow) => `${x.id}${x.active ? '' : ' inactive'}`);
    assert.deepEqual(active, ['1', '3', '4', '5', '6', '2 inactive']);
    assert.deepEqual(after.slice(0, 5), ralphTemplates(p));
  });

  test("create_task_from_template: a pending task on the template's details, shown as get_task shows it", async (t) => {
    const { p, s } = await fixture05(t);
    const template = detailsOfTemplate(p, 1);
    const detailsBefore = Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n);
    const { task } = await s.ok('create_task_from_template', { template_id: 1, feature: 'Knowledge-Base' });
    assert.deepEqual(
      task,
      (await s.ok('get_task', { id: task.id })).task,
      'the answer is the task as get_task shows it',
    );
    assert.equal(task.id, 5, "the next id after the fixture's four tasks");
    assert.deepEqual(task.template, { id: 1, title: 'Run routine regression sweep' });
    assert.deepEqual(
      [task.feature, task.discipline, task.title, task.description, task.priority, task.status, task.provenance],
      ['knowledge-base', 'quality', template.title, template.description, template.priority, 'pending', 'agent'],
    );
    assert.deepEqual(
      [task.hints, task.estimated_turns, task.pseudocode],
      [template.hints, template.estimated_turns, template.pseudocode],
    );
    assert.deepEqual([task.tags, task.depends_on, task.acceptance_criteria], [[], [], []]);
    assertToday(task.created, 'created');
    // Ralph's pull model: the runtime row on the template's own details row, and no new details row.
    const r = runtime(p, task.id);
    assert.deepEqual([r.details_id, r.template_id, r.status, r.completed], [template.id, 1, 'pending', null]);
    assert.equal(Number(row(p, 'SELECT count(*) AS n FROM task_details')!.n), detailsBefore);
    // Ralph reads it as the tool shows it (its get_task_by_id, and its template query's pulled count).
    const ralph = ralphTask(p.dbPath, task.id)!;
    for (const k of ['title', 'description', 'status', 'priority', 'feature', 'discipline', 'provenance', 'created'])
      assert.deepEqual(task[k], (ralph as AnyRow)[k], k);
    assert.equal(ralph.template_id, 1);
    assert.equal(ralphTemplates(p).find((x) => x.id === 1)!.pulled_count, 2);
    assert.equal((await s.ok('list_templates')).templates[0].pulled_count, 2);
  });

  test('changing a task made from a template leaves the template and its other tasks as they were', async (t) => {
    const { p, s } = await fixture05(t);
    const { task } = await s.ok('create_task_from_template', { template_id: 1, feature: 'release-ops' });
    const template = detailsOfTemplate(p, 1);
    const sibling = (await s.ok('get_task', { id: 1 })).task; // the fixture's own pull of template 1
    assert.equal(detailsOfTask(p, 1).id, template.id);

    await s.ok('update_task', { id: task.id, title: 'Regression sweep before the release', priority: 'critical' });
    const changed = (await s.ok('get_task', { id: task.id })).task;
    assert.deepEqual([changed.title, changed.priority], ['Regression sweep before the release', 'critical']);
    assert.deepEqual(changed.template, { id: 1, title: 'Run routine regression sweep' }, 'still names its template');
    assert.notEqual(detailsOfTask(p, task.id).id, template.id, 'the task has its own details now');
    assert.equal(runtime(p, task.id).template_id, 1);
    assert.deepEqual(detailsOfTemplate(p, 1), template, 'the template is unchanged');
    assert.deepEqual((await s.ok('get_task', { id: 1 })).task, sibling, "the template's other task is unchanged");
    assert.equal(detailsOfTask(p, 1).id, template.id, 'and still shares the template');

    // Enriching the fixture's own pulled task copies too; the new task and the template stay as they are.
    write(p, "UPDATE runtime_tasks SET status = 'draft' WHERE id = 1");
    await s.ok('enrich_task', { id: 1, pseudocode: '1. run the suite' });
    assert.deepEqual(detailsOfTemplate(p, 1), template);
    assert.equal(detailsOfTemplate(p, 1).pseudocode, template.pseudocode);
    assert.deepEqual((await s.ok('get_task', { id: task.id })).task, changed);
    assert.equal(ralphTemplates(p).find((x) => x.id === 1)!.pulled_count, 2, 'both still count as pulled');

    // Deleting a pulled task leaves the template (and the details row it stands on).
    const fresh = (await s.ok('create_task_from_template', { template_id: 1, feature: 'release-ops' })).task;
    await s.ok('delete_task', { id: fresh.id });
    assert.deepEqual(detailsOfTemplate(p, 1), template);
  });

  test('refusals name what is allowed and change nothing', async (t) => {
    const { p, s } = await fixture05(t);
    write(p, 'UPDATE task_templates SET is_active = 0 WHERE id = 4');
    const from = (template_id: unknown, feature = 'release-ops') => ({ template_id, feature });
    const [unknown] = await refused(s, 'not_found', 'create_task_from_template', from(99));
    assert.match(unknown!.message, /template 99 does not exist; active template ids: 1, 2, 3, 5, 6/);
    const [inactive] = await refused(s, 'conflict', 'create_task_from_template', from(4));
    assert.match(inactive!.message, /template 4 \("Routine UX polish pass"\) is inactive/);
    assert.match(inactive!.message, /active template ids: 1, 2, 3, 5, 6/);
    const [feature] = await refused(s, 'not_found', 'create_task_from_template', from(1, 'sharing'));
    assert.match(feature!.message, /"sharing" does not exist/);
    assert.match(feature!.message, /knowledge-base, project-hygiene, release-ops/);
    const partial = [{ template_id: 1 }, { feature: 'release-ops' }, { ...from(1), title: 'not a field here' }];
    await refused(s, 'invalid_argument', 'create_task_from_template', from(0), from('1'), ...partial);
    await refused(s, 'invalid_argument', 'list_templates', { active: true });
  });

  test('the recipes that create tasks serve both tools; the others do not', async (t) => {
    const p = fixtureProject(TEMPLATES, HEAD_FIXTURES_DIR);
    for (const [recipe, allowed] of Object.entries(RECIPE_TOOLS)) {
      const s = await openInProc(p, { recipe, ...(recipe === 'discuss' ? { discipline: 'backend' } : {}) });
      t.after(() => s.close());
      const names = s.session.listTools().map((x) => x.name);
      const expected = TEMPLATE_TOOLS.filter((n) => allowed.includes(n));
      assert.deepEqual(
        names.filter((n) => TEMPLATE_TOOLS.includes(n)),
        expected,
        recipe,
      );
      assert.ok(names.length <= 25, `${recipe}: ${names.length} tools`);
      if (expected.length > 0) {
        const { task } = await s.ok('create_task_from_template', { template_id: 5, feature: 'project-hygiene' });
        assert.equal(task.template.id, 5, recipe);
      }
    }
    const creating = Object.keys(RECIPE_TOOLS).filter((r) => RECIPE_TOOLS[r]!.includes('create_task_from_template'));
    assert.deepEqual(creating, ['braindump', 'yap', 'opus_review', 'enrichment'], 'the recipes that create tasks');
  });
});

contract(
  'task templates on the normalized sample',
  (env) => {
    test('no templates: an empty list, and nothing to make a task from', async () => {
      const s = await env.open();
      assert.deepEqual((await s.ok('list_templates')).templates, []);
      const [e] = await refused(s, 'not_found', 'create_task_from_template', VALID_ARGS.create_task_from_template);
      assert.match(e!.message, /template 1 does not exist; there are no active templates/);
    });

    test("a template Ralph's app added: listed, and the spec's valid arguments make a task from it", async () => {
      const p = env.sample();
      assert.equal(addTemplate(p, 'backend', 'Weekly dependency bump'), 1);
      const s = await env.open({}, p);
      assert.deepEqual((await s.ok('list_templates')).templates, ralphTemplates(p));
      const { task } = await s.ok('create_task_from_template', VALID_ARGS.create_task_from_template);
      assert.deepEqual(
        [task.title, task.feature, task.discipline, task.status, task.template],
        ['Weekly dependency bump', 'recipes', 'backend', 'pending', { id: 1, title: 'Weekly dependency bump' }],
      );
      assert.equal(runtime(p, task.id).details_id, detailsOfTemplate(p, 1).id);
      // A search finds it (our index follows a task that shares its details).
      const hits = (await s.ok('search_tasks', { query: 'dependency bump' })).results;
      assert.ok(
        hits.some((h: AnyRow) => h.id === task.id),
        JSON.stringify(hits),
      );
    });

    test('an inactive template is listed but makes no task', async () => {
      const p = env.sample();
      const id = addTemplate(p, 'frontend', 'Retired routine', 0);
      const s = await env.open({}, p);
      const listed = (await s.ok('list_templates')).templates.map((x: AnyRow) => [x.id, x.active, x.pulled_count]);
      assert.deepEqual(listed, [[id, false, 0]]);
      await refused(s, 'conflict', 'create_task_from_template', { template_id: id, feature: 'auth' });
    });
  },
  ['normalized'],
);

contract(
  'task templates on a legacy database',
  (env) => {
    test('the tools do not exist: not listed, refused as unknown, nothing written', async () => {
      for (const recipe of [undefined, 'yap', 'braindump', 'opus_review', 'enrichment']) {
        const s = await env.open(recipe ? { recipe } : {});
        const names = await s.toolNames();
        for (const name of NORMALIZED_ONLY) assert.ok(!names.includes(name), `${name} listed in ${recipe ?? 'full'}`);
        assert.ok(names.includes('create_task'), 'the rest of the recipe is served');
        await unchanged(s, async () => {
          for (const name of NORMALIZED_ONLY) {
            const args = VALID_ARGS[name as keyof typeof VALID_ARGS];
            await assert.rejects(s.client.callTool({ name, arguments: args }), (e: unknown) => {
              assert.ok(e instanceof McpError);
              assert.equal(e.message, `MCP error -32602: Unknown tool: ${name}`);
              return true;
            });
          }
        });
        assert.deepEqual(
          NORMALIZED_ONLY.filter((n) => planToJson(s.plan).disabled_tools.includes(n)),
          NORMALIZED_ONLY,
          'the plan names them disabled',
        );
      }
    });

    test('the store has no templates, and refuses to make a task from one', async () => {
      const s = await env.open();
      assert.equal(s.store.templates.available, false);
      assert.deepEqual(s.store.templates.listTemplates(), []);
      const before = dump(s.project);
      assert.throws(
        () => s.store.templates.createFromTemplate(1, 'recipes'),
        /legacy schema, which has no task templates/,
      );
      assert.throws(() => s.store.templates.getTemplate(1), /no task templates/);
      assert.equal(dump(s.project), before);
    });
  },
  ['legacy'],
);

test('ralph-mcp tools says the template tools need the normalized schema', () => {
  const table = toolsTable();
  for (const name of NORMALIZED_ONLY)
    assert.match(
      table,
      new RegExp(
        `\\n${name}\\s+tasks\\s+\\w+\\s+braindump, yap, opus_review, enrichment \\(normalized schema only\\)\\n`,
      ),
    );
  assert.doesNotMatch(table, /\ncreate_task\s.*schema only/);
  assert.match(toolsTable('yap'), /\nlist_templates\s+tasks\s+read\s+.*\(normalized schema only\)/);
});
