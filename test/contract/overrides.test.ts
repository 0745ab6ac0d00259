import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sampleProject, setOverrides } from '../helpers/project.js';
import { runCli, startSession } from '../helpers/server.js';
import { RECIPE_TOOLS, RECIPES, inSpecOrder } from '../helpers/spec.js';

/** Discipline overrides (disciplines.mcp_tool_overrides) remove tools; they never add any. */
describe('discipline overrides', () => {
  const project = sampleProject();
  // documentation disables set_task_status and create_task everywhere, plus a tool no recipe below
  // needs; quality has no override at all.
  setOverrides(project, 'documentation', ['set_task_status', 'create_task', 'get_project_info', 'delete_feature']);

  for (const recipe of RECIPES) {
    test(`${recipe}: with an override the set shrinks exactly; without one it is the recipe's`, async () => {
      const expectedFull = inSpecOrder(RECIPE_TOOLS[recipe]!);
      const expectedDocs = expectedFull.filter(
        (t) => !['set_task_status', 'create_task', 'get_project_info'].includes(t),
      );
      const plain = await startSession(project, ['--recipe', recipe, '--discipline', 'quality']);
      const docs = await startSession(project, ['--recipe', recipe, '--discipline', 'documentation']);
      try {
        assert.deepEqual(await plain.toolNames(), expectedFull);
        const names = await docs.toolNames();
        assert.deepEqual(names, expectedDocs);
        assert.ok(!names.includes('delete_feature'), 'an override never adds a tool the recipe hides');
      } finally {
        await Promise.all([plain.close(), docs.close()]);
      }
    });
  }

  test("a task session without --discipline uses the task's discipline overrides", async () => {
    const s = await startSession(project, ['--recipe', 'task_execution', '--task', '8']); // task 8 is documentation's
    try {
      const names = await s.toolNames();
      assert.ok(!names.includes('set_task_status'));
      assert.ok(names.includes('add_task_comment'));
    } finally {
      await s.close();
    }
  });

  test('an override naming an unknown tool fails closed at startup', () => {
    const p = sampleProject();
    setOverrides(p, 'quality', ['set_task_stauts']);
    const r = runCli(['--project', p.root, '--recipe', 'yap', '--discipline', 'quality']);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^ralph-mcp: error: .*unknown tool\(s\): set_task_stauts.*\n$/);
  });

  test('a malformed override fails closed at startup', () => {
    const p = sampleProject();
    setOverrides(p, 'quality', '{"additional_disabled": "create_task"');
    const r = runCli(['--project', p.root, '--recipe', 'yap', '--discipline', 'quality']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /mcp_tool_overrides of discipline "quality" is not a JSON object/);
  });
});
