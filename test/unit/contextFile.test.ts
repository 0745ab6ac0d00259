import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeContextFile } from '../../src/session/contextFile.js';

/** Launch settings a context.json has no field for are the launch's own: the file never drops them. */
test("a context file keeps the launch's lease length and tool flags", () => {
  const text = JSON.stringify({ recipe: 'worker', discipline: 'backend', task_id: null });
  const flags = { leaseSeconds: 60, readOnly: true, tools: ['get_task'], excludeTools: ['list_tasks'] };
  const r = mergeContextFile('/nonexistent/context.json', flags, text);
  assert.deepEqual(
    [r.recipe, r.discipline, r.leaseSeconds, r.readOnly, r.tools, r.excludeTools],
    ['worker', 'backend', 60, true, ['get_task'], ['list_tasks']],
  );
});
