import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildConfig } from '../../src/cli/config.js';
import { assertToday } from '../helpers/assertions.js';
import { query } from '../helpers/project.js';
import { ralphComments, ralphDiscipline, ralphFeature, ralphTask } from '../helpers/ralphRead.js';
import { NEEDS_DISCIPLINE, RECIPES } from '../helpers/spec.js';
import { contract, type InProcSession } from './harness.js';
import { refused, unchanged } from './support.js';

/**
 * What Ralph head's prompts tell an agent to call (crates/prompt-builder: sections/instructions/*.rs and
 * the shapes of its generated bash tools, mcp/tools.rs), one test per row of docs/ralph-prompts.md: the
 * recipe's session, exactly the call the prompt describes, read back as Ralph reads it; a refusal changes
 * nothing. The sample (scripts/sampleProject.ts):
 *   1 done ← 2 done ← 3 in_progress ← 4 pending; 3 ← 7 blocked; 5 pending; 6 draft; 8 skipped
 *   recipes 1-4 · search 5, 6 · auth 7, 8; backend 1, 2, 5, 7 · frontend 3, 6 · quality 4 · documentation 8
 */

const task = (s: InProcSession, id: number) => ralphTask(s.project.dbPath, id)!;

/** The reason a blocked task's record holds, as Ralph reads it: legacy blocked_by, else the `blocked` signal. */
function blockedReason(s: InProcSession, id: number): string | null {
  if (s.store.generation === 'legacy')
    return query<{ b: string | null }>(s.project, 'SELECT blocked_by AS b FROM tasks WHERE id = ?', id)[0]!.b;
  const last = ralphComments(s.project.dbPath, id).at(-1)!;
  assert.ok(last.generation === 'normalized');
  assert.deepEqual([last.verb, last.kind], ['blocked', 'external']);
  return last.on;
}

const GITHUB = { name: 'github', command: 'npx', args: ['-y', '@mcp/github'], env: { GITHUB_TOKEN: 'ghp_x' } };
const DEVOPS = { name: 'devops', display_name: 'DevOps', icon: 'Cloud', color: '#1e90ff' };

contract("Ralph head's prompts, each in its recipe's session", (env) => {
  // ---- task_exec.rs (task_execution; our worker runs the same prompt) -----------------------------

  test('task_exec: "Update task status to `done` using the `update_task` MCP tool when complete"', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const r = await s.ok('update_task', { status: 'done' });
    assert.deepEqual([r.task.id, r.task.status, r.previous_status, r.changed], [5, 'done', 'pending', ['status']]);
    assert.equal(task(s, 5).status, 'done');
    assertToday(task(s, 5).completed, 'completed');
    // The same done gate as set_task_status: task 4 waits on task 3 (in_progress).
    const t4 = await env.open({ recipe: 'task_execution', task: '4' });
    const [gate] = await refused(t4, 'conflict', 'update_task', { status: 'done' });
    assert.match(gate!.message, /not done: #3 \(in_progress\).*force: true and a reason; nothing was changed/);
    // A worker sets the task it claimed.
    const w = await env.open({ recipe: 'worker', discipline: 'backend' }, env.sample());
    const claimed = (await w.ok('claim_next_task')).task.id;
    assert.equal((await w.ok('update_task', { status: 'done' })).task.status, 'done');
    assert.equal(task(w, claimed).status, 'done');
  });

  test('task_exec: "update the task status to `blocked` with a `blocked_by` explanation and stop"', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const why = 'The search service needs an API key nobody has';
    const r = await s.ok('update_task', { status: 'blocked', blocked_by: why });
    assert.deepEqual([r.task.status, r.task.blocked_by, r.comment.body], ['blocked', why, `Blocked: ${why}`]);
    assert.equal(task(s, 5).status, 'blocked');
    assert.equal(blockedReason(s, 5), why);
    // blocked_by alone says the same; with another status it is refused.
    const other = await env.open({ recipe: 'task_execution', task: '5' }, env.sample());
    assert.equal((await other.ok('update_task', { blocked_by: why })).task.status, 'blocked');
    assert.equal(blockedReason(other, 5), why);
    await refused(s, 'invalid_argument', 'update_task', { status: 'done', blocked_by: why }, { blocked_by: '  ' });
  });

  test('task_exec: "If a dependency task is not yet complete, do not proceed -- mark yourself as blocked"', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '4' });
    const r = await s.ok('update_task', { status: 'blocked', blocked_by: 'Task #3 (the editor) is not done' });
    assert.equal(r.task.status, 'blocked');
    assert.equal(task(s, 4).status, 'blocked');
    assert.equal(blockedReason(s, 4), 'Task #3 (the editor) is not done');
  });

  test('task_exec: "Work on ONE task only per iteration. Do not start other tasks."', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const others = [
      { id: 6, status: 'in_progress' },
      { id: 4, status: 'blocked', blocked_by: 'x' },
    ];
    await refused(s, 'out_of_scope', 'update_task', ...others);
    await refused(
      s,
      'invalid_argument',
      'update_task',
      { title: 'Renamed' },
      { description: 'not a task prompt call' },
    );
    await unchanged(s, () => assert.rejects(s.call('claim_next_task', {}), /Unknown tool: claim_next_task/));
  });

  test('task_exec: "Read the task details … acceptance criteria, and hints" / "Verify acceptance criteria"', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const t = (await s.ok('get_task', {})).task;
    assert.deepEqual([t.id, t.acceptance_criteria], [5, task(s, 5).acceptance_criteria]);
  });

  test('task_exec: "Append a summary to `progress.txt` describing what you accomplished"', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    await s.ok('append_progress', { text: 'Task 5: the FTS index is in place' });
    assert.match(readFileSync(s.project.progressFile, 'utf8'), /Task 5: the FTS index is in place/);
  });

  // ---- braindump.rs --------------------------------------------------------------------------------

  test('braindump: "Create subsystems … a clear name, display name, and description"', async () => {
    const s = await env.open({ recipe: 'braindump' });
    await s.ok('create_feature', { name: 'meal_plans', display_name: 'Meal plans', description: 'Plan a week' });
    const f = ralphFeature(s.project.dbPath, 'meal_plans')!;
    assert.deepEqual([f.display_name, f.description], ['Meal plans', 'Plan a week']);
  });

  test('braindump: "Create or update disciplines … Configure system_prompt, skills, and conventions"', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const given = { system_prompt: 'You run CI.', skills: ['docker'], conventions: '- Pin actions' };
    await s.ok('create_discipline', { ...DEVOPS, ...given });
    const d = ralphDiscipline(s.project.dbPath, 'devops')!;
    assert.deepEqual([d.system_prompt, d.skills, d.conventions], [given.system_prompt, ['docker'], given.conventions]);
    // Updating is not braindump's (nor in Ralph's own braindump tools): it creates, it does not modify.
    await unchanged(s, () => assert.rejects(s.call('update_discipline', { name: 'backend', conventions: 'x' })));
  });

  test('braindump: "Tasks are created as **drafts** by default"; elsewhere the default stays pending', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const base = { feature: 'search', discipline: 'backend' };
    const draft = (await s.ok('create_task', { ...base, title: 'Rank by tag' })).task;
    assert.equal(draft.status, 'draft');
    assert.equal(task(s, draft.id).status, 'draft');
    const pending = (await s.ok('create_task', { ...base, title: 'Rank by rating', status: 'pending' })).task;
    assert.equal(task(s, pending.id).status, 'pending');
    const y = await env.open({ recipe: 'yap' }, s.project);
    assert.equal((await y.ok('create_task', { ...base, title: 'Rank by date' })).task.status, 'pending');
  });

  test('braindump: "Belong to exactly one subsystem and one discipline"; "Set appropriate priority"', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const base = { feature: 'search', discipline: 'backend' };
    const t = task(s, (await s.ok('create_task', { ...base, title: 'Synonyms', priority: 'high' })).task.id);
    assert.deepEqual([t.feature, t.discipline, t.priority], ['search', 'backend', 'high']);
    const bad = [
      { feature: 'search', title: 'No discipline' },
      { ...base, title: 'Urgent', priority: 'urgent' },
    ];
    await refused(s, 'invalid_argument', 'create_task', ...bad);
  });

  test('braindump: "Specify dependencies on other tasks via `depends_on`"', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const first = (await s.ok('create_task', { feature: 'auth', discipline: 'backend', title: 'Magic links' })).task;
    const next = { feature: 'auth', discipline: 'frontend', title: 'Sign-in page', depends_on: [first.id] };
    assert.deepEqual(task(s, (await s.ok('create_task', next)).task.id).depends_on, [first.id]);
  });

  // ---- yap.rs ----------------------------------------------------------------------------------------

  test('yap: "Update existing tasks … (status, description, priority, acceptance criteria, etc.)"', async () => {
    const s = await env.open({ recipe: 'yap' });
    const r = await s.ok('update_task', {
      id: 5,
      status: 'in_progress',
      description: 'FTS5 over titles and tags',
      priority: 'high',
      acceptance_criteria: ['A tag finds its recipes'],
    });
    assert.deepEqual(r.changed, ['description', 'priority', 'acceptance_criteria', 'status']);
    const t = task(s, 5);
    assert.deepEqual(
      [t.status, t.description, t.priority, t.acceptance_criteria],
      ['in_progress', 'FTS5 over titles and tags', 'high', ['A tag finds its recipes']],
    );
  });

  test('yap: "Set dependencies (`depends_on`)", "Use `context_files`", "Use `hints`"', async () => {
    const s = await env.open({ recipe: 'yap' });
    await s.ok('update_task', { id: 6, depends_on: [5], context_files: ['src/search/fts.ts'], hints: 'Reuse the FTS' });
    const t = task(s, 6);
    assert.deepEqual([t.depends_on, t.context_files, t.hints], [[5], ['src/search/fts.ts'], 'Reuse the FTS']);
  });

  test('yap: "Preserve existing task data when updating -- only change what the user explicitly requests"', async () => {
    const s = await env.open({ recipe: 'yap' });
    const { priority: _p, updated: _u, ...before } = task(s, 3);
    await s.ok('update_task', { id: 3, priority: 'low' });
    const { priority, updated: _u2, ...after } = task(s, 3);
    assert.equal(priority, 'low');
    assert.deepEqual(after, before);
  });

  // ---- ramble.rs -------------------------------------------------------------------------------------

  test('ramble: "Create new subsystems" / "Update existing subsystems"', async () => {
    const s = await env.open({ recipe: 'ramble' });
    await s.ok('create_feature', { name: 'sharing', display_name: 'Sharing' });
    await s.ok('update_feature', { name: 'sharing', description: 'Share a recipe by link' });
    assert.equal(ralphFeature(s.project.dbPath, 'sharing')!.description, 'Share a recipe by link');
  });

  test('ramble: "Set `knowledge_paths`" and "Set `context_files`" of a subsystem', async () => {
    const s = await env.open({ recipe: 'ramble' });
    const paths = { knowledge_paths: ['docs/search.md'], context_files: ['src/search/index.ts'] };
    await s.ok('update_feature', { name: 'search', ...paths });
    const f = ralphFeature(s.project.dbPath, 'search')!;
    assert.deepEqual([f.knowledge_paths, f.context_files], [['docs/search.md'], ['src/search/index.ts']]);
  });

  test('ramble: "If a subsystem is being split or merged, update associated tasks accordingly"', async () => {
    const s = await env.open({ recipe: 'ramble' });
    await s.ok('create_feature', { name: 'tagging', display_name: 'Tagging' });
    const r = await s.ok('move_task_to_feature', { id: 6, feature: 'tagging' });
    assert.deepEqual([r.previous_feature, task(s, 6).feature], ['search', 'tagging']);
  });

  // ---- discuss.rs (launched for one discipline) ------------------------------------------------------

  test('discuss: "Update disciplines using the `update_discipline` MCP tool" (system_prompt, skills, conventions)', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'backend' });
    const given = { system_prompt: 'You own the API.', skills: ['node', 'sqlite', 'fts5'], conventions: '- Early' };
    await s.ok('update_discipline', { name: 'backend', ...given });
    const d = ralphDiscipline(s.project.dbPath, 'backend')!;
    assert.deepEqual({ system_prompt: d.system_prompt, skills: d.skills, conventions: d.conventions }, given);
    await refused(s, 'out_of_scope', 'update_discipline', { name: 'frontend', conventions: 'x' });
  });

  test('discuss: "Create new disciplines using the `create_discipline` MCP tool": new ones only', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'backend' });
    const r = await s.ok('create_discipline', { ...DEVOPS, skills: ['terraform'], mcp_servers: [GITHUB] });
    assert.equal(r.discipline.name, 'devops');
    const d = ralphDiscipline(s.project.dbPath, 'devops')!;
    assert.deepEqual([d.skills, d.mcp_servers], [['terraform'], [GITHUB]]);
    // An existing discipline is changed only by its own session: a taken name, its own included, is refused.
    for (const name of ['frontend', 'backend'])
      await refused(s, 'conflict', 'create_discipline', { ...DEVOPS, name, display_name: 'Again' });
    // The new one is not this session's to change afterwards.
    await refused(s, 'out_of_scope', 'update_discipline', { name: 'devops', conventions: 'x' });
  });

  test('discuss: "mcp_servers: Additional MCP servers the discipline needs", stored as Ralph reads them', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'backend' });
    const sentry = { name: 'sentry', command: 'sentry-mcp' };
    const r = await s.ok('update_discipline', { name: 'backend', mcp_servers: [GITHUB, sentry] });
    assert.deepEqual(r.changed, ['mcp_servers']);
    const both = [GITHUB, { ...sentry, args: [], env: {} }];
    assert.deepEqual(ralphDiscipline(s.project.dbPath, 'backend')!.mcp_servers, both);
    assert.deepEqual((await s.ok('get_discipline', { name: 'backend' })).discipline.mcp_servers.length, 2);
    if (s.store.generation === 'legacy') {
      // Ralph's own JSON (skip_serializing_if): empty args and env left out.
      const raw = query<{ m: string }>(s.project, "SELECT mcp_servers AS m FROM disciplines WHERE name = 'backend'");
      assert.deepEqual(JSON.parse(raw[0]!.m), [GITHUB, sentry]);
    }
    // What `ralph-mcp config` then launches beside this discipline's sessions.
    const config = buildConfig(s.plan, s.store, 'claude') as { mcpServers: Record<string, { env?: object }> };
    assert.deepEqual(config.mcpServers.github, { command: 'npx', args: GITHUB.args, env: GITHUB.env });
    const { env: none = {}, ...plain } = config.mcpServers.sentry!;
    assert.deepEqual([plain, none], [{ command: 'sentry-mcp', args: [] }, {}]);
    // Refused as config would refuse to read them; nothing changes.
    const bad = (servers: unknown) => ({ name: 'backend', mcp_servers: servers });
    const npx = (more: object) => [{ name: 'x', command: 'npx', ...more }];
    const errors = await refused(
      s,
      'invalid_argument',
      'update_discipline',
      ...[[{ name: 'ralph', command: 'npx' }], [{ name: 'ralph-signals', command: 'npx' }], [GITHUB, GITHUB]].map(bad),
      ...[npx({ name: 'a b' }), npx({ command: '  ' }), [{ name: 'x' }], npx({ args: 'a b' })].map(bad),
      ...[npx({ env: { 'A=B': '1' } }), npx({ env: { A: 1 } }), npx({ cwd: '/' }), 'npx github'].map(bad),
    );
    assert.match(errors[0]!.message, /mcp_servers\[0\]\.name "ralph" is reserved/);
    assert.match(errors[2]!.message, /mcp_servers\[1\]\.name "github" is given twice/);
    // An empty list clears them.
    await s.ok('update_discipline', { name: 'backend', mcp_servers: [] });
    assert.deepEqual(ralphDiscipline(s.project.dbPath, 'backend')!.mcp_servers, []);
  });

  test('discuss: "Review existing disciplines listed above"', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'backend' });
    const names = (await s.ok('list_disciplines', {})).disciplines.map((d: any) => d.name);
    assert.ok(names.includes('backend') && names.includes('frontend'));
    assert.equal((await s.ok('get_discipline', { name: 'frontend' })).discipline.name, 'frontend');
  });

  // ---- opus_review.rs --------------------------------------------------------------------------------

  test('opus_review: "Review recently completed tasks"', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const r = await s.ok('list_tasks', { filter_status: 'done', sort: 'updated' });
    assert.deepEqual(r.tasks.map((t: any) => t.id).sort(), [1, 2]);
  });

  test('opus_review: "Update learnings.txt … so future iterations benefit"', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await s.ok('append_learning', { text: 'FTS5 triggers must be dropped before the table' });
    assert.match(readFileSync(s.project.learningsFile, 'utf8'), /FTS5 triggers must be dropped before the table/);
  });

  test('opus_review: a "done" task not actually complete: "set it back to `in_progress` or `blocked`"', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    await s.ok('set_task_status', { id: 2, status: 'in_progress' });
    assert.deepEqual([task(s, 2).status, task(s, 2).completed], ['in_progress', null]);
    await s.ok('set_task_status', { id: 1, status: 'blocked' });
    assert.deepEqual([task(s, 1).status, task(s, 1).completed], ['blocked', null]);
  });

  // ---- enrichment.rs ---------------------------------------------------------------------------------

  test('enrichment: "Call `enrich_task` with the pseudocode, acceptance criteria, and context files"', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    const given = { pseudocode: 'Add rank() to src/search/query.ts', acceptance_criteria: ['Best match first'] };
    const r = await s.ok('enrich_task', { id: 6, ...given, context_files: ['src/search/query.ts'] });
    assert.equal(r.task.status, 'pending');
    const t = task(s, 6);
    assert.deepEqual(
      [t.status, t.pseudocode, t.acceptance_criteria, t.context_files],
      ['pending', 'Add rank() to src/search/query.ts', ['Best match first'], ['src/search/query.ts']],
    );
    assert.ok(t.enriched_at);
  });

  test('enrichment: "Do NOT … modify other tasks": no status through update_task (enriching promotes)', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    await refused(s, 'invalid_argument', 'update_task', { id: 6, status: 'pending' }, { id: 6, blocked_by: 'x' });
  });

  // ---- mcp/tools.rs: the shapes Ralph's generated bash tools took -----------------------------------

  test('tools.rs create_task: acceptance_criteria "Semicolon-separated" (braindump, yap, enrichment)', async () => {
    for (const recipe of ['braindump', 'yap', 'enrichment']) {
      const s = await env.open({ recipe });
      const criteria = ' "pans" finds "pan" ; plurals too;; ';
      const title = `Stemming (${recipe})`;
      const r = await s.ok('create_task', {
        feature: 'search',
        discipline: 'backend',
        title,
        acceptance_criteria: criteria,
      });
      assert.deepEqual(task(s, r.task.id).acceptance_criteria, ['"pans" finds "pan"', 'plurals too'], recipe);
    }
  });

  test('tools.rs enrich_task: acceptance_criteria and context_files "Semicolon-separated" (enrichment)', async () => {
    const s = await env.open({ recipe: 'enrichment' });
    const files = 'src/search/query.ts; src/search/rank.ts';
    await s.ok('enrich_task', {
      id: 6,
      pseudocode: 'Rank in SQL',
      acceptance_criteria: 'Best match first;Ties by date',
      context_files: files,
    });
    const t = task(s, 6);
    assert.deepEqual(t.acceptance_criteria, ['Best match first', 'Ties by date']);
    assert.deepEqual(t.context_files, ['src/search/query.ts', 'src/search/rank.ts']);
    // Each part is checked as a path is: one bad part refuses the whole call.
    const again = await env.open({ recipe: 'enrichment' });
    await refused(again, 'invalid_argument', 'enrich_task', { id: 6, pseudocode: 'x', context_files: 'src/a.ts;../b' });
  });

  test('tools.rs: the same strings on update_task (yap, enrichment)', async () => {
    for (const recipe of ['yap', 'enrichment']) {
      const s = await env.open({ recipe });
      await s.ok('update_task', { id: 5, acceptance_criteria: 'Finds tags; Finds titles', context_files: 'src/a.ts' });
      const t = task(s, 5);
      assert.deepEqual([t.acceptance_criteria, t.context_files], [['Finds tags', 'Finds titles'], ['src/a.ts']]);
    }
  });

  test('tools.rs update_task / set_task_status / update_feature / update_discipline / append_learning: as Ralph shaped them', async () => {
    const y = await env.open({ recipe: 'yap' });
    await y.ok('update_task', { id: 5, title: 'FTS index', description: 'Over titles', priority: 'medium' });
    await y.ok('set_task_status', { id: 5, status: 'in_progress' });
    assert.deepEqual([task(y, 5).title, task(y, 5).status], ['FTS index', 'in_progress']);
    const o = await env.open({ recipe: 'opus_review' });
    await o.ok('update_feature', { name: 'auth', display_name: 'Sign-in', description: 'Email links' });
    assert.equal(ralphFeature(o.project.dbPath, 'auth')!.display_name, 'Sign-in');
    await o.ok('append_learning', { text: 'Links expire after 15 minutes' });
    const d = await env.open({ recipe: 'discuss', discipline: 'backend' });
    await d.ok('update_discipline', { name: 'backend', system_prompt: 'API owner', conventions: '- No ORMs' });
    assert.equal(ralphDiscipline(d.project.dbPath, 'backend')!.conventions, '- No ORMs');
    for (const [recipe, tool] of [
      ['braindump', 'list_features'],
      ['braindump', 'list_disciplines'],
      ['enrichment', 'list_tasks'],
    ] as const)
      await (await env.open({ recipe })).ok(tool, {});
  });

  test('tools.rs create_discipline: color is a CSS hex color, not a "Tailwind color class"', async () => {
    const s = await env.open({ recipe: 'braindump' });
    const colors = ['bg-sky-500', 'sky'].map((color) => ({ ...DEVOPS, color }));
    const [long, short] = await refused(s, 'invalid_argument', 'create_discipline', ...colors);
    assert.match(long!.message, /color: .*<=7 characters/);
    assert.match(short!.message, /hex color like "#1e90ff"/);
  });

  test('tools.rs add_context_file(task_id, file_path): in no recipe of Ralph; update_task_context does it', async () => {
    // Every recipe (signals needs a task), and the full suite.
    for (const recipe of [...RECIPES, undefined]) {
      const discipline = recipe !== undefined && NEEDS_DISCIPLINE.includes(recipe) ? 'backend' : undefined;
      const s = await env.open({ recipe, discipline, task: recipe === 'signals' ? '5' : undefined });
      await unchanged(s, () =>
        assert.rejects(s.call('add_context_file', { task_id: 5, file_path: 'src/a.ts' }), /Unknown tool/),
      );
    }
    const s = await env.open({ recipe: 'task_execution', task: '5' });
    const r = await s.ok('update_task_context', { add_context_files: ['src/search/fts.ts'] });
    assert.deepEqual([r.added, task(s, 5).context_files], [['src/search/fts.ts'], ['src/search/fts.ts']]);
  });
});
