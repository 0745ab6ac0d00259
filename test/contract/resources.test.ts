import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { FIXTURE_SKIP } from '../helpers/env.js';
import { fixtureProject, query, sampleProject } from '../helpers/project.js';
import type { InProcSession } from './harness.js';
import { ALL_TOOLS, RECIPES, namesTool, recipeFlags } from '../helpers/spec.js';
import { promptText, resourceText, rpcError, sessions } from './support.security.js';

describe("resources on Ralph's 04-desktop-dev.db", { skip: FIXTURE_SKIP }, () => {
  const open = sessions();
  let p: Project;
  let s: InProcSession;
  const read = async (uri: string) => JSON.parse(await resourceText(s, uri));
  before(async () => {
    p = fixtureProject('04-desktop-dev.db');
    writeFileSync(p.progressFile, '## 2026-01-01T00:00:00Z · human\nStarted.\n\n');
    s = await open(p, ['--recipe', 'discuss', '--discipline', 'backend']); // resources exist in every recipe, even the narrowest
  });

  test('resources/list pages through the fixed resources, every task, feature and discipline', async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await s.client.listResources(cursor ? { cursor } : {});
      uris.push(...r.resources.map((x) => x.uri));
      cursor = r.nextCursor;
      pages++;
    } while (cursor);
    const rows = (kind: string, column: string) =>
      query<{ key: string }>(p, `SELECT ${column} AS key FROM ${kind} ORDER BY ${column}`).map(
        (r) => `ralph://${kind}/${r.key}`,
      );
    const fixed = ['ralph://project', 'ralph://progress', 'ralph://learnings'];
    assert.deepEqual(uris, [
      ...fixed,
      ...rows('tasks', 'id'),
      ...rows('features', 'name'),
      ...rows('disciplines', 'name'),
    ]);
    assert.equal(pages, 1);
    const templates = await s.client.listResourceTemplates();
    assert.deepEqual(
      templates.resourceTemplates.map((t) => t.uriTemplate),
      ['ralph://tasks/{id}', 'ralph://features/{name}', 'ralph://disciplines/{name}'],
    );
  });

  test('every resource reads as JSON matching SQL; a state file as the read tool returns it', async () => {
    const project = await read('ralph://project');
    assert.deepEqual([project.title, project.progress.total], ['Bookmarks Manager', 20]);
    assert.deepEqual(await read('ralph://progress'), {
      file: '.ralph/progress.txt',
      content: '## 2026-01-01T00:00:00Z · human\nStarted.\n\n',
      entry_count: 1,
      returned_entries: 1,
    });
    assert.equal((await read('ralph://learnings')).content, '');
    const task = await read('ralph://tasks/12');
    assert.equal(task.task.title, query<{ title: string }>(p, 'SELECT title FROM tasks WHERE id = 12')[0]!.title);
    assert.deepEqual(
      task.dependencies.map((d: { id: number }) => d.id),
      [9, 8],
    );
    assert.equal((await read('ralph://features/search')).feature.acronym, 'SRCH');
    assert.equal((await read('ralph://disciplines/frontend')).discipline.acronym, 'FRNT');
  });

  test('an unknown resource is a clear protocol error', async () => {
    for (const uri of ['ralph://tasks/999', 'ralph://features/nope', 'ralph://tasks/abc', 'https://example.com/'])
      await assert.rejects(s.client.readResource({ uri }), rpcError(-32602, /Resource not found/), uri);
  });

  test('completions return the matching ids and names', async () => {
    const cases: [object, string, string, string[]][] = [
      [
        { type: 'ref/resource', uri: 'ralph://tasks/{id}' },
        'id',
        '1',
        ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19'],
      ],
      [{ type: 'ref/resource', uri: 'ralph://features/{name}' }, 'name', 's', ['search', 'settings']],
      [{ type: 'ref/resource', uri: 'ralph://disciplines/{name}' }, 'name', 'd', ['data', 'documentation']],
      [{ type: 'ref/prompt', name: 'task_brief' }, 'task_id', '2', ['2', '20']],
    ];
    for (const [ref, name, value, values] of cases) {
      const r = await s.client.complete({ ref: ref as never, argument: { name, value } });
      assert.deepEqual(r.completion.values, values, JSON.stringify(ref));
    }
  });
});

describe('prompts', () => {
  const open = sessions();

  test('task_brief renders the task, its dependencies, learnings, and only enabled reporting tools', async () => {
    const s = await open(sampleProject(), ['--recipe', 'task_execution', '--task', '3']);
    const { prompts } = await s.client.listPrompts();
    assert.deepEqual(
      prompts.map((x) => x.name),
      ['task_brief', 'task_execution'],
    );
    const t = await promptText(s, 'task_brief');
    assert.match(t, /^Brief for task #3\./);
    assert.match(t, /"title": "Recipe editor form"/);
    assert.match(t, /Done: endpoints in src\/api\/recipes\.ts/, "dependency 2's completion comment");
    assert.match(t, /Always store quantities in grams/, "the feature's learnings, most trusted first");
    assert.match(t, /- add_task_comment: /);
    assert.match(t, /- report_blocker: /);
    const enabled = new Set(await s.toolNames());
    for (const tool of ALL_TOOLS) if (!enabled.has(tool)) assert.ok(!namesTool(t, tool), tool);
  });

  test('each recipe prompt states its purpose and names exactly the enabled tools', async () => {
    const p = sampleProject();
    for (const recipe of RECIPES) {
      const s = await open(p, recipeFlags(recipe));
      const t = await promptText(s, recipe);
      assert.match(t, new RegExp(`^Session recipe ${recipe}: `));
      const enabled = new Set(await s.toolNames());
      for (const tool of ALL_TOOLS) assert.equal(namesTool(t, tool), enabled.has(tool), `${recipe}: ${tool}`);
      // task_brief without a session task needs an id, and names only this recipe's reporting tools.
      await assert.rejects(s.client.getPrompt({ name: 'task_brief', arguments: {} }), /needs task_id/);
      const brief = await promptText(s, 'task_brief', { task_id: '4' });
      for (const tool of ALL_TOOLS)
        if (!enabled.has(tool)) assert.ok(!namesTool(brief, tool), `${recipe} brief: ${tool}`);
    }
  });
});
