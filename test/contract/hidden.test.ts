import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { dump, sampleProject } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';
import { callError, UNKNOWN_TOOL } from './support.claims.js';
import {
  ALL_TOOLS,
  NORMALIZED_ONLY,
  RECIPE_TOOLS,
  RECIPES,
  recipeFlags,
  SIGNAL_VERBS,
  VALID_ARGS,
} from '../helpers/spec.js';

/**
 * A hidden tool does not exist for the session: calling it gets exactly the answer a name that never
 * existed gets (same error code, same message shape), and writes nothing — even with arguments that
 * would succeed if the tool were visible.
 */
for (const recipe of RECIPES) {
  test(`${recipe}: every tool outside the recipe is indistinguishable from an unknown tool and writes nothing`, async () => {
    const project = sampleProject();
    const before = dump(project);
    const files = () => readFileSync(project.learningsFile, 'utf8') + readFileSync(project.progressFile, 'utf8');
    const filesBefore = files();
    const s = await startInProc(project, recipeFlags(recipe));
    try {
      const unknown = await callError(s, 'no_such_tool_at_all', {});
      assert.deepEqual(unknown, UNKNOWN_TOOL);
      const hidden = ALL_TOOLS.filter((t) => !RECIPE_TOOLS[recipe]!.includes(t));
      assert.ok(hidden.length > 0);
      for (const name of hidden)
        assert.deepEqual(await callError(s, name, VALID_ARGS[name]), unknown, `${name} in ${recipe}`);
    } finally {
      await s.close();
    }
    assert.equal(dump(project), before, 'database unchanged');
    assert.equal(files(), filesBefore, 'state files unchanged');
  });
}

test('the valid arguments used above really do succeed where the tool is visible (so the check above is meaningful)', async () => {
  const project = sampleProject();
  const s = await startInProc(project); // full suite
  try {
    for (const name of ALL_TOOLS) {
      if (name === 'delete_feature' || name === 'delete_discipline') continue; // need unreferenced rows, below
      // These act on the session's own task, or claim one: tested in workflow and claims tests.
      if (['report_blocker', 'claim_next_task', 'claim_task', 'release_task'].includes(name)) continue;
      if ((SIGNAL_VERBS as readonly string[]).includes(name)) continue; // the same: below, in a task session
      if (NORMALIZED_ONLY.includes(name)) continue; // not on this legacy sample: templates.test.ts
      const r = await s.call(name, VALID_ARGS[name]);
      assert.ok(!r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`);
    }
    await s.ok('create_feature', { name: 'empty-one', display_name: 'Empty One' });
    await s.ok('delete_feature', { name: 'empty-one' });
  } finally {
    await s.close();
  }
  const signals = await startInProc(project, ['--recipe', 'signals', '--task', '3']);
  try {
    for (const verb of SIGNAL_VERBS) assert.equal((await signals.ok(verb, VALID_ARGS[verb])).verb, verb);
  } finally {
    await signals.close();
  }
});
