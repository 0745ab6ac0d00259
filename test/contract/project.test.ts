import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { initProject } from '../../src/store/open/init.js';
import { dump, query, sql, tempDir } from '../helpers/project.js';
import { generationOf, RALPH_STATUSES, ralphTaskList, type RalphTaskListItem } from '../helpers/ralphRead.js';
import { RECIPE_TOOLS } from '../helpers/spec.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';

/**
 * The project tools (get_project_info, get_project_progress) and the state files: append_learning /
 * read_learnings (.ralph/learnings.txt), append_progress / read_progress (.ralph/progress.txt), read back
 * with fs. What the files refuse (links, FIFOs, size bounds) is test/contract/stateFiles.safety.test.ts's.
 */

const read = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '<missing>');
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const HEADER = (who: string) => new RegExp(`^## \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z · ${who}\\n`);

/** The call is invalid_argument and changes neither Ralph's tables nor either state file. */
async function invalid(s: InProcSession, tool: string, args: Record<string, unknown>): Promise<void> {
  const files = () => [read(s.project.learningsFile), read(s.project.progressFile)];
  const before = files();
  await unchanged(s, async () =>
    assert.equal((await s.fail(tool, args)).code, 'invalid_argument', `${tool} ${JSON.stringify(args)}`),
  );
  assert.deepEqual(files(), before, `${tool} ${JSON.stringify(args)} was refused but changed a state file`);
}

/** get_project_progress as Ralph's own reads make it: its task list, and every feature and discipline by name. */
function assertProgress(r: any, p: Project): void {
  const tasks = ralphTaskList(p.dbPath);
  const count = (where: (t: RalphTaskListItem) => boolean) => tasks.filter(where).length;
  const groups = (table: string, key: 'subsystem' | 'discipline') =>
    query<{ name: string }>(p, `SELECT name FROM ${table} ORDER BY name`).map(({ name }) => ({
      name,
      done: count((t) => t[key] === name && t.status === 'done'),
      total: count((t) => t[key] === name),
    }));
  const done = count((t) => t.status === 'done');
  const { percent_done, lead_time, ...rest } = r;
  // Ready as a claim takes it: pending, every dependency a done task (the figures: blocked.test.ts).
  const statusOf = new Map(tasks.map((t) => [t.id, t.status]));
  const ready = count((t) => t.status === 'pending' && t.depends_on.every((d) => statusOf.get(d) === 'done'));
  assert.equal(lead_time.tasks + lead_time.skipped, Math.min(done, 1000), 'the lead time reads the done tasks');
  assert.deepEqual(rest, {
    total: tasks.length,
    done,
    by_status: Object.fromEntries(RALPH_STATUSES.map((st) => [st, count((t) => t.status === st)])),
    by_feature: groups(generationOf(p.dbPath) === 'legacy' ? 'features' : 'subsystems', 'subsystem'),
    by_discipline: groups('disciplines', 'discipline'),
    ready,
  });
  assert.equal(sum(Object.values(r.by_status as Record<string, number>)), r.total, 'by_status adds up to total');
  for (const g of [r.by_feature, r.by_discipline] as { done: number; total: number }[][])
    assert.deepEqual([sum(g.map((x) => x.total)), sum(g.map((x) => x.done))], [r.total, r.done], 'groups add up');
  const pct = tasks.length === 0 ? 0 : (100 * done) / tasks.length;
  assert.ok(Math.abs(percent_done - pct) <= 0.05, `percent_done ${percent_done} vs ${pct}`);
}

contract('project info and progress', (env) => {
  test('on an empty project a refusal names the recipes that create features and disciplines', async () => {
    const s = await env.open({ recipe: 'yap' }, initProject(tempDir(), { schema: env.generation, disciplines: false }));
    const makers = (tool: string) => Object.keys(RECIPE_TOOLS).filter((r) => RECIPE_TOOLS[r]!.includes(tool));
    assert.deepEqual(
      [makers('create_feature'), makers('create_discipline')],
      [
        ['braindump', 'ramble'],
        ['braindump', 'discuss'],
      ],
    );
    const e = await s.fail('create_task', { feature: 'search', discipline: 'backend', title: 'First task' });
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /there are no features( \(subsystems\))? yet; a braindump or ramble session creates them$/);
    const d = await s.fail('list_tasks', { filter_discipline: 'backend' });
    assert.match(d.message, /there are no disciplines yet; a braindump or discuss session creates them/);
  });

  test("get_project_info is the metadata row (one table in both generations) and follows Ralph's edits", async () => {
    const s = await env.open();
    const info = await s.ok('get_project_info', {});
    const m = query<any>(s.project, 'SELECT * FROM metadata WHERE id = 1')[0]!;
    assert.deepEqual(info, {
      title: m.project_title,
      description: m.project_description,
      created: m.project_created,
      schema_version: m.schema_version,
    });
    assert.deepEqual(
      [info.description, info.schema_version],
      ['A web app to collect, tag and search cooking recipes.', '1.0'],
    );
    assert.match(info.created, /^\d{4}-\d{2}-\d{2}$/);
    sql(s.project)
      .exec("UPDATE metadata SET project_title = 'Recipe Box 2', project_description = NULL WHERE id = 1")
      .close();
    const edited = await s.ok('get_project_info', {});
    assert.deepEqual([edited.title, edited.description], ['Recipe Box 2', null]);
  });

  test("get_project_progress agrees with Ralph's reads, follows writes, lists features without tasks", async () => {
    const s = await env.open();
    const r = await s.ok('get_project_progress', {});
    assertProgress(r, s.project);
    assert.deepEqual(
      r.by_discipline.find((g: any) => g.name === 'backend'),
      { name: 'backend', done: 2, total: 4 },
    );
    await s.ok('set_task_status', { id: 3, status: 'done' });
    await s.ok('set_task_status', { id: 5, status: 'done' });
    await s.ok('create_feature', { name: 'empty-one', display_name: 'Empty one' });
    await s.ok('create_task', { feature: 'auth', discipline: 'quality', title: 'More tests' });
    const after = await s.ok('get_project_progress', {});
    assertProgress(after, s.project);
    assert.deepEqual([after.total, after.done, after.percent_done], [9, 4, 44.4]);
    assert.deepEqual(
      after.by_feature.find((g: any) => g.name === 'empty-one'),
      { name: 'empty-one', done: 0, total: 0 },
    );
    await invalid(s, 'get_project_info', { verbose: true });
    await invalid(s, 'get_project_progress', { feature: 'recipes' });
  });

  test('an empty project reports zeros, not an error; init names it after its folder', async () => {
    const s = await env.open({}, initProject(tempDir(), { schema: env.generation, disciplines: false }));
    const r = await s.ok('get_project_progress', {});
    assert.deepEqual(r, {
      total: 0,
      done: 0,
      percent_done: 0,
      by_status: { draft: 0, pending: 0, in_progress: 0, done: 0, blocked: 0, skipped: 0 },
      by_feature: [],
      by_discipline: [],
      ready: 0,
      lead_time: { median_days: null, tasks: 0, skipped: 0 },
    });
    assertProgress(r, s.project);
    const info = await s.ok('get_project_info', {});
    assert.equal(info.description, null);
    assert.ok(info.title.startsWith('ralph-mcp-test-'), `init names the project after its folder: ${info.title}`);
    await invalid(s, 'get_project_progress', { x: 1 });
  });
});

const PAIRS = (['learnings', 'progress'] as const).map((which) => ({
  append: which === 'learnings' ? 'append_learning' : 'append_progress',
  read: `read_${which}`,
  file: (p: Project) => (which === 'learnings' ? p.learningsFile : p.progressFile),
  rel: `.ralph/${which}.txt`,
}));

/** Appends `text`: one entry, a header naming `who`, then `body` and a blank line; `bytes` is its size. */
async function appended(s: InProcSession, tool: string, text: string, body = text, who = 'ralph-mcp') {
  const r = await s.ok(tool, { text });
  assert.match(r.entry, HEADER(who));
  assert.ok(r.entry.endsWith(`\n${body}\n\n`), JSON.stringify(r.entry));
  assert.equal(r.bytes, Buffer.byteLength(r.entry, 'utf8'));
  return r;
}

contract('state files', (env) => {
  for (const pair of PAIRS) {
    test(`${pair.append} appends entries to ${pair.rel}, never replacing; ${pair.read} reads them back`, async () => {
      const s = await env.open();
      const file = pair.file(s.project);
      const other = PAIRS.find((x) => x !== pair)!;
      assert.equal(read(file), '', 'init leaves an empty file');
      const dbBefore = dump(s.project);
      const first = await appended(s, pair.append, 'Run the migrations before the API tests.');
      assert.equal(first.file, pair.rel);
      const stamp = /^## (\S+) /.exec(first.entry)![1]!;
      assert.ok(Math.abs(Date.now() - Date.parse(stamp)) < 120_000, `header stamp ${stamp} is recent`);
      assert.equal(read(file), first.entry, 'the file holds exactly the entry');
      assert.equal(dump(s.project), dbBefore, 'state files are not in the database');
      // The text is trimmed and its line ends made \n; unicode is kept.
      const text = '  Second entry.\r\nIt has two lines; “unicode” too ✓.  ';
      const second = await appended(s, pair.append, text, 'Second entry.\nIt has two lines; “unicode” too ✓.');
      const entries = [first.entry, second.entry];
      assert.equal(read(file), entries.join(''));
      assert.equal(read(other.file(s.project)), '', `the other state file (${other.rel}) is untouched`);

      // A line that looks like a header does not split the entry.
      const quoted = await s.ok(pair.append, { text: 'Quoted from the log:\n## 2026-01-01T00:00:00Z · fake\nend' });
      entries.push(quoted.entry);
      assert.equal(read(file), entries.join(''));
      const lastOne = await s.ok(pair.read, { last: 1 });
      assert.deepEqual(lastOne, { file: pair.rel, content: quoted.entry, entry_count: 3, returned_entries: 1 });
      const all = await s.ok(pair.read, {});
      assert.deepEqual(all, { file: pair.rel, content: read(file), entry_count: 3, returned_entries: 3 });
      const two = await s.ok(pair.read, { last: 2 });
      assert.deepEqual([two.content, two.returned_entries], [entries.slice(-2).join(''), 2]);
      const many = await s.ok(pair.read, { last: 1000 });
      assert.deepEqual([many.content, many.returned_entries], [entries.join(''), 3]);

      // Text written by hand before the first header counts as an entry.
      const hand = 'Notes Ralph wrote by hand.\nNo header here.\n\n';
      writeFileSync(file, hand + entries.join(''));
      assert.equal((await s.ok(pair.read, {})).entry_count, 4);
      assert.equal((await s.ok(pair.read, { last: 1 })).content, quoted.entry);
      const after = await s.ok(pair.append, { text: 'After the hand-written notes.' });
      assert.equal(read(file), hand + entries.join('') + after.entry);

      // A missing file reads as empty and is made by the next append.
      rmSync(file);
      assert.deepEqual(await s.ok(pair.read, {}), { file: pair.rel, content: '', entry_count: 0, returned_entries: 0 });
      const fresh = await s.ok(pair.append, { text: 'Fresh start.' });
      assert.equal(read(file), fresh.entry);
      const last = await s.ok(pair.read, { last: 1 });
      assert.deepEqual([last.content, last.entry_count], [fresh.entry, 1]);
    });

    test(`${pair.append} / ${pair.read}: empty, oversized or non-text text, a bad last, unknown fields`, async () => {
      const s = await env.open();
      await s.ok(pair.append, { text: 'An entry: a refusal must leave it as it is.' });
      const bad = [
        { text: '' },
        { text: ' \n\t ' },
        {},
        { text: 42 },
        { text: 'x'.repeat(8001) },
        { text: 'ok', who: 'x' },
      ];
      for (const args of bad) await invalid(s, pair.append, args);
      for (const last of [0, -1, 1001, 1.5, '1', null]) await invalid(s, pair.read, { last });
      await invalid(s, pair.read, { first: 1 });
    });
  }

  test('in a task_execution session the header names the recipe, discipline and task', async () => {
    const s = await env.open({ recipe: 'task_execution', task: '3' });
    const who = 'task_execution · frontend · task #3';
    const l = await appended(s, 'append_learning', 'The form library re-renders on every keystroke.', undefined, who);
    const g = await appended(s, 'append_progress', 'Editor form done; next: e2e tests (task 4).', undefined, who);
    assert.equal(read(s.project.learningsFile), l.entry);
    assert.equal(read(s.project.progressFile), g.entry);
    assert.equal((await s.ok('read_progress', { last: 1 })).content, g.entry);
    assert.equal((await s.ok('read_learnings', { last: 1 })).content, l.entry);
    await invalid(s, 'append_learning', { text: '' });
    await invalid(s, 'append_progress', { text: '' });
  });

  test('append_progress from two sessions at once: entries never interleave and none is lost', async () => {
    const p = env.sample();
    const a = await env.open({}, p);
    const b = await env.open({ recipe: 'task_execution', task: '5' }, p);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        a.ok('append_progress', { text: `A${i} ${'a'.repeat(2000)}` }),
        b.ok('append_progress', { text: `B${i} ${'b'.repeat(2000)}` }),
      ]).flat(),
    );
    const content = read(p.progressFile);
    for (const r of results) assert.ok(content.includes(r.entry), 'each entry is in the file, whole');
    assert.equal(Buffer.byteLength(content, 'utf8'), sum(results.map((r) => r.bytes)), 'nothing but the entries');
    assert.equal((await a.ok('read_progress', {})).entry_count, 40);
  });
});
