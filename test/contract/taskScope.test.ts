import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dump, query, sampleProject } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';

describe('task scope (--task N)', () => {
  test('changing another task is refused with out_of_scope and writes nothing; own task and reads work', async () => {
    const project = sampleProject();
    const s = await startInProc(project, ['--recipe', 'yap', '--task', '3']);
    try {
      const before = dump(project);
      for (const [tool, args] of [
        ['set_task_status', { id: 4, status: 'done' }],
        ['update_task', { id: 4, title: 'hijacked' }],
      ] as const) {
        const err = await s.fail(tool, args);
        assert.equal(err.code, 'out_of_scope', tool);
        assert.match(err.message, /scoped to task 3/);
      }
      assert.equal(dump(project), before);

      // Reading other tasks stays allowed (dependencies).
      assert.equal((await s.ok('get_task', { id: 2 })).task.id, 2);
      // id defaults to the session's task.
      const r = await s.ok('set_task_status', { status: 'done' });
      assert.equal(r.task.id, 3);
      assert.equal(query(project, 'SELECT status FROM tasks WHERE id = 3')[0]!.status, 'done');
      // Explicitly naming the own task works too.
      await s.ok('update_task', { id: 3, hints: 'Use the FormField component' });

      // The schema says where the default comes from.
      const tool = (await s.client.listTools()).tools.find((t) => t.name === 'set_task_status')!;
      assert.deepEqual(tool.inputSchema.required, ['status']);
      assert.match(JSON.stringify(tool.inputSchema.properties?.id), /default: this session's task 3/);
    } finally {
      await s.close();
    }
  });

  test('task_execution may leave a note on the next task (comments are not scoped)', async () => {
    const project = sampleProject();
    const s = await startInProc(project, ['--recipe', 'task_execution', '--task', '3']);
    try {
      const c = await s.ok('add_task_comment', { task_id: 4, body: 'Heads-up: the form ids changed' });
      assert.equal(c.comment.task_id, 4);
      assert.equal(c.comment.agent_task_id, 3, 'the comment records which task session wrote it');
      assert.equal(c.comment.discipline, 'frontend', "defaults to the session's discipline");
      assert.equal((await s.fail('set_task_status', { id: 4, status: 'done' })).code, 'out_of_scope');
    } finally {
      await s.close();
    }
  });

  test("feature writes in a task session go to the task's feature only", async () => {
    const project = sampleProject();
    const s = await startInProc(project, ['--recipe', 'task_execution', '--task', '3']); // task 3 is in feature recipes
    try {
      const before = dump(project);
      const err = await s.fail('add_feature_context_file', { feature_name: 'auth', file_path: 'src/auth/links.ts' });
      assert.equal(err.code, 'out_of_scope');
      assert.match(err.message, /task 3 belongs to feature recipes/);
      assert.equal(dump(project), before);
      const r = await s.ok('add_feature_context_file', { file_path: 'src/ui/RecipeForm.tsx' });
      assert.equal(r.feature_name, 'recipes');
      assert.deepEqual(
        JSON.parse(
          query<{ c: string }>(project, "SELECT context_files AS c FROM features WHERE name = 'recipes'")[0]!.c,
        ),
        ['src/api/recipes.ts', 'src/ui/RecipeForm.tsx'],
      );
    } finally {
      await s.close();
    }
  });

  test('the instructions name the task and only enabled tools', async () => {
    const project = sampleProject();
    const s = await startInProc(project, ['--recipe', 'task_execution', '--task', '3']);
    try {
      const text = s.client.getInstructions() ?? '';
      assert.match(text, /Task: #3 "Recipe editor form"/);
      assert.match(text, /Session recipe: task_execution/);
      const enabled = new Set(await s.toolNames());
      const { ALL_TOOLS, namesTool } = await import('../helpers/spec.js');
      for (const t of ALL_TOOLS) {
        const mentioned = namesTool(text, t);
        assert.equal(mentioned, enabled.has(t), `${t} ${enabled.has(t) ? 'should' : 'must not'} be mentioned`);
      }
    } finally {
      await s.close();
    }
  });
});

describe('discipline scope (--discipline D)', () => {
  test('discuss may only update its own discipline', async () => {
    const project = sampleProject();
    const s = await startInProc(project, ['--recipe', 'discuss', '--discipline', 'frontend']);
    try {
      const before = dump(project);
      const err = await s.fail('update_discipline', { name: 'backend', conventions: 'x' });
      assert.equal(err.code, 'out_of_scope');
      assert.equal(dump(project), before);
      await s.ok('update_discipline', { name: 'frontend', conventions: '- Use CSS modules' });
      assert.equal(
        query(project, "SELECT conventions FROM disciplines WHERE name = 'frontend'")[0]!.conventions,
        '- Use CSS modules',
      );
    } finally {
      await s.close();
    }
  });
});

describe('instructions never name a hidden tool', () => {
  test('no tool description or instruction text mentions a tool the session lacks, in any recipe', async () => {
    const { ALL_TOOLS, RECIPES, namesTool, recipeFlags } = await import('../helpers/spec.js');
    const project = sampleProject();
    for (const recipe of RECIPES) {
      const s = await startInProc(project, recipeFlags(recipe));
      try {
        const { tools } = await s.client.listTools();
        const enabled = new Set(tools.map((t) => t.name));
        const text =
          (s.client.getInstructions() ?? '') + JSON.stringify(tools.map((t) => [t.description, t.inputSchema]));
        for (const t of ALL_TOOLS)
          if (!enabled.has(t)) assert.ok(!namesTool(text, t), `${recipe} mentions hidden ${t}`);
      } finally {
        await s.close();
      }
    }
  });
});
