import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { openInProc } from './harness.js';
import { emptyProject, sampleProject, tempDir } from '../helpers/project.js';
import { projectPaths } from '../../src/domain/project.js';
import { runCli } from '../helpers/server.js';

/**
 * Telling Ralph's two schema generations apart (both say user_version 1), refusing what is neither or
 * drifted, and the commands around them: init's default, doctor naming the generation, config and plan
 * reading the normalized tables.
 */

function alter(p: Project, statements: string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  db.exec(statements);
  db.close();
}

/** Rebuilds a table with changed DDL, as a migration of a newer Ralph would (CHECK lists cannot be ALTERed). */
function rebuild(p: Project, table: string, change: (ddl: string) => string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  const ddl = (
    db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string }
  ).sql;
  const changed = change(ddl);
  assert.notEqual(changed, ddl, 'the DDL was changed');
  // Ralph's own indexes go with the old table; made again after the rename, as a migration would.
  const indexes = (
    db
      .prepare(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL AND name NOT LIKE 'ralph_mcp%'",
      )
      .all(table) as { sql: string }[]
  ).map((r) => r.sql);
  db.transaction(() => {
    db.exec(changed.replace(`CREATE TABLE ${table}`, `CREATE TABLE ${table}_new`));
    db.exec(
      `INSERT INTO ${table}_new SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE ${table}_new RENAME TO ${table}`,
    );
    for (const sql of indexes) db.exec(sql);
  })();
  db.close();
}

const fileState = (p: Project) => ({
  hash: createHash('sha256').update(readFileSync(p.dbPath)).digest('hex'),
  files: readdirSync(dirname(p.dbPath)).sort(),
});

/** serve refuses the database: exit 2, one line matching `pattern`, the file and its folder as they were. */
function refusedAtStart(p: Project, pattern: RegExp): void {
  const before = fileState(p);
  const r = runCli(['--project', p.root, '--recipe', 'yap']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
  assert.deepEqual(fileState(p), before);
}

describe('which generation a database is', () => {
  test("a mix of both generations is refused, naming the one it resembles and the other's tables", () => {
    const p = sampleProject('normalized');
    alter(p, 'CREATE TABLE features (name TEXT PRIMARY KEY)');
    refusedAtStart(
      p,
      /is not a Ralph database \(it also holds tables of the other generation: features\); it resembles Ralph's normalized schema/,
    );
  });

  test('a normalized database missing a table is refused, naming what it lacks', () => {
    const p = sampleProject('normalized');
    alter(p, 'DROP TABLE task_output_artifacts');
    refusedAtStart(
      p,
      /is not a Ralph database \(missing tables: task_output_artifacts\); it resembles Ralph's normalized schema/,
    );
  });

  test('normalized drift: a renamed column, and a changed CHECK list of statuses, are refused', () => {
    const renamed = sampleProject('normalized');
    alter(renamed, 'ALTER TABLE task_details RENAME COLUMN hints TO tips');
    refusedAtStart(renamed, /table task_details lacks column hints \(it has unknown column tips: renamed\?\)/);
    const checks = sampleProject('normalized');
    rebuild(checks, 'runtime_tasks', (ddl) =>
      ddl.replace("'needs_input','failed'", "'needs_input','failed','archived'"),
    );
    refusedAtStart(
      checks,
      /table runtime_tasks has a CHECK on status allowing \(archived,blocked,done,draft,failed,in_progress,needs_input,pending,skipped\) where ralph-mcp knows/,
    );
  });

  test('doctor names the generation, and shows – (not ✓) for what a failed schema check kept it from checking', () => {
    const ok = runCli(['doctor', '--project', sampleProject('normalized').root]);
    assert.equal(ok.status, 0, ok.stdout);
    assert.match(ok.stdout, /✓ schema +normalized schema \(Ralph's head/);
    assert.match(ok.stdout, /✓ overrides +stored in ralph_mcp_discipline_overrides\.mcp_tool_overrides/);
    const legacy = runCli(['doctor', '--project', sampleProject('legacy').root]);
    assert.match(legacy.stdout, /✓ schema +legacy schema/);
    const drifted = sampleProject('normalized');
    alter(drifted, 'ALTER TABLE task_details RENAME COLUMN hints TO tips');
    const r = runCli(['doctor', '--project', drifted.root]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ schema +.*lacks column hints/);
    for (const label of ['ralph-mcp tables', 'overrides', 'recipes'])
      assert.match(r.stdout, new RegExp(`^– ${label} +not checked: the schema is not one ralph-mcp can serve$`, 'm'));
    assert.doesNotMatch(r.stdout, /^✓ (ralph-mcp tables|overrides|recipes)/m);
    assert.match(r.stdout, /1 check\(s\) failed, 3 not run/);
  });
});

describe("our objects never stand in the way of Ralph's own table rebuilds", () => {
  for (const generation of ['legacy', 'normalized'] as const) {
    test(`every table of Ralph's can be rebuilt (create, copy, drop, rename) with our triggers and indexes in place [${generation}]`, async () => {
      const p = sampleProject(generation);
      const s = await openInProc(p);
      await s.ok('add_task_comment', { task_id: 3, body: 'makes our tables' });
      await s.ok('search_tasks', { query: 'recipe' }); // makes the search index and its triggers
      const before = await s.ok('get_project_progress', {});
      await s.close();
      const db = new Database(p.dbPath);
      const tables = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ralph_mcp%' AND name NOT LIKE 'sqlite_%'",
          )
          .all() as { name: string }[]
      ).map((r) => r.name);
      db.close();
      // As a migration of Ralph's would (SQLite's own procedure for changing a table): a later table's
      // rebuild must not be broken by anything of ours on or naming an earlier one.
      for (const table of tables) rebuild(p, table, (ddl) => `${ddl} `);
      const again = await openInProc(p);
      try {
        await again.ok('set_task_status', { id: 5, status: 'in_progress' }); // a write: our triggers are made again
        assert.deepEqual((await again.ok('get_project_progress', {})).by_feature, before.by_feature);
        assert.deepEqual(
          (await again.ok('search_tasks', { query: 'typeahead' })).results.map((h: any) => h.id),
          [6],
        );
      } finally {
        await again.close();
      }
    });
  }
});

describe('init, and what comes next', () => {
  test("init makes Ralph's current schema with its default disciplines, and says what to run next; braindump can then plan", async () => {
    const dir = tempDir();
    const r = runCli(['init', '--project', dir, '--title', 'Fresh']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /created .*ralph\.db \(normalized schema, default disciplines\)/);
    assert.match(r.stdout, /next: ralph-mcp --project .* --recipe braindump/);
    const p = projectPaths(dir);
    const s = await openInProc(p, { recipe: 'braindump' });
    try {
      assert.equal(s.store.generation, 'normalized');
      assert.equal((await s.ok('list_disciplines', {})).disciplines.length, 8);
      await s.ok('create_feature', { name: 'core', display_name: 'Core' });
      const t = (await s.ok('create_task', { feature: 'core', discipline: 'implementation', title: 'First task' }))
        .task;
      assert.deepEqual([t.id, t.feature, t.discipline, t.status], [1, 'core', 'implementation', 'pending']);
    } finally {
      await s.close();
    }
  });

  test('init --schema legacy --no-disciplines keeps the old shape', async () => {
    const dir = tempDir();
    assert.equal(runCli(['init', '--project', dir, '--schema', 'legacy', '--no-disciplines']).status, 0);
    const s = await openInProc(projectPaths(dir), { recipe: 'yap' });
    try {
      assert.equal(s.store.generation, 'legacy');
      assert.deepEqual((await s.ok('list_disciplines', {})).disciplines, []);
    } finally {
      await s.close();
    }
  });
});

describe('launch commands on the normalized schema', () => {
  test("config merges the discipline's MCP servers from Ralph's tables (args in arg_order, env)", () => {
    const p = sampleProject('normalized');
    alter(
      p,
      `INSERT INTO discipline_mcp_servers (id, discipline_id, name, command) VALUES (1, (SELECT id FROM disciplines WHERE name = 'backend'), 'db-tools', 'npx');
       INSERT INTO discipline_mcp_server_args (server_id, arg, arg_order) VALUES (1, 'second', 1), (1, 'first', 0);
       INSERT INTO discipline_mcp_server_env (server_id, key, value) VALUES (1, 'DB', 'ralph');`,
    );
    const r = runCli(['config', '--project', p.root, '--recipe', 'yap', '--discipline', 'backend']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).mcpServers['db-tools'], {
      command: 'npx',
      args: ['first', 'second'],
      env: { DB: 'ralph' },
    });
  });

  test('plan reads overrides from our table there, and reports the schema', () => {
    const p = sampleProject('normalized');
    assert.equal(
      runCli(['overrides', '--project', p.root, '--discipline', 'backend', '--disable', 'create_task']).status,
      0,
    );
    const plan = JSON.parse(
      runCli(['plan', '--project', p.root, '--recipe', 'yap', '--discipline', 'backend', '--json']).stdout,
    );
    assert.equal(plan.project.schema, 'normalized');
    assert.ok(plan.disabled_tools.includes('create_task'));
    // A malformed value there fails closed, naming where it lives.
    alter(
      p,
      'UPDATE ralph_mcp_discipline_overrides SET mcp_tool_overrides = \'{"additional_disabled": ["no_such_tool"]}\'',
    );
    const bad = runCli(['--project', p.root, '--recipe', 'yap', '--discipline', 'backend']);
    assert.equal(bad.status, 2);
    assert.match(
      bad.stderr,
      /ralph_mcp_discipline_overrides\.mcp_tool_overrides of discipline "backend" names unknown tool\(s\): no_such_tool/,
    );
  });

  test('a legacy database written before SPEC-070 has nowhere to keep overrides until one is set', () => {
    const p = emptyProject();
    alter(p, 'ALTER TABLE disciplines DROP COLUMN mcp_tool_overrides');
    assert.match(runCli(['doctor', '--project', p.root]).stdout, /✓ overrides +none set yet/);
  });
});
