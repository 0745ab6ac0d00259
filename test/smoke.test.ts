import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleProject } from './helpers/project.js';
import { startSession } from './helpers/server.js';

test('smoke: a task_execution session lists its tools and reads its task', async () => {
  const p = sampleProject();
  const s = await startSession(p, ['--recipe', 'task_execution', '--task', '3']);
  try {
    const names = await s.toolNames();
    assert.equal(names.length, 9);
    const r = await s.ok('get_task');
    assert.equal(r.task.id, 3);
    assert.equal(r.comments.length, 1);
    assert.deepEqual(r.dependencies, [{ id: 2, title: 'Recipe REST endpoints', status: 'done' }]);
    console.error(s.client.getInstructions());
  } finally {
    await s.close();
  }
});
