import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXTURE_SKIP, FIXTURES } from '../helpers/env.js';
import { dump, fixtureProject, query } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';

/**
 * Ralph's own databases (../shared/fixtures/ralph4days, written by Ralph's fixture generator) open
 * unchanged and our read tools agree with direct SQL on them. Skipped, saying so, when the folder is
 * absent.
 */
const parse = (v: unknown) => (typeof v === 'string' && v !== '' ? JSON.parse(v) : []);

for (const file of FIXTURES) {
  describe(`fixture ${file}`, { skip: FIXTURE_SKIP }, () => {
    test('served unchanged; list_tasks, get_task and get_project_progress agree with SQL', async () => {
      const project = fixtureProject(file);
      const before = dump(project);
      const userVersion = () => query(project, 'PRAGMA user_version')[0]!.user_version;
      assert.equal(userVersion(), 1);
      const s = await startInProc(project);
      try {
        // list_tasks, walked page by page, equals SELECT ... ORDER BY id.
        const rows = query(
          project,
          'SELECT id, title, status, priority, feature, discipline, depends_on FROM tasks ORDER BY id',
        );
        const listed: unknown[] = [];
        let cursor: string | undefined;
        do {
          const page = await s.ok('list_tasks', { limit: 7, ...(cursor ? { cursor } : {}) });
          assert.equal(page.total, rows.length);
          listed.push(...page.tasks);
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        const expected = rows.map((r) => ({ ...r, depends_on: parse(r.depends_on), held_by: null }));
        assert.deepEqual(listed, expected);

        for (const r of query<{ id: number }>(project, 'SELECT * FROM tasks ORDER BY id')) {
          const got = await s.ok('get_task', { id: r.id });
          const row = query(project, 'SELECT * FROM tasks WHERE id = ?', r.id)[0]!;
          for (const col of ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'])
            row[col] = parse(row[col]);
          assert.deepEqual(got.task, row);
          const comments = query(project, 'SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', r.id);
          assert.deepEqual(got.comments, comments);
          const dependencies = got.dependencies.map((d: { id: number }) => d.id);
          assert.deepEqual(dependencies, row.depends_on);
        }

        const progress = await s.ok('get_project_progress');
        assert.equal(progress.total, rows.length);
        const byStatus = query<{ status: string; n: number }>(
          project,
          'SELECT status, count(*) AS n FROM tasks GROUP BY status',
        );
        for (const { status, n } of byStatus) assert.equal(progress.by_status[status], n, status);
        const perFeature = query(
          project,
          `SELECT f.name, count(t.id) AS total, sum(t.status = 'done') AS done FROM features f
           LEFT JOIN tasks t ON t.feature = f.name GROUP BY f.name ORDER BY f.name`,
        ).map((r) => ({ name: r.name, done: Number(r.done ?? 0), total: r.total }));
        assert.deepEqual(progress.by_feature, perFeature);
        assert.equal(progress.by_discipline.length, query(project, 'SELECT name FROM disciplines').length);

        // Discipline sessions work although the fixture has no mcp_tool_overrides column.
        const d = query<{ name: string }>(project, 'SELECT name FROM disciplines LIMIT 1')[0]!.name;
        const ds = await startInProc(project, ['--recipe', 'discuss', '--discipline', d]);
        assert.deepEqual(await ds.toolNames(), [
          'list_disciplines',
          'get_discipline',
          'create_discipline',
          'update_discipline',
          'get_project_info',
        ]);
        const disc = await ds.ok('get_discipline', { name: d });
        assert.equal(disc.discipline.mcp_tool_overrides, null);
        await ds.close();
      } finally {
        await s.close();
      }
      assert.equal(dump(project), before, 'reading changed nothing: same schema, same rows');
      assert.equal(userVersion(), 1);
    });
  });
}
