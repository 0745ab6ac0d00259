import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { dump, query, sampleProject } from '../helpers/project.js';
import type { InProcSession } from './harness.js';
import { plainSql, sessions } from './support.security.js';

/** Rows that Ralph, a person or an older tool wrote in unexpected shapes: read them, never lose them. */
describe("odd rows in Ralph's database", () => {
  const open = sessions();
  let p: Project;
  let s: InProcSession;
  const exec = (text: string, ...params: unknown[]) => plainSql(p, text, ...params);
  before(async () => {
    p = sampleProject();
    s = await open(p, [], { invariants: false });
  });

  /** A learning as Ralph stores it, and an append to a feature's learnings. */
  const lesson = (text: string, more: object = {}) => ({
    text,
    source: 'human',
    created: '',
    hit_count: 1,
    reviewed: true,
    review_count: 0,
    ...more,
  });
  const learn = (feature_name: string, text: string) => ({ feature_name, text });

  test('a learnings column that is not a JSON array is refused, never overwritten', async () => {
    exec("UPDATE features SET learnings = 'not json at all' WHERE name = 'auth'");
    const before = dump(p);
    const err = await s.fail('append_feature_learning', learn('auth', 'Rotate sign-in links after one use'));
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /features\.learnings of feature auth does not hold a JSON array/);
    assert.equal(dump(p), before);
    assert.deepEqual((await s.ok('get_feature', { name: 'auth' })).feature.learnings, [], 'still readable');
  });

  test('unknown keys on stored learnings are kept when the list is rewritten', async () => {
    const kept = lesson('Rank title matches first', { created: '2026-01-01T00:00:00Z', embedding_id: 7 });
    exec("UPDATE features SET learnings = ? WHERE name = 'search'", JSON.stringify([kept]));
    const r = await s.ok('append_feature_learning', learn('search', 'Strip diacritics before indexing'));
    assert.equal(r.outcome, 'added');
    const stored = JSON.parse(
      query<{ l: string }>(p, "SELECT learnings AS l FROM features WHERE name = 'search'")[0]!.l,
    );
    assert.deepEqual([stored[0].embedding_id, stored.length], [7, 2]);
  });

  test('with more than 50 learnings already stored, a duplicate still counts (nothing is added)', async () => {
    const many = Array.from({ length: 55 }, (_, i) => lesson(`lesson number ${i} about topic${i} and area${i}`));
    exec("UPDATE features SET learnings = ? WHERE name = 'recipes'", JSON.stringify(many));
    const dup = await s.ok('append_feature_learning', learn('recipes', 'Lesson number 3 about topic3 and area3'));
    assert.equal(dup.outcome, 'duplicate');
    const err = await s.fail('append_feature_learning', learn('recipes', 'A genuinely new lesson about caching'));
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /already holds 55 learnings \(max 50\)/);
  });

  test('a context file stored as "./path" is recognised as the same file', async () => {
    exec("UPDATE features SET context_files = ? WHERE name = 'auth'", JSON.stringify(['./src/auth/links.ts']));
    const r = await s.ok('add_feature_context_file', { feature_name: 'auth', file_path: 'src/auth/links.ts' });
    assert.equal(r.added, false);
    assert.deepEqual(
      JSON.parse(query<{ c: string }>(p, "SELECT context_files AS c FROM features WHERE name = 'auth'")[0]!.c),
      ['./src/auth/links.ts'],
    );
  });

  test('a dependency id stored as a string still protects the task from deletion', async () => {
    exec('UPDATE tasks SET depends_on = \'["8"]\' WHERE id = 5');
    exec("UPDATE tasks SET depends_on = 'garbage' WHERE id = 6");
    const err = await s.fail('delete_task', { id: 8 });
    assert.equal(err.code, 'conflict');
    assert.deepEqual(err.details, { dependents: [5] });
    assert.deepEqual((await s.ok('get_task', { id: 5 })).task.depends_on, [8]);
  });

  test('feature dependency cycles are refused', async () => {
    await s.ok('update_feature', { name: 'search', dependencies: ['recipes'] });
    const err = await s.fail('update_feature', { name: 'recipes', dependencies: ['search'] });
    assert.equal(err.code, 'invalid_argument');
    assert.match(err.message, /cycle: recipes → search → recipes/);
  });
});

describe('paths and state files written by hand', () => {
  const open = sessions();

  test('a dangling symlink pointing outside the project is refused; control characters too', async () => {
    const p = sampleProject();
    symlinkSync('/etc/nonexistent-dir-for-ralph-test', `${p.root}/outside`);
    symlinkSync(`${p.root}/not-yet`, `${p.root}/inside-dangling`);
    const s = await open(p);
    const add = (file_path: string) => ({ feature_name: 'auth', file_path });
    for (const file_path of ['outside/passwd', 'src/a\nb.ts', ' src/a.ts', 'src/a.ts\t'])
      assert.equal((await s.fail('add_feature_context_file', add(file_path))).code, 'invalid_argument', file_path);
    assert.equal((await s.ok('add_feature_context_file', add('inside-dangling/x.ts'))).added, true);
  });

  test('an append after a hand-written last line without a newline starts its own line', async () => {
    const p = sampleProject();
    writeFileSync(p.progressFile, 'Notes written by hand, no newline');
    const s = await open(p, ['--recipe', 'task_execution', '--task', '3']);
    await s.ok('append_progress', { text: 'first entry' });
    const last = await s.ok('read_progress', { last: 1 });
    assert.match(last.content, /^## \S+ · task_execution · frontend · task #3\nfirst entry\n\n$/);
    assert.equal(last.entry_count, 2);
    assert.match(readFileSync(p.progressFile, 'utf8'), /^Notes written by hand, no newline\n## /);
  });

  test('mcp_tool_overrides holding JSON null means no overrides', async () => {
    const p = sampleProject();
    plainSql(p, "UPDATE disciplines SET mcp_tool_overrides = 'null' WHERE name = 'quality'");
    const s = await open(p, ['--recipe', 'yap', '--discipline', 'quality']);
    assert.ok((await s.toolNames()).includes('set_task_status'));
  });

  test('a task that lists itself in depends_on can still be deleted', async () => {
    const p = sampleProject();
    plainSql(p, "UPDATE tasks SET depends_on = '[8]' WHERE id = 8");
    assert.equal((await (await open(p)).ok('delete_task', { id: 8 })).deleted_id, 8);
  });
});
