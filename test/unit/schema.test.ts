import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { FIXTURE_SKIP, HEAD_FIXTURE_SKIP, HEAD_FIXTURES, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { emptyProject, fixtureProject, tempDir } from '../helpers/project.js';
import { initProject } from '../../src/store/open/init.js';

/** The DDL in schema/ralph.sql produces exactly Ralph's schema (plus SPEC-070's one nullable column). */
function describeSchema(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const sql = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name";
    const overrides = "SELECT * FROM pragma_table_info('disciplines') WHERE name = 'mcp_tool_overrides'";
    return {
      userVersion: db.pragma('user_version', { simple: true }),
      objects: (db.prepare(sql).all() as { type: string; name: string; sql: string }[]).map((o) => ({
        ...o,
        // Compare the DDL text modulo whitespace, minus the SPEC-070 column Ralph's files lack.
        sql: o.sql.replace(/,\s*mcp_tool_overrides TEXT DEFAULT NULL/, '').replace(/\s+/g, ' '),
      })),
      overrides: (db.prepare(overrides).get() ?? null) as Record<string, unknown> | null,
    };
  } finally {
    db.close();
  }
}

test("init creates the schema of Ralph's own databases", { skip: FIXTURE_SKIP }, () => {
  const ours = describeSchema(emptyProject().dbPath);
  // A copy: opening the fixture where it lies would leave -wal/-shm files in the shared folder.
  const ralphs = describeSchema(fixtureProject('04-desktop-dev.db').dbPath);
  assert.equal(ours.userVersion, 1);
  assert.deepEqual(ours.objects, ralphs.objects);
  assert.equal(ralphs.overrides, null);
  const column = { cid: 14, name: 'mcp_tool_overrides', type: 'TEXT', notnull: 0, dflt_value: 'NULL', pk: 0 };
  assert.deepEqual(ours.overrides, column);
});

test("init's default (normalized) is Ralph's head schema, object for object", { skip: HEAD_FIXTURE_SKIP }, () => {
  const ours = describeSchema(initProject(tempDir(), { disciplines: false }).dbPath);
  for (const f of HEAD_FIXTURES) {
    const ralphs = describeSchema(fixtureProject(f, HEAD_FIXTURES_DIR).dbPath);
    assert.equal(ralphs.userVersion, 1, f);
    assert.deepEqual(ours.objects, ralphs.objects, f);
  }
  assert.equal(ours.userVersion, 1);
  assert.equal(ours.overrides, null, "no column of ours in Ralph's tables");
});

test("init seeds Ralph's eight default disciplines on either schema, or none", () => {
  const defaults = 'implementation refactoring investigation testing architecture devops security documentation';
  const names = (p: string) => {
    const db = new Database(p, { readonly: true });
    try {
      return db.prepare('SELECT name FROM disciplines ORDER BY rowid').pluck().all();
    } finally {
      db.close();
    }
  };
  for (const schema of ['normalized', 'legacy'] as const) {
    assert.deepEqual(names(initProject(tempDir(), { schema }).dbPath), defaults.split(' '), schema);
    assert.deepEqual(names(initProject(tempDir(), { schema, disciplines: false }).dbPath), [], schema);
  }
});
