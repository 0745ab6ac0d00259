import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import { doctor } from '../../src/cli/doctor.js';
import { StartupError } from '../../src/domain/errors.js';
import { openSession } from '../../src/session/open.js';
import { planToText } from '../../src/session/planJson.js';
import { columnDrift, expectedColumns, RALPH_TABLES } from '../../src/store/schema.js';
import { Db } from '../../src/db/database.js';
import type { Project } from '../../src/domain/project.js';
import { FIXTURE_SKIP, FIXTURES } from '../helpers/env.js';
import { fixtureProject, query, sampleProject } from '../helpers/project.js';
import { sessions } from './support.security.js';

/**
 * Issue 7, schema drift: a database written by a newer Ralph (another user_version, a column missing
 * or renamed, a NOT NULL column our inserts do not fill) is refused at startup (a StartupError: exit 2,
 * one line naming the table and the column; the CLI side is test/e2e/security.test.ts's), and the file
 * is left byte for byte as it was, with no -wal/-shm beside it. Extra nullable columns (or ones with a
 * default) are fine, and still written. The legacy generation's; the normalized one's is generations.test.ts's.
 */

/** Changes the database as another Ralph would, with its own connection, then closes it cleanly. */
function alter(p: Project, statements: string, journal: 'wal' | 'delete' = 'wal'): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  db.exec(statements);
  if (journal === 'delete') db.pragma('journal_mode = DELETE');
  db.close();
}

/**
 * Adds `column TEXT NOT NULL` (no default) to `table` the way a migration must (ALTER TABLE cannot):
 * a new table with the column, the rows copied over, the old one dropped and the new one renamed.
 */
function addRequiredColumn(p: Project, table: string, column: string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  const ddl = (
    db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string }
  ).sql;
  const withColumn = ddl
    .replace(/\)\s*STRICT\s*$/, `, ${column} TEXT NOT NULL) STRICT`)
    .replace(`CREATE TABLE ${table}`, `CREATE TABLE ${table}_new`);
  assert.notEqual(withColumn, ddl);
  db.transaction(() => {
    db.exec(withColumn);
    db.exec(
      `INSERT INTO ${table}_new SELECT *, 'someone' FROM ${table}; DROP TABLE ${table}; ALTER TABLE ${table}_new RENAME TO ${table}`,
    );
  })();
  db.close();
}

/** The database file's hash, and the files beside it (a refused start must leave both as they were). */
function fileState(p: Project): { hash: string; files: string[] } {
  const hash = createHash('sha256').update(readFileSync(p.dbPath)).digest('hex');
  return { hash, files: readdirSync(dirname(p.dbPath)).sort() };
}

const DRIFTS: [string, string, RegExp, ('wal' | 'delete')?][] = [
  ['a newer user_version', 'PRAGMA user_version = 2', /has schema version 2; this ralph-mcp understands version 1/],
  [
    'a renamed column',
    'ALTER TABLE tasks RENAME COLUMN hints TO tips',
    /table tasks lacks column hints \(it has unknown column tips: renamed\?\)/,
  ],
  ['a dropped column', 'ALTER TABLE task_comments DROP COLUMN priority', /table task_comments lacks column priority/],
  [
    'two columns gone from one table',
    'ALTER TABLE features DROP COLUMN boundaries; ALTER TABLE features DROP COLUMN architecture',
    /table features lacks columns architecture, boundaries/,
  ],
  [
    'a NOT NULL column without a default',
    'task_comments.owner',
    /table task_comments has NOT NULL column without a default that ralph-mcp does not fill: owner/,
  ],
  [
    'a renamed table',
    'ALTER TABLE task_comments RENAME TO comments',
    /is not a Ralph database \(missing tables: task_comments\)/,
  ],
  // A rollback-journal database: opening it for writing would switch it to WAL and rewrite its header.
  ['a newer user_version, journal_mode DELETE', 'PRAGMA user_version = 3', /has schema version 3/, 'delete'],
  [
    'a renamed column, journal_mode DELETE',
    'ALTER TABLE disciplines RENAME COLUMN conventions TO rules',
    /table disciplines lacks column conventions \(it has unknown column rules: renamed\?\)/,
    'delete',
  ],
];

/** The session plan `serve` and `plan` build with these flags (src/session/open.ts): what a launch opens. */
const launch = (p: Project) => {
  const { store, plan } = openSession({ project: p.root, recipe: 'yap' });
  store.close();
  return planToText(plan);
};

describe('a database from another Ralph is refused at startup and left untouched', () => {
  for (const [label, statements, pattern, journal] of DRIFTS) {
    test(label, () => {
      const p = sampleProject();
      if (label.includes('NOT NULL')) addRequiredColumn(p, ...(statements.split('.') as [string, string]));
      else alter(p, statements, journal);
      const before = fileState(p);
      assert.ok(
        !before.files.some((f) => f.endsWith('-wal') || f.endsWith('-shm')),
        `no WAL files to start with: ${before.files.join(', ')}`,
      );
      assert.throws(
        () => launch(p),
        (e: Error) => {
          assert.ok(e instanceof StartupError && e.exitCode === 2, String(e));
          assert.match(e.message, /^[^\n]*$/, 'one line');
          assert.match(e.message, pattern);
          return true;
        },
      );
      assert.deepEqual(fileState(p), before, 'the file and its folder are unchanged');
    });
  }
});

describe('drift ralph-mcp copes with', () => {
  const open = sessions();

  test('extra nullable columns and columns with a default: served, and inserts still work', async () => {
    const p = sampleProject();
    alter(
      p,
      "ALTER TABLE tasks ADD COLUMN assignee TEXT; ALTER TABLE tasks ADD COLUMN effort INTEGER NOT NULL DEFAULT 1; ALTER TABLE task_comments ADD COLUMN edited TEXT; ALTER TABLE features ADD COLUMN color TEXT DEFAULT '#fff'; ALTER TABLE metadata ADD COLUMN theme TEXT",
    );
    const s = await open(p, ['--recipe', 'yap']);
    const { id } = (await s.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Newer schema' }))
      .task;
    await s.ok('update_task', { id, description: 'still fine' });
    assert.deepEqual(query(p, 'SELECT assignee, effort FROM tasks WHERE id = ?', id), [{ assignee: null, effort: 1 }]);
  });

  test('served: a NOT NULL column without a default where we never insert; no SPEC-070 overrides column', () => {
    const [p, q] = [sampleProject(), sampleProject()];
    addRequiredColumn(p, 'recipe_configs', 'owner');
    alter(q, 'ALTER TABLE disciplines DROP COLUMN mcp_tool_overrides');
    launch(p);
    launch(q);
  });

  test("Ralph's own fixture databases show no drift", { skip: FIXTURE_SKIP }, () => {
    for (const f of FIXTURES) {
      const p = fixtureProject(f);
      const db = Db.open(p.dbPath, { readonly: true });
      try {
        assert.deepEqual(columnDrift(db, RALPH_TABLES), [], f);
      } finally {
        db.close();
      }
    }
  });

  test('the expected columns come from schema/ralph.sql', () => {
    const cols = expectedColumns();
    assert.deepEqual([...cols.keys()], [...RALPH_TABLES]);
    assert.ok(cols.get('tasks')!.some((c) => c.name === 'pseudocode'));
    assert.ok(cols.get('disciplines')!.some((c) => c.name === 'mcp_tool_overrides'));
  });
});

test('doctor reports schema drift (and fails) instead of passing the schema check', () => {
  const p = sampleProject();
  alter(p, 'ALTER TABLE tasks RENAME COLUMN hints TO tips');
  const r = doctor(p.root);
  assert.equal(r.ok, false, r.text);
  assert.match(r.text, /schema drift: .*tasks.*hints/);
});
