import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Project } from '../../src/domain/project.js';
import { ALL_TOOLS, RECIPE_TOOLS, inSpecOrder } from '../helpers/spec.js';
import { sampleProject, setOverrides, tempDir } from '../helpers/project.js';
import { runCli, startSession } from '../helpers/server.js';

/**
 * Whatever describes a session is used or the launch is refused, never ignored: the project's
 * `.ralph/mcp/context.json` (SPEC-070's flow), --context, Ralph's task-session environment. The full
 * suite is served only when nothing describes a session, and then says so where a person and a model
 * look. Run against the built server, in every shape a project can be in.
 */

/** The project's context file, its folder made. */
function contextFile(p: Project): string {
  mkdirSync(join(p.ralphDir, 'mcp'), { recursive: true });
  return join(p.ralphDir, 'mcp', 'context.json');
}
const writeContext = (p: Project, doc: unknown) =>
  writeFileSync(contextFile(p), typeof doc === 'string' ? doc : JSON.stringify(doc));

function refused(args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = {}) {
  const r = runCli(args, env);
  assert.equal(r.status, 2, `exit status for ${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.match(r.stderr, pattern);
}

describe('a launch without --recipe', () => {
  test('nothing describes a session: the full suite, said in the first log line, plan and instructions', async () => {
    const p = sampleProject();
    const s = await startSession(p, []);
    try {
      assert.deepEqual(await s.toolNames(), inSpecOrder(ALL_TOOLS, 'legacy')); // the sample is legacy
      assert.match(s.client.getInstructions() ?? '', /Session recipe: none \(full tool suite, for debugging\)/);
      const first = (await s.waitForStderr(/session started/)).split('\n').find(Boolean)!;
      assert.match(first, /no --recipe given: serving the full tool suite/);
    } finally {
      await s.close();
    }
    const plan = JSON.parse(runCli(['plan', '--project', p.root, '--json']).stdout);
    assert.equal(plan.recipe, null);
    assert.match(plan.warnings.join('\n'), /no --recipe given/);
    assert.match(runCli(['plan', '--project', p.root]).stdout, /^warning: no --recipe given/);
  });

  test("the project's .ralph/mcp/context.json is used: its recipe, discipline and removals", async () => {
    const p = sampleProject();
    writeContext(p, { session_id: 'ctx-1', recipe: 'yap', discipline: 'backend', disabled_tools: ['search_tasks'] });
    const s = await startSession(p, []);
    try {
      const tools = RECIPE_TOOLS.yap!.filter((t) => t !== 'search_tasks');
      assert.deepEqual(await s.toolNames(), inSpecOrder(tools, 'legacy'));
      assert.doesNotMatch(s.stderr(), /full tool suite/);
      // yap cannot claim a task, so its session does not announce list changes.
      assert.equal(s.client.getServerCapabilities()?.tools?.listChanged, false);
    } finally {
      await s.close();
    }
    const plan = JSON.parse(runCli(['plan', '--project', p.root, '--json']).stdout);
    assert.deepEqual([plan.recipe.name, plan.discipline, plan.session_id], ['yap', 'backend', 'ctx-1']);
  });

  test('flags beside the project context must agree with it', () => {
    const p = sampleProject();
    writeContext(p, { recipe: 'task_execution', task_id: 3 });
    refused(
      ['--project', p.root, '--recipe', 'opus_review'],
      /--recipe opus_review disagrees with .*context\.json: field "recipe" is "task_execution"/,
    );
    refused(['--project', p.root, '--task', '4'], /--task 4 disagrees with .*context\.json: field "task_id" is "3"/);
  });

  test('a context file that cannot be used refuses the launch: bad JSON, no recipe, a link, a FIFO, a directory', () => {
    const outside = join(tempDir(), 'context.json');
    writeFileSync(outside, JSON.stringify({ recipe: 'yap' }));
    const shapes: [(p: Project) => void, RegExp][] = [
      [(p) => writeContext(p, '{"recipe": '), /not valid JSON/],
      [(p) => writeContext(p, { discipline: 'backend' }), /field "recipe" is required/],
      [(p) => writeContext(p, { recipe: 'yap', disabledTools: ['delete_task'] }), /unknown field\(s\) "disabledTools"/],
      [(p) => symlinkSync(outside, contextFile(p)), /context\.json is a symbolic link; refusing to follow it/],
      [
        (p) => execFileSync('mkfifo', [contextFile(p)]),
        /context\.json is a FIFO( \(named pipe\))?,? (or socket, )?not a regular file/,
      ],
      [(p) => mkdirSync(contextFile(p), { recursive: true }), /context\.json is a directory, not a regular file/],
    ];
    for (const [make, pattern] of shapes) {
      const p = sampleProject();
      make(p);
      refused(['--project', p.root], pattern);
    }
  });

  test("Ralph's task-session environment and a project context both describing a session: refused", () => {
    const p = sampleProject();
    writeContext(p, { recipe: 'yap' });
    refused([], /context\.json describes a session, and so does Ralph's task-session environment/, {
      RALPH_TASK_ID: '3',
      RALPH_SESSION_ID: 'ralph-7',
      RALPH_DB_PATH: p.dbPath,
    });
  });

  test('a FIFO given as --context refuses promptly instead of blocking the launch', () => {
    const fifo = join(tempDir(), 'context.json');
    execFileSync('mkfifo', [fifo]);
    refused(['--project', sampleProject().root, '--context', fifo], /not a regular file/);
  });
});

describe('the database found by its fixed name is never a link out', () => {
  test('ralph.db, or its -wal file, as a symbolic link refuses the launch; --db names one explicitly', () => {
    const p = sampleProject();
    const elsewhere = join(tempDir(), 'other.db');
    renameSync(p.dbPath, elsewhere);
    symlinkSync(elsewhere, p.dbPath);
    refused(
      ['--project', p.root, '--recipe', 'yap'],
      /ralph\.db is a symbolic link; refusing to follow it .*--db PATH/,
    );
    assert.equal(runCli(['plan', '--project', p.root, '--recipe', 'yap', '--db', elsewhere]).status, 0);
    const q = sampleProject();
    const planted = join(tempDir(), 'planted-wal');
    writeFileSync(planted, '');
    symlinkSync(planted, `${q.dbPath}-wal`);
    refused(['--project', q.root, '--recipe', 'yap'], /ralph\.db-wal is a symbolic link/);
  });
});

describe('a claim narrows the session and tells the client', () => {
  test('tools/list_changed after a claim of a task whose discipline removes tools', async () => {
    const p = sampleProject();
    setOverrides(p, 'backend', ['append_learning']);
    const s = await startSession(p, ['--recipe', 'worker']);
    try {
      assert.equal(s.client.getServerCapabilities()?.tools?.listChanged, true);
      let changed = 0;
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      assert.ok((await s.toolNames()).includes('append_learning'));
      assert.equal((await s.ok('claim_next_task')).task.id, 5);
      for (let waited = 0; changed === 0 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      assert.equal(changed, 1, 'one tools/list_changed notification');
      assert.ok(!(await s.toolNames()).includes('append_learning'));
      await assert.rejects(
        s.client.callTool({ name: 'append_learning', arguments: { text: 'x' } }),
        /Unknown tool: append_learning/,
      );
    } finally {
      await s.close();
    }
  });
});
