import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { narrowToTask } from '../../src/session/narrow.js';
import type { SessionOptions } from '../../src/session/open.js';
import { dump } from '../helpers/project.js';
import { ALL_TOOLS, inSpecOrder, NEEDS_DISCIPLINE, RECIPE_TOOLS, RECIPES, VALID_ARGS } from '../helpers/spec.js';
import { contract } from './harness.js';
import { callError, UNKNOWN_TOOL } from './support.claims.js';

/**
 * --read-only, --tools and --exclude-tools (docs/sessions.md): they only remove from what the recipe,
 * discipline, task and schema give, and what they remove answers exactly as an unknown tool does.
 */
type Flags = Omit<SessionOptions, 'project'>;

/** Every recipe and the full suite, plain, with a task, with a discipline (discuss always needs one). */
const LAUNCHES: [string, Flags][] = [undefined, ...RECIPES].flatMap((recipe) => {
  const needs = recipe !== undefined && NEEDS_DISCIPLINE.includes(recipe);
  const base: Flags = { recipe, ...(needs ? { discipline: 'backend' } : {}) };
  return [
    [`${recipe ?? 'full suite'}`, base],
    [`${recipe ?? 'full suite'} --task 3`, { ...base, task: '3' }],
    [`${recipe ?? 'full suite'} --discipline quality`, { ...base, discipline: 'quality' }],
  ] as [string, Flags][];
});

contract('--read-only, --tools, --exclude-tools', (env) => {
  test('--read-only × every recipe, task and discipline: exactly the read-only subset the client would see', async () => {
    const project = env.sample();
    let removedSomewhere = false;
    for (const [label, flags] of LAUNCHES) {
      const all = await env.open(flags, project);
      const listed = (await all.client.listTools()).tools;
      const expected = listed.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
      const ro = await env.open({ ...flags, readOnly: true }, project);
      const got = (await ro.client.listTools()).tools;
      const names = got.map((t) => t.name);
      assert.deepEqual(names, expected, label);
      const readOnly = got.every((t) => t.annotations?.readOnlyHint === true);
      assert.ok(readOnly, `${label}: only tools annotated read-only`);
      assert.deepEqual(ro.plan.filters, { readOnly: true, only: null, exclude: [] });
      if (expected.length < listed.length) removedSomewhere = true;
    }
    assert.ok(removedSomewhere, 'the check above removed tools somewhere');
  });

  test('--read-only in words the spec knows: worker keeps its reads, loses claims and writes', async () => {
    const worker = await env.open({ recipe: 'worker', readOnly: true });
    const names = await worker.toolNames();
    for (const read of ['get_task', 'next_tasks', 'read_learnings', 'get_answers'])
      assert.ok(names.includes(read), read);
    for (const write of ['claim_next_task', 'set_task_status', 'append_learning', 'release_task'])
      assert.ok(!names.includes(write), write);
    const signals = await env.open({ recipe: 'signals', task: '3', readOnly: true });
    assert.deepEqual(await signals.toolNames(), []);
    assert.ok(signals.plan.warnings.some((w) => /--read-only leave this session no tool/.test(w)));
  });

  test('a tool the filters remove answers exactly like an unknown one and writes nothing', async () => {
    const project = env.sample();
    const before = dump(project);
    const sessions = [
      await env.open({ recipe: 'opus_review', readOnly: true }, project),
      await env.open({ recipe: 'opus_review', tools: ['get_task'] }, project),
      await env.open(
        { recipe: 'opus_review', excludeTools: ['set_task_status', 'update_task', 'create_task'] },
        project,
      ),
    ];
    for (const s of sessions) {
      const unknown = await callError(s, 'no_such_tool_at_all');
      assert.deepEqual(unknown, UNKNOWN_TOOL);
      for (const name of ['set_task_status', 'update_task', 'create_task'] as const)
        assert.deepEqual(await callError(s, name, VALID_ARGS[name]), unknown, name);
    }
    assert.equal(dump(project), before, 'database unchanged');
  });

  test('--tools only removes: a tool outside the recipe adds nothing and removes nothing', async () => {
    const project = env.sample();
    for (const recipe of RECIPES) {
      const base: Flags = { recipe, ...(NEEDS_DISCIPLINE.includes(recipe) ? { discipline: 'backend' } : {}) };
      const served = inSpecOrder(RECIPE_TOOLS[recipe]!, env.generation);
      const hidden = ALL_TOOLS.filter((t) => !RECIPE_TOOLS[recipe]!.includes(t));
      const kept = served[served.length - 1]!;
      // One of the recipe's tools and every tool it hides: only that one is served.
      const one = await env.open({ ...base, tools: [kept, ...hidden] }, project);
      assert.deepEqual(await one.toolNames(), [kept], recipe);
      // Only hidden tools: none is shown, each still answers as unknown.
      const none = await env.open({ ...base, tools: [hidden[0]!] }, project);
      assert.deepEqual(await none.toolNames(), [], recipe);
      assert.deepEqual(await callError(none, hidden[0]!), await callError(none, 'no_such_tool_at_all'));
      assert.ok(none.plan.warnings.some((w) => w.includes(`--tools names ${hidden[0]}, which this session does not`)));
      // --exclude-tools naming a hidden tool removes nothing else.
      const ex = await env.open({ ...base, excludeTools: [kept, ...hidden] }, project);
      const rest = served.filter((t) => t !== kept);
      assert.deepEqual(await ex.toolNames(), rest, recipe);
    }
  });

  test('the three compose with each other, a discipline, a task and context.json by removal only', async () => {
    const project = env.sample();
    const context = join(project.root, 'ctx.json');
    writeFileSync(context, JSON.stringify({ recipe: 'opus_review', task_id: 3, disabled_tools: ['list_tasks'] }));
    const s = await env.open(
      { context, readOnly: true, tools: ['list_tasks', 'get_task', 'search_tasks', 'set_task_status', 'delete_task'] },
      project,
    );
    // list_tasks: context.json removes it; set_task_status: --read-only; delete_task: opus_review hides it.
    assert.deepEqual(await s.toolNames(), ['get_task', 'search_tasks']);
    const both = await env.open({ recipe: 'yap', tools: ['get_task', 'list_tasks'], excludeTools: ['list_tasks'] });
    assert.deepEqual(await both.toolNames(), ['get_task']);
  });

  test('a per-connection task (HTTP) keeps the launch filters', async () => {
    const s = await env.open({ recipe: 'yap', readOnly: true, excludeTools: ['get_task'] });
    const narrowed = narrowToTask(s.plan, s.store, '3');
    assert.ok(narrowed.ok);
    const names = narrowed.plan.tools.map((t) => t.def.name);
    assert.deepEqual(names, await s.toolNames());
    assert.ok(!names.includes('get_task') && names.length > 0);
  });
});
