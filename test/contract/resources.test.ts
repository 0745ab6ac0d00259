import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { FIXTURE_SKIP } from '../helpers/env.js';
import { fixtureProject, query, sampleProject } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';
import type { InProcSession } from './harness.js';
import { ALL_TOOLS, RECIPES, namesTool, recipeFlags } from '../helpers/spec.js';

const text = (r: { contents: object[] }) => String((r.contents[0] as { text?: unknown }).text);

describe("resources on Ralph's 04-desktop-dev.db", { skip: FIXTURE_SKIP }, () => {
  let p: Project;
  let s: InProcSession;
  before(async () => {
    p = fixtureProject('04-desktop-dev.db');
    writeFileSync(p.progressFile, '## 2026-01-01T00:00:00Z · human\nStarted.\n\n');
    s = await startInProc(p, ['--recipe', 'discuss', '--discipline', 'backend']); // resources exist in every recipe, even the narrowest
  });
  after(() => s.close());

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
    const tasks = query<{ id: number }>(p, 'SELECT id FROM tasks ORDER BY id').map((r) => `ralph://tasks/${r.id}`);
    const features = query<{ name: string }>(p, 'SELECT name FROM features ORDER BY name').map(
      (r) => `ralph://features/${r.name}`,
    );
    const disciplines = query<{ name: string }>(p, 'SELECT name FROM disciplines ORDER BY name').map(
      (r) => `ralph://disciplines/${r.name}`,
    );
    assert.deepEqual(uris, [
      'ralph://project',
      'ralph://progress',
      'ralph://learnings',
      ...tasks,
      ...features,
      ...disciplines,
    ]);
    assert.equal(pages, 1);
    const templates = await s.client.listResourceTemplates();
    assert.deepEqual(
      templates.resourceTemplates.map((t) => t.uriTemplate),
      ['ralph://tasks/{id}', 'ralph://features/{name}', 'ralph://disciplines/{name}'],
    );
  });

  test('every resource reads as JSON matching SQL; a state file as the read tool returns it', async () => {
    const project = JSON.parse(text(await s.client.readResource({ uri: 'ralph://project' })));
    assert.equal(project.title, 'Bookmarks Manager');
    assert.equal(project.progress.total, 20);
    assert.deepEqual(JSON.parse(text(await s.client.readResource({ uri: 'ralph://progress' }))), {
      file: '.ralph/progress.txt',
      content: '## 2026-01-01T00:00:00Z · human\nStarted.\n\n',
      entry_count: 1,
      returned_entries: 1,
    });
    assert.equal(JSON.parse(text(await s.client.readResource({ uri: 'ralph://learnings' }))).content, '');
    const task = JSON.parse(text(await s.client.readResource({ uri: 'ralph://tasks/12' })));
    assert.equal(task.task.title, query<{ title: string }>(p, 'SELECT title FROM tasks WHERE id = 12')[0]!.title);
    assert.deepEqual(
      task.dependencies.map((d: { id: number }) => d.id),
      [9, 8],
    );
    const feature = JSON.parse(text(await s.client.readResource({ uri: 'ralph://features/search' })));
    assert.equal(feature.feature.acronym, 'SRCH');
    const discipline = JSON.parse(text(await s.client.readResource({ uri: 'ralph://disciplines/frontend' })));
    assert.equal(discipline.discipline.acronym, 'FRNT');
  });

  test('an unknown resource is a clear protocol error', async () => {
    for (const uri of ['ralph://tasks/999', 'ralph://features/nope', 'ralph://tasks/abc', 'https://example.com/']) {
      await assert.rejects(
        s.client.readResource({ uri }),
        (e: unknown) => e instanceof McpError && e.code === -32602 && /Resource not found/.test(e.message),
        uri,
      );
    }
  });

  test('completions return the matching ids and names', async () => {
    const ids = await s.client.complete({
      ref: { type: 'ref/resource', uri: 'ralph://tasks/{id}' },
      argument: { name: 'id', value: '1' },
    });
    assert.deepEqual(ids.completion.values, ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19']);
    const features = await s.client.complete({
      ref: { type: 'ref/resource', uri: 'ralph://features/{name}' },
      argument: { name: 'name', value: 's' },
    });
    assert.deepEqual(features.completion.values, ['search', 'settings']);
    const disciplines = await s.client.complete({
      ref: { type: 'ref/resource', uri: 'ralph://disciplines/{name}' },
      argument: { name: 'name', value: 'd' },
    });
    assert.deepEqual(disciplines.completion.values, ['data', 'documentation']);
    const brief = await s.client.complete({
      ref: { type: 'ref/prompt', name: 'task_brief' },
      argument: { name: 'task_id', value: '2' },
    });
    assert.deepEqual(brief.completion.values, ['2', '20']);
  });
});

describe('prompts', () => {
  test('task_brief renders the task, its dependencies, learnings, and only enabled reporting tools', async () => {
    const p = sampleProject();
    const s = await startInProc(p, ['--recipe', 'task_execution', '--task', '3']);
    try {
      const { prompts } = await s.client.listPrompts();
      assert.deepEqual(
        prompts.map((x) => x.name),
        ['task_brief', 'task_execution'],
      );
      const brief = await s.client.getPrompt({ name: 'task_brief', arguments: {} });
      const t = String((brief.messages[0]!.content as { text: string }).text);
      assert.match(t, /^Brief for task #3\./);
      assert.match(t, /"title": "Recipe editor form"/);
      assert.match(t, /Done: endpoints in src\/api\/recipes\.ts/, "dependency 2's completion comment");
      assert.match(t, /Always store quantities in grams/, "the feature's learnings, most trusted first");
      assert.match(t, /- add_task_comment: /);
      assert.match(t, /- report_blocker: /);
      const enabled = new Set(await s.toolNames());
      for (const tool of ALL_TOOLS) if (!enabled.has(tool)) assert.ok(!namesTool(t, tool), tool);
    } finally {
      await s.close();
    }
  });

  test('each recipe prompt states its purpose and names exactly the enabled tools', async () => {
    const p = sampleProject();
    for (const recipe of RECIPES) {
      const s = await startInProc(p, recipeFlags(recipe));
      try {
        const got = await s.client.getPrompt({ name: recipe });
        const t = String((got.messages[0]!.content as { text: string }).text);
        assert.match(t, new RegExp(`^Session recipe ${recipe}: `));
        const enabled = new Set(await s.toolNames());
        for (const tool of ALL_TOOLS) assert.equal(namesTool(t, tool), enabled.has(tool), `${recipe}: ${tool}`);
        // task_brief without a session task needs an id, and names only this recipe's reporting tools.
        await assert.rejects(s.client.getPrompt({ name: 'task_brief', arguments: {} }), /needs task_id/);
        const brief = String(
          (
            (await s.client.getPrompt({ name: 'task_brief', arguments: { task_id: '4' } })).messages[0]!.content as {
              text: string;
            }
          ).text,
        );
        for (const tool of ALL_TOOLS)
          if (!enabled.has(tool)) assert.ok(!namesTool(brief, tool), `${recipe} brief: ${tool}`);
      } finally {
        await s.close();
      }
    }
  });
});
