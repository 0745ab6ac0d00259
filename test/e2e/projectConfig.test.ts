import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { runCli, startSession } from '../helpers/server.js';
import { RECIPE_TOOLS, inSpecOrder } from '../helpers/spec.js';

/** SPEC-070 context.json (--context) and project recipes (.ralph/mcp/recipes.json). */
const writeJson = (file: string, v: unknown) => {
  writeFileSync(file, typeof v === 'string' ? v : JSON.stringify(v));
  return file;
};
const planTools = (p: Project, args: string[]) => {
  const r = runCli(['plan', '--project', p.root, ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { enabled_tools: { name: string }[] }).enabled_tools.map((t) => t.name);
};
const refused = (p: Project, args: string[], pattern: RegExp) => {
  for (const cmd of [['plan'], []]) {
    const r = runCli([...cmd, '--project', p.root, ...args]);
    assert.equal(r.status, 2, `${cmd.join(' ') || 'serve'}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, pattern);
  }
};

describe('--context FILE (SPEC-070 context.json)', () => {
  const p = sampleProject();
  const dir = tempDir();
  const good = writeJson(join(dir, 'context.json'), {
    session_id: 'task-exec-3-2026-02-10T14:30:00Z',
    recipe: 'task_execution',
    discipline: 'frontend',
    feature: 'recipes',
    task_id: 3,
    disabled_tools: ['append_learning', 'read_learnings', 'create_feature'],
  });

  test('a valid file works like the flags, and its disabled_tools only remove', async () => {
    const removed = ['append_learning', 'read_learnings'];
    const expected = inSpecOrder(RECIPE_TOOLS.task_execution!).filter((t) => !removed.includes(t));
    assert.deepEqual(planTools(p, ['--context', good]), expected);
    const s = await startSession(p, ['--context', good]);
    try {
      assert.deepEqual(await s.toolNames(), expected);
      assert.match(s.client.getInstructions() ?? '', /Task: #3/);
      await s.waitForStderr(/session started/);
      assert.match(s.stderr(), /"session_id":"task-exec-3-2026-02-10T14:30:00Z"/);
    } finally {
      await s.close();
    }
  });

  test('flags that agree are fine; flags that disagree are refused, naming the file and field', () => {
    assert.equal(
      planTools(p, ['--context', good, '--recipe', 'task_execution', '--task', '3']).length,
      RECIPE_TOOLS.task_execution!.length - 2,
    );
    const recipe = /--recipe yap disagrees with .*context\.json: field "recipe" is "task_execution"/;
    refused(p, ['--context', good, '--recipe', 'yap'], recipe);
    refused(p, ['--context', good, '--task', '4'], /--task 4 disagrees with .*context\.json: field "task_id" is "3"/);
  });

  for (const [label, content, pattern] of [
    ['malformed JSON', '{"recipe": "yap",', /context\.json: not valid JSON/],
    [
      'an unknown tool',
      { recipe: 'yap', disabled_tools: ['nope_tool'] },
      /field "disabled_tools" names unknown tool\(s\): nope_tool/,
    ],
    ['an unknown field', { recipe: 'yap', disabled: [] }, /unknown field\(s\) "disabled"; allowed: session_id, recipe/],
    ['a wrong type', { recipe: 'yap', task_id: '3' }, /field "task_id" must be a positive integer or null/],
    ['an unknown recipe', { recipe: 'yapp' }, /unknown recipe "yapp"/],
    [
      "a feature that is not the task's",
      { recipe: 'task_execution', task_id: 3, feature: 'auth' },
      /field "feature" is "auth" but task 3 belongs to feature recipes/,
    ],
  ] as const) {
    test(`refused: ${label}`, () =>
      refused(p, ['--context', writeJson(join(tempDir(), 'context.json'), content)], pattern));
  }
});

describe('.ralph/mcp/recipes.json', () => {
  const withRecipes = (doc: unknown) => {
    const p = sampleProject();
    mkdirSync(join(p.ralphDir, 'mcp'), { recursive: true });
    writeJson(join(p.ralphDir, 'mcp', 'recipes.json'), doc);
    return p;
  };

  test('a new recipe and a narrowed built-in work in plan, serve, config and tools', async () => {
    const triage = ['list_tasks', 'get_task', 'update_task', 'search_tasks'];
    const p = withRecipes({
      recipes: {
        triage: { purpose: 'Sort new tasks: set priorities, nothing else.', allow: triage },
        yap: { disable: ['set_task_status'] },
        task_execution: { allow: ['get_task', 'set_task_status', 'add_task_comment'] },
      },
    });
    assert.deepEqual(planTools(p, ['--recipe', 'triage']), triage);
    const yap = inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').filter((t) => t !== 'set_task_status');
    assert.deepEqual(planTools(p, ['--recipe', 'yap']), yap);
    const s = await startSession(p, ['--recipe', 'task_execution']);
    try {
      assert.deepEqual(await s.toolNames(), ['get_task', 'set_task_status', 'add_task_comment']);
    } finally {
      await s.close();
    }
    const cfg = runCli(['config', '--project', p.root, '--recipe', 'triage']);
    assert.equal(cfg.status, 0, cfg.stderr);
    const tools = runCli(['tools', '--project', p.root, '--recipe', 'triage']);
    assert.equal(tools.stdout.split('\n\n')[0]!.trim().split('\n').length, 5, tools.stdout);
    assert.match(
      tools.stdout,
      // task_execution is narrowed here to three tools without update_task.
      /\nupdate_task +tasks +destructive +yap, opus_review\*, enrichment\*, worker\*, triage\n/,
    );
  });

  for (const [label, doc, pattern] of [
    [
      'widening a built-in recipe',
      { recipes: { discuss: { allow: ['list_disciplines', 'delete_task'] } } },
      /recipes\.discuss\.allow would widen the built-in recipe with delete_task/,
    ],
    [
      'an unknown tool',
      { recipes: { triage: { purpose: 'x', allow: ['get_taks'] } } },
      /recipes\.triage\.allow names unknown tool\(s\): get_taks/,
    ],
    [
      'a new recipe without allow',
      { recipes: { triage: { purpose: 'x' } } },
      /recipes\.triage: a new recipe must list its tools in "allow"/,
    ],
    [
      'a misspelled field',
      { recipes: { yap: { dissable: ['get_task'] } } },
      /recipes\.json: recipes\.yap: must NOT have additional properties "dissable"/,
    ],
    ['malformed JSON', '{"recipes": {', /recipes\.json: not valid JSON/],
  ] as const) {
    test(`refused at startup: ${label}`, () => refused(withRecipes(doc), ['--recipe', 'yap'], pattern));
  }
});
