import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertToday, refused, row, rows, useSession, type AnyRow } from '../helpers/assertions.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { auditRows, insertComment, insertTasks, ralphWrites, taskRow } from './support.js';

/**
 * Issue 3, the tools an executing agent uses to read and repair its context: update_task_context,
 * get_dependency_details and get_feature_learnings, through the spawned server.
 */

const contextFiles = (p: Parameters<typeof taskRow>[0], id: number): string[] =>
  JSON.parse(String(taskRow(p, id)!.context_files)) as string[];

// ---- update_task_context -------------------------------------------------------------------------

describe('update_task_context (task_execution --task 4)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4']);

  test('adds context files in canonical form to the own task (id defaults to it), without duplicates', async () => {
    const { s, p } = ctx;
    const r = await s.ok('update_task_context', {
      add_context_files: ['./src/e2e//editor.spec.ts', 'src/ui/RecipeForm.tsx', 'src/ui/./RecipeForm.tsx'],
    });
    assert.deepEqual(contextFiles(p, 4), ['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx']);
    assert.deepEqual(r.added, ['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx']);
    assert.deepEqual(r.removed, []);
    assert.deepEqual(r.task.context_files, contextFiles(p, 4));
    assertToday(taskRow(p, 4)!.updated, 'tasks.updated');
  });

  test('a path already present (in another spelling) is not added twice', async () => {
    const { s, p } = ctx;
    const r = await s.ok('update_task_context', { id: 4, add_context_files: ['src//ui/RecipeForm.tsx'] });
    assert.deepEqual(r.added, []);
    assert.deepEqual(contextFiles(p, 4), ['src/e2e/editor.spec.ts', 'src/ui/RecipeForm.tsx']);
  });

  test('removes context files, matching canonical paths', async () => {
    const { s, p } = ctx;
    const r = await s.ok('update_task_context', {
      remove_context_files: ['./src/e2e/./editor.spec.ts', 'not/there.ts'],
    });
    assert.deepEqual(r.removed, ['src/e2e/editor.spec.ts']);
    assert.deepEqual(r.added, []);
    assert.deepEqual(contextFiles(p, 4), ['src/ui/RecipeForm.tsx']);
  });

  test('hints replace the hints and leave the context files alone', async () => {
    const { s, p } = ctx;
    await s.ok('update_task_context', { hints: 'The form uses data-testid attributes now' });
    const t = taskRow(p, 4)!;
    assert.equal(t.hints, 'The form uses data-testid attributes now');
    assert.deepEqual(contextFiles(p, 4), ['src/ui/RecipeForm.tsx']);
  });

  test('refusals: paths outside the project, nothing to do, another task (out_of_scope), unknown fields', async () => {
    const { s, p } = ctx;
    for (const bad of [
      '../x',
      'src/../../x',
      '/etc/passwd',
      '~/notes.md',
      'src\\win.ts',
      'src/%2e%2e/x',
      'C:/x',
      '.',
    ]) {
      await refused(s, p, 'update_task_context', { add_context_files: [bad] }, 'invalid_argument');
    }
    // All or nothing: a good path, a bad one and hints in one call change nothing.
    await refused(
      s,
      p,
      'update_task_context',
      { add_context_files: ['src/ok.ts', '../x'], hints: 'never stored' },
      'invalid_argument',
    );
    await refused(s, p, 'update_task_context', {}, 'invalid_argument');
    await refused(s, p, 'update_task_context', { id: 4 }, 'invalid_argument');
    await refused(s, p, 'update_task_context', { id: 3, hints: 'not mine' }, 'out_of_scope');
    await refused(s, p, 'update_task_context', { id: 5, add_context_files: ['src/a.ts'] }, 'out_of_scope');
    await refused(s, p, 'update_task_context', { context_files: ['src/a.ts'] }, 'invalid_argument');
    await refused(s, p, 'update_task_context', { add_context_files: 'src/a.ts' }, 'invalid_argument');
    assert.notEqual(taskRow(p, 4)!.hints, 'never stored');
  });
});

describe('update_task_context in a session without a task (full suite)', () => {
  const ctx = useSession([], () => {
    const p = sampleProject();
    symlinkSync(tempDir(), join(p.root, 'outside'));
    mkdirSync(join(p.root, 'src'), { recursive: true });
    return p;
  });

  test('any task by id; id is required; unknown task → not_found; a symlink out of the project is refused', async () => {
    const { s, p } = ctx;
    const r = await s.ok('update_task_context', {
      id: 5,
      add_context_files: ['src/search/fts.sql'],
      hints: 'Use the trigram tokenizer',
    });
    assert.deepEqual(r.added, ['src/search/fts.sql']);
    assert.deepEqual(contextFiles(p, 5), ['src/search/fts.sql']);
    assert.equal(taskRow(p, 5)!.hints, 'Use the trigram tokenizer');
    await refused(s, p, 'update_task_context', { hints: 'which task?' }, 'invalid_argument');
    await refused(s, p, 'update_task_context', { id: 999, hints: 'no such task' }, 'not_found');
    await refused(
      s,
      p,
      'update_task_context',
      { id: 5, add_context_files: ['outside/secrets.txt'] },
      'invalid_argument',
    );
  });
});

// ---- get_dependency_details ----------------------------------------------------------------------

describe('get_dependency_details (task_execution --task 4)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4', '--session-id', 'deps-4']);

  const expectedDep = (p: Parameters<typeof taskRow>[0], id: number, depth: number) => {
    const t = taskRow(p, id)!;
    return {
      id,
      title: t.title,
      status: t.status,
      depth,
      output_artifacts: JSON.parse(String(t.output_artifacts)),
      comments: rows(p, 'SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', id),
    };
  };

  test('transitive dependencies of the own task (default id), with comments and output artifacts, as stored', async () => {
    const { s, p } = ctx;
    ralphWrites(p, (run) =>
      run('UPDATE tasks SET output_artifacts = \'["src/api/recipes.ts","src/api/validate.ts"]\' WHERE id = 2'),
    );
    insertComment(p, 2, 'Review note: validation errors are 422 with a field map.');
    const r = await s.ok('get_dependency_details', {});
    assert.equal(r.task_id, 4);
    assert.deepEqual(r.dependencies, [expectedDep(p, 3, 1), expectedDep(p, 2, 2), expectedDep(p, 1, 3)]);
    const list: AnyRow[] = r.dependencies;
    assert.deepEqual(list[1]!.output_artifacts, ['src/api/recipes.ts', 'src/api/validate.ts']);
    assert.equal(list[1]!.comments.length, 2, "task 2's seeded comment and the one added by SQL");
    assert.match(list[2]!.comments[0].body, /^Done: recipes table/, 'completion summaries come along');
    assert.deepEqual(r.missing, []);
    assert.equal(r.truncated, false);
  });

  test('the depth limit cuts the walk and says so', async () => {
    const { s, p } = ctx;
    const two = await s.ok('get_dependency_details', { depth: 2 });
    assert.deepEqual(
      two.dependencies.map((d: AnyRow) => [d.id, d.depth]),
      [
        [3, 1],
        [2, 2],
      ],
    );
    assert.equal(two.truncated, true);
    const one = await s.ok('get_dependency_details', { id: 4, depth: 1 });
    assert.deepEqual(
      one.dependencies.map((d: AnyRow) => d.id),
      [3],
    );
    assert.equal(one.truncated, true);
    const three = await s.ok('get_dependency_details', { depth: 3 });
    assert.equal(three.truncated, false, 'depth 3 reaches task 1, which has no dependencies');
    void p;
  });

  test('other tasks can be read (read-only) from a --task session; a task with no deps has none', async () => {
    const { s } = ctx;
    const seven = await s.ok('get_dependency_details', { id: 7 });
    assert.equal(seven.task_id, 7);
    assert.deepEqual(
      seven.dependencies.map((d: AnyRow) => d.id),
      [3, 2, 1],
    );
    const one = await s.ok('get_dependency_details', { id: 1 });
    assert.deepEqual(one.dependencies, []);
    assert.equal(one.truncated, false);
  });

  test('a diamond visits each task once; a dependency that does not exist is reported as missing', async () => {
    const { s, p } = ctx;
    insertTasks(p, [{ id: 40, title: 'Release checklist', feature: 'recipes', depends_on: [4, 999, 2] }]);
    const r = await s.ok('get_dependency_details', { id: 40, depth: 10 });
    const seen = r.dependencies.map((d: AnyRow) => [d.id, d.depth]).sort((a: number[], b: number[]) => a[0]! - b[0]!);
    assert.deepEqual(seen, [
      [1, 2],
      [2, 1],
      [3, 2],
      [4, 1],
    ]);
    assert.deepEqual(r.missing, [999]);
    assert.equal(r.truncated, false);
  });

  test('refusals: unknown task, depth out of range, unknown field', async () => {
    const { s, p } = ctx;
    await refused(s, p, 'get_dependency_details', { id: 999 }, 'not_found');
    await refused(s, p, 'get_dependency_details', { depth: 0 }, 'invalid_argument');
    await refused(s, p, 'get_dependency_details', { depth: 11 }, 'invalid_argument');
    await refused(s, p, 'get_dependency_details', { depth: 1.5 }, 'invalid_argument');
    await refused(s, p, 'get_dependency_details', { id: 4, recursive: true }, 'invalid_argument');
  });

  test('reads add no audit row', () => {
    assert.deepEqual(auditRows(ctx.p, "tool = 'get_dependency_details' AND outcome = 'ok'"), []);
  });
});

// ---- get_feature_learnings -----------------------------------------------------------------------

describe('get_feature_learnings (task_execution --task 4)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '4']);

  test("the sample's recipes learnings: human first, then the plain-string (auto) one", async () => {
    const r = await ctx.s.ok('get_feature_learnings', { feature_name: 'recipes' });
    assert.equal(r.feature_name, 'recipes');
    assert.deepEqual(
      r.learnings.map((l: AnyRow) => [l.source, l.text]),
      [
        ['human', 'Always store quantities in grams, convert only for display'],
        ['auto', 'Validate ingredient quantities on the server'],
      ],
    );
  });

  test('ordered human, opus_reviewed, agent, auto; then hit_count, highest first', async () => {
    const { s, p } = ctx;
    const at = '2026-01-10T10:00:00Z';
    const L = (text: string, source: string, hit_count: number) => ({
      text,
      source,
      created: at,
      hit_count,
      reviewed: false,
      review_count: 0,
    });
    const stored = [
      L('auto five', 'auto', 5),
      L('agent one', 'agent', 1),
      L('human one', 'human', 1),
      L('opus two', 'opus_reviewed', 2),
      'plain string learning',
      L('agent seven', 'agent', 7),
      L('opus nine', 'opus_reviewed', 9),
      L('human four', 'human', 4),
      L('auto two', 'auto', 2),
    ];
    ralphWrites(p, (run) => run("UPDATE features SET learnings = ? WHERE name = 'search'", JSON.stringify(stored)));
    const r = await s.ok('get_feature_learnings', { feature_name: 'search' });
    assert.deepEqual(
      r.learnings.map((l: AnyRow) => l.text),
      [
        'human four',
        'human one',
        'opus nine',
        'opus two',
        'agent seven',
        'agent one',
        'auto five',
        'auto two',
        'plain string learning',
      ],
    );
    const plain = r.learnings.at(-1);
    assert.equal(plain.source, 'auto');
    assert.equal(plain.hit_count, 1);
    // Reading does not rewrite the stored order.
    assert.deepEqual(
      JSON.parse(String(row(p, "SELECT learnings FROM features WHERE name = 'search'")!.learnings)),
      stored,
    );
  });

  test('a feature without learnings → []; unknown feature → not_found', async () => {
    const { s, p } = ctx;
    assert.deepEqual((await s.ok('get_feature_learnings', { feature_name: 'auth' })).learnings, []);
    await refused(s, p, 'get_feature_learnings', { feature_name: 'payments' }, 'not_found');
    await refused(s, p, 'get_feature_learnings', {}, 'invalid_argument');
  });
});
