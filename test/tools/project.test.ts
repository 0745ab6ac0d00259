import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { DAY_RE, refused, rows, useSession, type AnyRow } from '../helpers/assertions.js';
import { emptyProject, sql } from '../helpers/project.js';

/** Integration tests for get_project_info and get_project_progress through the real built server. */

const STATUSES = ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped'];

/** The progress report computed independently with SQL. */
function expectedProgress(p: Project) {
  const total = Number(rows(p, 'SELECT count(*) AS n FROM tasks')[0]!.n);
  const done = Number(rows(p, "SELECT count(*) AS n FROM tasks WHERE status = 'done'")[0]!.n);
  const by_status: Record<string, number> = Object.fromEntries(STATUSES.map((st) => [st, 0]));
  for (const r of rows(p, 'SELECT status, count(*) AS n FROM tasks GROUP BY status')) by_status[r.status] = r.n;
  const group = (table: 'features' | 'disciplines', col: 'feature' | 'discipline') =>
    rows(p, `SELECT name FROM ${table} ORDER BY name`).map((r) => ({
      name: r.name as string,
      done: Number(rows(p, `SELECT count(*) AS n FROM tasks WHERE ${col} = ? AND status = 'done'`, r.name)[0]!.n),
      total: Number(rows(p, `SELECT count(*) AS n FROM tasks WHERE ${col} = ?`, r.name)[0]!.n),
    }));
  return {
    total,
    done,
    by_status,
    by_feature: group('features', 'feature'),
    by_discipline: group('disciplines', 'discipline'),
  };
}

function assertProgressMatches(r: AnyRow, p: Project): void {
  const e = expectedProgress(p);
  assert.equal(r.total, e.total, 'total');
  assert.equal(r.done, e.done, 'done');
  assert.deepEqual(r.by_status, e.by_status, 'by_status');
  assert.deepEqual(r.by_feature, e.by_feature, 'by_feature');
  assert.deepEqual(r.by_discipline, e.by_discipline, 'by_discipline');
  const sumStatus = Object.values(r.by_status as Record<string, number>).reduce((a, b) => a + b, 0);
  assert.equal(sumStatus, r.total, 'by_status adds up to total');
  assert.equal(
    r.by_feature.reduce((a: number, g: AnyRow) => a + g.total, 0),
    r.total,
    'by_feature adds up to total',
  );
  assert.equal(
    r.by_discipline.reduce((a: number, g: AnyRow) => a + g.total, 0),
    r.total,
    'by_discipline adds up to total',
  );
  assert.equal(
    r.by_feature.reduce((a: number, g: AnyRow) => a + g.done, 0),
    r.done,
  );
  assert.equal(
    r.by_discipline.reduce((a: number, g: AnyRow) => a + g.done, 0),
    r.done,
  );
  const pct = e.total === 0 ? 0 : (100 * e.done) / e.total;
  assert.ok(Math.abs(r.percent_done - pct) <= 0.05, `percent_done ${r.percent_done} vs ${pct}`);
}

describe('get_project_info and get_project_progress (sample project)', () => {
  const ctx = useSession();

  test('get_project_info returns the metadata row', async () => {
    const r = await ctx.s.ok('get_project_info', {});
    const m = rows(ctx.p, 'SELECT * FROM metadata WHERE id = 1')[0]!;
    assert.deepEqual(r, {
      title: m.project_title,
      description: m.project_description,
      created: m.project_created,
      schema_version: m.schema_version,
    });
    assert.equal(r.title, 'Recipe Box');
    assert.equal(r.description, 'A web app to collect, tag and search cooking recipes.');
    assert.equal(r.schema_version, '1.0');
    assert.match(r.created, DAY_RE);
  });

  test('get_project_info reflects a change Ralph makes to the metadata', async () => {
    const db = sql(ctx.p);
    db.prepare("UPDATE metadata SET project_title = 'Recipe Box 2', project_description = NULL WHERE id = 1").run();
    db.close();
    const r = await ctx.s.ok('get_project_info', {});
    assert.equal(r.title, 'Recipe Box 2');
    assert.equal(r.description, null);
  });

  test('get_project_progress agrees with SQL counts', async () => {
    const r = await ctx.s.ok('get_project_progress', {});
    assertProgressMatches(r, ctx.p);
    assert.equal(r.total, 8);
    assert.equal(r.done, 2);
    assert.equal(r.percent_done, 25);
    assert.deepEqual(r.by_status, { draft: 1, pending: 2, in_progress: 1, done: 2, blocked: 1, skipped: 1 });
    assert.deepEqual(r.by_feature, [
      { name: 'auth', done: 0, total: 2 },
      { name: 'recipes', done: 2, total: 4 },
      { name: 'search', done: 0, total: 2 },
    ]);
    assert.deepEqual(
      r.by_discipline.find((g: AnyRow) => g.name === 'backend'),
      { name: 'backend', done: 2, total: 4 },
    );
  });

  test('get_project_progress follows writes (and lists features without tasks)', async () => {
    await ctx.s.ok('set_task_status', { id: 3, status: 'done' });
    await ctx.s.ok('set_task_status', { id: 5, status: 'done' });
    await ctx.s.ok('create_feature', { name: 'empty-one', display_name: 'Empty one' });
    await ctx.s.ok('create_task', { feature: 'auth', discipline: 'quality', title: 'More tests' });
    const r = await ctx.s.ok('get_project_progress', {});
    assertProgressMatches(r, ctx.p);
    assert.equal(r.total, 9);
    assert.equal(r.done, 4);
    assert.equal(r.percent_done, 44.4);
    assert.deepEqual(
      r.by_feature.find((g: AnyRow) => g.name === 'empty-one'),
      { name: 'empty-one', done: 0, total: 0 },
    );
  });

  test('unknown arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'get_project_info', { verbose: true }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_project_progress', { feature: 'recipes' }, 'invalid_argument');
  });
});

describe('get_project_progress (empty project)', () => {
  const ctx = useSession([], emptyProject);

  test('an empty project reports zeros, not an error', async () => {
    const r = await ctx.s.ok('get_project_progress', {});
    assert.deepEqual(r, {
      total: 0,
      done: 0,
      percent_done: 0,
      by_status: { draft: 0, pending: 0, in_progress: 0, done: 0, blocked: 0, skipped: 0 },
      by_feature: [],
      by_discipline: [],
    });
    assertProgressMatches(r, ctx.p);
    const info = await ctx.s.ok('get_project_info', {});
    assert.equal(info.description, null);
    assert.ok(info.title.startsWith('ralph-mcp-test-'), `init names the project after its folder: ${info.title}`);
  });

  test('unknown arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'get_project_progress', { x: 1 }, 'invalid_argument');
  });
});
