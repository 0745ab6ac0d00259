import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import {
  ACRONYM_RE,
  assertRecentTimestamp,
  assertToday,
  jsonArray,
  refused,
  row,
  rows,
  useSession,
  type AnyRow,
} from '../helpers/assertions.js';
import { dump, sampleProject } from '../helpers/project.js';

/**
 * Integration tests for the feature tools (list_features, get_feature, create_feature, update_feature,
 * delete_feature, append_feature_learning, add_feature_context_file) through the real built server.
 * Seeded features: recipes (RCPE, 2 learnings, 1 context file), search (SRCH), auth (AUTH).
 */

const featureRow = (p: Project, name: string): AnyRow | undefined =>
  row(p, 'SELECT * FROM features WHERE name = ?', name);
/** features.learnings read back with SQL and JSON.parse'd. */
const learnings = (p: Project, feature: string): any[] =>
  jsonArray(featureRow(p, feature)!.learnings, `${feature}.learnings`);
const learningText = (l: unknown): string => (typeof l === 'string' ? l : String((l as AnyRow).text));

// ---- list_features / get_feature ------------------------------------------------------------

describe('list_features and get_feature', () => {
  const ctx = useSession();

  test('list_features returns every feature, by name, matching the database', async () => {
    const r = await ctx.s.ok('list_features', {});
    assert.deepEqual(
      r.features,
      rows(ctx.p, 'SELECT name, display_name, acronym, description FROM features ORDER BY name'),
    );
    assert.deepEqual(
      r.features.map((f: AnyRow) => f.name),
      ['auth', 'recipes', 'search'],
    );
  });

  test('get_feature returns the feature in full; plain-string learnings are normalised', async () => {
    const r = await ctx.s.ok('get_feature', { name: 'recipes' });
    const f = r.feature;
    const db = featureRow(ctx.p, 'recipes')!;
    assert.equal(f.name, 'recipes');
    assert.equal(f.display_name, db.display_name);
    assert.equal(f.acronym, 'RCPE');
    assert.equal(f.description, db.description);
    assert.equal(f.created, '2026-01-02');
    assert.deepEqual(f.context_files, ['src/api/recipes.ts']);
    assert.deepEqual(f.knowledge_paths, []);
    assert.deepEqual(f.dependencies, []);
    assert.equal(f.learnings.length, 2);
    assert.deepEqual(f.learnings[0], {
      text: 'Validate ingredient quantities on the server',
      source: 'auto',
      created: '',
      hit_count: 1,
      reviewed: false,
      review_count: 0,
    });
    assert.equal(f.learnings[1].text, 'Always store quantities in grams, convert only for display');
    assert.equal(f.learnings[1].hit_count, 3);
    assert.equal(f.learnings[1].source, 'human');
    assert.equal(f.learnings[1].reviewed, true);
  });

  test('unknown feature is not_found; bad arguments are invalid_argument', async () => {
    const e = await refused(ctx.s, ctx.p, 'get_feature', { name: 'billing' }, 'not_found');
    assert.match(e.message, /recipes/, 'the message lists existing features');
    await refused(ctx.s, ctx.p, 'get_feature', {}, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_feature', { name: 42 }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'list_features', { filter: 'x' }, 'invalid_argument');
  });
});

// ---- create_feature --------------------------------------------------------------------------

describe('create_feature', () => {
  const ctx = useSession();

  test('creates a feature with every field, stored as Ralph stores it', async () => {
    const r = await ctx.s.ok('create_feature', {
      name: 'meal-plans',
      display_name: 'Meal plans',
      acronym: 'MEAL',
      description: 'Plan a week of meals',
      knowledge_paths: ['docs/meal-plans.md'],
      context_files: ['./src/plans//index.ts'],
      architecture: 'A plans table keyed by week',
      boundaries: 'No shopping lists',
      dependencies: ['recipes'],
    });
    const f = featureRow(ctx.p, 'meal-plans')!;
    assert.ok(f, 'the row exists');
    assert.equal(f.display_name, 'Meal plans');
    assert.equal(f.acronym, 'MEAL');
    assert.equal(f.description, 'Plan a week of meals');
    assertToday(f.created, 'created');
    assert.deepEqual(jsonArray(f.knowledge_paths, 'knowledge_paths'), ['docs/meal-plans.md']);
    assert.deepEqual(jsonArray(f.context_files, 'context_files'), ['src/plans/index.ts']);
    assert.deepEqual(jsonArray(f.learnings, 'learnings'), []);
    assert.deepEqual(jsonArray(f.dependencies, 'dependencies'), ['recipes']);
    assert.equal(f.architecture, 'A plans table keyed by week');
    assert.equal(f.boundaries, 'No shopping lists');
    assert.equal(r.feature.acronym, 'MEAL');
    assert.deepEqual(r.feature.context_files, ['src/plans/index.ts']);
  });

  test('the acronym is derived when omitted: 4 chars [A-Z0-9], unique', async () => {
    const a = await ctx.s.ok('create_feature', { name: 'shopping', display_name: 'Shopping list' });
    assert.match(a.feature.acronym, ACRONYM_RE);
    assert.equal(featureRow(ctx.p, 'shopping')!.acronym, a.feature.acronym);
    // "Search" derives SRCH, which the seeded search feature already holds.
    const b = await ctx.s.ok('create_feature', { name: 'search-v2', display_name: 'Search' });
    assert.match(b.feature.acronym, ACRONYM_RE);
    assert.notEqual(b.feature.acronym, 'SRCH');
    const c = await ctx.s.ok('create_feature', { name: 'search-v3', display_name: 'Search' });
    assert.match(c.feature.acronym, ACRONYM_RE);
    assert.notEqual(c.feature.acronym, b.feature.acronym);
    const d = await ctx.s.ok('create_feature', { name: 'emoji', display_name: '✨ 🍕' });
    assert.match(d.feature.acronym, ACRONYM_RE);
    const all = rows(ctx.p, 'SELECT acronym FROM features').map((x) => x.acronym as string);
    assert.equal(new Set(all).size, all.length, `acronyms are unique: ${all.join(', ')}`);
    for (const x of all) assert.match(x, ACRONYM_RE);
    // Defaults for the omitted lists.
    const f = featureRow(ctx.p, 'shopping')!;
    for (const c of ['knowledge_paths', 'context_files', 'learnings', 'dependencies'])
      assert.deepEqual(jsonArray(f[c], c), [], c);
    assert.equal(f.description, null);
  });

  test('an explicit duplicate acronym is conflict', async () => {
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'recipes-2', display_name: 'Recipes again', acronym: 'RCPE' },
      'conflict',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'recipes-2', display_name: 'Recipes again', acronym: 'MEAL' },
      'conflict',
    );
  });

  test('a bad acronym is invalid_argument', async () => {
    for (const acronym of ['RCP', 'RCPES', 'rcpe', 'RC-E', 'RÇPE', '', 'RC E'])
      await refused(
        ctx.s,
        ctx.p,
        'create_feature',
        { name: 'recipes-2', display_name: 'Recipes again', acronym },
        'invalid_argument',
      );
  });

  test('a duplicate name is conflict', async () => {
    await refused(ctx.s, ctx.p, 'create_feature', { name: 'recipes', display_name: 'Recipes again' }, 'conflict');
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'search', display_name: 'Other', acronym: 'OTHR' },
      'conflict',
    );
  });

  test('bad names, paths, dependencies and fields are invalid_argument', async () => {
    for (const name of ['Meal Plans', 'meal plans', 'MEAL', '-x', 'x-', 'a/b', ''])
      await refused(ctx.s, ctx.p, 'create_feature', { name, display_name: 'X' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_feature', { name: 'x1', display_name: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'create_feature', { name: 'x1' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'x1', display_name: 'X', context_files: ['../x'] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'x1', display_name: 'X', knowledge_paths: ['/etc/passwd'] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'x1', display_name: 'X', dependencies: ['ghost'] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_feature',
      { name: 'x1', display_name: 'X', dependencies: ['x1'] },
      'invalid_argument',
    );
    await refused(ctx.s, ctx.p, 'create_feature', { name: 'x1', display_name: 'X', learnings: [] }, 'invalid_argument');
  });
});

// ---- update_feature --------------------------------------------------------------------------

describe('update_feature', () => {
  const ctx = useSession();

  test('changes only the given fields', async () => {
    const before = featureRow(ctx.p, 'recipes')!;
    const r = await ctx.s.ok('update_feature', {
      name: 'recipes',
      description: 'CRUD for recipes, with ingredients',
      acronym: 'RCP2',
      knowledge_paths: ['docs/recipes.md'],
      architecture: 'REST over SQLite',
      dependencies: ['auth'],
    });
    assert.deepEqual([...r.changed].sort(), [
      'acronym',
      'architecture',
      'dependencies',
      'description',
      'knowledge_paths',
    ]);
    const f = featureRow(ctx.p, 'recipes')!;
    assert.equal(f.description, 'CRUD for recipes, with ingredients');
    assert.equal(f.acronym, 'RCP2');
    assert.equal(f.architecture, 'REST over SQLite');
    assert.deepEqual(jsonArray(f.knowledge_paths, 'knowledge_paths'), ['docs/recipes.md']);
    assert.deepEqual(jsonArray(f.dependencies, 'dependencies'), ['auth']);
    for (const c of ['display_name', 'created', 'context_files', 'learnings', 'boundaries'])
      assert.equal(f[c], before[c], c);
    assert.equal(r.feature.acronym, 'RCP2');
  });

  test('keeping its own acronym is fine; lists are replaced whole', async () => {
    await ctx.s.ok('update_feature', { name: 'recipes', acronym: 'RCP2', context_files: ['src/a.ts', './src/b.ts'] });
    assert.deepEqual(jsonArray(featureRow(ctx.p, 'recipes')!.context_files, 'context_files'), ['src/a.ts', 'src/b.ts']);
    await ctx.s.ok('update_feature', { name: 'recipes', context_files: [] });
    assert.deepEqual(jsonArray(featureRow(ctx.p, 'recipes')!.context_files, 'context_files'), []);
  });

  test('an acronym held by another feature is conflict; a bad one is invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', acronym: 'SRCH' }, 'conflict');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', acronym: 'rc' }, 'invalid_argument');
    assert.equal(featureRow(ctx.p, 'recipes')!.acronym, 'RCP2');
  });

  test('no fields, unknown fields and bad values are invalid_argument; unknown feature is not_found', async () => {
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', learnings: [] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', created: '2020-01-01' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', display_name: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', dependencies: ['recipes'] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', dependencies: ['ghost'] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', context_files: ['~/notes'] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'recipes', knowledge_paths: ['..'] }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_feature', { name: 'billing', description: 'x' }, 'not_found');
  });
});

// ---- delete_feature --------------------------------------------------------------------------

describe('delete_feature', () => {
  const ctx = useSession();

  test('refused with conflict while tasks reference it', async () => {
    const e = await refused(ctx.s, ctx.p, 'delete_feature', { name: 'recipes' }, 'conflict');
    assert.equal(e.details?.tasks, 4);
    await refused(ctx.s, ctx.p, 'delete_feature', { name: 'search' }, 'conflict');
    await refused(ctx.s, ctx.p, 'delete_feature', { name: 'auth' }, 'conflict');
  });

  test('an unreferenced feature is deleted', async () => {
    await ctx.s.ok('create_feature', { name: 'extra', display_name: 'Extra' });
    assert.ok(featureRow(ctx.p, 'extra'));
    const r = await ctx.s.ok('delete_feature', { name: 'extra' });
    assert.deepEqual(r, { deleted: 'extra' });
    assert.equal(featureRow(ctx.p, 'extra'), undefined);
    assert.equal(rows(ctx.p, 'SELECT count(*) AS n FROM features')[0]!.n, 3);
  });

  test('refused with conflict while another feature depends on it', async () => {
    await ctx.s.ok('create_feature', { name: 'base', display_name: 'Base' });
    await ctx.s.ok('create_feature', { name: 'top', display_name: 'Top', dependencies: ['base'] });
    const e = await refused(ctx.s, ctx.p, 'delete_feature', { name: 'base' }, 'conflict');
    assert.deepEqual(e.details?.dependents, ['top']);
    await ctx.s.ok('delete_feature', { name: 'top' });
    await ctx.s.ok('delete_feature', { name: 'base' });
    assert.equal(featureRow(ctx.p, 'base'), undefined);
    assert.equal(featureRow(ctx.p, 'top'), undefined);
  });

  test('a feature whose tasks are gone can be deleted', async () => {
    await ctx.s.ok('create_feature', { name: 'temp', display_name: 'Temp' });
    const t = await ctx.s.ok('create_task', { feature: 'temp', discipline: 'backend', title: 'Temp task' });
    await refused(ctx.s, ctx.p, 'delete_feature', { name: 'temp' }, 'conflict');
    await ctx.s.ok('delete_task', { id: t.task.id });
    await ctx.s.ok('delete_feature', { name: 'temp' });
    assert.equal(featureRow(ctx.p, 'temp'), undefined);
  });

  test('unknown feature is not_found; bad arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'delete_feature', { name: 'billing' }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_feature', {}, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'delete_feature', { name: 'recipes', force: true }, 'invalid_argument');
  });
});

// ---- append_feature_learning -----------------------------------------------------------------

describe('append_feature_learning', () => {
  const ctx = useSession();

  test("'added' for a new text", async () => {
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Ingredient names are case-insensitive when matching',
      reason: 'Users type "Salt" and "salt"',
      task_id: 3,
    });
    assert.equal(r.outcome, 'added');
    assert.equal(r.learning_count, 3);
    assert.equal(r.pruned, 0);
    const ls = learnings(ctx.p, 'recipes');
    assert.equal(ls.length, 3);
    const l = ls[2];
    assert.equal(l.text, 'Ingredient names are case-insensitive when matching');
    assert.equal(l.reason, 'Users type "Salt" and "salt"');
    assert.equal(l.source, 'agent');
    assert.equal(l.task_id, 3);
    assert.equal(l.hit_count, 1);
    assert.equal(l.reviewed, false);
    assert.equal(l.review_count, 0);
    assertRecentTimestamp(l.created, 'learning.created');
    // The existing learnings are still there, in order.
    assert.equal(learningText(ls[0]), 'Validate ingredient quantities on the server');
    assert.equal(learningText(ls[1]), 'Always store quantities in grams, convert only for display');
    assert.equal(ls[1].hit_count, 3);
  });

  test("'added' for a text that is only loosely similar (Jaccard <= 0.7)", async () => {
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Store quantities as integers',
      source: 'auto',
    });
    assert.equal(r.outcome, 'added');
    const ls = learnings(ctx.p, 'recipes');
    assert.equal(ls.length, 4);
    assert.equal(ls[3].text, 'Store quantities as integers');
    assert.equal(ls[3].source, 'auto', 'an agent may lower its own trust, never raise it');
  });

  test("'duplicate' for a near-identical text: hit_count + 1, no new entry", async () => {
    const before = learnings(ctx.p, 'recipes');
    // {validate, ingredient, quantities, the, server} vs the same + {side}: 5/6 > 0.7.
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Validate the ingredient quantities on the server side',
    });
    assert.equal(r.outcome, 'duplicate');
    assert.equal(r.matched, 'Validate ingredient quantities on the server');
    assert.equal(r.learning_count, before.length);
    const ls = learnings(ctx.p, 'recipes');
    assert.equal(ls.length, before.length, 'no new entry');
    assert.equal(learningText(ls[0]), 'Validate ingredient quantities on the server', 'the existing text is kept');
    assert.equal(ls[0].hit_count, 2, 'a plain-string learning counts as hit_count 1, now 2');
    assert.ok(!ls.some((l) => learningText(l) === 'Validate the ingredient quantities on the server side'));
    // And again on an object learning with hit_count 3 → 4 (punctuation and case do not matter).
    const r2 = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'ALWAYS store quantities in grams; convert ONLY for display!',
    });
    assert.equal(r2.outcome, 'duplicate');
    const ls2 = learnings(ctx.p, 'recipes');
    assert.equal(ls2.length, before.length);
    assert.equal(ls2[1].hit_count, 4);
    assert.equal(ls2[1].text, 'Always store quantities in grams, convert only for display');
    assert.equal(ls2[1].source, 'human', 'the existing entry keeps its source');
    assert.equal(ls2[1].reviewed, true);
  });

  test("'replaced' when the similar text differs by a negation", async () => {
    const before = learnings(ctx.p, 'recipes');
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Never store quantities in grams, convert only for display',
    });
    assert.equal(r.outcome, 'replaced');
    assert.equal(r.matched, 'Always store quantities in grams, convert only for display');
    const ls = learnings(ctx.p, 'recipes');
    assert.equal(ls.length, before.length, 'replaced in place, not appended');
    assert.equal(
      ls[1].text,
      'Never store quantities in grams, convert only for display',
      "the new text is in the old one's place",
    );
    assert.ok(
      !ls.some((l) => learningText(l) === 'Always store quantities in grams, convert only for display'),
      'the old text is gone',
    );
    assert.equal(ls[1].hit_count, 1);
    assert.equal(ls[1].source, 'agent');
    assertRecentTimestamp(ls[1].created, 'learning.created');
    // The other entries are untouched.
    assert.deepEqual(ls[0], before[0]);
    assert.deepEqual(ls.slice(2), before.slice(2));
  });

  test('two negated near-identical texts are a duplicate, not a replacement', async () => {
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'recipes',
      text: 'Never store quantities in grams; convert them only for display',
    });
    assert.equal(r.outcome, 'duplicate');
    const ls = learnings(ctx.p, 'recipes');
    assert.equal(ls[1].text, 'Never store quantities in grams, convert only for display');
    assert.equal(ls[1].hit_count, 2);
  });

  test('the threshold is strictly > 0.7 and only words longer than 2 characters count', async () => {
    await ctx.s.ok('create_feature', { name: 'jaccard', display_name: 'Jaccard' });
    const base = 'alpha bravo charlie delta echo foxtrot golf';
    assert.equal((await ctx.s.ok('append_feature_learning', { feature_name: 'jaccard', text: base })).outcome, 'added');
    // 7 shared of 10 words: exactly 0.7 is not a duplicate.
    const at = await ctx.s.ok('append_feature_learning', {
      feature_name: 'jaccard',
      text: `${base} hotel india juliet`,
    });
    assert.equal(at.outcome, 'added');
    // 7 shared of 9 (vs the first; 9 of 10 vs the second): a duplicate of the closest one.
    const above = await ctx.s.ok('append_feature_learning', { feature_name: 'jaccard', text: `${base} hotel india` });
    assert.equal(above.outcome, 'duplicate');
    assert.equal(above.matched, `${base} hotel india juliet`);
    // v2 / v3 are 2 characters long: they do not count, so these are the same lesson.
    assert.equal(
      (await ctx.s.ok('append_feature_learning', { feature_name: 'jaccard', text: 'Use the API v2 client' })).outcome,
      'added',
    );
    const short = await ctx.s.ok('append_feature_learning', {
      feature_name: 'jaccard',
      text: 'use the api v3 client.',
    });
    assert.equal(short.outcome, 'duplicate');
    const ls = learnings(ctx.p, 'jaccard');
    assert.deepEqual(
      ls.map((l) => [l.text, l.hit_count]),
      [
        [base, 1],
        [`${base} hotel india juliet`, 2],
        ['Use the API v2 client', 2],
      ],
    );
  });

  test('a text over 500 characters is truncated to 500', async () => {
    const long = `Long lesson about importers: ${'parse every field strictly and report the line number '.repeat(12)}`;
    assert.ok(long.length > 600);
    const r = await ctx.s.ok('append_feature_learning', { feature_name: 'search', text: long });
    assert.equal(r.outcome, 'added');
    const ls = learnings(ctx.p, 'search');
    assert.equal(ls.length, 1);
    assert.equal([...ls[0].text].length, 500);
    assert.equal(ls[0].text, long.slice(0, 500));
    assert.equal(r.learning.text, ls[0].text);
    // Far over the limit too (but within what the schema accepts).
    const longer = `Another importer lesson ${'x'.repeat(1500)}`;
    const r2 = await ctx.s.ok('append_feature_learning', { feature_name: 'search', text: longer });
    assert.equal(r2.outcome, 'added');
    const ls2 = learnings(ctx.p, 'search');
    assert.equal(ls2.length, 2);
    assert.equal(ls2[1].text, longer.slice(0, 500));
  });

  test('at most 50 learnings: prunable auto ones are pruned, otherwise conflict', async () => {
    // auth: 50 unreviewed auto learnings (prunable), then one more prunes the oldest.
    for (let i = 0; i < 50; i++) {
      const r = await ctx.s.ok('append_feature_learning', {
        feature_name: 'auth',
        text: `Token rule q${i}a q${i}b q${i}c`,
        source: 'auto',
      });
      assert.equal(r.outcome, 'added', `#${i}`);
    }
    const r = await ctx.s.ok('append_feature_learning', {
      feature_name: 'auth',
      text: 'Links expire after fifteen minutes',
    });
    assert.equal(r.outcome, 'added');
    assert.equal(r.pruned, 1);
    const ls = learnings(ctx.p, 'auth');
    assert.equal(ls.length, 50);
    assert.equal(ls[0].text, 'Token rule q1a q1b q1c', 'the oldest auto learning was pruned');
    assert.equal(ls[49].text, 'Links expire after fifteen minutes');
    // search: 50 agent learnings (not prunable), then the 51st is refused.
    for (let i = learnings(ctx.p, 'search').length; i < 50; i++)
      await ctx.s.ok('append_feature_learning', { feature_name: 'search', text: `Index rule z${i}a z${i}b z${i}c` });
    assert.equal(learnings(ctx.p, 'search').length, 50);
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'search', text: 'One lesson too many for this feature' },
      'conflict',
    );
  });

  test('unknown feature or task is not_found', async () => {
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'billing', text: 'Something new entirely' },
      'not_found',
    );
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'recipes', text: 'Something new entirely', task_id: 99 },
      'not_found',
    );
  });

  test('empty text and bad fields are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'append_feature_learning', { feature_name: 'recipes', text: '' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'recipes', text: '   ' },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'recipes', text: 'Something new entirely', source: 'robot' },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'append_feature_learning',
      { feature_name: 'recipes', text: 'Something new entirely', hit_count: 9 },
      'invalid_argument',
    );
    await refused(ctx.s, ctx.p, 'append_feature_learning', { text: 'Something new entirely' }, 'invalid_argument');
  });
});

// ---- add_feature_context_file ----------------------------------------------------------------

describe('add_feature_context_file', () => {
  const ctx = useSession([], () => {
    const p = sampleProject();
    symlinkSync('/etc', join(p.root, 'etc-link'));
    return p;
  });

  const ctxFiles = (name: string) => jsonArray(featureRow(ctx.p, name)!.context_files, `${name}.context_files`);

  test('adds a file once', async () => {
    const r = await ctx.s.ok('add_feature_context_file', { feature_name: 'recipes', file_path: 'src/api/validate.ts' });
    assert.deepEqual(r, {
      feature_name: 'recipes',
      file_path: 'src/api/validate.ts',
      added: true,
      context_files: ['src/api/recipes.ts', 'src/api/validate.ts'],
    });
    assert.deepEqual(ctxFiles('recipes'), ['src/api/recipes.ts', 'src/api/validate.ts']);

    const before = dump(ctx.p);
    const again = await ctx.s.ok('add_feature_context_file', {
      feature_name: 'recipes',
      file_path: 'src/api/validate.ts',
    });
    assert.equal(again.added, false);
    assert.deepEqual(again.context_files, ['src/api/recipes.ts', 'src/api/validate.ts']);
    // The same file spelled differently is the same file.
    const dotted = await ctx.s.ok('add_feature_context_file', {
      feature_name: 'recipes',
      file_path: './src/api//validate.ts',
    });
    assert.equal(dotted.added, false);
    assert.equal(dotted.file_path, 'src/api/validate.ts');
    const seeded = await ctx.s.ok('add_feature_context_file', {
      feature_name: 'recipes',
      file_path: 'src/api/recipes.ts',
    });
    assert.equal(seeded.added, false);
    assert.equal(dump(ctx.p), before, 'a repeated add writes nothing');
    assert.deepEqual(ctxFiles('recipes'), ['src/api/recipes.ts', 'src/api/validate.ts'], 'no duplicate');
  });

  test('a folder or a file that does not exist yet is accepted', async () => {
    await ctx.s.ok('add_feature_context_file', { feature_name: 'search', file_path: 'src/search/' });
    await ctx.s.ok('add_feature_context_file', { feature_name: 'search', file_path: 'src/search/not-yet.ts' });
    // Dots inside a name are not a '..' segment.
    await ctx.s.ok('add_feature_context_file', { feature_name: 'search', file_path: 'docs/v1..v2.md' });
    assert.deepEqual(ctxFiles('search'), ['src/search', 'src/search/not-yet.ts', 'docs/v1..v2.md']);
  });

  test("refuses '..', absolute, '~', backslash, %2e%2e and symlink escapes with invalid_argument", async () => {
    for (const file_path of [
      '../outside.ts',
      'src/../../outside.ts',
      '..',
      '/etc/passwd',
      'C:/Windows/win.ini',
      '~',
      '~/.ssh/id_rsa',
      'src\\api\\x.ts',
      '..\\x',
      '%2e%2e/etc/passwd',
      '%2E%2E%2Fetc',
      'src/%2e%2e/%2e%2e/x',
      '.',
      'etc-link/passwd',
      '',
    ])
      await refused(ctx.s, ctx.p, 'add_feature_context_file', { feature_name: 'auth', file_path }, 'invalid_argument');
    assert.deepEqual(ctxFiles('auth'), []);
  });

  test('unknown feature is not_found; bad arguments are invalid_argument', async () => {
    await refused(
      ctx.s,
      ctx.p,
      'add_feature_context_file',
      { feature_name: 'billing', file_path: 'src/x.ts' },
      'not_found',
    );
    await refused(ctx.s, ctx.p, 'add_feature_context_file', { feature_name: 'auth' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'add_feature_context_file',
      { feature_name: 'auth', file_path: ['src/x.ts'] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'add_feature_context_file',
      { feature_name: 'auth', file_path: 'src/x.ts', note: 'x' },
      'invalid_argument',
    );
  });

  test('at 100 context files a new one is conflict (an existing one is still added:false)', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `src/f${i}.ts`);
    await ctx.s.ok('update_feature', { name: 'auth', context_files: hundred });
    assert.equal(ctxFiles('auth').length, 100);
    await refused(
      ctx.s,
      ctx.p,
      'add_feature_context_file',
      { feature_name: 'auth', file_path: 'src/f100.ts' },
      'conflict',
    );
    const existing = await ctx.s.ok('add_feature_context_file', { feature_name: 'auth', file_path: 'src/f7.ts' });
    assert.equal(existing.added, false);
    assert.equal(ctxFiles('auth').length, 100);
    // At 99 there is room for one more.
    await ctx.s.ok('update_feature', { name: 'auth', context_files: hundred.slice(0, 99) });
    const r = await ctx.s.ok('add_feature_context_file', { feature_name: 'auth', file_path: 'src/last.ts' });
    assert.equal(r.added, true);
    const files = ctxFiles('auth');
    assert.equal(files.length, 100);
    assert.equal(files[99], 'src/last.ts');
  });
});
