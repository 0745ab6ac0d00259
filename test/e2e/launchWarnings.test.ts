import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleProject } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';

/**
 * Launches that start but cannot do their job say so, with the fix: a task recipe without a task, a
 * task given to a recipe that works across tasks, a client configuration without a recipe.
 */
const project = sampleProject();
const cli = (args: string[]) => runCli([...args, '--project', project.root]);
const planWarnings = (args: string[]): string[] => {
  const r = cli(['plan', '--json', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).warnings;
};

test('task_execution without --task: its task changes would be refused; the warning names --task and worker', () => {
  const w = planWarnings(['--recipe', 'task_execution']);
  assert.ok(
    w.some((x) =>
      /^recipe task_execution works on its own task and none was given: .*pass --task N, or use --recipe worker/.test(
        x,
      ),
    ),
    JSON.stringify(w),
  );
  assert.deepEqual(planWarnings(['--recipe', 'task_execution', '--task', '3']), []);
  assert.deepEqual(planWarnings(['--recipe', 'worker']), [], 'a worker claims its tasks');
  const served = cli(['--recipe', 'task_execution']);
  assert.match(served.stderr, /recipe task_execution works on its own task and none was given/);
});

test('a task given to braindump or ramble is warned about; to a task recipe it is not', () => {
  for (const recipe of ['braindump', 'ramble']) {
    assert.ok(
      planWarnings(['--recipe', recipe, '--task', '3']).some((x) =>
        x.startsWith(`--task 3 given to recipe ${recipe}, which works across tasks`),
      ),
      recipe,
    );
    assert.deepEqual(planWarnings(['--recipe', recipe]), []);
  }
  assert.deepEqual(planWarnings(['--recipe', 'opus_review', '--task', '3']), []);
});

test('config without --recipe warns on stderr (the JSON stays on stdout); with a recipe it is silent', () => {
  const bare = cli(['config']);
  assert.equal(bare.status, 0);
  assert.doesNotThrow(() => JSON.parse(bare.stdout));
  assert.equal(
    bare.stderr,
    'ralph-mcp: warning: no --recipe given: this entry serves the full tool suite, meant for debugging; pass --recipe R for an agent session\n',
  );
  const yap = cli(['config', '--recipe', 'yap']);
  assert.equal(yap.status, 0);
  assert.equal(yap.stderr, '');
});
