import assert from 'node:assert/strict';
import { RECIPE_TOOLS } from '../helpers/spec.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GENERATIONS } from '../../src/store/records.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { legacyInvariants, normalizedInvariants, ralphTask } from '../helpers/ralphRead.js';
import { startSession } from '../helpers/server.js';

test('a task_execution session lists its tools, reads its task, and logs each call to stderr', async () => {
  const p = sampleProject();
  const s = await startSession(p, ['--recipe', 'task_execution', '--task', '3']);
  try {
    assert.equal((await s.toolNames()).length, RECIPE_TOOLS.task_execution!.length);
    const r = await s.ok('get_task');
    assert.equal(r.task.id, 3);
    assert.equal(r.comments.length, 1);
    assert.deepEqual(r.dependencies, [{ id: 2, title: 'Recipe REST endpoints', status: 'done' }]);
    await s.fail('get_task', { id: 999 });
    const lines = (await s.waitForStderr(/"outcome":"not_found"/))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const started = lines.find((l) => l.msg === 'session started')!;
    assert.deepEqual(
      [started.recipe, started.discipline, started.task, started.tools],
      ['task_execution', 'frontend', 3, RECIPE_TOOLS.task_execution!.length],
    );
    const calls = lines.filter((l) => l.msg === 'call');
    assert.deepEqual(
      calls.map((l) => [l.tool, l.outcome, typeof l.ms]),
      [
        ['get_task', 'ok', 'number'],
        ['get_task', 'not_found', 'number'],
      ],
    );
  } finally {
    await s.close();
  }
});

test('--log-file sends the logs to a file and leaves stderr quiet', async () => {
  const p = sampleProject();
  const log = join(tempDir(), 'logs', 'session.log');
  const s = await startSession(p, ['--recipe', 'yap', '--log-file', log]);
  try {
    await s.ok('list_tasks');
  } finally {
    await s.close();
  }
  assert.equal(s.stderr(), '');
  const text = readFileSync(log, 'utf8');
  assert.match(text, /"msg":"session started"/);
  assert.match(text, /"tool":"list_tasks".*"outcome":"ok"/);
});

// Through every runtime's SQLite driver (run again under Bun and as each executable: scripts/run-tests.mjs).
for (const generation of GENERATIONS) {
  test(`${generation}: a created task is what Ralph reads back from the database`, async () => {
    const p = sampleProject(generation);
    const s = await startSession(p, ['--recipe', 'braindump']);
    let id: number;
    try {
      const args = { feature: 'search', discipline: 'backend', title: 'Typo-tolerant search' };
      id = (await s.ok<{ task: { id: number } }>('create_task', args)).task.id;
    } finally {
      await s.close();
    }
    const task = ralphTask(p.dbPath, id);
    assert.deepEqual([task?.title, task?.status], ['Typo-tolerant search', 'draft']);
    assert.deepEqual((generation === 'legacy' ? legacyInvariants : normalizedInvariants)(p.dbPath), []);
  });
}
