import Database from 'better-sqlite3';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSampleProject } from '../../scripts/sampleProject.js';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { initProject } from '../../src/store/open/init.js';
import type { Generation } from '../../src/store/records.js';
import { FIXTURES_DIR } from './env.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'ralph-mcp-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** The sample project (see scripts/sampleProject.ts), freshly made in a temp dir: legacy unless asked. */
export const sampleProject = (schema: Generation = 'legacy'): Project =>
  createSampleProject(tempDir(), undefined, schema);

/** An empty project made by `init`: the legacy generation, no disciplines (what the tests written for it expect). */
export const emptyProject = (): Project => initProject(tempDir(), { schema: 'legacy', disciplines: false });

/**
 * A temp project holding a copy of one of Ralph's fixture databases (the original is never touched):
 * the legacy ones by default, Ralph's head's with dir = HEAD_FIXTURES_DIR.
 */
export function fixtureProject(file: string, dir: string = FIXTURES_DIR): Project {
  const p = projectPaths(tempDir());
  mkdirSync(join(p.ralphDir, 'db'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(join(dir, file + suffix))) copyFileSync(join(dir, file + suffix), p.dbPath + suffix);
  }
  // The fixtures are read-only files; a copy must be writable like any project's database.
  chmodSync(p.dbPath, 0o644);
  writeFileSync(p.learningsFile, '');
  writeFileSync(p.progressFile, '');
  return p;
}

/** Direct SQL access for reading back what the server wrote (a second connection, as Ralph would). */
export function sql(project: Project): Database.Database {
  const db = new Database(project.dbPath);
  db.pragma('busy_timeout = 5000');
  return db;
}

export function query<T = Record<string, unknown>>(project: Project, text: string, ...params: unknown[]): T[] {
  return withSql(project, (db) => db.prepare(text).all(...params) as T[]);
}

function withSql<T>(project: Project, read: (db: Database.Database) => T): T {
  const db = sql(project);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/**
 * A full logical dump of Ralph's data (schema + every row), to prove that a refused call changed
 * nothing. ralph-mcp's own tables (ralph_mcp_*, by table: the audit record, signals, the search index) are left
 * out: recording a refused call is what they are for.
 */
export function dump(project: Project): string {
  return withSql(project, (db) => {
    const tables = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type IN ('table','index') AND substr(tbl_name, 1, 10) <> 'ralph_mcp_' AND substr(name, 1, 10) <> 'ralph_mcp_' ORDER BY name",
      )
      .all() as { name: string; sql: string }[];
    const rows = tables
      .filter((t) => t.sql?.startsWith('CREATE TABLE'))
      .map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all()));
    return [...tables.map((t) => t.sql ?? ''), ...rows].join('\n');
  });
}

export function setOverrides(project: Project, discipline: string, disabled: string[] | string | null): void {
  const value = Array.isArray(disabled) ? JSON.stringify({ additional_disabled: disabled }) : disabled;
  const db = sql(project);
  db.prepare('UPDATE disciplines SET mcp_tool_overrides = ? WHERE name = ?').run(value, discipline);
  db.close();
}
