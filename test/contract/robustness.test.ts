import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { dump, query, sampleProject, sql } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';
import type { InProcSession } from './harness.js';

/** Rows that Ralph, a person or an older tool wrote in unexpected shapes: read them, never lose them. */
describe("odd rows in Ralph's database", () => {
  let p: Project;
  let s: InProcSession;
  const exec = (text: string, ...params: unknown[]) => {
    const db = sql(p);
    db.prepare(text).run(...params);
    db.close();
  };
  before(async () => {
    p = sampleProject();
    s = await startInProc(p, [], { invariants: false });
  });
  after(() => s.close());

  test('a learnings column that is not a JSON array is refused, never overwritten', async () => {
    exec("UPDATE features SET learnings = 'not json at all' WHERE name = 'auth'");
    const before = dump(p);
    const err = await s.fail('append_feature_learning', {
      feature_name: 'auth',
      text: 'Rotate sign-in links after one use',
    });
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /features\.learnings of feature auth does not hold a JSON array/);
    assert.equal(dump(p), before);
    assert.deepEqual((await s.ok('get_feature', { name: 'auth' })).feature.learnings, [], 'still readable');
  });

  test('unknown keys on stored learnings are kept when the list is rewritten', async () => {
    exec(
      "UPDATE features SET learnings = ? WHERE name = 'search'",
      JSON.stringify([
        {
          text: 'Rank title matches first',
          source: 'human',
          created: '2026-01-01T00:00:00Z',
          hit_count: 1,
          reviewed: true,
          review_count: 0,
          embedding_id: 7,
        },
      ]),
    );
    const r = await s.ok('append_feature_learning', {
      feature_name: 'search',
      text: 'Strip diacritics before indexing',
    });
    assert.equal(r.outcome, 'added');
    const stored = JSON.parse(
      query<{ l: string }>(p, "SELECT learnings AS l FROM features WHERE name = 'search'")[0]!.l,
    );
    assert.equal(stored[0].embedding_id, 7);
    assert.equal(stored.length, 2);
  });

  test('with more than 50 learnings already stored, a duplicate still counts (nothing is added)', async () => {
    const many = Array.from({ length: 55 }, (_, i) => ({
      text: `lesson number ${i} about topic${i} and area${i}`,
      source: 'human',
      created: '',
      hit_count: 1,
      reviewed: true,
      review_count: 0,
    }));
    exec("UPDATE features SET learnings = ? WHERE name = 'recipes'", JSON.stringify(many));
    const dup = await s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Lesson number 3 about topic3 and area3',
    });
    assert.equal(dup.outcome, 'duplicate');
    const err = await s.fail('append_feature_learning', {
      feature_name: 'recipes',
      text: 'A genuinely new lesson about caching',
    });
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
  test('a dangling symlink pointing outside the project is refused; control characters too', async () => {
    const { symlinkSync } = await import('node:fs');
    const p = sampleProject();
    symlinkSync('/etc/nonexistent-dir-for-ralph-test', `${p.root}/outside`);
    symlinkSync(`${p.root}/not-yet`, `${p.root}/inside-dangling`);
    const s = await startInProc(p);
    try {
      for (const file_path of ['outside/passwd', 'src/a\nb.ts', ' src/a.ts', 'src/a.ts\t']) {
        assert.equal(
          (await s.fail('add_feature_context_file', { feature_name: 'auth', file_path })).code,
          'invalid_argument',
          JSON.stringify(file_path),
        );
      }
      assert.equal(
        (await s.ok('add_feature_context_file', { feature_name: 'auth', file_path: 'inside-dangling/x.ts' })).added,
        true,
      );
    } finally {
      await s.close();
    }
  });

  test('an append after a hand-written last line without a newline starts its own line', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const p = sampleProject();
    writeFileSync(p.progressFile, 'Notes written by hand, no newline');
    const s = await startInProc(p, ['--recipe', 'task_execution', '--task', '3']);
    try {
      await s.ok('append_progress', { text: 'first entry' });
      const last = await s.ok('read_progress', { last: 1 });
      assert.match(last.content, /^## \S+ · task_execution · frontend · task #3\nfirst entry\n\n$/);
      assert.equal(last.entry_count, 2);
      assert.match(readFileSync(p.progressFile, 'utf8'), /^Notes written by hand, no newline\n## /);
    } finally {
      await s.close();
    }
  });

  test('mcp_tool_overrides holding JSON null means no overrides', async () => {
    const p = sampleProject();
    const db = sql(p);
    db.prepare("UPDATE disciplines SET mcp_tool_overrides = 'null' WHERE name = 'quality'").run();
    db.close();
    const s = await startInProc(p, ['--recipe', 'yap', '--discipline', 'quality']);
    try {
      assert.ok((await s.toolNames()).includes('set_task_status'));
    } finally {
      await s.close();
    }
  });

  test('a task that lists itself in depends_on can still be deleted', async () => {
    const p = sampleProject();
    const db = sql(p);
    db.prepare("UPDATE tasks SET depends_on = '[8]' WHERE id = 8").run();
    db.close();
    const s = await startInProc(p);
    try {
      assert.equal((await s.ok('delete_task', { id: 8 })).deleted_id, 8);
    } finally {
      await s.close();
    }
  });
});
