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
    const objects = db
      .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as {
      type: string;
      name: string;
      sql: string;
    }[];
    return {
      userVersion: db.pragma('user_version', { simple: true }),
      objects: objects.map((o) => ({
        ...o,
        // Compare the DDL text modulo whitespace, minus the SPEC-070 column Ralph's files lack.
        sql: o.sql.replace(/,\s*mcp_tool_overrides TEXT DEFAULT NULL/, '').replace(/\s+/g, ' '),
      })),
      overrides: (db
        .prepare("SELECT * FROM pragma_table_info('disciplines') WHERE name = 'mcp_tool_overrides'")
        .get() ?? null) as Record<string, unknown> | null,
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
  assert.deepEqual(ours.overrides, {
    cid: 14,
    name: 'mcp_tool_overrides',
    type: 'TEXT',
    notnull: 0,
    dflt_value: 'NULL',
    pk: 0,
  });
});

test("init's default (normalized) schema is Ralph's head schema, object for object", {
  skip: HEAD_FIXTURE_SKIP,
}, () => {
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
  for (const schema of ['normalized', 'legacy'] as const) {
    const names = (p: string) => {
      const db = new Database(p, { readonly: true });
      try {
        return (db.prepare('SELECT name FROM disciplines ORDER BY rowid').all() as { name: string }[]).map(
          (r) => r.name,
        );
      } finally {
        db.close();
      }
    };
    assert.deepEqual(
      names(initProject(tempDir(), { schema }).dbPath),
      [
        'implementation',
        'refactoring',
        'investigation',
        'testing',
        'architecture',
        'devops',
        'security',
        'documentation',
      ],
      schema,
    );
    assert.deepEqual(names(initProject(tempDir(), { schema, disciplines: false }).dbPath), [], schema);
  }
});
