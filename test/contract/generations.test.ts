import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { describe, test } from 'node:test';
import { buildConfig } from '../../src/cli/config.js';
import { doctor } from '../../src/cli/doctor.js';
import { overrides } from '../../src/cli/overrides.js';
import { StartupError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import { openSession } from '../../src/session/open.js';
import { planToJson } from '../../src/session/planJson.js';
import { initProject } from '../../src/store/open/init.js';
import { columnDrift, ralphTables } from '../../src/store/schema.js';
import { Db } from '../../src/db/database.js';
import { emptyProject, query, sampleProject, tempDir } from '../helpers/project.js';
import { openInProc } from './harness.js';
import { alter, fileState } from './support.fixtures.js';

/**
 * Telling Ralph's two schema generations apart (both say user_version 1), refusing what is neither or
 * drifted, and the commands around them, in-process: init's default, doctor naming the generation, config
 * and plan reading the normalized tables. The processes (exit codes, stderr) are test/e2e/generations.test.ts's.
 */

/** Rebuilds a table with changed DDL, as a migration of a newer Ralph would (CHECK lists cannot be ALTERed). */
function rebuild(p: Project, table: string, change: (ddl: string) => string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  const ddl = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table) as string;
  const changed = change(ddl);
  assert.notEqual(changed, ddl, 'the DDL was changed');
  // Ralph's own indexes go with the old table; made again after the rename, as a migration would.
  const indexes = db
    .prepare(
      `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL
       AND name NOT LIKE 'ralph_mcp%'`,
    )
    .pluck()
    .all(table) as string[];
  db.transaction(() => {
    db.exec(changed.replace(`CREATE TABLE ${table}`, `CREATE TABLE ${table}_new`));
    db.exec(
      `INSERT INTO ${table}_new SELECT * FROM ${table}; DROP TABLE ${table};
       ALTER TABLE ${table}_new RENAME TO ${table}`,
    );
    for (const sql of indexes) db.exec(sql);
  })();
  db.close();
}

/** One pattern of several, in order and adjacent (for lines of at most 120 characters). */
const joined = (...parts: RegExp[]) => new RegExp(parts.map((r) => r.source).join(''));
const RESEMBLES = /it resembles Ralph's normalized schema/;

/** The error `fn` throws, which must be a StartupError (a launch refused: exit 2, its message one stderr line). */
function startupError(fn: () => unknown): StartupError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StartupError, String(err));
    assert.equal(err.exitCode, 2);
    assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
    return err;
  }
  assert.fail('expected a StartupError');
}

/** A launch (`--recipe yap`) refuses the database with a message matching `pattern`; the files as they were. */
function refusedAtStart(p: Project, pattern: RegExp): void {
  const before = fileState(p);
  assert.match(startupError(() => openSession({ project: p.root, recipe: 'yap' })).message, pattern);
  assert.deepEqual(fileState(p), before);
}

describe('which generation a database is', () => {
  test("a mix of both generations is refused, naming the one it resembles and the other's tables", () => {
    const p = sampleProject('normalized');
    alter(p, 'CREATE TABLE features (name TEXT PRIMARY KEY)');
    const mixed = /is not a Ralph database \(it also holds tables of the other generation: features\); /;
    refusedAtStart(p, joined(mixed, RESEMBLES));
  });

  test('a normalized database missing a table is refused, naming what it lacks', () => {
    const p = sampleProject('normalized');
    alter(p, 'DROP TABLE task_output_artifacts');
    refusedAtStart(p, joined(/is not a Ralph database \(missing tables: task_output_artifacts\); /, RESEMBLES));
  });

  test('normalized drift: a renamed column, and a changed CHECK list of statuses, are refused', () => {
    const renamed = sampleProject('normalized');
    alter(renamed, 'ALTER TABLE task_details RENAME COLUMN hints TO tips');
    refusedAtStart(renamed, /table task_details lacks column hints \(it has unknown column tips: renamed\?\)/);
    const checks = sampleProject('normalized');
    rebuild(checks, 'runtime_tasks', (ddl) =>
      ddl.replace("'needs_input','failed'", "'needs_input','failed','archived'"),
    );
    const allowing =
      /\(archived,blocked,done,draft,failed,in_progress,needs_input,pending,skipped\) where ralph-mcp knows/;
    refusedAtStart(checks, joined(/table runtime_tasks has a CHECK on status allowing /, allowing));
  });

  test("normalized tables whose statements differ from Ralph's DDL but not in what we use show no drift", () => {
    // A start looks closely only at statements that differ; this makes every one differ, harmlessly.
    const p = sampleProject('normalized');
    alter(
      p,
      ralphTables('normalized')
        .map((t) => `ALTER TABLE "${t}" ADD COLUMN ralph_mcp_test_note TEXT;`)
        .join('\n'),
    );
    const db = Db.open(p.dbPath, { readonly: true });
    try {
      assert.deepEqual(columnDrift(db, ralphTables('normalized'), 'normalized'), []);
    } finally {
      db.close();
    }
    const { store } = openSession({ project: p.root });
    store.close();
  });

  test('doctor names the generation, and shows – (not ✓) for what a failed schema check kept it from', () => {
    const ok = doctor(sampleProject('normalized').root);
    assert.ok(ok.ok, ok.text);
    assert.match(ok.text, /✓ schema +normalized schema \(Ralph's head/);
    assert.match(ok.text, /✓ overrides +stored in ralph_mcp_discipline_overrides\.mcp_tool_overrides/);
    assert.match(doctor(sampleProject('legacy').root).text, /✓ schema +legacy schema/);
    const drifted = sampleProject('normalized');
    alter(drifted, 'ALTER TABLE task_details RENAME COLUMN hints TO tips');
    const r = doctor(drifted.root);
    assert.equal(r.ok, false); // exit 1
    assert.match(r.text, /✗ schema +.*lacks column hints/);
    const labels = ['ralph-mcp tables', 'overrides', 'recipes', 'dependency cycles', 'done tasks waiting'];
    for (const label of labels)
      assert.match(r.text, new RegExp(`^– ${label} +not checked: the schema is not one ralph-mcp can serve$`, 'm'));
    assert.doesNotMatch(r.text, /^✓ (ralph-mcp tables|overrides|recipes)/m);
    assert.match(r.text, /1 check\(s\) failed, 7 not run/);
  });
});

describe("our objects never stand in the way of Ralph's own table rebuilds", () => {
  for (const generation of ['legacy', 'normalized'] as const) {
    test(`every table of Ralph's can be rebuilt (create, copy, drop, rename) beside ours [${generation}]`, async () => {
      const p = sampleProject(generation);
      const s = await openInProc(p);
      await s.ok('add_task_comment', { task_id: 3, body: 'makes our tables' });
      await s.ok('search_tasks', { query: 'recipe' }); // makes the search index and its triggers
      const before = await s.ok('get_project_progress', {});
      await s.close();
      const tables = query<{ name: string }>(
        p,
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ralph_mcp%'
         AND name NOT LIKE 'sqlite_%'`,
      );
      // As a migration of Ralph's would (SQLite's own procedure for changing a table): a later table's
      // rebuild must not be broken by anything of ours on or naming an earlier one.
      for (const { name } of tables) rebuild(p, name, (ddl) => `${ddl} `);
      const again = await openInProc(p);
      await again.ok('set_task_status', { id: 5, status: 'in_progress' }); // a write: our triggers are made again
      const after = await again.ok('get_project_progress', {});
      const hits = (await again.ok('search_tasks', { query: 'typeahead' })).results.map((h: any) => h.id);
      await again.close();
      assert.deepEqual(after.by_feature, before.by_feature);
      assert.deepEqual(hits, [6]);
    });
  }
});

describe('init, and what comes next', () => {
  test("init makes Ralph's current schema with its default disciplines; braindump can then plan", async () => {
    const s = await openInProc(initProject(tempDir(), { title: 'Fresh' }), { recipe: 'braindump' });
    assert.equal(s.store.generation, 'normalized');
    assert.equal((await s.ok('list_disciplines', {})).disciplines.length, 8);
    await s.ok('create_feature', { name: 'core', display_name: 'Core' });
    const first = { feature: 'core', discipline: 'implementation', title: 'First task' };
    const { task: t } = await s.ok('create_task', first);
    await s.close();
    // Ralph's braindump prompt: "tasks are created as drafts by default".
    assert.deepEqual([t.id, t.feature, t.discipline, t.status], [1, 'core', 'implementation', 'draft']);
  });

  test('init --schema legacy --no-disciplines keeps the old shape', async () => {
    const s = await openInProc(initProject(tempDir(), { schema: 'legacy', disciplines: false }), { recipe: 'yap' });
    assert.equal(s.store.generation, 'legacy');
    const { disciplines } = await s.ok('list_disciplines', {});
    await s.close();
    assert.deepEqual(disciplines, []);
  });
});

describe('launch commands on the normalized schema', () => {
  /** What `plan` and `config` compute with these flags (their one code path, openSession). */
  function planned(p: Project, flags: { recipe: string; discipline: string }) {
    const { store, plan } = openSession({ project: p.root, ...flags });
    try {
      return { json: planToJson(plan), config: buildConfig(plan, store, 'claude') as any };
    } finally {
      store.close();
    }
  }

  test("config merges the discipline's MCP servers from Ralph's tables (args in arg_order, env)", () => {
    const p = sampleProject('normalized');
    alter(
      p,
      `INSERT INTO discipline_mcp_servers (id, discipline_id, name, command)
         VALUES (1, (SELECT id FROM disciplines WHERE name = 'backend'), 'db-tools', 'npx');
       INSERT INTO discipline_mcp_server_args (server_id, arg, arg_order) VALUES (1, 'second', 1), (1, 'first', 0);
       INSERT INTO discipline_mcp_server_env (server_id, key, value) VALUES (1, 'DB', 'ralph');`,
    );
    const server = planned(p, { recipe: 'yap', discipline: 'backend' }).config.mcpServers['db-tools'];
    assert.deepEqual(server, { command: 'npx', args: ['first', 'second'], env: { DB: 'ralph' } });
  });

  test('plan reads overrides from our table there, and reports the schema', () => {
    const p = sampleProject('normalized');
    overrides({ project: p.root, discipline: 'backend', disable: ['create_task'] });
    const plan = planned(p, { recipe: 'yap', discipline: 'backend' }).json;
    assert.equal(plan.project.schema, 'normalized');
    assert.ok(plan.disabled_tools.includes('create_task'));
    // A malformed value there fails closed, naming where it lives.
    alter(
      p,
      'UPDATE ralph_mcp_discipline_overrides SET mcp_tool_overrides = \'{"additional_disabled": ["no_such_tool"]}\'',
    );
    const err = startupError(() => openSession({ project: p.root, recipe: 'yap', discipline: 'backend' }));
    const where = /ralph_mcp_discipline_overrides\.mcp_tool_overrides of discipline "backend" /;
    assert.match(err.message, joined(where, /names unknown tool\(s\): no_such_tool/));
  });

  test('a legacy database written before SPEC-070 has nowhere to keep overrides until one is set', () => {
    const p = emptyProject();
    alter(p, 'ALTER TABLE disciplines DROP COLUMN mcp_tool_overrides');
    assert.match(doctor(p.root).text, /✓ overrides +none set yet/);
  });
});
