import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StartupError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import { openStore } from '../../src/store/open/openStore.js';
import { RECIPE_TOOLS, RECIPES, inSpecOrder } from '../helpers/spec.js';
import { contract } from './harness.js';

/** Discipline overrides (mcp_tool_overrides, wherever a generation keeps them) remove tools; they never add any. */

/** Stores `raw` as the discipline's overrides, as is (malformed values too). */
function setOverrides(p: Project, discipline: string, raw: string): Project {
  const { store } = openStore(p.dbPath);
  store.ensureOwnTables();
  store.write(() => store.disciplines.writeToolOverrides(discipline, raw));
  store.close();
  return p;
}

contract('discipline overrides', (env) => {
  // documentation disables set_task_status and create_task everywhere, plus a tool no recipe below
  // needs; quality has no override at all.
  const disabled = ['set_task_status', 'create_task', 'get_project_info', 'delete_feature'];
  const project = setOverrides(env.sample(), 'documentation', JSON.stringify({ additional_disabled: disabled }));

  test("every recipe: with an override the set shrinks exactly; without one it is the recipe's", async () => {
    for (const recipe of RECIPES) {
      const expectedFull = inSpecOrder(RECIPE_TOOLS[recipe]!);
      const gone = ['set_task_status', 'create_task', 'get_project_info'];
      const plain = await env.open({ recipe, discipline: 'quality' }, project);
      const docs = await env.open({ recipe, discipline: 'documentation' }, project);
      assert.deepEqual(await plain.toolNames(), expectedFull, recipe);
      const names = await docs.toolNames();
      assert.deepEqual(
        names,
        expectedFull.filter((t) => !gone.includes(t)),
        recipe,
      );
      assert.ok(!names.includes('delete_feature'), 'an override never adds a tool the recipe hides');
    }
  });

  test("a task session without --discipline uses the task's discipline overrides", async () => {
    const task = await env.open({ recipe: 'task_execution', task: '8' }, project); // task 8 is documentation's
    const names = await task.toolNames();
    assert.ok(!names.includes('set_task_status'));
    assert.ok(names.includes('add_task_comment'));
  });

  for (const [label, raw, pattern] of [
    ['naming an unknown tool', '{"additional_disabled": ["set_task_stauts"]}', /unknown tool\(s\): set_task_stauts/],
    [
      'malformed',
      '{"additional_disabled": "create_task"',
      /mcp_tool_overrides of discipline "quality" is not a JSON object/,
    ],
  ] as const) {
    test(`an override ${label} fails closed at startup`, async () => {
      const p = setOverrides(env.sample(), 'quality', raw);
      await assert.rejects(env.open({ recipe: 'yap', discipline: 'quality' }, p), (e: Error) => {
        assert.ok(e instanceof StartupError && e.exitCode === 2, String(e));
        assert.match(e.message, /^[^\n]*$/, 'one line');
        assert.match(e.message, pattern);
        return true;
      });
    });
  }
});
