import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSampleProject } from '../../scripts/sampleProject.js';
import { initProject, projectPaths, type Project } from '../../src/project.js';
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

/** The sample project (see scripts/sampleProject.ts), freshly made in a temp dir. */
export const sampleProject = (): Project => createSampleProject(tempDir());

/** An empty project made by `init`. */
export const emptyProject = (): Project => initProject(tempDir());

/** A temp project holding a copy of one of Ralph's fixture databases (the original is never touched). */
export function fixtureProject(file: string): Project {
  const p = projectPaths(tempDir());
  mkdirSync(join(p.ralphDir, 'db'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(join(FIXTURES_DIR, file + suffix))) copyFileSync(join(FIXTURES_DIR, file + suffix), p.dbPath + suffix);
  }
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
  const db = sql(project);
  try {
    return db.prepare(text).all(...params) as T[];
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
  const db = sql(project);
  try {
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type IN ('table','index') AND substr(tbl_name, 1, 10) <> 'ralph_mcp_' AND substr(name, 1, 10) <> 'ralph_mcp_' ORDER BY name")
      .all() as { name: string; sql: string }[];
    const parts = tables.map((t) => t.sql ?? '');
    for (const t of tables) {
      if (!t.sql?.startsWith('CREATE TABLE')) continue;
      parts.push(JSON.stringify(db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all()));
    }
    return parts.join('\n');
  } finally {
    db.close();
  }
}

export function setOverrides(project: Project, discipline: string, disabled: string[] | string | null): void {
  const db = sql(project);
  const value = disabled === null ? null : typeof disabled === 'string' ? disabled : JSON.stringify({ additional_disabled: disabled });
  db.prepare('UPDATE disciplines SET mcp_tool_overrides = ? WHERE name = ?').run(value, discipline);
  db.close();
}
