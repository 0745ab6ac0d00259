import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURE_SKIP, FIXTURES_DIR } from '../helpers/env.js';
import { emptyProject } from '../helpers/project.js';

/** The DDL in schema/ralph.sql produces exactly Ralph's schema (plus SPEC-070's one nullable column). */
function describeSchema(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const objects = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
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
      overrides: (db.prepare("SELECT * FROM pragma_table_info('disciplines') WHERE name = 'mcp_tool_overrides'").get() ?? null) as Record<string, unknown> | null,
    };
  } finally {
    db.close();
  }
}

test('init creates the schema of Ralph\'s own databases', { skip: FIXTURE_SKIP }, () => {
  const ours = describeSchema(emptyProject().dbPath);
  const ralphs = describeSchema(join(FIXTURES_DIR, '04-desktop-dev.db'));
  assert.equal(ours.userVersion, 1);
  assert.deepEqual(ours.objects, ralphs.objects);
  assert.equal(ralphs.overrides, null);
  assert.deepEqual(ours.overrides, { cid: 14, name: 'mcp_tool_overrides', type: 'TEXT', notnull: 0, dflt_value: 'NULL', pk: 0 });
});
