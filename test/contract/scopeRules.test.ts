import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type Database from 'better-sqlite3';
import { ListToolsResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { doctor } from '../../src/cli/doctor.js';
import { overrides } from '../../src/cli/overrides.js';
import { StartupError } from '../../src/domain/errors.js';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { openStore } from '../../src/store/open/openStore.js';
import { query, sql, tempDir } from '../helpers/project.js';
import { ralphFeature, ralphTask } from '../helpers/ralphRead.js';
import { ALL_TOOLS, NEEDS_DISCIPLINE, RECIPE_TOOLS, RECIPES, SIGNAL_VERBS, VALID_ARGS } from '../helpers/spec.js';
import { inSpecOrder, namesTool } from '../helpers/spec.js';
import { contract, openInProc, type ContractEnv, type InProcSession } from './harness.js';
import { unchanged } from './support.js';
import { exec } from './support.claims.js';

/**
 * Issue 7, scope, on both generations: every recipe (and the full suite) × every tool, in a session launched
 * with `--task 6 --discipline frontend` (task 6: draft, feature search). A hidden tool is "Unknown tool"; a
 * visible tool aimed at another task, feature or discipline is refused, unless the README allows it (reading
 * other tasks, commenting on them); a refusal writes nothing; the same call on the own task succeeds; after
 * all of that the refusals still hold. Then sessions without a task, a worker's claim, and edges found in
 * review. Argument tricks as raw JSON and the CLI's exits: test/e2e/scope.test.ts.
 */

const OWN = 6;
const OTHER = 4;
type Args = Record<string, unknown>;
const AUTH_FILE = { feature_name: 'auth', file_path: 'src/hijack.ts' };

const OUT = 'out_of_scope';
type Target = { other: [Args, string][]; own: [Args, string] };
/** The call on the session's own task (feature, discipline) succeeds; on another, `otherGets` (refused). */
const pair = (key: string, own: unknown, other: unknown, rest: Args = {}, otherGets = OUT): Target => ({
  own: [{ [key]: own, ...rest }, 'ok'],
  other: [[{ [key]: other, ...rest }, otherGets]],
});

/**
 * Every tool that names a task, feature or discipline: the calls aimed outside the session's scope and what
 * each must get, and the call on its own (in this order each succeeds; comment_id -1: the comment just made).
 */
const TARGETS: Record<string, Target> = {
  get_task: pair('id', OWN, OTHER, {}, 'ok'),
  get_dependency_details: pair('id', OWN, OTHER, {}, 'ok'),
  get_answers: pair('task_id', OWN, OTHER, {}, 'ok'),
  task_history: pair('task_id', OWN, OTHER, {}, 'ok'),
  get_feature_learnings: pair('feature_name', 'search', 'recipes', {}, 'ok'),
  enrich_task: pair('id', OWN, OTHER, { pseudocode: 'do it' }),
  update_task: pair('id', OWN, OTHER, { description: 'x' }),
  set_task_status: {
    other: [
      [{ id: OTHER, status: 'done' }, OUT],
      [{ id: 8, status: 'pending' }, OUT],
      [{ id: 999, status: 'done' }, OUT],
    ],
    own: [{ id: OWN, status: 'in_progress' }, 'ok'],
  },
  update_task_context: pair('id', OWN, OTHER, { hints: 'x' }),
  add_dependency: pair('task_id', OWN, OTHER, { depends_on: 1 }),
  remove_dependency: pair('task_id', OWN, OTHER, { depends_on: 1 }),
  // A note for another task is allowed (SPEC-070 scenario 7); it records the writing session's task.
  add_task_comment: pair('task_id', OWN, OTHER, { body: 'a note' }, 'ok'),
  update_task_comment: {
    other: [
      [{ task_id: 1, comment_id: 1, body: 'x' }, OUT],
      [{ task_id: OWN, comment_id: 1, body: 'x' }, 'not_found'], // the comment is looked up within the own task
    ],
    own: [{ task_id: OWN, comment_id: -1, body: 'edited' }, 'ok'],
  },
  delete_task_comment: {
    other: [
      [{ task_id: 1, comment_id: 1 }, OUT],
      [{ task_id: OWN, comment_id: 2 }, 'not_found'],
    ],
    own: [{ task_id: OWN, comment_id: -1 }, 'ok'],
  },
  update_feature: pair('name', 'search', 'recipes', { description: 'x' }),
  append_feature_learning: pair('feature_name', 'search', 'recipes', { text: 'a lesson about search ranking' }),
  add_feature_context_file: pair('feature_name', 'search', 'recipes', { file_path: 'src/search/own.ts' }),
  delete_feature: { other: [[{ name: 'recipes' }, OUT]], own: [{ name: 'search' }, 'conflict'] }, // its tasks hold it
  update_discipline: pair('name', 'frontend', 'backend', { conventions: 'x' }),
  delete_discipline: { other: [[{ name: 'documentation' }, OUT]], own: [{ name: 'frontend' }, 'conflict'] },
  // The blocker is the own task's; on_task_id only leaves a comment upstream (like add_task_comment).
  report_blocker: { other: [], own: [{ reason: 'waiting for the API', on_task_id: OTHER }, 'ok'] },
  spawn_subtasks: pair('parent_id', OWN, OTHER, { tasks: [{ title: 'a part' }], skip_parent: false }),
  skip_task: pair('id', OWN, OTHER, { reason: 'split' }),
  // The own task moves; the session keeps its launch feature (sessionScope.test).
  move_task_to_feature: pair('id', OWN, OTHER, { feature: 'auth' }),
  delete_task: { other: [[{ id: 8 }, OUT]], own: [{ id: OWN }, 'ok'] },
  claim_next_task: { other: [[{}, 'conflict']], own: [{}, 'conflict'] }, // a --task session never claims another task
  // A --task session claims only its own task (task 6 is a draft: nothing to claim).
  claim_task: {
    other: [
      [{ id: OTHER }, OUT],
      [{ id: 999 }, OUT],
    ],
    own: [{ id: OWN }, 'conflict'],
  },
};

/** task_execution and worker see update_task narrowed to a status (what Ralph's task prompt asks of it). */
const STATUS_ONLY = ['task_execution', 'worker'];
/** A tool's row of TARGETS, as the recipe's narrowing lets it be called. */
const targetOf = (name: string, recipe: string | undefined): Target =>
  name === 'update_task' && recipe !== undefined && STATUS_ONLY.includes(recipe)
    ? pair('id', OWN, OTHER, { status: 'pending' })
    : TARGETS[name]!;

/** The tools that change a task (README: refused outside the session's own task). */
const TASK_WRITES = ['enrich_task', 'update_task', 'set_task_status', 'update_task_context', 'add_dependency'];
TASK_WRITES.push('remove_dependency', 'update_task_comment', 'delete_task_comment', 'spawn_subtasks', 'skip_task');
TASK_WRITES.push('move_task_to_feature', 'delete_task');

test('every tool of the registry is covered by the table or needs no target', () => {
  // next_tasks reads only and previews claims, which a --task session cannot make; release_task and the
  // verbs act on the session's own task only.
  const untargeted = ['list_tasks', 'next_tasks', 'create_task', 'search_tasks', 'list_features', 'get_feature'];
  untargeted.push('create_feature', 'list_disciplines', 'get_discipline', 'create_discipline', 'get_project_info');
  untargeted.push('get_project_progress', 'append_learning', 'read_learnings', 'append_progress', 'read_progress');
  untargeted.push('signal_abort', 'release_task', ...SIGNAL_VERBS);
  untargeted.push('list_templates', 'create_task_from_template'); // as create_task: any feature
  untargeted.push('dependency_problems'); // reads the whole graph, as get_project_progress reads every task
  untargeted.push('blocked_tasks'); // reads across tasks, as list_tasks
  assert.deepEqual(inSpecOrder([...Object.keys(TARGETS), ...untargeted]), [...ALL_TOOLS]);
});

const templates = new Map<string, Project>();
/** A fresh sample project: a copy of one made once per generation (making one takes far longer). */
function fresh(env: ContractEnv): Project {
  if (!templates.has(env.generation)) templates.set(env.generation, env.sample());
  const dir = tempDir();
  cpSync(templates.get(env.generation)!.root, dir, { recursive: true });
  return projectPaths(dir);
}

const readers = new Map<string, Database.Database>();
const statements = new Map<string, Database.Statement>();
after(() => {
  for (const db of readers.values()) db.close();
});
/** A statement on a connection kept open per project (a snapshot per call must be cheap). */
function prepared(p: Project, text: string): Database.Statement {
  const key = `${p.dbPath}\n${text}`;
  if (!readers.has(p.dbPath)) readers.set(p.dbPath, sql(p));
  if (!statements.has(key)) statements.set(key, readers.get(p.dbPath)!.prepare(text));
  return statements.get(key)!;
}
/** What test/helpers' dump() reads (Ralph's tables, schema and rows), and the state files. */
function snapshot(p: Project): string {
  const tables = prepared(
    p,
    `SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index')
      AND substr(tbl_name, 1, 10) <> 'ralph_mcp_' AND substr(name, 1, 10) <> 'ralph_mcp_' ORDER BY name`,
  ).all() as { name: string; sql: string | null }[];
  const rows = tables
    .filter((t) => t.sql?.startsWith('CREATE TABLE'))
    .map((t) => JSON.stringify(prepared(p, `SELECT * FROM "${t.name}" ORDER BY rowid`).all()));
  const files = [readFileSync(p.learningsFile, 'utf8'), readFileSync(p.progressFile, 'utf8')];
  return [...tables.map((t) => t.sql), ...rows, ...files].join('\n');
}

/**
 * Calls `name` and checks the outcome; a refusal must change nothing. 'unknown_tool' (JSON-RPC's) is not
 * snapshot per call: the caller checks a batch of hidden tools at once, as hidden.test does.
 */
async function expect(s: InProcSession, name: string, args: Args, expected: string, label = ''): Promise<any> {
  const before = expected === 'unknown_tool' ? undefined : snapshot(s.project);
  const r = await s.call(name, args).catch((err: unknown) => err);
  let got: string;
  if (r instanceof McpError)
    got = r.code === -32602 && /Unknown tool/.test(r.message) ? 'unknown_tool' : `mcp ${r.code}`;
  else if (r instanceof Error) throw r;
  else got = (r as any).isError ? (r as any).structuredContent.error.code : 'ok';
  assert.equal(got, expected, `${label}: ${name} ${JSON.stringify(args)} → ${got}, expected ${expected}`);
  if (got !== 'ok' && before !== undefined)
    assert.equal(snapshot(s.project), before, `${label}: refused ${name} ${JSON.stringify(args)} wrote`);
  return (r as any).structuredContent;
}

/** tools/list as the client receives it (without the SDK client compiling every output schema again: slow). */
const listed = async (s: InProcSession) =>
  (await s.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools;
const names = async (s: InProcSession) => (await listed(s)).map((t) => t.name);

contract('scope: every recipe × every tool, in a --task session', (env) => {
  for (const [label, recipe] of [...RECIPES.map((r) => [r, r]), ['full suite', undefined]] as const) {
    test(label, async () => {
      const s = await env.open({ recipe, task: String(OWN), discipline: 'frontend' }, fresh(env));
      const visible = await names(s);
      const expected = inSpecOrder(recipe ? RECIPE_TOOLS[recipe]! : ALL_TOOLS, env.generation);
      assert.deepEqual(visible, expected, 'tools/list is the recipe');
      const before = snapshot(s.project);
      for (const name of ALL_TOOLS.filter((t) => !visible.includes(t))) {
        await expect(s, name, TARGETS[name]?.own[0] ?? VALID_ARGS[name], 'unknown_tool', label);
        await expect(s, name, TARGETS[name]?.other[0]?.[0] ?? VALID_ARGS[name], 'unknown_tool', label);
      }
      assert.equal(snapshot(s.project), before, 'a hidden tool wrote');
      const scoped = Object.keys(TARGETS).filter((t) => visible.includes(t));
      // Out of scope, twice each (a repeated call is refused the same way); allowed writes once, below.
      const refusals = async (phase: string) => {
        for (const name of scoped)
          for (const [args, expected] of targetOf(name, recipe).other)
            if (expected !== 'ok')
              for (const n of [1, 2]) await expect(s, name, args, expected, `${label} ${phase} ${n}`);
      };
      await refusals('before');
      for (const name of scoped)
        for (const [args, expected] of targetOf(name, recipe).other) {
          if (expected !== 'ok') continue;
          const out = await expect(s, name, args, 'ok', label);
          if (name !== 'add_task_comment') continue;
          const { task_id, agent_task_id, discipline } = out.comment;
          assert.deepEqual([task_id, agent_task_id, discipline], [OTHER, OWN, 'frontend'], 'signed by the session');
        }
      let ownComment: number | undefined;
      for (const name of scoped.filter((t) => t !== 'delete_task')) {
        const [args, expected] = targetOf(name, recipe).own;
        if (args.comment_id === -1 && ownComment === undefined) continue; // no add_task_comment in this recipe
        const resolved = args.comment_id === -1 ? { ...args, comment_id: ownComment } : args;
        const out = await expect(s, name, resolved, expected, `${label} own`);
        if (name === 'add_task_comment') ownComment = out.comment.id;
      }
      // Nothing above widened the scope (writes, blockers, splits, the own task's move to another feature).
      await refusals('after');
      if (!visible.includes('delete_task')) return;
      await expect(s, 'delete_task', TARGETS.delete_task!.own[0], 'ok', label);
      assert.equal(ralphTask(s.project.dbPath, OWN), undefined, 'own task deleted');
      // With the own task gone, scope fails closed: still no other task, no other feature.
      for (const [args, expected] of TARGETS.set_task_status!.other) await expect(s, 'set_task_status', args, expected);
      await expect(s, 'update_feature', { name: 'recipes', description: 'x' }, OUT, 'own task deleted');
      await expect(s, 'add_feature_context_file', AUTH_FILE, OUT, 'own task deleted');
    });
  }
});

contract('scope rules, and edges found in review', (env) => {
  const legacy = env.generation === 'legacy';

  test('task_execution and worker without a task change no task and no feature, whatever it names', async () => {
    const p = fresh(env);
    for (const recipe of ['task_execution', 'worker']) {
      const s = await env.open({ recipe }, p);
      const visible = await names(s);
      let checked = 0;
      for (const name of TASK_WRITES.filter((t) => visible.includes(t)))
        for (const [args] of [...targetOf(name, recipe).other, targetOf(name, recipe).own]) {
          if (args.comment_id === -1) continue;
          await expect(s, name, args, OUT, recipe);
          checked++;
        }
      assert.ok(checked >= 5, `${checked} calls checked`);
      await expect(s, 'report_blocker', { reason: 'x' }, 'invalid_argument', recipe); // needs the own task
      await expect(s, 'add_feature_context_file', AUTH_FILE, OUT, recipe);
    }
  });

  test('a claim binds a worker to its task; no second claim; a failed claim keeps the binding', async () => {
    const s = await env.open({ recipe: 'worker', discipline: 'backend' }, fresh(env));
    assert.equal((await s.ok('claim_next_task')).task.id, 5, 'the critical, ready backend task');
    for (let i = 0; i < 2; i++) {
      await expect(s, 'set_task_status', { id: OTHER, status: 'done' }, OUT);
      await expect(s, 'update_task_context', { id: 3, hints: 'x' }, OUT);
      await expect(s, 'add_feature_context_file', { feature_name: 'recipes', file_path: 'src/x.ts' }, OUT);
      await expect(s, 'claim_next_task', {}, 'conflict');
      await expect(s, 'claim_next_task', { discipline: 'frontend' }, 'conflict');
    }
    await expect(s, 'update_task_context', { hints: 'own' }, 'ok');
    assert.equal(ralphTask(s.project.dbPath, 5)!.hints, 'own');
    await s.ok('set_task_status', { status: 'done' });
    await expect(s, 'claim_next_task', { feature: 'nope' }, 'not_found');
    await expect(s, 'set_task_status', { id: 1, status: 'pending' }, OUT, 'still bound to task 5');
    await expect(s, 'claim_next_task', { discipline: 'frontend' }, OUT, 'not the launch discipline');
    const other = await env.open({ recipe: 'worker' }, s.project);
    await expect(other, 'claim_next_task', { discipline: 'bakend' }, 'not_found');
  });

  test('a refusal names the scope; the schema and the instructions name the session task', async () => {
    const p = fresh(env);
    const y = await env.open({ recipe: 'yap', task: '3' }, p);
    await unchanged(y, async () => {
      for (const [tool, args] of [
        ['set_task_status', { id: 4, status: 'done' }],
        ['update_task', { id: 4, title: 'hijacked' }],
      ] as const) {
        const err = await y.fail(tool, args);
        assert.equal(err.code, OUT, tool);
        assert.match(err.message, /scoped to task 3/);
      }
    });
    const tool = (await listed(y)).find((t) => t.name === 'set_task_status')!;
    assert.deepEqual(tool.inputSchema.required, ['status']);
    assert.match(JSON.stringify(tool.inputSchema.properties?.id), /default: this session's task 3/);
    const s = await env.open({ recipe: 'task_execution', task: '3' }, p); // task 3 is in feature recipes
    await unchanged(s, async () => {
      const err = await s.fail('add_feature_context_file', { feature_name: 'auth', file_path: 'src/auth/links.ts' });
      assert.equal(err.code, OUT);
      assert.match(
        err.message,
        legacy ? /task 3 belongs to feature recipes/ : /task 3 belongs to feature \(subsystem\) recipes/,
      );
    });
    assert.equal(
      (await s.ok('add_feature_context_file', { file_path: 'src/ui/RecipeForm.tsx' })).feature_name,
      'recipes',
    );
    assert.deepEqual(ralphFeature(p.dbPath, 'recipes')!.context_files, ['src/api/recipes.ts', 'src/ui/RecipeForm.tsx']);
    const text = s.client.getInstructions() ?? '';
    assert.match(text, /Task: #3 "Recipe editor form"/);
    assert.match(text, /Session recipe: task_execution/);
    const enabled = new Set(await names(s));
    for (const t of ALL_TOOLS) assert.equal(namesTool(text, t), enabled.has(t), `${t} mentioned iff enabled`);
  });

  test('instructions and tool listings never name a hidden tool, in any recipe', async () => {
    const p = fresh(env);
    for (const recipe of RECIPES) {
      const s = await env.open({ recipe, discipline: NEEDS_DISCIPLINE.includes(recipe) ? 'backend' : undefined }, p);
      const tools = await listed(s);
      const enabled = new Set(tools.map((t) => t.name));
      const text =
        (s.client.getInstructions() ?? '') + JSON.stringify(tools.map((t) => [t.description, t.inputSchema]));
      for (const t of ALL_TOOLS) if (!enabled.has(t)) assert.ok(!namesTool(text, t), `${recipe} mentions hidden ${t}`);
    }
  });

  test("a context's feature limits feature writes", async () => {
    const file = join(tempDir(), 'context.json');
    writeFileSync(file, JSON.stringify({ recipe: 'ramble', feature: 'auth', disabled_tools: ['create_feature'] }));
    const s = await env.open({ context: file }, fresh(env));
    await unchanged(s, async () =>
      assert.equal((await s.fail('update_feature', { name: 'recipes', description: 'x' })).code, OUT),
    );
    assert.equal((await s.ok('add_feature_context_file', { file_path: 'src/auth/links.ts' })).feature_name, 'auth');
  });

  test('report_blocker refuses a finished task; spawn_subtasks closes no cycle, keeps odd stored items', async () => {
    const done = await env.open({ recipe: 'task_execution', task: '1' }, fresh(env));
    assert.equal((await done.fail('report_blocker', { reason: 'x' })).code, 'conflict');
    const s = await env.open({ recipe: 'enrichment' }, fresh(env));
    await unchanged(s, async () => {
      // Task 4 depends on 3: a subtask of 3 that depends on 4, with 4 rewired onto it, is a cycle.
      const err = await s.fail('spawn_subtasks', { parent_id: 3, tasks: [{ title: 'sub', depends_on: [4] }] });
      assert.equal(err.code, 'invalid_argument');
      assert.match(err.message, /cycle/);
    });
    if (!legacy) return; // items that are not task ids exist only in legacy JSON lists
    exec(s.project, `UPDATE tasks SET depends_on = '[3, "x", 2.5]' WHERE id = 4`);
    const odd = await openInProc(s.project, { recipe: 'enrichment' }, { invariants: false }); // Ralph could not read it
    await odd.ok('spawn_subtasks', { parent_id: 3, tasks: [{ title: 'part a' }], skip_parent: false });
    await odd.close();
    const [row] = query<{ d: string }>(s.project, 'SELECT depends_on AS d FROM tasks WHERE id = 4');
    assert.deepEqual(JSON.parse(row!.d), [3, 'x', 2.5, 9]);
  });

  test('search: a missing trigger of ours makes the next session rebuild the index', async () => {
    const p = fresh(env);
    await (await env.open({ recipe: 'yap' }, p)).ok('search_tasks', { query: 'recipe' });
    exec(
      p,
      legacy
        ? `DROP TRIGGER ralph_mcp_tasks_ai_v2;
           INSERT INTO tasks (id, feature, discipline, title) VALUES (51, 'search', 'backend', 'Quokka importer')`
        : `DROP TRIGGER ralph_mcp_runtime_tasks_ai_v2;
           INSERT INTO task_details (discipline_id, title)
             VALUES ((SELECT id FROM disciplines WHERE name = 'backend'), 'Quokka importer');
           INSERT INTO runtime_tasks (id, subsystem_id, details_id, status)
             VALUES (51, (SELECT id FROM subsystems WHERE name = 'search'), last_insert_rowid(), 'pending')`,
    );
    const b = await env.open({ recipe: 'yap' }, p);
    assert.deepEqual(
      (await b.ok('search_tasks', { query: 'quokka' })).results.map((r: { id: number }) => r.id),
      [51],
    );
    assert.equal((await b.ok('search_tasks', { query: 'हिन्दी' })).matched, 'none');
  });

  test('overrides --clear repairs what doctor reports, --disable refuses to guess; doctor sees newer tables', () => {
    const p = fresh(env);
    const { store } = openStore(p.dbPath);
    store.ensureOwnTables();
    const bad = JSON.stringify({ additional_disabled: ['create_tsk'], disabled_tools: ['delete_task'] });
    store.write(() => store.disciplines.writeToolOverrides('quality', bad));
    const report = doctor(p.root);
    assert.equal(report.ok, false);
    assert.match(report.text, /unknown key\(s\) "disabled_tools"; the only key is "additional_disabled"/);
    assert.throws(
      () => overrides({ project: p.root, discipline: 'quality', disable: ['delete_task'] }),
      (e) =>
        e instanceof StartupError &&
        /key\(s\) "disabled_tools" besides "additional_disabled"; run --clear first/.test(e.message),
    );
    overrides({ project: p.root, discipline: 'quality', clear: true });
    assert.equal(store.disciplines.toolOverrides('quality')!.raw, null);
    store.close();
    const repaired = doctor(p.root);
    assert.equal(repaired.ok, true, repaired.text);
    exec(p, "UPDATE ralph_mcp_meta SET value = '9' WHERE key = 'schema_version'");
    const newer = doctor(p.root);
    assert.equal(newer.ok, false);
    assert.match(newer.text, /✗ ralph-mcp tables +version 9, newer than this ralph-mcp understands/);
  });

  // Issue 28: the feature pin outlived the task it came from; the task's existence is checked at each call.
  test('a session whose own task was deleted (by itself, Ralph or SQL) changes no feature, not even its own', async () => {
    const deleters: [string, (p: Project, s: InProcSession) => Promise<void>][] = [
      ['the session', async (_p, s) => void (await expect(s, 'delete_task', { id: OWN }, 'ok'))],
      ['Ralph', async (p) => void (await expect(await env.open({}, p), 'delete_task', { id: OWN }, 'ok'))],
      [
        'SQL',
        async (p) =>
          exec(p, legacy ? `DELETE FROM tasks WHERE id = ${OWN}` : `DELETE FROM runtime_tasks WHERE id = ${OWN}`),
      ],
    ];
    for (const [who, del] of deleters) {
      const p = fresh(env);
      const s = await env.open({ task: String(OWN) }, p);
      await expect(s, 'update_feature', { name: 'search', description: 'before' }, 'ok', who);
      await del(p, s);
      assert.equal(ralphTask(p.dbPath, OWN), undefined, `${who} deleted it`);
      for (const args of [{ name: 'search', description: 'x' }, { description: 'x' }])
        await expect(s, 'update_feature', args, OUT, `${who} deleted the task`);
      await expect(s, 'add_feature_context_file', { feature_name: 'search', file_path: 'src/x.ts' }, OUT, who);
      await expect(s, 'get_feature_learnings', { feature_name: 'search' }, 'ok', `${who}: reading stays allowed`);
    }
  });

  test('a malformed resource URI is refused; a brief says a dependency is gone', async () => {
    const p = fresh(env);
    exec(
      p,
      legacy
        ? "UPDATE tasks SET depends_on = '[3, 99]' WHERE id = 4"
        : 'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (4, 99)',
    );
    const s = await env.open({ recipe: 'task_execution', task: '4' }, p);
    await assert.rejects(
      s.client.readResource({ uri: 'ralph://features/%E0' }),
      (e) => e instanceof McpError && /malformed percent-encoding/.test(e.message),
    );
    const brief = (await s.client.getPrompt({ name: 'task_brief', arguments: {} })).messages[0]!.content;
    assert.match((brief as { text: string }).text, /"status": "missing: this task does not exist"/);
  });
});
