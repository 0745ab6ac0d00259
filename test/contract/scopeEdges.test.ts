import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { dump, query, sampleProject, setOverrides, sql, tempDir } from '../helpers/project.js';
import { runCli, startSession } from '../helpers/server.js';

/** Edges of scope, claims, splitting, search and the launch commands found in review. */
const exec = (p: ReturnType<typeof sampleProject>, text: string) => {
  const db = sql(p);
  db.exec(text);
  db.close();
};

describe('own-task-only recipes without a task', () => {
  test('task_execution without --task and worker before a claim change no task', async () => {
    const p = sampleProject();
    const before = dump(p);
    for (const recipe of ['task_execution', 'worker']) {
      const s = await startSession(p, ['--recipe', recipe]);
      try {
        for (const [tool, args] of [
          ['set_task_status', { id: 8, status: 'pending' }],
          ['update_task_context', { id: 6, hints: 'pwned' }],
          ['report_blocker', { reason: 'x' }],
        ] as const) {
          const err = await s.fail(tool, args);
          assert.ok(['out_of_scope', 'invalid_argument'].includes(err.code), `${recipe} ${tool}: ${err.code}`);
        }
      } finally {
        await s.close();
      }
    }
    assert.equal(dump(p), before);
  });
});

describe('claims', () => {
  test('a failed claim keeps the binding; claims respect --discipline and check the discipline', async () => {
    const p = sampleProject();
    exec(p, "UPDATE tasks SET discipline = 'frontend' WHERE id = 5");
    const s = await startSession(p, ['--recipe', 'worker', '--discipline', 'frontend']);
    try {
      assert.equal((await s.ok('claim_next_task')).task.id, 5);
      await s.ok('set_task_status', { status: 'done' });
      assert.equal((await s.fail('claim_next_task', { feature: 'nope' })).code, 'not_found');
      assert.equal(
        (await s.fail('set_task_status', { id: 1, status: 'pending' })).code,
        'out_of_scope',
        'still bound to task 5',
      );
      assert.equal((await s.fail('claim_next_task', { discipline: 'backend' })).code, 'out_of_scope');
      const s2 = await startSession(p, ['--recipe', 'worker']);
      assert.equal((await s2.fail('claim_next_task', { discipline: 'bakend' })).code, 'not_found');
      await s2.close();
    } finally {
      await s.close();
    }
  });
});

describe('report_blocker and spawn_subtasks on edge rows', () => {
  test('report_blocker refuses a finished task', async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--recipe', 'task_execution', '--task', '1']);
    try {
      assert.equal((await s.fail('report_blocker', { reason: 'x' })).code, 'conflict');
    } finally {
      await s.close();
    }
  });

  test("spawn_subtasks never closes a cycle through the parent's dependents, and keeps odd stored items", async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--recipe', 'enrichment']);
    try {
      const before = dump(p);
      // Task 4 depends on 3: a subtask of 3 that depends on 4, with 4 rewired onto it, is a cycle.
      const err = await s.fail('spawn_subtasks', { parent_id: 3, tasks: [{ title: 'sub', depends_on: [4] }] });
      assert.equal(err.code, 'invalid_argument');
      assert.match(err.message, /cycle/);
      assert.equal(dump(p), before);
      exec(p, `UPDATE tasks SET depends_on = '[3, "x", 2.5]' WHERE id = 4`);
      await s.ok('spawn_subtasks', { parent_id: 3, tasks: [{ title: 'part a' }], skip_parent: false });
      assert.deepEqual(JSON.parse(query<{ d: string }>(p, 'SELECT depends_on AS d FROM tasks WHERE id = 4')[0]!.d), [
        3,
        'x',
        2.5,
        9,
      ]);
    } finally {
      await s.close();
    }
  });
});

describe('search after Ralph rebuilt its tables', () => {
  test('a missing trigger makes the next process rebuild the index', async () => {
    const p = sampleProject();
    const a = await startSession(p, ['--recipe', 'yap']);
    await a.ok('search_tasks', { query: 'recipe' });
    await a.close();
    exec(
      p,
      "DROP TRIGGER ralph_mcp_tasks_ai_v2; INSERT INTO tasks (id, feature, discipline, title) VALUES (51, 'search', 'backend', 'Quokka importer')",
    );
    const b = await startSession(p, ['--recipe', 'yap']);
    try {
      assert.deepEqual(
        (await b.ok('search_tasks', { query: 'quokka' })).results.map((r: { id: number }) => r.id),
        [51],
      );
      assert.equal((await b.ok('search_tasks', { query: 'हिन्दी' })).matched, 'none');
    } finally {
      await b.close();
    }
  });
});

describe('context.json and config', () => {
  test('a context without a recipe is refused (never the full suite)', () => {
    const p = sampleProject();
    const file = join(tempDir(), 'context.json');
    writeFileSync(file, JSON.stringify({ session_id: 's-2' }));
    const r = runCli(['--project', p.root, '--context', file]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /field "recipe" is required/);
  });

  test("a context's feature limits feature writes; config passes the context and session id through", async () => {
    const p = sampleProject();
    const file = join(tempDir(), 'context.json');
    writeFileSync(file, JSON.stringify({ recipe: 'ramble', feature: 'auth', disabled_tools: ['create_feature'] }));
    const s = await startSession(p, ['--context', file]);
    try {
      assert.equal((await s.fail('update_feature', { name: 'recipes', description: 'x' })).code, 'out_of_scope');
      assert.equal((await s.ok('add_feature_context_file', { file_path: 'src/auth/links.ts' })).feature_name, 'auth');
    } finally {
      await s.close();
    }
    const cfg = JSON.parse(
      runCli(['config', '--project', p.root, '--context', file, '--session-id', 'ramble-1']).stdout,
    );
    const args: string[] = cfg.mcpServers.ralph.args;
    assert.equal(args[args.indexOf('--context') + 1], file);
    assert.equal(args[args.indexOf('--session-id') + 1], 'ramble-1');
  });
});

describe('repairs and checks', () => {
  test('overrides --clear repairs an override naming an unknown tool or key; --disable refuses to guess', () => {
    const p = sampleProject();
    setOverrides(
      p,
      'quality',
      JSON.stringify({ additional_disabled: ['create_tsk'], disabled_tools: ['delete_task'] }),
    );
    const doctor = runCli(['doctor', '--project', p.root]);
    assert.equal(doctor.status, 1);
    assert.match(
      doctor.stdout + doctor.stderr,
      /unknown key\(s\) "disabled_tools"; the only key is "additional_disabled"/,
    );
    const guess = runCli(['overrides', '--project', p.root, '--discipline', 'quality', '--disable', 'delete_task']);
    assert.equal(guess.status, 2);
    assert.match(guess.stderr, /key\(s\) "disabled_tools" besides "additional_disabled"; run --clear first/);
    const r = runCli(['overrides', '--project', p.root, '--discipline', 'quality', '--clear']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      query<{ o: string | null }>(p, "SELECT mcp_tool_overrides AS o FROM disciplines WHERE name = 'quality'")[0]!.o,
      null,
    );
    assert.equal(runCli(['doctor', '--project', p.root]).status, 0);
  });

  test('doctor fails on ralph-mcp tables from a newer version', async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--recipe', 'yap']);
    await s.ok('set_task_status', { id: 5, status: 'in_progress' }); // creates our tables
    await s.close();
    exec(p, "UPDATE ralph_mcp_meta SET value = '9' WHERE key = 'schema_version'");
    const r = runCli(['doctor', '--project', p.root]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ ralph-mcp tables +version 9, newer than this ralph-mcp understands/);
  });

  test('a malformed resource URI and a dangling dependency in a brief are handled', async () => {
    const p = sampleProject();
    exec(p, "UPDATE tasks SET depends_on = '[3, 99]' WHERE id = 4");
    mkdirSync(join(p.ralphDir, 'mcp'), { recursive: true });
    const s = await startSession(p, ['--recipe', 'task_execution', '--task', '4']);
    try {
      await assert.rejects(
        s.client.readResource({ uri: 'ralph://features/%E0' }),
        (e: unknown) => e instanceof McpError && /malformed percent-encoding/.test(e.message),
      );
      const brief = await s.client.getPrompt({ name: 'task_brief', arguments: {} });
      assert.match(
        String((brief.messages[0]!.content as { text: string }).text),
        /"status": "missing: this task does not exist"/,
      );
    } finally {
      await s.close();
    }
  });
});
